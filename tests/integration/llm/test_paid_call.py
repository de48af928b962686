"""The paid-call guards (llm/paid_call.py): what taking a project's lease gives back, and the order of the checks
around a call, on SQLite and PostgreSQL."""

from __future__ import annotations

import threading
from decimal import Decimal

import pytest

from agentr_dagster.domain.calls import CallContext
from agentr_dagster.domain.failures import OrphanError, StoppedError
from agentr_dagster.limits import make_limiter
from agentr_dagster.llm.paid_call import PaidCallGuard, hold_project_for_calls, paper_call
from agentr_dagster.store.leases import hold_project, new_holder
from tests.support.recovery import make_project


def _open_hold(store, slug: str, run_id: str, key: str) -> int:
    return store.ledger.reserve("default", Decimal("1"), idempotency_key=key, slug=slug, stage="score", run_id=run_id)


def test_taking_the_lease_for_calls_gives_back_what_ended_runs_left_on_hold(store, tmp_path):
    slug = "leftovers"
    make_project(store, tmp_path, slug, 2)
    ended = _open_hold(store, slug, "run-ended", "ended")
    mine = _open_hold(store, slug, "run-now", "mine")
    holder = new_holder("test")
    with hold_project(store, slug, holder, run_id="run-now") as took:  # the store's part: the lease, nothing else
        assert took
        assert {r.id for r in store.ledger.open_reservations()} == {ended, mine}
    with hold_project_for_calls(store, slug, holder, run_id="run-now") as took:
        assert took
        assert {r.id for r in store.ledger.open_reservations()} == {mine}  # the run's own hold stays
        late = _open_hold(store, slug, "run-ended", "late")
        with hold_project_for_calls(store, slug, holder, run_id="run-now") as again:  # re-entered: not taken
            assert not again
            assert late in {r.id for r in store.ledger.open_reservations()}


def test_a_stale_answer_is_raised_before_the_fence_and_frees_the_gate(store, tmp_path):
    slug = "guarded"
    make_project(store, tmp_path, slug, 1)
    guard = PaidCallGuard(store, make_limiter(None, "test:paid-call"))
    gate = threading.BoundedSemaphore(1)
    renewed: list[str] = []
    ctx = CallContext(slug=slug, stage="score", paper_id=1, call_gate=gate, fence=lambda: renewed.append("x"))
    with pytest.raises(OrphanError), guard.call("k", ctx, 10, stale=lambda: OrphanError("deleted meanwhile")):
        pytest.fail("the block must not run")
    assert renewed == []  # the fence is not asked once the call is known not to be made
    assert gate.acquire(blocking=False)  # and the run's slot is free again
    gate.release()
    with guard.call("k", ctx, 10, stale=lambda: None):
        assert renewed == ["x"]  # the caller's claim renewed right before the call


def test_a_paper_call_stops_once_its_claim_was_taken_over(store, tmp_path):
    slug = "taken"
    make_project(store, tmp_path, slug, 1)
    paper = store.projects.list_papers(slug)[0]
    mine, theirs = new_holder("score"), new_holder("score")
    assert store.leases.claim_papers(slug, mine, [(paper.id, "key-1")]) == {"key-1"}
    ctx = paper_call(store, slug, paper.id, "key-1", mine, run_id=None, call_gate=threading.BoundedSemaphore(1))
    assert ctx.fence is not None
    ctx.fence()  # still ours
    store.leases.release_claims(mine)
    assert store.leases.claim_papers(slug, theirs, [(paper.id, "key-1")]) == {"key-1"}
    with pytest.raises(StoppedError, match="taken over"):
        ctx.fence()
    assert ctx.claim is not None and ctx.claim.holder == mine  # the settlement checks the same claim
