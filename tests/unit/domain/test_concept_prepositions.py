"""Round 14d (2026-12-06): a preposition of time or route ("during", "after", "via") parts two concepts, a span
("across the lifespan") is no concept, and an adjective-shaped word closing a noun's run is a predicate ("are X
interchangeable?"): neither a span nor a predicate becomes an alternative of the concept, and no quoted phrase holds
a preposition. Every text here is invented."""

from __future__ import annotations

from agentr_dagster.domain.boolean_query import matches, parse_boolean_query
from agentr_dagster.llm.offline.concepts import extract_concepts, item_terms


def _terms(text: str) -> list[str]:
    return [t for block in extract_concepts(text).blocks for t in block.terms]


def _tree(text: str):
    return parse_boolean_query(extract_concepts(text).boolean_query())


def test_a_preposition_of_time_is_no_part_of_a_quoted_phrase():
    terms = _terms("What is the prevalence of insomnia during menopause?")
    assert not [t for t in terms if "during" in t.casefold()]
    assert "insomnia" in [t.strip('"*').casefold() for t in terms]
    tree = _tree("What is the prevalence of insomnia during menopause?")
    assert matches(tree, "Insomnia in menopausal women: a cohort study")
    terms = _terms("Does delirium after cardiac surgery predict later cognitive decline?")
    assert not [t for t in terms if t.casefold().startswith(('"after', "after"))]


def test_a_span_after_across_is_no_concept():
    # before: "narcolepsy across the lifespan" gave (narcoleps* OR lifespan*), a span as an alternative
    terms = _terms("Which treatments work for narcolepsy across the lifespan?")
    assert "narcoleps*" in terms and "lifespan*" not in terms
    tree = _tree("Which treatments work for narcolepsy across the lifespan?")
    assert matches(tree, "Sodium oxybate for narcolepsy in children")
    assert not matches(tree, "Changes in sleep architecture across the lifespan")


def test_such_as_and_as_well_as_are_not_cut_as_a_role():
    terms = _terms("Do mind-body therapies such as tai chi and qigong, as well as yoga, reduce chronic back pain?")
    lowered = [t.strip('"*').casefold() for t in terms]
    assert any(t.startswith("tai chi") for t in lowered)
    assert any(t.startswith("yoga") for t in lowered)


def test_a_predicate_adjective_unknown_to_the_lexicon_is_not_part_of_the_concept():
    # "interchangeable" is not in the lexicon; its ending makes it an adjective, here the question's predicate
    terms = _terms("Are generic levothyroxine formulations interchangeable?")
    assert not [t for t in terms if "interchang" in t.casefold()]
    assert any("levothyroxin" in t.casefold() for t in terms)
    # an unknown word of another ending closing the run is a name and stays ("bile acid sequestrant colesevelam")
    assert any("colesevelam" in t.casefold() for t in item_terms("sequestrant colesevelam"))
