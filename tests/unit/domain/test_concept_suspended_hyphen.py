"""Round 14d (2026-12-06): a suspended hyphen ("short- and long-term", "carbon-, helium- or neon-ion") gives every
hanging word its tail, so no bare modifier ("carbon", "short") becomes a term of its own. Every text here is
invented."""

from __future__ import annotations

from agentr_dagster.domain.boolean_query import matches, parse_boolean_query
from agentr_dagster.domain.truncation import truncation
from agentr_dagster.llm.offline.concepts import _complete_suspended_hyphens, extract_concepts


def test_each_hanging_word_gets_the_shared_tail():
    assert _complete_suspended_hyphens("low-, middle- and high-income countries") == (
        "low-income, middle-income and high-income countries")
    assert _complete_suspended_hyphens("pre- or post-operative care") == "pre-operative or post-operative care"
    # two adjectives before one tail; two nouns' phrases are left alone
    assert _complete_suspended_hyphens("other fast/slow-release forms") == "other fast-release/slow-release forms"
    assert _complete_suspended_hyphens("fault location/fault-proneness") == "fault location/fault-proneness"


def test_a_hanging_modifier_is_no_term_of_its_own():
    text = "Do argon-, krypton- or other noble-gas lasers improve healing of diabetic foot ulcers?"
    terms = [t for block in extract_concepts(text).blocks for t in block.terms]
    assert "argon" not in terms and "krypton" not in terms
    tree = parse_boolean_query(extract_concepts(text).boolean_query())
    assert matches(tree, "Argon laser therapy for diabetic foot ulcers")
    assert not matches(tree, "Argon plasma coagulation for gastric bleeding")


def test_a_wildcard_never_cuts_a_whole_part_after_a_hyphen():
    assert truncation("carbon-ion") != "carbon-*"
    assert truncation("carbon-ion").startswith("carbon-ion")
    assert truncation("co-morbidities") == "co-morbid*"  # a suffix inside the part after the hyphen still goes
