"""The pooled replay server (`agentr bench e2e`'s corpus) answers from a word index exactly what the replay server
answers by matching every record: same hits for any query, on every source; records two reviews share are one
paper that belongs to both."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import HealthCheck, given, settings

from agentr_dagster.testing.pooled import POOL_SOURCES, PooledReplayServer, PoolRecord, pool_records
from agentr_dagster.testing.replay_server import ReplayServer
from tests.integration.sources.test_search_never_narrows import corpus, found, trees


def test_the_index_answers_what_matching_every_record_answers():
    papers = [replace(p, sources=POOL_SOURCES) for p in corpus(120, seed=11)]
    with ReplayServer(papers) as plain, PooledReplayServer(papers) as pooled:

        @settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
        @given(tree=trees)
        def check(tree):
            for name in sorted(POOL_SOURCES):
                assert found(name, pooled, tree) == found(name, plain, tree), (name, tree)

        check()


def test_records_of_one_paper_in_two_reviews_pool_into_one_paper_of_both():
    pool = pool_records([
        PoolRecord("A", 0, "Schema therapy for borderline personality disorder", "", 2020, "10.1/x"),
        PoolRecord("B", 3, "Schema Therapy for Borderline Personality Disorder.", "Abstract.", 2020, None),
        PoolRecord("B", 4, "Another paper", "", None, "10.1/y"),
        PoolRecord("A", 1, "Yet another paper", "", None, "10.1/Y"),  # the same DOI: the same paper
    ])
    assert len(pool.papers) == 2
    first, second = pool.papers
    assert pool.members[first.number] == [("A", 0), ("B", 3)]
    assert pool.members[second.number] == [("B", 4), ("A", 1)]
    assert pool.numbers("10.1/X", None) == {first.number}
    assert pool.numbers(None, "schema therapy for borderline personality disorder") == {first.number}
    assert pool.numbers("10.5555/unknown", "nothing like it") == set()
