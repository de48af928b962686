"""Concept blocks of abstract-like texts: the rules of 2026-12-05 (branch h32w), read off abstracts written for
the queries bench. Every text here is invented (drug and compound names included)."""

from __future__ import annotations

from agentr_dagster.domain.boolean_query import matches, parse_boolean_query
from agentr_dagster.llm.offline.concepts import extract_concepts


def _query(text: str) -> str:
    return extract_concepts(text).boolean_query()


def _hits(text: str, record: str) -> bool:
    return matches(parse_boolean_query(_query(text)), record)


def _terms(text: str) -> list[str]:
    return [t for b in extract_concepts(text).blocks for t in b.terms]


_NAMED = ("Antifungal sprays for chronic sinusitis: a systematic review and meta-analysis. Background: Sinusitis is "
          "common. Methods: We searched MEDLINE to May 2020 (PROSPERO CRD42020000001). Results: Twelve trials "
          "compared zorvanol, quelmitase or draxofungin with placebo; relief was greater with any spray (RR 1.4, "
          "95% CI 1.1 to 1.8). Conclusions: Antifungal sprays help.")


def test_a_list_of_names_joins_the_class_the_title_names_in_the_plural():
    # a trial names its drug ("zorvanol nasal spray"), seldom the class
    terms = _terms(_NAMED)
    assert {"zorvanol*", "quelmitas*", "draxofungin*"} <= set(terms)
    assert _hits(_NAMED, "Quelmitase for chronic sinusitis: a randomised trial")
    # the class is reviewed with its members named: "X for Y" no longer AND-s the use (round 12,
    # tests/unit/domain/test_concept_purpose.py); the class's members are found in any use
    assert _hits(_NAMED, "Quelmitase in otitis media")


def test_a_list_of_names_does_not_join_a_mass_noun_nor_take_a_modifier_before_its_noun():
    # "hibernation" has no members; "zorvic membranes" is a phrase, not a name
    text = ("Hibernation and thermogenesis: a systematic review. Tissue levels of zorvanol, quelmitase and "
            "draxofungin rose during torpor (p = 0.01).")
    assert not any(t.startswith(("zorvanol", "quelmitase")) for t in _terms(text))
    listed = _NAMED.replace("compared zorvanol, quelmitase or draxofungin", "compared zorvanol, zorvic membranes, "
                            "quelmitase or draxofungin")
    assert "zorvic*" not in _terms(listed)


def test_a_modifier_and_its_own_negation_leave_the_phrase():
    # "steroidal and non-steroidal" are every kind of ointment: the block is the ointments, not "steroidal"
    # (steroid* AND-ed or OR-ed in would find any steroid study, or miss an ointment study that names no kind)
    text = ("Steroidal and non-steroidal ointments for hand eczema: a systematic review. We assessed ointments "
            "for hand eczema.")
    assert not any(t.startswith("steroid") for t in _terms(text))
    assert _hits(text, "Ointments for chronic hand eczema")
    said_twice = ("Selective and non-selective channel openers for stable angina: a systematic review. We compared "
                  "selective and non-selective channel openers in angina.")
    assert not any("selective and" in t for t in _terms(said_twice))
    # a coordination before a verb is left as it was
    plan = extract_concepts("Smokers and non-smokers were compared for lung fibrosis: a review.")
    assert any("smoker" in t.casefold() for t in (t for b in plan.blocks for t in b.terms))


def test_a_word_after_a_preposition_or_a_conjunction_is_no_verb():
    # "cough variant asthma": "cough" can be a verb, but not right after "and" or "without"
    text = ("Inhalers for Chronic Bronchitis and Cough Variant Asthma in Adults: a systematic review. We included "
            "adults with bronchitis with or without cough variant asthma.")
    plan = extract_concepts(text)
    labels = [b.label.casefold() for b in plan.blocks if b.required]
    assert not any(label == "variant asthma" for label in labels)
    assert _hits(text, "Steroid inhalers in cough variant asthma")


def test_examples_of_a_concept_in_any_sentence_join_it():
    # the background says what kinds of the concept exist; its studies name the kinds
    text = ("Light therapy with coloured lamps for neonatal jaundice: a systematic review. Background: Coloured "
            "lamps such as blue diodes and halogen spotlights are used in nurseries. Methods: We searched "
            "Embase. Results: Nine trials were included.")
    terms = _terms(text)
    assert any("blue diode" in t for t in terms) and any("halogen spotlight" in t for t in terms)
    assert "halogen*" not in terms  # a kind of several words is its phrase, not its parts
    assert _hits(text, "Blue diodes versus fluorescent tubes for neonatal jaundice")


_STUDIED = ("Herbal Teas in Vaping Advertisements on Video Platforms: a scoping review. Objective: This review aimed "
            "to identify studies investigating vaping advertisements on video platforms and to count those that "
            "mention herbal teas. Methods: We searched Scopus. Results: Of 80 studies, 12 mentioned herbal teas.")


def test_what_the_aim_says_the_studies_investigate_is_the_main_block():
    # the title names the studies' subject as a setting ("X in Y"); the review includes every study of Y and counts
    # those naming X: Y is what a search must find, X does not narrow it
    plan = extract_concepts(_STUDIED)
    assert "advertisement" in plan.blocks[0].label.casefold()
    assert not any("investigating" in t for t in plan.blocks[0].terms)  # "studies investigating X": a clause
    assert _hits(_STUDIED, "Vaping advertisements on a video-sharing site: a content analysis")
    # without such an aim sentence the title's subject stays the main block
    plain = _STUDIED.replace("to identify studies investigating vaping advertisements on video platforms and ", "")
    assert not _hits(plain, "Vaping advertisements on a video-sharing site: a content analysis")


def test_an_abstract_that_says_what_was_done_is_no_question_for_its_eligibility_sentence():
    # "Studies were eligible if ..." reads like a question's include sentence; "we searched" says it is a report,
    # whose results and conclusions ("Nineteen studies ...", "calls for ...") are no topic
    from agentr_dagster.llm.offline.concepts import is_review_question

    text = ("Nurses' coping styles: a systematic review. This review maps research on the coping styles of nurses. "
            "We searched ERIC and Scopus for articles from 2000 to 2020. Studies were eligible if they measured "
            "coping styles of nurses. Nineteen studies met the criteria. Most relied on surveys, and the field "
            "calls for longitudinal designs.")
    assert not is_review_question(text)
    assert is_review_question("Which coping styles do nurses use? Studies were eligible if they measured coping.")
    labels = " ".join(b.label.casefold() for b in extract_concepts(text).blocks)
    assert "nineteen" not in labels and "longitudinal" not in labels


def test_a_heading_in_the_dash_style_is_a_heading_not_a_modifier():
    # "Background.- Velorants ..." (some journals' style): the heading is no word of the concept
    text = ("Velorants for the acute treatment of cluster headache in adults: a systematic review. Objective.- To "
            "compare the efficacy of the marketed velorants for acute cluster headache attacks. Background.- "
            "Velorants (receptor agonists) are the standard of care for cluster headache. Methods.- We searched "
            "MEDLINE and Embase up to 2019 for randomized trials of zentorant, pilorant and castorant versus placebo.")
    terms = _terms(text)
    assert not any("background" in t for t in terms)
    assert "velorant*" in terms and "zentorant*" in terms
