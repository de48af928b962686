"""History-true prices: calls are charged by the price and multiplier rows in force when they were made, changes
never re-price them, and `agentr ledger verify` recomputes every cost from the rows stored on the usage row."""

from __future__ import annotations

import threading
from datetime import datetime, timedelta, timezone
from decimal import Decimal

import pytest
import sqlalchemy as sa
from click.testing import CliRunner

from agentr_dagster.cli import main
from agentr_dagster.domain.contracts import ResearchIntent
from agentr_dagster.domain.prompts import load_prompt
from agentr_dagster.llm.gateway import CallContext, LLMSettings, OpenAICompatibleBackend
from agentr_dagster.stages.usage import usage_calls_frame
from agentr_dagster.store import InsufficientCredits, StoreError, UsageIn
from agentr_dagster.store.ledger import CallBound
from agentr_dagster.store.verify import verify_ledger
from agentr_dagster.testing.responders import valid_responder
from tests.support.polling import wait_for

D = Decimal
MODEL = "scripted-model"
PROMPT_TOKENS, COMPLETION_TOKENS = 1234, 567


def gateway(store, server) -> OpenAICompatibleBackend:
    settings = LLMSettings(base_url=server.base_url, api_key="sk-test", model=MODEL, max_attempts=1)
    return OpenAICompatibleBackend(settings, store)


def call(gw: OpenAICompatibleBackend, slug: str, abstract: str) -> None:
    messages = load_prompt("intent").render(abstract=abstract)  # a new abstract: never a response-cache hit
    gw.complete("intent", messages, ResearchIntent, CallContext(slug=slug, stage="intent"))


def by_hand(inp: int, out: int, cached: int, price_in: str, price_out: str, price_cached: str | None, mult: str):
    cost = (D(inp - cached) * D(price_in) + D(cached) * D(price_cached or price_in) + D(out) * D(price_out)) / D(
        10**6
    )
    return cost, cost * D(mult)


def test_price_and_multiplier_changes_between_calls_keep_old_costs(store, scripted_server):  # noqa: F811
    server = scripted_server(
        valid_responder,
        prompt_tokens=lambda body: PROMPT_TOKENS,
        completion_tokens=lambda body, content: COMPLETION_TOKENS,
    )
    store.projects.create_project("prices", "abstract of a priced project")
    gw = gateway(store, server)
    p1 = store.ledger.set_pricing(MODEL, D("2.50"), D("10.00"))
    call(gw, "prices", "first call")
    p2 = store.ledger.set_pricing(MODEL, D("5.00"), D("20.00"))
    call(gw, "prices", "second call")
    m2 = store.ledger.set_multiplier(D("500"))
    call(gw, "prices", "third call")
    store.ledger.set_pricing(MODEL, D("100"), D("100"))  # later changes, no calls under them
    store.ledger.set_multiplier(D("7"))

    expected = [
        (p1, 1, by_hand(PROMPT_TOKENS, COMPLETION_TOKENS, 0, "2.50", "10.00", None, "1000")),
        (p2, 1, by_hand(PROMPT_TOKENS, COMPLETION_TOKENS, 0, "5.00", "20.00", None, "1000")),
        (p2, m2, by_hand(PROMPT_TOKENS, COMPLETION_TOKENS, 0, "5.00", "20.00", None, "500")),
    ]
    rows = store.ledger.usage("prices")
    assert len(rows) == server.calls == 3
    for row, (pricing_id, multiplier_id, (cost, credits)) in zip(rows, expected, strict=True):
        assert (row.pricing_id, row.multiplier_id) == (pricing_id, multiplier_id)
        assert (row.input_tokens, row.output_tokens) == (PROMPT_TOKENS, COMPLETION_TOKENS)
        assert row.cost_usd == cost and row.credits == credits
    # 1234 × 2.5/M + 567 × 10/M = 0.003085 + 0.00567 = 0.008755 USD = 8.755 credits at 1000/USD
    assert rows[0].cost_usd == D("0.008755") and rows[0].credits == D("8.755")
    assert rows[2].credits == D("0.008755") * 2 * 500

    # the report carries the prices each call paid, so the formula can be redone from it alone
    calls = usage_calls_frame(store, "prices")
    for _, r in calls.iterrows():
        cost, credits = by_hand(r.input_tokens, r.output_tokens, 0, r.input_usd_per_m, r.output_usd_per_m, None,
                                r.credits_per_usd)
        assert (r.cost_usd, r.credits) == (cost, credits)
    assert store.ledger.balance() == D(1000) - sum(r.credits for r in rows)
    report = verify_ledger(store)
    assert report.ok, [str(v) for v in report.violations]


def test_call_in_flight_is_priced_by_the_rows_in_force_when_it_started(store, scripted_server):  # noqa: F811
    server = scripted_server(valid_responder, latency=0.8, prompt_tokens=lambda b: 1000,
                             completion_tokens=lambda b, c: 100)
    store.projects.create_project("inflight", "abstract")
    old = store.ledger.set_pricing(MODEL, D("1"), D("1"))
    worker = threading.Thread(target=call, args=(gateway(store, server), "inflight", "slow call"))
    worker.start()
    wait_for(lambda: server.in_flight, "the slow call at the server")
    assert server.in_flight == 1
    store.ledger.set_pricing(MODEL, D("50"), D("50"))  # changes while the call is on the wire
    store.ledger.set_multiplier(D("10"))
    worker.join()
    (row,) = store.ledger.usage("inflight")
    assert row.pricing_id == old and row.multiplier_id == 1
    assert row.cost_usd == D("0.0011") and row.credits == D("1.1")
    assert verify_ledger(store).ok


def test_a_bounded_reservation_is_sized_at_the_rates_settle_uses(store):
    store.ledger.set_pricing("m", D("1000"), D("2000"))
    store.projects.create_project("capped", "abstract", budget_credits=D("40"))
    rid = store.ledger.reserve("default", idempotency_key="b1", slug="capped", bound=CallBound("m", 10, 5))
    (held,) = store.ledger.open_reservations()
    assert held.id == rid and held.amount == D("20")  # (10 × 1000 + 5 × 2000) / 1e6 USD × 1000 credits/USD
    store.ledger.set_pricing("m", D("9000"), D("9000"))  # dearer from now on: the call above keeps its rates
    store.ledger.settle(rid, usage=UsageIn(model="m", input_tokens=10, output_tokens=5))
    assert store.ledger.usage()[0].credits == D("20")
    with pytest.raises(InsufficientCredits) as refused:  # at the new rates the next call needs 135 > 20 left
        store.ledger.reserve("default", idempotency_key="b2", slug="capped", bound=CallBound("m", 10, 5))
    assert refused.value.reason == "budget" and refused.value.requested == D("135")
    assert verify_ledger(store).ok


def test_cached_input_is_charged_at_its_own_price(store):
    store.ledger.set_pricing("m", D("2.5"), D("10"), D("1.25"))
    store.ledger.grant("default", D("5000"))
    rid = store.ledger.reserve("default", 4000, idempotency_key="big")
    uid = store.ledger.settle(rid, usage=UsageIn(model="m", input_tokens=1_234_567, cached_input_tokens=234_567,
                                          output_tokens=89_012))
    (row,) = store.ledger.usage()
    # 1,000,000 × 2.5/M + 234,567 × 1.25/M + 89,012 × 10/M = 2.5 + 0.29320875 + 0.89012 = 3.68332875 USD
    assert row.id == uid and row.cost_usd == D("3.68332875") and row.credits == D("3683.32875")
    assert store.ledger.balance() == D("6000") - D("3683.32875")
    assert verify_ledger(store).ok


def test_back_dated_changes_cannot_rewrite_history(store):
    store.ledger.set_pricing("m", D("1"), D("1"), at=datetime(2024, 1, 1, tzinfo=timezone.utc))
    rid = store.ledger.reserve("default", 1, idempotency_key="c1")
    store.ledger.settle(rid, usage=UsageIn(model="m", input_tokens=10, output_tokens=10))
    an_hour_ago = datetime.now(timezone.utc) - timedelta(hours=1)
    with pytest.raises(StoreError, match="rewrite history"):
        store.ledger.set_pricing("m", D("9"), D("9"), at=an_hour_ago)
    with pytest.raises(StoreError, match="rewrite history"):
        store.ledger.set_multiplier(D("2"), at=an_hour_ago)
    with pytest.raises(StoreError, match="rewrite history"):
        store.ledger.set_default_credits(D("5"), at=an_hour_ago)  # the default account was created since
    store.ledger.set_pricing("other", D("1"), D("1"), at=datetime(2024, 1, 1, tzinfo=timezone.utc))
    open_rid = store.ledger.reserve("default", 1, idempotency_key="in-flight")  # a call on the wire since just now
    with pytest.raises(StoreError, match="in flight"):
        store.ledger.set_pricing("other", D("2"), D("2"), at=an_hour_ago)
    store.ledger.release(open_rid)
    rid = store.ledger.reserve("default", 0, idempotency_key="unpriced")
    store.ledger.settle(rid, usage=UsageIn(model="fresh", input_tokens=10, output_tokens=10))  # no price: charged 0
    with pytest.raises(StoreError, match="without a price"):
        store.ledger.set_pricing("fresh", D("1"), D("1"), at=an_hour_ago)
    store.ledger.set_pricing("fresh", D("1"), D("1"))  # from now on is fine
    # a change dated in the future is fine: calls until then keep the current price
    tomorrow = datetime.now(timezone.utc) + timedelta(days=1)
    future = store.ledger.set_pricing("m", D("3"), D("3"), at=tomorrow)
    assert store.ledger.pricing_in_force("m").id != future
    assert store.ledger.pricing_in_force("m", at=tomorrow + timedelta(seconds=1)).id == future
    assert [r.credits for r in store.ledger.usage()] == [D("0.02"), D("0")]
    assert verify_ledger(store).ok


def test_concurrent_changes_each_land_whole(store):
    errors: list[BaseException] = []

    def change(n: int) -> None:
        try:
            for i in range(6):
                store.ledger.set_pricing("m", D(n + 1), D(i + 1))
                if i % 2:
                    store.ledger.set_multiplier(D(1000 + n))
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=change, args=(n,)) for n in range(6)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert errors == []
    history = store.ledger.pricing_history("m")
    assert len(history) == 36 and sum(1 for h in history if h.valid_to is None) == 1
    ordered = sorted(history, key=lambda h: h.valid_from)
    assert all(a.valid_to == b.valid_from for a, b in zip(ordered, ordered[1:], strict=False))
    report = verify_ledger(store)
    assert report.ok, [str(v) for v in report.violations]


def test_verify_fails_naming_the_rows(store, monkeypatch):
    store.ledger.set_pricing("m", D("1000"), D("1000"))  # 1 token = 1 credit
    store.projects.create_project("audit", "abstract")
    uids = []
    for i in range(3):
        rid = store.ledger.reserve("default", 10, idempotency_key=f"r{i}", slug="audit")
        uids.append(store.ledger.settle(rid, usage=UsageIn(model="m", input_tokens=4, output_tokens=i)))
    stale = store.ledger.reserve("default", 5, idempotency_key="stale", slug="audit")
    monkeypatch.setenv("AGENTR_DATABASE_URL", store.url)
    runner = CliRunner()
    ok = runner.invoke(main, ["ledger", "verify"])
    assert ok.exit_code == 0 and "ledger verify: OK" in ok.output

    account = store.ledger.ensure_account()
    two_hours_ago = datetime.now(timezone.utc) - timedelta(hours=2)
    if store.dialect == "sqlite":
        two_hours_ago = two_hours_ago.replace(tzinfo=None)
    with store.engine.begin() as conn:
        conn.execute(sa.text("UPDATE usage_log SET cost_usd = cost_usd * 2 WHERE id = :u"), {"u": uids[1]})
        conn.execute(sa.text("UPDATE accounts SET balance = balance + 1 WHERE id = :a"), {"a": account})
        conn.execute(sa.text("UPDATE reservations SET created_at = :t WHERE id = :r"), {"t": two_hours_ago, "r": stale})
        conn.execute(sa.text("DELETE FROM ledger_entries WHERE usage_id = :u"), {"u": uids[2]})
    report = verify_ledger(store)
    failed = {v.check: v for v in report.violations}
    assert set(failed) == {
        "balance_equals_entries", "usage_cost_recomputes", "no_stale_open_reservations", "usage_has_ledger_entries",
        "reservation_entries",
    }
    assert f"usage_log#{uids[1]}" in failed["usage_cost_recomputes"].rows
    assert f"accounts#{account}" in failed["balance_equals_entries"].rows
    assert f"reservations#{stale}" in failed["no_stale_open_reservations"].rows
    assert f"usage_log#{uids[2]}" in failed["usage_has_ledger_entries"].rows

    bad = runner.invoke(main, ["ledger", "verify"])
    assert bad.exit_code == 1
    for name in (f"usage_log#{uids[1]}", f"accounts#{account}", f"reservations#{stale}", f"usage_log#{uids[2]}"):
        assert name in bad.output
    assert "FAILED" in bad.output
    as_json = runner.invoke(main, ["ledger", "verify", "--json"])
    assert as_json.exit_code == 1 and '"ok": false' in as_json.output
    # the stale reservation is the one thing an operator fixes by command
    assert "released 1" in runner.invoke(main, ["ledger", "release-stale", "--older-than", "3600"]).output
