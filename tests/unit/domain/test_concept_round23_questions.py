"""Round 23 (h23q): review questions in unseen fields, on invented text (docs/search-strategies.md, round 23)."""

from tests.unit.domain.concept_queries import hits, terms


def test_who_put_first_leaves_the_effect_adjective_out():
    # "Among X, are Y effective for Z?": the predicate "effective" was read as a concept (effect* in the rest)
    question = "Among nursing home residents, are music programmes effective for reducing agitation?"
    assert "effect*" not in terms(question)
    assert hits(question, "Group music programmes and agitation in dementia care: a trial")
