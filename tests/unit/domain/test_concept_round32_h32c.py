"""Round 32 (h32c): what a question's treatment is given for is AND-ed with it, ... (invented texts)."""

from tests.unit.domain.concept_queries import hits, query


def test_what_a_treatment_is_given_for_is_anded_in_does_x_for_y_reduce_z():
    # "Does X for Y reduce Z?" was ``X OR (Y AND Z)``: every study of X, for whatever it is given
    text = "Does yoga for multiple sclerosis reduce fatigue?"
    q = query(text)
    assert not hits(text, "Yoga for chronic low back pain: a randomised trial"), q
    assert hits(text, "Hatha yoga in people with multiple sclerosis: a pilot randomised trial"), q
    # and said with a copula: "Is X for Y effective in reducing Z?"
    text = "Are exercise programmes for knee osteoarthritis effective at improving physical function?"
    q = query(text)
    assert not hits(text, "Exercise programmes for older adults: a cluster randomised trial"), q
    assert hits(text, "Home exercise programmes in knee osteoarthritis: a randomised trial"), q


def _narrow(term: str) -> float:
    """A background in which every term is rare."""
    return 0.001


def test_people_modifying_an_outcome_noun_name_the_outcome_not_who_the_studies_are_about():
    # "student attainment" was read as people (a population word opens it), so the outcomes frame's lone outcome
    # was not AND-ed: ``X OR "student attainment"``, every study of student attainment
    text = "What is the effect of homework frequency on student attainment in secondary schools?"
    q = query(text, _narrow)
    assert not hits(text, "Teacher feedback and student attainment: a cohort study", _narrow), q
    assert hits(text, "Homework frequency and student attainment in England", _narrow), q


def test_the_act_of_fortifying_a_food_is_anded_with_the_food():
    # "fortification" (an "-ify" verb's act) was no act noun, so the food led alone: ``flour OR (...)``, every
    # study of flour
    text = "Does folic acid fortification of flour reduce neural tube defects?"
    q = query(text)
    assert not hits(text, "Milling quality of wheat flour from six cultivars"), q
    assert hits(text, "Folic acid fortification of flour and neural tube defects in Canada"), q


def test_a_degree_word_and_the_next_word_alone_are_no_term():
    # "low health literacy" carried ``"low health"``, "low numeracy skills" ``"low numeracy"``: a fragment of
    # the graded phrase that finds any record saying "low health status"
    text = "Is low numeracy skill associated with medication errors in older adults?"
    assert not hits(text, "Low numeracy and financial decisions in older adults")
    assert hits(text, "Numeracy skill and medication errors among older adults"), query(text)


def test_an_adjective_before_an_adjectives_compound_leaves_the_compound_a_term():
    # "suburban green space" had no ``"green space"``: the rare lead's everyday rest was read as naming nothing
    # ("intensive care units": "care units"), but two adjectives each qualify the head
    text = "Is exposure to suburban green space associated with lower blood pressure in adults?"
    assert hits(text, "Neighbourhood green space and blood pressure in a national cohort"), query(text)
