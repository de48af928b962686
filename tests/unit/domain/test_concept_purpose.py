"""Round 12 (2026-12-05): in an abstract's title "X for Y", X is the main block and Y (what X is for) is not AND-ed
with it when the abstract reviews X as a class of members (it names them, or compares them with each other); a
list of names may begin right after a noun phrase, whose head is no name. Every text here is invented (drug names,
conditions)."""

from __future__ import annotations

from agentr_dagster.domain.boolean_query import matches, parse_boolean_query
from agentr_dagster.llm.offline.concepts import extract_concepts


def _hits(text: str, record: str) -> bool:
    return matches(parse_boolean_query(extract_concepts(text).boolean_query()), record)


# the condition is named in more sentences than the class: by counts alone it would be the main block
_NAMED = ("Comparative effectiveness of uricase blockers for chronic gout: a systematic review. Background: "
          "Chronic gout is common and chronic gout flares are painful. Methods: We searched MEDLINE to May 2020. "
          "Results: Fourteen trials compared zelbrinase, quorvatil or dranefix with placebo in chronic gout (RR 1.3, "
          "95% CI 1.1 to 1.6). Conclusions: In chronic gout the choice of agent matters little.")


def test_the_class_a_title_puts_before_for_is_main_and_its_use_is_not_anded():
    plan = extract_concepts(_NAMED)
    main = plan.main()
    assert main is not None and "blockers" in main.label.casefold()
    # a trial of a member in another use is found; one of the use alone is not
    assert _hits(_NAMED, "Quorvatil in renal stones: a randomised trial")
    assert _hits(_NAMED, "Uricase blockers in healthy volunteers")
    assert not _hits(_NAMED, "Chronic gout and diet: a cohort")


_WITHIN = ("Long-acting velnoids for chronic neck pain: a systematic review. Background: Chronic neck pain is "
           "disabling, and chronic neck pain clinics prescribe long-acting velnoids. Objective: To assess whether "
           "long-acting velnoids differ from one another in benefits and harms in chronic neck pain. Methods: We "
           "searched MEDLINE to May 2020. Results: Nine trials were included. Conclusions: No velnoid was better.")


def test_a_class_compared_with_itself_is_main_without_a_list_of_names():
    assert _hits(_WITHIN, "Long-acting velnoids in cancer pain: a randomised trial")
    assert _hits(_WITHIN, "Long-acting velnoids for chronic neck pain")


_THERAPY = ("Mindful gardening for chronic neck pain: a systematic review. Background: Chronic neck pain is "
            "disabling. Methods: We searched MEDLINE to May 2020 for trials comparing mindful gardening with a "
            "waiting list in chronic neck pain. Results: Nine trials were included. Conclusions: Mindful gardening "
            "helps in chronic neck pain.")


def test_a_title_for_without_a_class_of_members_keeps_its_and():
    # one intervention, neither members named nor compared with each other: its use stays AND-ed
    assert not _hits(_THERAPY, "Mindful gardening in primary schools")
    assert _hits(_THERAPY, "Mindful gardening for chronic neck pain: a trial")
    # a comparison with another concept ("X versus Z for Y") is no head of Y either
    versus = _WITHIN.replace("Long-acting velnoids for", "Long-acting velnoids versus physiotherapy for", 1)
    assert not _hits(versus, "Long-acting velnoids in cancer pain: a randomised trial")


_LISTED = ("Uricase blockers for chronic gout: a systematic review. Methods: We included trials of adults with "
           "chronic gout (atrial quernosis, renal tophi) comparing zelbrinase, quorvatil, dranefix or melvocine "
           "with placebo. Results: In atrial quernosis, zelbrinase and quorvatil were similar.")


def test_a_list_of_names_begins_after_a_noun_phrase_and_never_takes_its_head():
    terms = [t for b in extract_concepts(_LISTED).blocks for t in b.terms]
    # "comparing zelbrinase" begins the list although the item before it ended in a rare word
    assert {"zelbrinas*", "quorvatil*", "dranefix*", "melvocin*"} <= set(terms)
    # "atrial quernosis" is a condition's phrase, not a name ("in atrial quernosis, zelbrinase and quorvatil")
    assert not any(t.startswith("quernos") for t in terms)


_INTERRUPTED = ("Oral uricase blockers for chronic gout: a systematic review. Study selection: Trials comparing "
                "zelbrinase, glinides (quorvatil, dranefix, melvocine), or beta-glinide inhibitors (trevagose, "
                "miglatan) with each other or with placebo.")


def test_a_list_interrupted_by_a_class_phrase_is_one_list():
    terms = [t for b in extract_concepts(_INTERRUPTED).blocks for t in b.terms]
    assert {"quorvatil*", "trevagos*", "miglatan*"} <= set(terms)
    # two names alone are no list
    pair = _INTERRUPTED.replace("zelbrinase, glinides (quorvatil, dranefix, melvocine), or ", "")
    assert not any(t.startswith(("trevagos", "miglatan")) for b in extract_concepts(pair).blocks for t in b.terms)
