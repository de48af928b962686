"""Round 33 (h33r): round 33's leftovers on questions (an act beside the people named after it, the treatment
people undergo before the question's drug, a role's own process)."""

from agentr_dagster.llm.offline.concepts.variants import _variants
from tests.unit.domain.concept_queries import hits, query


def test_the_act_people_are_named_after_stays_the_exposure():
    # "shift work" beside "rotating shift workers" was a variant of the workers, an optional block: the query was
    # the outcome alone (every type 2 diabetes study)
    text = "Among rotating shift workers, is shift work associated with type 2 diabetes?"
    q = query(text)
    assert '"shift work"' in q, q
    assert hits(text, "Shift work and incident type 2 diabetes in nurses"), q
    assert not hits(text, "Type 2 diabetes in office workers: a survey"), q


def test_the_treatment_people_undergo_comes_behind_the_drug_studied():
    # "adults receiving haemodialysis" say who; the query was every haemodialysis study OR the drug AND-ed
    text = "In adults receiving haemodialysis, what vancomycin doses achieve target trough concentrations?"
    q = query(text)
    assert q.startswith('("vancomycin dose"'), q
    assert hits(text, "Vancomycin dosing in patients on intermittent haemodialysis"), q
    assert hits(text, "Target trough concentrations of vancomycin during haemodialysis"), q
    assert not hits(text, "Haemodialysis adequacy and survival in adults receiving haemodialysis"), q


def test_a_roles_own_process_is_its_head_and_the_role_anded():
    # "student motivation" was its phrase alone: "motivation of undergraduate students" was missed
    assert "(motiv* AND student*)" in _variants("student motivation", {})
    text = "Does gamification improve student motivation in university courses?"
    assert hits(text, "Gamified quizzes and the motivation of undergraduate students in university courses"), \
        query(text)
    # an everyday process beside a common role is any study of them: no such pair
    assert not any(" AND " in t for t in _variants("student learning", {}))
    assert not any(" AND " in t for t in _variants("child development", {}))
