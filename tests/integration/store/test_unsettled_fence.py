"""A settlement kept through a database outage (``llm/unsettled.py``) is settled under the fence its call was made
under, as the call's own settlement would have been: charged while the claim still names the holder that made the
call, operator waste (never charged) once another holder took the claim over. SQLite and PostgreSQL."""

from __future__ import annotations

from decimal import Decimal

import sqlalchemy as sa

from agentr_dagster.llm.unsettled import UnsettledSpool
from agentr_dagster.store import UsageIn
from agentr_dagster.store import schema as t
from agentr_dagster.store.leases import new_holder
from tests.support.recovery import MODEL, make_project

SLUG = "kept"
REQUEST = "5e" * 32  # the scoring request both holders ask


def _priced_project(store, tmp_path) -> int:
    store.ledger.set_pricing(MODEL, Decimal("2.50"), Decimal("10.00"))
    store.ledger.ensure_account("default")
    make_project(store, tmp_path, SLUG, 1)
    return store.projects.list_papers(SLUG)[0].id


def _call(store, paper_id: int, holder: str, n: int) -> tuple[int, UsageIn]:
    """A reservation for ``holder``'s scoring call and the usage its answer came with."""
    held = store.ledger.reserve("default", Decimal("5"), idempotency_key=f"{REQUEST}:{n}:{n}", slug=SLUG,
                                stage="score", paper_id=paper_id, run_id=f"run-{n}")
    return held, UsageIn(slug=SLUG, stage="score", paper_id=paper_id, model=MODEL, input_tokens=1200,
                         output_tokens=300, request_hash=REQUEST, run_id=f"run-{n}")


def _claims(store, table: sa.Table) -> list[str]:
    with store.engine.connect() as conn:
        return [row.holder for row in conn.execute(sa.select(table))]


def test_a_kept_settlement_of_a_holder_that_lost_its_claim_is_waste_not_a_second_charge(store, tmp_path):
    paper = _priced_project(store, tmp_path)
    old, new = new_holder("old"), new_holder("new")
    assert store.leases.claim_papers(SLUG, old, [(paper, "key-1")]) == {"key-1"}
    held, usage = _call(store, paper, old, 1)
    spool = UnsettledSpool(tmp_path / "unsettled")
    # the database refused the settlement: kept on disk with the claim the call was made under
    spool.add(held, usage, (REQUEST, '{"old": true}'), store.leases.fence("paper", "key-1", old))
    # the old holder is gone (no heartbeat in this process): another worker takes the claim over, calls, is charged
    assert store.leases.claim_papers(SLUG, new, [(paper, "key-1")]) == {"key-1"}
    again, fresh = _call(store, paper, new, 2)
    assert store.ledger.settle(again, usage=fresh, response=(REQUEST, '{"new": true}'),
                               fence=store.leases.fence("paper", "key-1", new)) is not None
    balance = store.ledger.balance()

    assert spool.settle_all(store) == 0  # the kept settlement is done with: refused by the fence
    assert list((tmp_path / "unsettled").glob("*.json")) == []
    assert [u.reservation_id for u in store.ledger.usage(SLUG)] == [again]  # one charge for the request
    assert store.ledger.balance() == balance + Decimal("5")  # its hold given back, nothing charged
    (waste,) = store.ledger.waste(SLUG)
    assert (waste.reservation_id, waste.cause, waste.holder) == (held, "fenced_late_answer", old)
    assert store.results.cached_response(REQUEST) == '{"new": true}'  # the refused answer is not cached
    assert _claims(store, t.paper_claims) == [new]  # the new holder's claim is not touched
    report = store.ledger.verify_ledger()
    assert report.ok, report.violations


def test_a_kept_settlement_whose_claim_still_names_its_holder_is_charged_once_and_frees_the_claim(store, tmp_path):
    paper = _priced_project(store, tmp_path)
    holder = new_holder("score")
    assert store.leases.claim_papers(SLUG, holder, [(paper, "key-1")]) == {"key-1"}
    held, usage = _call(store, paper, holder, 1)
    fence = store.leases.fence("paper", "key-1", holder)
    store.leases.keep_for_settlement(fence)  # what the gateway does when it keeps the settlement
    spool = UnsettledSpool(tmp_path / "unsettled")
    spool.add(held, usage, (REQUEST, '{"kept": true}'), fence)
    assert store.leases.release_claims(holder) == 0  # the stage ends: the claim stays for the kept settlement
    assert _claims(store, t.paper_claims) == [holder]

    assert spool.settle_all(store) == 0
    assert [u.reservation_id for u in store.ledger.usage(SLUG)] == [held]
    assert store.ledger.waste(SLUG) == []
    assert store.results.cached_response(REQUEST) == '{"kept": true}'
    assert _claims(store, t.paper_claims) == []  # settled: the claim is released
    assert spool.settle_all(store) == 0 and len(store.ledger.usage(SLUG)) == 1  # nothing left, nothing twice
    assert store.ledger.verify_ledger().ok


def test_a_request_claim_kept_for_its_settlement_is_not_released_until_it_is_settled(store, tmp_path):
    _priced_project(store, tmp_path)
    holder = new_holder("req")
    assert store.leases.try_claim_request(REQUEST, holder, "intent")
    fence = store.leases.fence("request", REQUEST, holder)
    store.leases.keep_for_settlement(fence)
    assert not store.leases.release_request(REQUEST, holder)  # the request's block ends: the claim stays
    assert _claims(store, t.request_claims) == [holder]
    store.leases.release_kept(fence)
    assert _claims(store, t.request_claims) == []
