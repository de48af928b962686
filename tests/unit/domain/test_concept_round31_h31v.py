"""Round 31 (h31v): a required block of one exact two-word phrase also carries the AND of its words (invented
texts)."""

from agentr_dagster.llm.offline.concepts.terms import item_terms
from tests.unit.domain.concept_queries import hits, query


def test_a_lone_two_word_phrase_block_also_finds_its_words_apart():
    # "academic achievement" was the phrase alone: "achievement in academic subjects" was missed
    text = ("Does participation in after-school tutoring programmes improve academic achievement among secondary "
            "school pupils from low-income families?")
    q = query(text)
    assert "(academic* AND achievem*)" in q, q
    assert hits(text, "After-school tutoring programmes for school pupils from low-income families: "
                      "achievement in academic subjects"), q
    assert not hits(text, "After-school tutoring programmes for school pupils from low-income families: "
                          "attendance and behaviour"), q


def test_the_and_of_a_phrase_stays_specific():
    # two everyday words short of every field's: the AND is added; words of every field ("sleep quality"), a
    # meta head ("clinical outcomes"), a grading adjective ("soft skills"), a rarer word kept whole by earlier
    # rounds ("herbal remedies"), an answer kind ("prognostic factor"), a participle ("flipped classroom") or a
    # stem reaching a commoner word ("formative" -> format*) not; a run with its own non-phrase terms is left as
    # it was
    assert "(academic* AND achievem*)" in item_terms("academic achievement")
    for phrase in ("sleep quality", "clinical outcomes", "physical activity", "reading achievement", "soft skills",
                   "herbal remedies", "prognostic factor", "flipped classroom",
                   "formative assessment", "emotional regulation"):
        assert all(t.startswith('"') for t in item_terms(phrase)), (phrase, item_terms(phrase))
    assert item_terms("renal impairment").count("(impair* AND renal)") == 1
