"""Sizing a distributed deployment for an endpoint's rate limits (Little's law), as pure arithmetic."""

from __future__ import annotations

import pytest

from agentr_dagster.defs.distributed import (
    Limits,
    size_for_endpoint,
)


def test_sizing_follows_littles_law():
    # 500 requests/min at 6 s a call: 50 in flight; with 20 % headroom, 40 = 10 steps x 4 calls.
    assert size_for_endpoint(500, None, 6.0) == Limits(
        concurrent_requests=40, llm_pool_limit=10, per_step_concurrency=4, max_concurrent_runs=11, celery_workers=11)
    # The token limit binds first: 200k tokens/min / 2,500 tokens a call = 80 calls/min -> 8 in flight -> 6.
    # Spread evenly: 6 in flight under a cap of 4 calls a step is 2 steps x 3 calls, not 1 x 4.
    assert size_for_endpoint(500, 200_000, 6.0) == Limits(6, 2, 3, 3, 3)
    # A tiny endpoint still gets one call at a time, never zero.
    assert size_for_endpoint(3, None, 2.0) == Limits(1, 1, 1, 2, 2)


def test_sizing_never_exceeds_the_endpoint():
    for rpm in (10, 60, 300, 1000, 10_000):
        for latency in (0.5, 2.0, 8.0, 30.0):
            for k in (1, 4, 16):
                limits = size_for_endpoint(rpm, None, latency, per_step_concurrency=k)
                in_flight = limits.llm_pool_limit * limits.per_step_concurrency
                assert 1 <= in_flight <= max(1, rpm * latency / 60 * 0.8)
                assert limits.max_concurrent_runs > limits.llm_pool_limit


@pytest.mark.parametrize("args", [(0, None, 1.0), (60, None, 0), (60, 0, 1.0), (60, None, 1.0, -5)])
def test_sizing_rejects_nonsense(args):
    with pytest.raises(ValueError):
        size_for_endpoint(*args)
