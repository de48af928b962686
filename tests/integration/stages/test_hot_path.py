"""The parallel scoring hot path: answers cached with their charge, results written in batches, calls gated per
run with the next papers prepared ahead, and nothing called that went stale while waiting for its slot."""

from __future__ import annotations

import threading
from decimal import Decimal

import pytest
import sqlalchemy as sa

from agentr_dagster.domain.contracts import PaperRecord
from agentr_dagster.domain.failures import OrphanError
from agentr_dagster.imports import content_hash, paper_key
from agentr_dagster.llm.backends import LLMStageBackend
from agentr_dagster.llm.gateway import CallContext, LLMSettings, OpenAICompatibleBackend
from agentr_dagster.stages.intent import run_intent
from agentr_dagster.stages.scoring import ResultWriter, score_project
from agentr_dagster.store import CallBound, UsageIn, schema
from agentr_dagster.store.database import now_utc
from agentr_dagster.testing.responders import valid_responder
from tests.support.polling import wait_for


def _project(store, slug: str, n: int) -> list[int]:
    store.projects.create_project(
        slug, f"An abstract for {slug}: parallel scoring of candidate papers with a language model."
    )
    store.projects.add_papers(
        slug,
        [PaperRecord(title=f"{slug} paper {i}", abstract=f"Abstract {i}.") for i in range(n)],
        key_fn=paper_key,
        hash_fn=content_hash,
        provenance={"format": "test"},
    )
    return [p.id for p in store.projects.list_papers(slug)]


def _usage(slug: str, paper_id: int) -> UsageIn:
    return UsageIn(slug=slug, stage="score", paper_id=paper_id, model="m", input_tokens=100, output_tokens=50)


def test_settle_keeps_the_answer_in_the_same_transaction(store):
    store.ledger.set_pricing("m", Decimal("1"), Decimal("2"))
    [paper] = _project(store, "cached", 1)
    rid = store.ledger.reserve("default", idempotency_key="k1", slug="cached", stage="score", paper_id=paper,
                        bound=CallBound("m", 100, 50))
    assert store.results.cached_response("hash-1") is None
    usage_id = store.ledger.settle(rid, usage=_usage("cached", paper), response=("hash-1", '{"ok": true}'))
    assert store.results.cached_response("hash-1") == '{"ok": true}'
    # A repeated settle is a no-op for the money and keeps the first answer.
    assert store.ledger.settle(rid, usage=_usage("cached", paper), response=("hash-1", "other")) == usage_id
    assert store.results.cached_response("hash-1") == '{"ok": true}'
    assert len(store.ledger.usage("cached")) == 1
    # Without a response (an answer that did not validate) the call is charged and nothing is cached.
    rid2 = store.ledger.reserve("default", idempotency_key="k2", slug="cached", stage="score", paper_id=paper,
                         bound=CallBound("m", 100, 50))
    store.ledger.settle(rid2, usage=_usage("cached", paper))
    assert len(store.ledger.usage("cached")) == 2 and store.results.cached_response("hash-2") is None
    assert store.ledger.verify_ledger().ok


def test_reserve_with_a_reused_key_returns_the_same_reservation(store):
    store.ledger.set_pricing("m", Decimal("1"), Decimal("2"))
    [paper] = _project(store, "same-key", 1)
    first = store.ledger.reserve("default", idempotency_key="again", slug="same-key", stage="score", paper_id=paper,
                          bound=CallBound("m", 100, 50))
    balance = store.ledger.balance("default")
    assert store.ledger.reserve("default", idempotency_key="again", slug="same-key", stage="score", paper_id=paper,
                         bound=CallBound("m", 100, 50)) == first
    assert store.ledger.balance("default") == balance


def test_result_writer_batches_and_reports_deleted_papers(sqlite_store):
    store = sqlite_store
    ids = _project(store, "writer", 5)
    with store.engine.begin() as conn:  # one paper deleted while its call was in flight
        conn.execute(sa.update(schema.papers).where(schema.papers.c.id == ids[2]).values(deleted_at=now_utc()))
    stored, orphans = [], []

    class Paper:
        def __init__(self, pid):
            self.id = pid

    writer = ResultWriter(store, "writer", version="v", model="m", backend="b", run_id=None,
                          on_stored=stored.append, on_orphan=lambda paper, exc: orphans.append((paper.id, exc)))
    for pid in ids:
        writer.put(Paper(pid), f"key-{pid}", {"score": pid})
    writer.close()
    assert sum(stored) == 4
    assert [pid for pid, _ in orphans] == [ids[2]] and isinstance(orphans[0][1], OrphanError)
    keys = {pid: f"key-{pid}" for pid in ids}
    assert {r.paper_id for r in store.results.results_for_project("writer", cache_keys=keys)} == set(ids) - {ids[2]}


def test_result_writer_hands_a_database_error_to_close(sqlite_store):
    store = sqlite_store
    ids = _project(store, "broken", 2)

    class Paper:
        def __init__(self, pid):
            self.id = pid

    writer = ResultWriter(store, "broken", version="v", model="m", backend="b", run_id=None,
                          on_stored=lambda n: None, on_orphan=lambda paper, exc: None)
    writer.put(Paper(ids[0]), "k", {"not-json-serialisable": object()})
    with pytest.raises(sa.exc.StatementError):
        writer.close()
    assert store.results.results_for_project("broken") == []


def test_parallel_scoring_keeps_calls_within_the_run_concurrency(sqlite_store, scripted_server):  # noqa: F811
    server = scripted_server(valid_responder, latency=0.1)
    store = sqlite_store
    _project(store, "gated", 24)
    backend = LLMStageBackend(OpenAICompatibleBackend(LLMSettings(base_url=server.base_url, model="m"), store))
    run_intent(store, backend, "gated")
    server.max_in_flight = 0
    summary = score_project(store, backend, "gated", concurrency=4)
    assert summary.complete and summary.scored == 24
    assert server.max_in_flight == 4  # more threads than 4 prepare papers, but only 4 calls are ever in flight
    assert store.ledger.open_reservations() == []


def test_a_call_waiting_for_its_slot_is_not_made_if_the_project_was_deleted(sqlite_store, scripted_server):  # noqa: F811
    server = scripted_server(valid_responder)
    store = sqlite_store
    [paper] = _project(store, "waiting", 1)
    settings = LLMSettings(base_url=server.base_url, model="m")
    backend = LLMStageBackend(OpenAICompatibleBackend(settings, store))
    run_intent(store, backend, "waiting")
    gate = threading.BoundedSemaphore(1)
    gate.acquire()  # the run's only call slot is taken
    calls, balance = server.calls, store.ledger.balance("default")
    outcome: list = []

    def call() -> None:
        try:
            backend.score_paper(backend_intent(store), "abstract", "title", "text",
                                CallContext(slug="waiting", stage="score", paper_id=paper, call_gate=gate))
        except Exception as exc:  # noqa: BLE001 - the outcome is asserted below
            outcome.append(exc)

    thread = threading.Thread(target=call)
    thread.start()
    wait_for(store.ledger.open_reservations, "the call's reservation")
    assert len(store.ledger.open_reservations()) == 1  # reserved, now waiting for the slot
    store.projects.soft_delete_project("waiting")
    gate.release()
    thread.join(10)
    assert len(outcome) == 1 and isinstance(outcome[0], OrphanError)
    assert server.calls == calls  # no call was made
    assert store.ledger.open_reservations() == [] and store.ledger.balance("default") == balance


def backend_intent(store, slug: str = "waiting"):
    from agentr_dagster.stages.intent import current_intent

    return current_intent(store, slug)[0]


def test_an_unreachable_shared_limiter_releases_the_hold_and_makes_no_call(sqlite_store, scripted_server):  # noqa: F811
    from agentr_dagster.domain.failures import StageError

    server = scripted_server(valid_responder)
    store = sqlite_store
    [paper] = _project(store, "no-redis", 1)
    good = LLMStageBackend(OpenAICompatibleBackend(LLMSettings(base_url=server.base_url, model="m"), store))
    run_intent(store, good, "no-redis")
    settings = LLMSettings(base_url=server.base_url + "/", model="m", max_concurrent=2, max_attempts=1,
                           redis_url="redis://127.0.0.1:1/0")  # nothing listens on port 1
    backend = LLMStageBackend(OpenAICompatibleBackend(settings, store))
    calls, balance = server.calls, store.ledger.balance("default")
    with pytest.raises(StageError):
        backend.score_paper(backend_intent(store, "no-redis"), "abstract", "title", "text",
                            CallContext(slug="no-redis", stage="score", paper_id=paper))
    assert server.calls == calls
    assert store.ledger.open_reservations() == [] and store.ledger.balance("default") == balance
