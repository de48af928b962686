"""The one home of paper identity: the rules every path (import, lake, labels, `agentr screen`) asks."""

from __future__ import annotations

from difflib import SequenceMatcher

from agentr_dagster.domain.contracts import PaperRecord
from agentr_dagster.imports import dedupe
from agentr_dagster.imports.identity import (
    MIN_TITLE_CHARS_ANY_YEAR,
    abstract_words,
    abstracts_disagree,
    dois_conflict,
    normal_doi,
    same_title_any_year,
    titles_alike,
)


def test_normal_doi_strips_the_url_forms_and_case():
    assert normal_doi(" https://dx.doi.org/10.1/AbC ") == normal_doi("DOI: 10.1/abc") == "10.1/abc"
    assert normal_doi("http://doi.org/10.1/x") == "10.1/x" and normal_doi("  ") is None and normal_doi(None) is None


def test_two_known_dois_that_differ_conflict_and_a_missing_one_does_not():
    assert dois_conflict("10.1/a", "10.1/b")
    assert not dois_conflict("10.1/a", "10.1/a") and not dois_conflict(None, "10.1/b") and not dois_conflict("", "x")


def test_same_title_any_year_needs_a_long_title_a_missing_year_and_agreeing_authors():
    long = "a" * MIN_TITLE_CHARS_ANY_YEAR
    assert same_title_any_year(long, True, "smith", None)
    assert same_title_any_year(long, True, "smith", "smith")
    assert not same_title_any_year(long, True, "smith", "jones")
    assert not same_title_any_year(long, False, None, None)
    assert not same_title_any_year(long[:-1], True, None, None)


def test_titles_alike_is_difflibs_ratio_with_a_reusable_matcher():
    a, b = "machine learning for citation screening", "machine learning for citation screenings"
    assert titles_alike(a, b, 0.95) and not titles_alike(a, "deep learning for image retrieval", 0.85)
    assert titles_alike(a, a, 1.0)
    matcher = SequenceMatcher(None, autojunk=False)
    matcher.set_seq2(b)
    ratio = SequenceMatcher(None, a, b, autojunk=False).ratio()
    assert titles_alike(a, b, ratio, matcher) and not titles_alike(a, b, ratio + 1e-9, matcher)


def test_abstracts_disagree_only_when_both_are_substantial_and_mostly_different():
    one = abstract_words("screening " * 10 + " ".join(f"w{i}" for i in range(40)))
    other = abstract_words("unrelated " * 10 + " ".join(f"v{i}" for i in range(40)))
    assert abstract_words("too short") is None and not abstracts_disagree(one, None)
    assert abstracts_disagree(one, other) and not abstracts_disagree(one, one)


def test_dedupe_applies_the_identity_rules():
    title = "Active learning for systematic review screening"
    kept = PaperRecord(title=title, year=2020, authors=["Smith, J."])
    no_year = PaperRecord(title=title + ".", authors=["J. Smith"])
    other_author = PaperRecord(title=title, authors=["Jones, K."])
    other_doi = PaperRecord(title=title, year=2020, doi="10.1/b", authors=["Smith, J."])
    with_doi = PaperRecord(title=title, year=2020, doi="10.1/a", authors=["Smith, J."])
    unique, pairs = dedupe([with_doi, kept, no_year, other_author, other_doi])
    # kept has no DOI, so it merges with the DOI'd record; other_doi's DOI conflicts with with_doi's
    assert unique == [with_doi, other_author, other_doi]
    assert [(d, k) for d, k in pairs] == [(kept, with_doi), (no_year, with_doi)]
