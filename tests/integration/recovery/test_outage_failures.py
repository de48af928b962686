"""Failures that happen while the database is away are recorded once it is back, as what they were (the classified
error of the call), not replaced by the outage's own error. Real PostgreSQL behind a TCP relay, the scripted
server answering HTTP 500."""

from __future__ import annotations

import threading
import time

import pytest
from sqlalchemy.engine import make_url

from agentr_dagster.domain.failures import TransientError
from agentr_dagster.llm.backends import LLMStageBackend
from agentr_dagster.llm.gateway import LLMSettings, OpenAICompatibleBackend
from agentr_dagster.stages.intent import run_intent
from agentr_dagster.stages.lifecycle import database_failures_recorded
from agentr_dagster.stages.queries import run_queries
from agentr_dagster.stages.scoring import score_project
from agentr_dagster.store import DomainStore
from agentr_dagster.testing.scripted_server import Fault
from tests.support.polling import wait_for
from tests.support.recovery import API_KEY, MODEL, assert_ledger_reconciles, chain_responder, make_project, stage_name
from tests.support.relay import Relay


def test_500s_answered_during_an_outage_are_recorded_when_it_is_back(pg_url, pg_store, tmp_path,  # noqa: F811
                                                                     scripted_server):
    slug, n = "outage-500", 3
    make_project(pg_store, tmp_path, slug, n)
    relay = Relay(make_url(pg_url).port or 5432)
    relay.start()
    server = scripted_server(chain_responder, latency=0.8, faults=lambda i, body: Fault("status", status=500)
                             if stage_name(body) == "score" else None)
    store = DomainStore(make_url(pg_url).set(port=relay.port).render_as_string(hide_password=False))
    settings = LLMSettings(base_url=server.base_url, api_key=API_KEY, model=MODEL, backoff_base_s=0.01)
    backend = LLMStageBackend(OpenAICompatibleBackend(settings, store))
    try:
        run_intent(store, backend, slug, run_id="run-out")
        run_queries(store, backend, slug, run_id="run-out")
        calls_before = server.calls

        def cut() -> None:  # every score call in flight when the database goes; the 500s arrive while it is away
            wait_for(lambda: server.calls - calls_before >= n, f"{n} score calls in flight")
            relay.stop()
            time.sleep(2.5)
            relay.start()

        cutter = threading.Thread(target=cut)
        cutter.start()
        with pytest.raises(TransientError, match="the domain database failed"), \
                database_failures_recorded(store, slug, "score", "run-out", backend, wait_s=20):
            score_project(store, backend, slug, concurrency=n, run_id="run-out")
        cutter.join()
    finally:
        relay.close()
        store.close()
    recorded = [f for f in pg_store.lifecycle.failures(slug) if f.stage == "score"]
    answered_500 = [f for f in recorded if "HTTP 500" in f.message]
    assert {f.paper_id for f in answered_500} == {p.id for p in pg_store.projects.list_papers(slug)}
    assert all(f.failure_class == "transient" and f.run_id == "run-out" for f in answered_500)
    # and the outage itself, after them, as the stage's failure
    assert "the domain database failed" in recorded[-1].message and recorded[-1].paper_id is None
    assert pg_store.ledger.open_reservations() == []  # the releases the outage blocked were done after it
    assert_ledger_reconciles(pg_store)
