"""Money: the cost rule, SCD-2 history, reserve/settle/release, budgets, idempotency and concurrency."""

from __future__ import annotations

import random
import threading
from datetime import datetime, timedelta, timezone
from decimal import Decimal

import pytest
import sqlalchemy as sa

from agentr_dagster.store import DomainStore, InsufficientCredits, StoreError, UsageIn

D = Decimal
T0 = datetime(2024, 1, 1, tzinfo=timezone.utc)


def usage(model="m", inp=0, out=0, cached=0, **kw) -> UsageIn:
    return UsageIn(model=model, input_tokens=inp, output_tokens=out, cached_input_tokens=cached, **kw)


def assert_ledger_invariant(store: DomainStore, account: str = "default") -> None:
    balance = store.ledger.balance(account)
    assert balance >= 0
    assert balance == store.ledger.ledger_sum(account)


# -- the pure cost rule ------------------------------------------------------------------------------------------


# -- SCD-2 -------------------------------------------------------------------------------------------------------


def test_pricing_history_and_old_usage_keeps_its_cost(store):
    first = store.ledger.set_pricing("m", 1, 2, at=T0)
    second = store.ledger.set_pricing("m", 10, 20, 5, at=T0 + timedelta(days=30))
    other = store.ledger.set_pricing("m", 7, 7, provider="openai", tier="batch", at=T0)
    history = store.ledger.pricing_history("m")
    assert [h.id for h in history] == [first, second, other]
    assert history[0].valid_to == history[1].valid_from == T0 + timedelta(days=30)
    assert history[1].valid_to is None and history[2].valid_to is None
    assert store.ledger.pricing_in_force("m", at=T0 - timedelta(seconds=1)) is None
    assert store.ledger.pricing_in_force("m", at=T0).id == first
    assert store.ledger.pricing_in_force("m", at=T0 + timedelta(days=29)).id == first
    assert store.ledger.pricing_in_force("m", at=T0 + timedelta(days=30)).id == second
    assert store.ledger.pricing_in_force("m").cached_input_usd_per_m == D("5")
    assert store.ledger.pricing_in_force("m", provider="openai", tier="batch").id == other
    with pytest.raises(StoreError):  # history only moves forward
        store.ledger.set_pricing("m", 1, 1, at=T0 + timedelta(days=1))

    # a call made in the first period is charged at the first price, and stays so after later changes
    r1 = store.ledger.reserve("default", 10, idempotency_key="a")
    u1 = store.ledger.settle(r1, usage=usage(inp=1000, out=1000, at=T0 + timedelta(days=1)))
    r2 = store.ledger.reserve("default", 100, idempotency_key="b")
    u2 = store.ledger.settle(r2, usage=usage(inp=1000, out=1000))
    store.ledger.set_pricing("m", 100, 200)
    rows = {u.id: u for u in store.ledger.usage()}
    assert (rows[u1].pricing_id, rows[u1].cost_usd, rows[u1].credits) == (first, D("0.003"), D("3"))
    assert (rows[u2].pricing_id, rows[u2].cost_usd, rows[u2].credits) == (second, D("0.03"), D("30"))
    assert rows[u1].multiplier_id == rows[u2].multiplier_id == store.ledger.multiplier_in_force().id
    assert store.ledger.balance() == D("1000") - D("3") - D("30")
    assert_ledger_invariant(store)


def test_multiplier_and_default_credits_history(store):
    seeded = store.ledger.multiplier_in_force()
    assert seeded.credits_per_usd == D("1000") and seeded.valid_to is None
    new = store.ledger.set_multiplier(500, at=T0)
    assert store.ledger.multiplier_in_force(at=T0 - timedelta(days=1)).id == seeded.id
    assert store.ledger.multiplier_in_force().id == new
    store.ledger.set_pricing("m", 1000, 0, at=T0)  # 1 token = 0.001 USD
    rid = store.ledger.reserve("default", 1, idempotency_key="x")
    uid = store.ledger.settle(rid, usage=usage(inp=1))
    (row,) = store.ledger.usage()
    assert row.id == uid and row.credits == D("0.5") and row.multiplier_id == new

    assert store.ledger.balance("alice") == D("1000")  # created with the seeded default
    store.ledger.set_default_credits(25)
    assert store.ledger.default_credits_in_force() == D("25")
    assert store.ledger.default_credits_in_force(at=T0) == D("1000")
    assert store.ledger.balance("bob") == D("25")
    assert store.ledger.balance("alice") == D("1000")  # existing accounts are not touched
    assert_ledger_invariant(store, "bob")


def test_provider_falls_back_to_the_default_price(store):
    store.ledger.set_pricing("m", 1000, 1000)
    store.ledger.set_pricing("m", 2000, 2000, provider="openai")
    assert store.ledger.estimate_credits("m", 1, 1, provider="vllm") == D("2")
    assert store.ledger.estimate_credits("m", 1, 1, provider="openai") == D("4")
    assert store.ledger.pricing_in_force("m", provider="vllm") is None  # the exact lookup does not fall back


# -- reserve / settle / release ----------------------------------------------------------------------------------


def test_reserve_settle_release_maths(store):
    store.ledger.set_pricing("m", 1000, 1000)  # 1 token = 1 credit at 1000 credits/USD
    assert store.ledger.balance() == D("1000")
    r1 = store.ledger.reserve("default", "100", idempotency_key="r1")
    assert store.ledger.balance() == D("900")
    store.ledger.settle(r1, usage=usage(inp=30, out=10))  # actual 40: 60 back
    assert store.ledger.balance() == D("960")
    r2 = store.ledger.reserve("default", D("50.5"), idempotency_key="r2")
    store.ledger.release(r2, note="call failed")
    assert store.ledger.balance() == D("960")
    r3 = store.ledger.reserve("default", 10, idempotency_key="r3")
    store.ledger.settle(r3, usage=usage(inp=15, out=5))  # actual 20 > reserved 10: 10 more debited
    assert store.ledger.balance() == D("940")
    kinds = [(e.kind, e.amount) for e in store.ledger.ledger()]
    assert kinds == [
        ("grant", D("1000")),
        ("reserve", D("-100")),
        ("settle", D("60")),
        ("reserve", D("-50.5")),
        ("release", D("50.5")),
        ("reserve", D("-10")),
        ("settle", D("-10")),
    ]
    states = {r.id: r.state for r in store.ledger.reservations()}
    assert states == {r1: "settled", r2: "released", r3: "settled"}
    assert all(r.closed_at is not None for r in store.ledger.reservations())
    assert_ledger_invariant(store)


def test_overrun_is_charged_only_down_to_zero(store):
    store.ledger.set_pricing("m", 1000, 1000)
    store.ledger.adjust("default", -990, note="leave 10")
    rid = store.ledger.reserve("default", 5, idempotency_key="k")
    store.ledger.settle(rid, usage=usage(inp=50))  # actual 50, reserved 5, balance after reserve 5
    assert store.ledger.balance() == 0
    last = store.ledger.ledger()[-1]
    assert last.kind == "settle" and last.amount == D("-5") and "shortfall 40" in last.note
    assert store.ledger.usage()[0].credits == D("50")  # the usage row keeps the true cost
    assert_ledger_invariant(store)


def test_insufficient_credits_refuses_and_writes_nothing(store):
    store.ledger.adjust("default", -995)
    entries = len(store.ledger.ledger())
    with pytest.raises(InsufficientCredits) as info:
        store.ledger.reserve("default", D("5.00000001"), idempotency_key="too-much")
    assert info.value.reason == "balance" and info.value.available == D("5")
    assert not info.value.others_open  # nothing else held: waiting would bring nothing back
    assert len(store.ledger.ledger()) == entries and store.ledger.reservations() == []
    with pytest.raises(InsufficientCredits):
        store.ledger.adjust("default", -6)
    rid = store.ledger.reserve("default", 5, idempotency_key="exact")
    assert store.ledger.balance() == 0
    with pytest.raises(InsufficientCredits) as info:
        store.ledger.reserve("default", D("0.00000001"), idempotency_key="one-more")
    assert info.value.others_open  # read in the refusing transaction: a caller may wait for that hold
    store.ledger.release(rid)
    assert store.ledger.balance() == 5
    assert_ledger_invariant(store)


def test_balance_can_never_go_negative_in_the_database(store):
    account_id = store.ledger.ensure_account()
    with pytest.raises(sa.exc.IntegrityError), store.engine.begin() as conn:
        conn.execute(sa.text("UPDATE accounts SET balance = -1 WHERE id = :i"), {"i": account_id})


def test_idempotency_keys(store):
    store.ledger.set_pricing("m", 1000, 1000)
    r = store.ledger.reserve("default", 10, idempotency_key="same")
    assert store.ledger.reserve("default", 10, idempotency_key="same") == r
    assert store.ledger.balance() == D("990")
    u = store.ledger.settle(r, usage=usage(inp=4))
    assert store.ledger.settle(r, usage=usage(inp=9)) == u  # second settle: same usage id, nothing written
    store.ledger.release(r)  # no-op after settle
    assert store.ledger.balance() == D("996") and len(store.ledger.usage()) == 1
    assert store.ledger.reserve("default", 10, idempotency_key="same") == r  # even after it closed

    r2 = store.ledger.reserve("default", 10, idempotency_key="other")
    store.ledger.release(r2)
    store.ledger.release(r2)
    assert store.ledger.balance() == D("996")
    # a late settle after a release still charges the call (it happened) and only once
    u2 = store.ledger.settle(r2, usage=usage(inp=3))
    assert store.ledger.settle(r2, usage=usage(inp=3)) == u2
    assert store.ledger.balance() == D("993")
    assert [r.state for r in store.ledger.reservations()] == ["settled", "settled"]

    assert store.ledger.grant("default", 7, idempotency_key="promo") == D("1000")
    assert store.ledger.grant("default", 7, idempotency_key="promo") == D("1000")
    with pytest.raises(ValueError):
        store.ledger.grant("default", 0)
    with pytest.raises(StoreError):
        store.ledger.settle(12345, usage=usage())
    assert_ledger_invariant(store)


def test_budget_cap(store):
    store.ledger.set_pricing("m", 1000, 1000)
    store.projects.create_project("capped", "abstract", budget_credits=20)
    store.projects.create_project("free", "abstract")
    r1 = store.ledger.reserve("default", 12, idempotency_key="a", slug="capped")
    with pytest.raises(InsufficientCredits) as info:
        store.ledger.reserve("default", 9, idempotency_key="b", slug="capped")  # 12 open + 9 > 20
    assert info.value.reason == "budget" and info.value.available == D("8")
    store.ledger.settle(r1, usage=usage(inp=5))  # settled 5, nothing open
    store.ledger.reserve("default", 15, idempotency_key="c", slug="capped")  # 5 + 15 = 20: allowed
    with pytest.raises(InsufficientCredits):
        store.ledger.reserve("default", D("0.00000001"), idempotency_key="d", slug="capped")
    store.ledger.reserve("default", 500, idempotency_key="e", slug="free")  # no cap on the other project
    store.projects.set_budget("capped", None)
    store.ledger.reserve("default", 1, idempotency_key="f", slug="capped")
    assert_ledger_invariant(store)


def test_unpriced_model_costs_nothing_but_is_recorded(store):
    store.projects.create_project("p", "abstract")
    assert store.ledger.estimate_credits("unknown", 5000, 500) == 0
    rid = store.ledger.reserve("default", 0, idempotency_key="z", slug="p", stage="intent")
    uid = store.ledger.settle(
        rid,
        usage=usage("unknown", inp=5000, out=500, latency_ms=12.6, request_hash="h", run_id="run", stage="intent"),
    )
    (row,) = store.ledger.usage("p")
    assert row.id == uid and row.cost_usd == 0 and row.credits == 0 and row.pricing_id is None
    assert (row.latency_ms, row.request_hash, row.run_id, row.stage, row.slug) == (13, "h", "run", "intent", "p")
    settle = store.ledger.ledger()[-1]
    assert settle.kind == "settle" and settle.amount == 0 and settle.usage_id == uid
    assert store.ledger.balance() == D("1000")


def test_stale_reservations_are_released(store):
    fresh = store.ledger.reserve("default", 5, idempotency_key="fresh")
    stale = store.ledger.reserve("default", 7, idempotency_key="stale")
    two_hours_ago = datetime.now(timezone.utc) - timedelta(hours=2)
    if store.dialect == "sqlite":  # stored as naive UTC text
        two_hours_ago = two_hours_ago.replace(tzinfo=None)
    with store.engine.begin() as conn:
        conn.execute(sa.text("UPDATE reservations SET created_at = :t WHERE id = :i"), {"t": two_hours_ago, "i": stale})
    assert [r.id for r in store.ledger.open_reservations(older_than_seconds=3600)] == [stale]
    assert {r.id for r in store.ledger.open_reservations()} == {fresh, stale}
    assert store.ledger.release_stale_reservations(3600) == 1
    assert store.ledger.release_stale_reservations(3600) == 0
    assert [r.id for r in store.ledger.open_reservations()] == [fresh]
    assert store.ledger.balance() == D("995")
    assert_ledger_invariant(store)


# -- concurrency -------------------------------------------------------------------------------------------------


def _hammer(store: DomainStore, *, threads: int, rounds: int, start_balance: D) -> None:
    store.ledger.set_pricing("m", 1000, 1000)  # 1 token = 1 credit
    store.projects.create_project("race", "abstract")
    store.ledger.adjust("default", start_balance - store.ledger.balance(), note="small balance")
    refused = [0] * threads
    errors: list[BaseException] = []
    stop = threading.Event()
    barrier = threading.Barrier(threads + 1)
    lowest = [store.ledger.balance()]

    def worker(n: int) -> None:
        rng = random.Random(n)
        try:
            barrier.wait()
            for i in range(rounds):
                key = f"w{n}-{i}"
                amount = rng.randint(1, 12)
                try:
                    rid = store.ledger.reserve("default", amount, idempotency_key=key, slug="race", stage="score")
                except InsufficientCredits:
                    refused[n] += 1
                    continue
                assert store.ledger.reserve("default", amount, idempotency_key=key, slug="race") == rid
                action = rng.random()
                if action < 0.6:
                    actual = rng.randint(0, amount + 6)  # sometimes more than reserved
                    uid = store.ledger.settle(rid, usage=usage(inp=actual))
                    assert store.ledger.settle(rid, usage=usage(inp=actual)) == uid
                else:
                    store.ledger.release(rid, note="failed")
                    store.ledger.release(rid)
                if action > 0.9:
                    store.ledger.grant("default", 3, idempotency_key=f"top-up-{key}")
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    def watcher() -> None:
        barrier.wait()
        while not stop.is_set():
            lowest[0] = min(lowest[0], store.ledger.balance())

    workers = [threading.Thread(target=worker, args=(n,)) for n in range(threads)]
    watch = threading.Thread(target=watcher)
    for th in [*workers, watch]:
        th.start()
    for th in workers:
        th.join()
    stop.set()
    watch.join()
    assert errors == [], errors
    assert lowest[0] >= 0
    assert sum(refused) > 0  # the small balance really was contended
    assert store.ledger.open_reservations() == []
    assert_ledger_invariant(store)
    # every settled reservation has exactly one usage row and one settle entry
    settled = [r for r in store.ledger.reservations() if r.state == "settled"]
    assert len(settled) == len(store.ledger.usage())
    per_kind: dict[str, int] = {}
    for e in store.ledger.ledger():
        per_kind[e.kind] = per_kind.get(e.kind, 0) + 1
    assert per_kind["settle"] == len(settled)
    assert per_kind["reserve"] == len(store.ledger.reservations())
    assert per_kind.get("release", 0) == len(store.ledger.reservations()) - len(settled)


def test_concurrent_reserve_settle_release_on_postgres(pg_store):
    _hammer(pg_store, threads=8, rounds=30, start_balance=D("40"))


def test_concurrent_reserve_settle_release_on_sqlite(sqlite_store):
    _hammer(sqlite_store, threads=8, rounds=15, start_balance=D("40"))
