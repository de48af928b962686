"""Round 11 (2026-12-05): an abstract's title subjects are AND-ed only when the main block alone is broad, and a
truncated stem that opens onto much of general English never stands alone without a background. Every text here
is invented (drug and compound names included)."""

from __future__ import annotations

from agentr_dagster.domain.boolean_query import matches, parse_boolean_query
from agentr_dagster.domain.specificity import general_zipf, opens_onto_zipf
from agentr_dagster.llm.offline.concepts import BROAD_STEM_ZIPF, extract_concepts

_NAMES_FOR = ("Zorvanol, quelmitase and draxofungin for chronic sinusitis: a systematic review and meta-analysis. "
              "Background: Sinusitis is common. Methods: We searched MEDLINE to May 2020. Results: Twelve trials "
              "compared zorvanol, quelmitase or draxofungin with placebo (RR 1.4, 95% CI 1.1 to 1.8). Conclusions: "
              "Zorvanol, quelmitase and draxofungin help.")


def _hits(text: str, record: str, background=None) -> bool:
    query = extract_concepts(text, background=background).boolean_query()
    return matches(parse_boolean_query(query), record)


def test_with_a_background_its_share_decides_the_and():
    def background(rare: float):
        # an invented background: the drugs in ``rare`` of its records, every other term in 5 %
        return lambda term: rare if term.strip('"').casefold().startswith(("zorvanol", "quelmitas", "draxofungin")) \
            else 0.05

    # the drugs' own names are rare in the background: a trial of one in another indication is still found
    other_indication = "Quelmitase in otitis media: a randomised trial"
    assert _hits(_NAMES_FOR, other_indication, background(0.0001))
    assert _hits(_NAMES_FOR, "Zorvanol for chronic sinusitis", background(0.0001))
    # common in the background, or no background at all: the condition stays AND-ed
    assert not _hits(_NAMES_FOR, other_indication, background(0.01))
    assert not _hits(_NAMES_FOR, other_indication)
    assert _hits(_NAMES_FOR, "Zorvanol for chronic sinusitis", background(0.01))


_TRAITS = ("Kindness, communication and patience as soft traits: a systematic review. Background: Soft traits "
           "matter. Methods: We searched ERIC to May 2020. Results: Twenty studies of kindness, communication and "
           "patience were included. Conclusions: Soft traits deserve training.")


def test_a_stem_that_opens_onto_much_of_english_is_not_alone_without_a_background():
    # "communic*" finds "communication", "communicate", "communicated", ...: any paper; AND-ed with its phrase
    query = extract_concepts(_TRAITS).boolean_query()
    assert " communic* OR" not in f" {query} " and "(communic* AND" in query
    tree = parse_boolean_query(query)
    assert not matches(tree, "Communication of tariffs in shipping ports")
    assert matches(tree, "Communication as a soft trait of nursery staff")
    assert matches(tree, "Patience of nursery staff")  # a stem of rare completions stays alone


def test_opens_onto_sums_every_word_a_stem_begins():
    assert opens_onto_zipf("communic*") > general_zipf("communic*") + 0.2
    assert opens_onto_zipf("patienc*") < BROAD_STEM_ZIPF <= opens_onto_zipf("communic*")
    assert opens_onto_zipf("communication") == general_zipf("communication")  # no wildcard: the word itself
    assert opens_onto_zipf("zzqxv*") == general_zipf("zzqxv*")  # no English word begins so
