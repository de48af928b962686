"""A background read from a source's hit counts: a term's share is its count over the source's records, each term
asked once, a bound on how many; a failure part-way drops the whole background for the decision."""

from __future__ import annotations

import pytest

from agentr_dagster.domain.specificity import BackgroundUnavailable, HitCountBackground, with_background
from agentr_dagster.sources.background import counting_names, counting_source, source_background


def counter(counts: dict[str, int], asked: list[str]):
    def count(term: str) -> int:
        asked.append(term)
        if term not in counts:
            raise BackgroundUnavailable(f"no count for {term}")
        return counts[term]
    return count


def test_a_terms_share_is_its_hit_count_over_the_sources_records_asked_once():
    asked: list[str] = []
    background = HitCountBackground(counter({"lichen*": 30, '"tidal marsh"': 500}, asked), 2000, label="x",
                                    max_requests=10)
    assert background("lichen*") == pytest.approx(0.015)
    assert background('"Tidal  Marsh"') == pytest.approx(0.25)  # quoted or not, any case: one phrase
    assert background("tidal marsh") == pytest.approx(0.25)
    assert background("lichen*") == pytest.approx(0.015)
    assert asked == ["lichen*", '"tidal marsh"'] and background.requests == 2


def test_more_distinct_terms_than_the_bound_make_the_background_unavailable():
    background = HitCountBackground(lambda term: 1, 1000, label="x", max_requests=2)
    background("moss")
    background("fern")
    background("moss")  # asked before: no request
    with pytest.raises(BackgroundUnavailable):
        background("cycad")


def test_a_count_above_the_total_is_a_share_of_one_and_an_empty_source_is_refused():
    assert HitCountBackground(lambda term: 5000, 1000, label="x", max_requests=3)("moss") == 1.0
    with pytest.raises(ValueError):
        HitCountBackground(lambda term: 1, 0, label="x", max_requests=3)


def test_a_background_failing_part_way_is_dropped_for_the_whole_decision():
    asked: list[str] = []
    background = HitCountBackground(counter({"moss": 10}, asked), 1000, label="x", max_requests=10)
    seen: list[object] = []
    fell: list[BackgroundUnavailable] = []

    def decide(bg):
        seen.append(bg)
        shares = [bg(t) if bg is not None else -1.0 for t in ("moss", "cycad")]  # cycad: the source fails
        return shares

    decision, used = with_background(decide, background, fell.append)
    assert decision == [-1.0, -1.0] and used is False  # moss's answer is not kept beside a missing one
    assert seen == [background, None] and len(fell) == 1


def test_with_no_background_the_decision_is_taken_once_without():
    assert with_background(lambda bg: bg, None) == (None, False)
    background = HitCountBackground(lambda term: 1, 10, label="x", max_requests=3)
    assert with_background(lambda bg: bg("moss"), background) == (0.1, True)


class Source:
    def __init__(self, name: str, counts: bool = True, total: int | Exception = 5000):
        self.name, self.counts, self.total = name, counts, total

    def record_count(self) -> int:
        if isinstance(self.total, Exception):
            raise self.total
        return self.total

    def count(self, query) -> int:
        return 50


def test_only_the_sources_that_may_count_are_built_for_a_background_in_preference_order():
    assert counting_names(("arxiv", "pubmed", "crossref", "openalex")) == ["openalex", "pubmed"]
    assert counting_names(("arxiv", "crossref")) == []


def test_the_preferred_counting_source_answers():
    pubmed, openalex, arxiv = Source("pubmed"), Source("openalex"), Source("arxiv", counts=False)
    assert counting_source([pubmed, arxiv, openalex]) is openalex
    assert counting_source([arxiv, pubmed]) is pubmed
    assert counting_source([arxiv]) is None
    background = source_background([pubmed, openalex])
    assert background is not None and background.label == "openalex hit counts (5000 records)"
    assert background("moss") == pytest.approx(0.01)


def test_no_background_when_the_record_count_fails_or_is_too_small():
    assert source_background([Source("openalex", total=RuntimeError("down"))]) is None
    assert source_background([Source("openalex", total=999)]) is None
    assert source_background([]) is None
