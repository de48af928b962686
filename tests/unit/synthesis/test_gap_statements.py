"""A gap statement that a paper lacks a concept its own title or abstract names is a false finding: the landscape
drops it (whatever backend wrote it)."""

from __future__ import annotations

import pytest

from agentr_dagster.domain.concept_match import ConceptText
from agentr_dagster.synthesis.landscape import lacked_concepts, names_what_it_lacks

QUESTION = "How have systematic literature reviews (SLRs) been used in software engineering?"


@pytest.mark.parametrize(("gap", "concepts"), [
    ("Does not address the user's method 'SLRs' (match 0.12: 0/1 words present, embedding 0.20).", ["SLRs"]),
    ("Does not address the planned work's domain “software engineering”.", ["software engineering"]),
    ("Lacks an evaluation on industrial data, which limits the findings.", ["an evaluation on industrial data"]),
    ("Small samples limit the generalisability.", []),
])
def test_the_lacked_concepts_of_a_gap_statement(gap, concepts):
    assert lacked_concepts(gap) == concepts


@pytest.mark.parametrize("title", [
    "A systematic review of effort estimation",  # the expansion, without 'literature'
    "Systematic literature reviews of testing",  # the plural expansion
    "An SLR of requirements engineering",  # the abbreviation itself
])
def test_a_gap_about_a_concept_the_paper_names_is_false(title):
    gap = "Does not address the user's method 'SLRs' (match 0.12: 0/1 words present, embedding 0.20)."
    assert names_what_it_lacks(gap, ConceptText(title, context=[QUESTION]))


def test_a_gap_about_an_absent_concept_stands():
    gap = "Does not address the user's method 'SLRs' (match 0.12: 0/1 words present, embedding 0.20)."
    assert not names_what_it_lacks(gap, ConceptText("A controlled experiment on pair programming", [QUESTION]))
    assert not names_what_it_lacks("Small samples limit the generalisability.", ConceptText("anything", []))
