"""Issue 35 (1-3): holders in other namespaces, the settlement fence and operator waste, on SQLite and PostgreSQL,
the gateway calling the scripted server over real HTTP.

A holder in another host, boot or PID namespace is played by a second store whose ``leases.identity`` names
another realm (the identity is injectable); ``tests/integration/recovery/test_namespace_processes.py`` runs a real
second process in another UTS/PID namespace.
"""

from __future__ import annotations

import threading
from datetime import timedelta
from decimal import Decimal
from pathlib import Path

import pytest
import sqlalchemy as sa

from agentr_dagster.domain.attempts import AttemptCap
from agentr_dagster.domain.contracts import ResearchIntent
from agentr_dagster.domain.failures import FailureClass, StageError, StoppedError
from agentr_dagster.domain.prompts import load_prompt
from agentr_dagster.llm.gateway import CallContext, LLMSettings, OpenAICompatibleBackend
from agentr_dagster.stages.staleness import release_project_reservations
from agentr_dagster.store import DomainStore, UsageIn
from agentr_dagster.store import schema as t
from agentr_dagster.store.database import as_utc, now_utc
from agentr_dagster.store.leases import (
    HOST,
    Heartbeat,
    Identity,
    current_realm,
    holder_gone,
    new_holder,
)
from agentr_dagster.testing.responders import valid_responder
from agentr_dagster.testing.scripted_server import Fault
from tests.support import dead_pid
from tests.support.polling import wait_for
from tests.support.recovery import MODEL, make_project

INTENT_MESSAGES = load_prompt("intent").render(abstract="Money across hosts: one charge per request.")
ELSEWHERE = "0c0ffee0-boot-of-another-machine/pid:[4026599999]"


def _gateway(server, store, **kw) -> OpenAICompatibleBackend:
    return OpenAICompatibleBackend(LLMSettings(base_url=server.base_url, model=MODEL, backoff_base_s=0.01, **kw), store)


def _priced(store) -> None:
    store.ledger.set_pricing(MODEL, Decimal("2.50"), Decimal("10.00"))
    store.ledger.ensure_account("default")


def _elsewhere(url: str, pid: int) -> DomainStore:
    """A store used by a holder in another namespace: same host name, another boot id and PID namespace, and a
    pid that names no process here."""
    other = DomainStore(url)
    other.leases.identity = lambda: Identity(HOST, ELSEWHERE, pid)
    return other


def _wait_until_stale(store, ttl_s: float = 1.0) -> None:
    """Until the request claim's last beat (or renewal) is older than ``ttl_s``: its holder looks frozen."""
    def stale() -> bool:
        with store.engine.connect() as conn:
            beat = conn.execute(sa.select(sa.func.max(t.request_claims.c.heartbeat_at))).scalar()
        return beat is not None and now_utc() - as_utc(beat) > timedelta(seconds=ttl_s + 0.05)

    wait_for(stale, "the request claim going stale", timeout=10, interval=0.05)


def test_a_pid_is_asked_about_only_inside_its_own_namespace():
    realm = current_realm()
    boot = Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    assert realm.startswith(boot + "/pid:[")
    now = now_utc()
    long_ago = now - timedelta(hours=1)
    gone = dead_pid()
    # same host, same realm: an exited pid is gone at once, whatever its heartbeat
    assert holder_gone(HOST, gone, "x", long_ago, now, now, ttl_s=60, realm=realm)
    # same host name, another PID namespace (a container with host networking): its pid means nothing here, so a
    # fresh heartbeat keeps it however dead its pid looks; a stale one does not
    assert not holder_gone(HOST, gone, "x", long_ago, now, now, ttl_s=60, realm=ELSEWHERE)
    assert holder_gone(HOST, gone, "x", long_ago, long_ago, now, ttl_s=60, realm=ELSEWHERE)
    # a row written before realms existed: heartbeat alone
    assert not holder_gone(HOST, gone, "x", long_ago, now, now, ttl_s=60, realm=None)


def test_a_live_holder_in_another_namespace_keeps_its_lease_and_a_stale_one_loses_its_late_answer(store, tmp_path):
    """B (another PID namespace, same host name, its pid dead from here) holds the lease and a paper claim with
    a fresh heartbeat: A neither takes the lease nor releases anything. B freezes past the TTL: A takes over,
    B's claims are revoked, resume-style release gives back B's hold, and B's late answer is refused by the fence
    (operator waste, priced) instead of being charged."""
    _priced(store)
    make_project(store, tmp_path, "ns", 2)
    paper = store.projects.list_papers("ns")[0]
    b = _elsewhere(store.url, dead_pid())
    hb, ha = new_holder("b", b.leases.identity()), new_holder("a")
    beat_b = Heartbeat(b, hb)
    try:
        assert b.leases.try_acquire_project_lease("ns", hb, run_id="run-b") == (True, None)
        assert b.leases.claim_papers("ns", hb, [(paper.id, "key-1")]) == {"key-1"}
        held = b.ledger.reserve("default", Decimal("5"), idempotency_key="r-b", slug="ns", stage="score",
                                paper_id=paper.id, run_id="run-b")
        taken, current = store.leases.try_acquire_project_lease("ns", ha, run_id="run-a")
        assert not taken and current.holder == hb  # live in its namespace: never taken over
        assert store.leases.live_lease("ns") is not None
        assert store.leases.claim_papers("ns", ha, [(paper.id, "key-1")]) == set()
    finally:
        beat_b.stop()
    with store.engine.begin() as conn:  # B is frozen (SIGSTOP, a VM pause): its beats stop for an hour
        old = now_utc() - timedelta(hours=1)
        for table in (t.project_leases, t.paper_claims):
            conn.execute(sa.update(table).values(heartbeat_at=old))
    assert store.leases.live_lease("ns") is None
    assert release_project_reservations(store, "ns", "released by resume") == 1  # what `agentr resume` does
    assert store.ledger.waste("ns")[0].cause == "killed"  # the call in flight may have been served
    fence = b.leases.fence("paper", "key-1", hb)
    late = UsageIn(slug="ns", stage="score", paper_id=paper.id, model=MODEL, input_tokens=1000, output_tokens=200)
    balance = store.ledger.balance()
    assert b.ledger.settle(held, usage=late, fence=fence) is None  # B wakes: its late answer is refused
    assert store.ledger.usage("ns") == [] and store.ledger.balance() == balance  # charged to nobody
    (waste,) = store.ledger.waste("ns")
    assert (waste.cause, waste.priced_as, waste.holder) == ("fenced_late_answer", "usage", hb)
    assert waste.cost_usd == Decimal("0.0045") and waste.credits > 0  # 1000 in at 2.50/M + 200 out at 10/M
    report = store.ledger.verify_ledger()
    assert report.ok, report.violations
    assert report.waste["fenced_late_answer"].calls == 1
    assert "fenced_late_answer 1" in report.waste_line()
    b.close()


def test_a_late_answer_after_a_takeover_is_waste_and_the_request_is_charged_once(store, tmp_path, scripted_server,
                                                                                 monkeypatch):
    """A asks a request (latency 2 s) and stops beating in time (TTL 1 s); B, in another namespace, takes the claim
    over and pays for the request. A's answer then arrives: the fence in the settling transaction refuses it."""
    monkeypatch.setenv("AGENTR_LEASE_TTL_S", "1")
    server = scripted_server(valid_responder, latency=2.0)
    _priced(store)
    make_project(store, tmp_path, "late", 1)
    b = _elsewhere(store.url, 1)
    first, second = _gateway(server, store), _gateway(server, b)
    outcome: dict[str, object] = {}

    def ask_a() -> None:
        try:
            outcome["a"] = first.complete("intent", INTENT_MESSAGES, ResearchIntent, CallContext("late", "intent"))
        except StageError as exc:
            outcome["a"] = exc

    a = threading.Thread(target=ask_a)
    a.start()
    wait_for(lambda: server.calls == 1, "A's call at the server", timeout=10)
    _wait_until_stale(store)  # A's claim is older than the TTL before its first beat (3 s): gone, seen from elsewhere
    answer = second.complete("intent", INTENT_MESSAGES, ResearchIntent, CallContext("late", "intent"))
    a.join()
    assert isinstance(answer, ResearchIntent)
    assert isinstance(outcome["a"], StoppedError) and "operator waste" in outcome["a"].message
    assert server.calls == 2
    assert len(store.ledger.usage("late")) == 1  # one charge to the project
    (waste,) = store.ledger.waste("late")
    assert waste.cause == "fenced_late_answer" and waste.credits > 0
    report = store.ledger.verify_ledger()
    assert report.ok, report.violations
    b.close()


def test_the_attempt_cap_holds_across_a_takeover(store, tmp_path, scripted_server, monkeypatch):
    """Answers never validate. A is answered once, then its repair is in flight when B (another namespace) takes
    over: B may make one call (the cap is 2 answered calls), and A's late repair is waste, not a third charge."""
    monkeypatch.setenv("AGENTR_LEASE_TTL_S", "1")

    def plan(index: int, body: dict) -> Fault:
        return Fault("schema_violation", latency=2.5 if index == 1 else 0.0)  # A's repair is the slow one

    server = scripted_server(valid_responder, faults=plan)
    _priced(store)
    make_project(store, tmp_path, "capped", 1)
    b = _elsewhere(store.url, 1)
    first, second = _gateway(server, store), _gateway(server, b)
    outcome: dict[str, object] = {}

    def ask_a() -> None:
        try:
            first.complete("intent", INTENT_MESSAGES, ResearchIntent, CallContext("capped", "intent"))
        except StageError as exc:
            outcome["a"] = exc

    a = threading.Thread(target=ask_a)
    a.start()
    wait_for(lambda: server.calls == 2, "A's repair at the server", timeout=10)
    _wait_until_stale(store)
    with pytest.raises(StageError) as refused:
        second.complete("intent", INTENT_MESSAGES, ResearchIntent, CallContext("capped", "intent"))
    a.join()
    assert refused.value.failure_class is FailureClass.invalid_output
    assert isinstance(outcome["a"], StoppedError)
    assert server.calls == 3
    charged = store.ledger.usage("capped")
    assert len(charged) == AttemptCap().answers == 2  # A's first answer and B's one call; A's repair is waste
    assert {u.request_hash for u in charged} == {charged[0].request_hash}
    assert {w.cause for w in store.ledger.waste("capped")} == {"fenced_late_answer"}
    report = store.ledger.verify_ledger()
    assert report.ok, report.violations
    b.close()


def test_a_timed_out_call_is_operator_waste_priced_at_its_hold(store, tmp_path, scripted_server):
    server = scripted_server(valid_responder, latency=1.5)
    _priced(store)
    make_project(store, tmp_path, "slow", 1)
    gateway = _gateway(server, store, timeout_s=0.3, max_attempts=1)
    with pytest.raises(StageError) as failed:
        gateway.complete("intent", INTENT_MESSAGES, ResearchIntent, CallContext("slow", "intent"))
    assert failed.value.failure_class is FailureClass.transient
    (waste,) = store.ledger.waste("slow")
    (res,) = store.ledger.reservations("slow")
    assert (waste.cause, waste.priced_as, waste.credits, res.state) == ("timeout", "bound", res.amount, "released")
    assert store.ledger.usage("slow") == []
    report = store.ledger.verify_ledger()
    assert report.ok and report.waste["timeout"].calls == 1
    assert "timeout 1" in report.waste_line()


def test_verify_fails_for_a_double_charge_and_for_waste_that_was_charged(store, tmp_path):
    _priced(store)
    make_project(store, tmp_path, "twice", 1)
    assert store.ledger.verify_ledger().ok
    key = "ab" * 32
    first = store.ledger.reserve("default", Decimal("5"), idempotency_key=f"{key}:1:1", slug="twice", stage="intent")
    second = store.ledger.reserve("default", Decimal("5"), idempotency_key=f"{key}:2:2", slug="twice",
                                  stage="intent")  # in flight at the same time: two workers, one request
    for rid in (first, second):
        store.ledger.settle(rid, usage=UsageIn(slug="twice", stage="intent", model=MODEL, input_tokens=100,
                                               output_tokens=10, request_hash=key))
    report = store.ledger.verify_ledger()
    assert not report.ok and report.failed_checks() == ["no_duplicate_charges"]
    with store.engine.begin() as conn:  # a call booked as the operator's waste and charged to the project too
        conn.execute(sa.insert(t.operator_waste).values(
            cause="fenced_late_answer", reservation_id=first, credits=Decimal("1"), priced_as="usage",
            created_at=now_utc()))
    assert "waste_never_charged" in store.ledger.verify_ledger().failed_checks()


def test_a_transaction_frozen_on_postgresql_does_not_hold_its_locks_for_ever(pg_url, monkeypatch):
    """A process frozen inside a transaction (the account's row lock held) would block every reservation; the
    server ends its session after the idle-in-transaction timeout and the others go on."""
    from agentr_dagster.store import engine as engine_module

    monkeypatch.setattr(engine_module, "PG_IDLE_IN_TRANSACTION_S", 1)
    frozen, other = DomainStore(pg_url), DomainStore(pg_url)
    _priced(frozen)
    conn = frozen.engine.connect()
    conn.begin()
    conn.execute(sa.select(t.accounts.c.balance).with_for_update())  # then the process stops answering
    held: list[int] = []
    reserve = threading.Thread(target=lambda: held.append(
        other.ledger.reserve("default", Decimal("1"), idempotency_key="after-the-freeze")))
    reserve.start()
    reserve.join(timeout=30)
    assert held, "the reservation waited for the frozen transaction's lock"
    with pytest.raises(sa.exc.OperationalError):  # the frozen process wakes: its transaction is gone
        conn.execute(sa.select(t.accounts.c.balance))
    conn.invalidate()
    frozen.close()
    other.close()
