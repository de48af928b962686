"""Concept blocks, round 19 (invented questions from neuroscience, education, political science and clinical
pharmacology): a "Do / Does X ..." question's verb after its subject, a "which <generic head>" frame, a frame
noun before what it is about, and "Are X effective for Y in patients with Z" naming X first."""

from agentr_dagster.domain.boolean_query import matches, parse_boolean_query, query_terms
from agentr_dagster.llm.offline.concepts import extract_concepts


def _query(text: str) -> str:
    return extract_concepts(text).boolean_query()


def _hits(text: str, record: str) -> bool:
    return matches(parse_boolean_query(_query(text)), record)


def _terms(text: str) -> list[str]:
    return [t.casefold() for t in query_terms(parse_boolean_query(_query(text)))]


def test_the_plain_verb_after_a_do_question_subject_is_its_verb():
    # "display" after a singular noun, "disorder display" read as one phrase, cut the condition's name
    question = "Do zebrafish models of obsessive-compulsive disorder display deficits in behavioural flexibility?"
    terms = " ".join(_terms(question))
    assert "disorder display" not in terms
    assert _hits(question, "Obsessive-compulsive disorder: a review of zebrafish models and behavioural flexibility")


def test_a_gerund_subject_is_cut_from_the_plain_verb_after_it():
    question = "Does mentoring boost graduates' employment in rural regions?"
    terms = " ".join(_terms(question))
    assert "mentoring boost" not in terms
    assert "mentor" in terms and "employment" in terms


def test_which_common_means_names_no_concept():
    question = "Which teaching strategies improve computational thinking in secondary school students?"
    assert not any("teaching" in t for t in _terms(question))
    assert _hits(question, "Computational thinking in secondary education: a quasi-experimental study")
    assert not _hits(question, "Teaching strategies for nursing students in clinical placements")


def test_exposure_to_a_hyphenated_kind_is_that_kind():
    # "to pro-diet content" read "pro-diet" as a verb (by its last part, before a word that can be an adjective):
    # "exposure" stood alone as the main block
    question = "How does exposure to pro-diet content on image platforms relate to body dissatisfaction in adolescents?"
    assert not any(t.startswith("exposur") for t in _terms(question))
    assert not _hits(question, "Occupational exposure to solvents and kidney disease")
