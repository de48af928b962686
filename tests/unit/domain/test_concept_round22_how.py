"""Round 22 (lead): "How effective are X for Y?" is the effect frame asked adjective first (invented questions)."""

from tests.unit.domain.concept_queries import query, terms


def test_how_effective_reads_as_the_effect_frame():
    how = "How effective are school-based programmes for preventing bullying?"
    assert "effect*" not in terms(how)
    assert query(how) == query("Are school-based programmes effective for preventing bullying?")


def test_how_safe_with_who_first_reads_as_the_frame_with_who_first():
    how = "Among older adults, how safe are exercise programmes for preventing falls?"
    assert query(how) == query("Among older adults, are exercise programmes safe for preventing falls?")


def test_how_with_another_adjective_is_left_as_it_is():
    # not the effect frame's adjective; since round 23 (h23q) an adjective asked of the findings is what the review
    # appraises, no concept: the trials' field is searched, never robust* (the trials do not say it)
    how = "How robust are the findings of randomised trials in paediatric orthopaedics?"
    assert "robust*" not in terms(how) and "orthopaedic*" in terms(how)
