"""Round 14d (2026-12-06): phrase shapes that made terms of no concept. A preposition of time or route ("during",
"after", "via") parts two concepts, a span ("across the lifespan") is no concept, an adjective-shaped word closing a
noun's run is a predicate ("are X interchangeable?"); a suspended hyphen ("carbon-, helium- or neon-ion") gives each
hanging word its tail; a bare adjective in a list takes the noun phrase after it ("acute and chronic pain") and a
bracketed gloss ("atypical (second-generation) antipsychotics") says its phrase twice. No bare modifier, setting or
predicate becomes an alternative of the concept. Every text here is invented."""

from __future__ import annotations

import pytest

from agentr_dagster.domain.boolean_query import matches, parse_boolean_query
from agentr_dagster.domain.truncation import truncation
from agentr_dagster.llm.offline.concepts import extract_concepts, item_terms
from agentr_dagster.llm.offline.concepts.blocks import _complete_suspended_hyphens, _unfold_glosses
from agentr_dagster.llm.offline.concepts.terms import _distribute_head


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


def test_each_hanging_word_gets_the_shared_tail():
    assert _complete_suspended_hyphens("low-, middle- and high-income countries") == (
        "low-income, middle-income and high-income countries")
    assert _complete_suspended_hyphens("pre- or post-operative care") == "pre-operative or post-operative care"
    # two adjectives before one tail; two nouns' phrases are left alone
    assert _complete_suspended_hyphens("other fast/slow-release forms") == "other fast-release/slow-release forms"
    assert _complete_suspended_hyphens("fault location/fault-proneness") == "fault location/fault-proneness"


def test_a_wildcard_never_cuts_a_whole_part_after_a_hyphen():
    assert truncation("carbon-ion") != "carbon-*"
    assert truncation("carbon-ion").startswith("carbon-ion")
    # a hyphenated word stays whole: a source takes no wildcard inside it ("co-morbid" would find nothing)
    assert truncation("co-morbidities") == "co-morbidities"


def test_a_bare_adjective_takes_the_phrase_listed_after_it():
    assert _distribute_head(["acute", "chronic pancreatitis"]) == ["acute pancreatitis", "chronic pancreatitis"]
    assert _distribute_head(["typical", "second-generation mood stabilisers"])[0] == "typical mood stabilisers"
    # nouns and compounds are concepts of their own
    assert _distribute_head(["self-harm", "suicide attempts"]) == ["self-harm", "suicide attempts"]
    assert _distribute_head(["insomnia", "daytime sleepiness"]) == ["insomnia", "daytime sleepiness"]


def test_a_glossed_adjective_says_its_phrase_with_each():
    assert _unfold_glosses("of novel (direct) oral anticoagulants in adults") == (
        "of novel oral anticoagulants (direct oral anticoagulants) in adults")
    assert _unfold_glosses("adults (aged 60 or over)") == "adults (aged 60 or over)"


@pytest.mark.parametrize(("text", "bare", "found", "not_found"), [
    # a suspended hyphen's hanging words
    ("Do argon-, krypton- or other noble-gas lasers improve healing of diabetic foot ulcers?", ["argon", "krypton"],
     "Argon laser therapy for diabetic foot ulcers", "Argon plasma coagulation for gastric bleeding"),
    # a list's bare adjective
    ("Are topical or systemic antifungal agents effective for onychomycosis in adults?", ["topic*", "topical"],
     "Topical antifungal agents for onychomycosis: a randomised trial", "Topical corticosteroids for eczema"),
])
def test_no_modifier_alone_is_a_term(text: str, bare: list[str], found: str, not_found: str):
    assert not set(bare) & set(_terms(text))
    tree = _tree(text)
    assert matches(tree, found)
    assert not matches(tree, not_found)
