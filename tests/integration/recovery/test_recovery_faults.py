"""Fault injection: one Dagster run over a 20-paper project per fault class, against a real OpenAI-compatible
server on loopback and the real domain store (SQLite and PostgreSQL).

For every class: the run ends where the class says (transient -> completes; 401 and no credits -> no retry;
orphan -> no further calls), every paper is scored exactly once, every call that returned a completion has
exactly one usage row and settle entry (none without a call), no reservation is left open, the balance equals
the sum of the ledger, and re-running completed work charges nothing.
"""

from __future__ import annotations

import threading
from collections import Counter
from decimal import Decimal

import pytest
from dagster import DagsterInstance

from agentr_dagster.defs.recovery import open_instance, resume
from agentr_dagster.domain import failures as st
from agentr_dagster.llm.backends import LLMStageBackend
from agentr_dagster.llm.gateway import LLMSettings, OpenAICompatibleBackend
from agentr_dagster.stages.intent import run_intent
from agentr_dagster.stages.queries import run_queries
from agentr_dagster.stages.scoring import score_project
from agentr_dagster.store import DomainStore
from agentr_dagster.store.ledger import Ledger
from agentr_dagster.testing.scripted_server import Fault
from tests.support.recovery import (
    API_KEY,
    FaultPlan,
    assert_charged_per_call,
    assert_ledger_reconciles,
    assert_scored_once,
    billable_calls,
    chain_responder,
    first_attempt,
    llm,
    llm_env,
    make_project,
    requests_per_title,
    run_chain,
    spent,
    stage_name,
    step_retries,
)

N = 20
RETRY_AFTER = 0.3

TRANSIENT = {
    "429-retry-after": Fault("status", status=429, retry_after=RETRY_AFTER),
    "500": Fault("status", status=500),
    "503": Fault("status", status=503),
    "drop": Fault("drop"),
    "truncate": Fault("truncate"),
    "invalid-json": Fault("invalid_json"),
    "schema-violation": Fault("schema_violation"),
}
# Spread the transient kinds over both store backends instead of running each twice.
BACKEND = {"429-retry-after": "postgresql", "500": "sqlite", "503": "postgresql", "drop": "sqlite",
           "truncate": "postgresql", "invalid-json": "sqlite", "schema-violation": "postgresql"}


def _store(request, backend: str):
    return request.getfixturevalue("sqlite_store" if backend == "sqlite" else "pg_store")


@pytest.mark.parametrize("kind", [pytest.param(k, marks=[pytest.mark.postgres] if BACKEND[k] == "postgresql" else [])
                                  for k in TRANSIENT])
def test_transient_faults_complete_and_charge_each_call_once(kind, request, tmp_path, scripted_server):  # noqa: F811
    store = _store(request, BACKEND[kind])
    plan = first_attempt(TRANSIENT[kind])
    server = scripted_server(chain_responder, faults=plan)
    store.ledger.set_pricing("scripted-model", Decimal("2.50"), Decimal("10.00"))
    store.ledger.ensure_account("default")
    before = store.ledger.balance("default")
    slug = f"transient-{kind}"
    make_project(store, tmp_path, slug, N)
    instance = DagsterInstance.ephemeral()  # nothing here is resumed: in-memory run storage keeps it fast

    result = run_chain(store, slug, llm(server, concurrency=4), instance)

    assert result.success
    assert step_retries(result) == 0  # the in-process retries were enough
    faulted = 1 + N  # the intent call and every paper's first score call
    assert sum(1 for f in server.faults_applied if f.kind != "ok") == faulted
    assert server.calls == 2 + 2 * N + 1  # each faulted request was retried (or repaired) exactly once
    assert_scored_once(store, slug, server)
    assert_charged_per_call(store, server)
    assert_ledger_reconciles(store)
    assert store.ledger.balance("default") == before - spent(store)
    assert store.lifecycle.paper_states(slug, "score") == {p.id: st.COMPLETED for p in store.projects.list_papers(slug)}
    if TRANSIENT[kind].kind in ("invalid_json", "schema_violation"):
        repairs = [b for b in server.requests if "did not validate" in b["messages"][-1]["content"]]
        assert len(repairs) == faulted  # the repair round fed the validation error back
    else:
        recorded = [f for f in store.lifecycle.failures(slug) if f.failure_class == "transient" and f.stage == "score"]
        assert sorted(f.paper_id for f in recorded) == sorted(p.id for p in store.projects.list_papers(slug))
        assert {f.attempt for f in recorded} == {1} and all(f.run_id == result.run_id for f in recorded)
    if kind == "429-retry-after":
        retried = {key: times for key, times in plan.times.items() if len(times) > 1}
        assert len(retried) == faulted
        for key, times in retried.items():
            assert times[1] - times[0] >= RETRY_AFTER - 0.02, f"Retry-After not honoured for {key}"

    if kind in ("500", "truncate"):  # re-materialising completed work: no call, no charge, no ledger entry
        calls, entries = server.calls, len(store.ledger.ledger())
        again = run_chain(store, slug, llm(server), instance)
        assert again.success and server.calls == calls and len(store.ledger.ledger()) == entries


def test_transient_beyond_in_process_budget_is_retried_by_dagster(sqlite_store, tmp_path, scripted_server):  # noqa: F811
    store, slug = sqlite_store, "dagster-retry"
    make_project(store, tmp_path, slug, N)
    stubborn = {p.title.strip() for p in store.projects.list_papers(slug)[:5]}
    plan = FaultPlan(lambda stage, title, attempt: Fault("status", status=503)
                     if title in stubborn and attempt <= 2 else None)
    server = scripted_server(chain_responder, faults=plan)
    store.ledger.set_pricing("scripted-model", Decimal("2.50"), Decimal("10.00"))

    result = run_chain(store, slug, llm(server, concurrency=4, max_attempts=2), DagsterInstance.ephemeral())

    assert result.success and step_retries(result) == 1
    per_title = requests_per_title(server)
    assert all(per_title[t] == 3 for t in stubborn)  # 2 in-process attempts, then 1 in the Dagster retry
    assert sum(per_title.values()) == N + 2 * len(stubborn)  # the retry re-called only the missing papers
    assert_scored_once(store, slug, server)
    assert_charged_per_call(store, server)
    assert_ledger_reconciles(store)


@pytest.mark.usefixtures("fast_home")
def test_401_is_not_retried_and_resumes_after_the_fix(pg_store, tmp_path, scripted_server, monkeypatch):  # noqa: F811
    store, slug = pg_store, "bad-key"
    bad = {"on": True}
    server = scripted_server(chain_responder, faults=lambda i, body: Fault("status", status=401)
                             if bad["on"] and stage_name(body) == "score" else None)
    store.ledger.set_pricing("scripted-model", Decimal("2.50"), Decimal("10.00"))
    make_project(store, tmp_path, slug, N)
    instance = open_instance()

    result = run_chain(store, slug, llm(server, concurrency=4), instance, tags={"agentr/source": "test"})

    assert not result.success and step_retries(result) == 0
    per_title = requests_per_title(server)
    assert max(per_title.values()) == 1  # no paper was asked twice
    assert sum(per_title.values()) <= 4  # after the refusal no new call went out (only those already in flight)
    permanent = [f for f in store.lifecycle.failures(slug) if f.failure_class == "permanent"]
    assert len(permanent) == N and "AGENTR_LLM_API_KEY" in permanent[0].message
    assert set(store.lifecycle.paper_states(slug, "score").values()) == {st.FAILED_OTHER}
    assert len(store.ledger.usage(slug)) == 2  # intent and queries; refused calls cost nothing
    assert_ledger_reconciles(store)

    bad["on"] = False  # the key is fixed
    llm_env(monkeypatch, server, store)
    calls = server.calls
    [outcome] = resume(store, instance, [slug])

    assert outcome.success and outcome.action == "reexecuted" and outcome.parent_run_id == result.run_id
    child = instance.get_run_by_id(outcome.run_ids[0])
    assert child.parent_run_id == result.run_id
    assert child.tags["dagster/partition"] == slug and child.tags["agentr/source"] == "test"
    asked = Counter(stage_name(b) for b in server.requests[calls:])
    assert asked["score"] == N and asked["intent"] == asked["queries"] == 0  # only the papers were asked again
    assert_scored_once(store, slug, server)
    assert_charged_per_call(store, server)
    assert_ledger_reconciles(store)


@pytest.mark.usefixtures("fast_home")
def test_no_credits_stops_without_retry_and_resumes_after_top_up(sqlite_store, tmp_path, scripted_server,  # noqa: F811
                                                                 monkeypatch):
    store, slug = sqlite_store, "broke"
    server = scripted_server(chain_responder)
    store.ledger.set_pricing("scripted-model", Decimal("10"), Decimal("10"))  # 0.01 credits a token
    store.ledger.ensure_account("default")
    store.ledger.adjust(
        "default", Decimal("150") - store.ledger.balance("default"), note="test: enough for a few calls"
    )
    make_project(store, tmp_path, slug, N)
    instance = open_instance()

    result = run_chain(store, slug, llm(server, concurrency=4), instance)

    # partial: the papers scored go on to the exports and the synthesis; no step retry
    assert result.success and step_retries(result) == 0
    assert max(requests_per_title(server).values()) == 1  # nobody retried a refused reservation
    scored = len(store.results.results_for_project(slug))
    assert 0 < scored < N
    states = store.lifecycle.paper_states(slug, "score")
    assert {s for s in states.values() if s != st.COMPLETED} == {st.FAILED_NO_CREDITS}
    assert any(f.failure_class == "no_credits" for f in store.lifecycle.failures(slug))
    assert_charged_per_call(store, server)
    assert_ledger_reconciles(store)

    store.ledger.grant("default", Decimal("100000"), note="top-up")
    llm_env(monkeypatch, server, store)
    calls = server.calls
    [outcome] = resume(store, instance, [slug])

    assert outcome.success and outcome.papers_missing_before == N - scored
    assert Counter(stage_name(b) for b in server.requests[calls:])["score"] == N - scored
    assert_scored_once(store, slug, server)
    assert_charged_per_call(store, server)
    assert_ledger_reconciles(store)


def test_orphan_mid_run_stops_calls_and_charges_nothing_more(store, tmp_path, scripted_server):  # noqa: F811
    slug, delete_at = "deleted-mid-run", 8
    calls_at_delete = {}
    lock = threading.Lock()
    seen = {"score": 0}

    def responder(body: dict) -> str:
        if stage_name(body) == "score":
            with lock:
                seen["score"] += 1
                if seen["score"] == delete_at:  # the user runs `agentr project delete` while calls are in flight
                    store.projects.soft_delete_project(slug)
                    calls_at_delete["n"] = server.calls
        return chain_responder(body)

    server = scripted_server(responder, latency=0.02)
    store.ledger.set_pricing("scripted-model", Decimal("2.50"), Decimal("10.00"))
    make_project(store, tmp_path, slug, N)
    instance = DagsterInstance.ephemeral()

    result = run_chain(store, slug, llm(server, concurrency=4), instance)

    assert not result.success and step_retries(result) == 0
    assert server.calls - calls_at_delete["n"] <= 3  # only calls already reserved and in flight
    assert_charged_per_call(store, server)  # calls really made are charged once, the rest never happen
    assert_ledger_reconciles(store)
    states = store.lifecycle.paper_states(slug, "score")
    assert set(states.values()) <= {st.COMPLETED, st.FAILED_ORPHAN}
    assert list(states.values()).count(st.COMPLETED) < delete_at
    assert any(f.failure_class == "orphan" for f in store.lifecycle.failures(slug))
    assert store.lifecycle.status(slug) and store.ledger.usage(slug)  # the audit trail outlives the project

    # A deleted project is terminal: running or resuming it makes no call and is not retried.
    calls = server.calls
    again = run_chain(store, slug, llm(server), instance)
    assert not again.success and step_retries(again) == 0 and server.calls == calls
    [outcome] = resume(store, instance, [slug])
    assert outcome.action == "orphan" and not outcome.run_ids and server.calls == calls


class _DeletedBeforeReserve(Ledger):
    """A real ledger in which the project is deleted just before the gateway's reservation transaction (after
    every check the caller made)."""

    def __init__(self, store: DomainStore, victim: str):
        super().__init__(store.db)
        self.projects = store.projects
        self.victim = victim

    def reserve(self, *args, **kwargs):
        self.projects.soft_delete_project(self.victim)
        return super().reserve(*args, **kwargs)


def test_deletion_between_check_and_reservation_is_an_orphan(sqlite_url, tmp_path, scripted_server):  # noqa: F811
    server = scripted_server(chain_responder)
    settings = LLMSettings(base_url=server.base_url, api_key=API_KEY, model="scripted-model", backoff_base_s=0.01)
    with DomainStore(sqlite_url) as store:
        slug = "race"
        make_project(store, tmp_path, slug, 6)
        backend = LLMStageBackend(OpenAICompatibleBackend(settings, store))
        run_intent(store, backend, slug)
        run_queries(store, backend, slug)
    calls = server.calls
    with DomainStore(sqlite_url) as racing:
        racing.ledger = _DeletedBeforeReserve(racing, slug)
        with pytest.raises(st.OrphanError, match="0 scored, 0 reused of 6; failed: orphan=6"):
            score_project(racing, LLMStageBackend(OpenAICompatibleBackend(settings, racing)), slug)
        assert server.calls == calls  # no call went out
        assert {r.stage: r.state for r in racing.lifecycle.status(slug)}["score"] == st.FAILED_ORPHAN
        assert set(racing.lifecycle.paper_states(slug, "score").values()) == {st.FAILED_ORPHAN}
        assert_ledger_reconciles(racing)
        assert billable_calls(server) == len(racing.ledger.usage(slug))



