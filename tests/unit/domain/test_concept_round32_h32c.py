"""Round 32 (h32c): what a question's treatment is given for is AND-ed with it, ... (invented texts)."""

from tests.unit.domain.concept_queries import hits, query


def test_what_a_treatment_is_given_for_is_anded_in_does_x_for_y_reduce_z():
    # "Does X for Y reduce Z?" was ``X OR (Y AND Z)``: every study of X, for whatever it is given
    text = "Does yoga for multiple sclerosis reduce fatigue?"
    q = query(text)
    assert not hits(text, "Yoga for chronic low back pain: a randomised trial"), q
    assert hits(text, "Hatha yoga in people with multiple sclerosis: a pilot randomised trial"), q
