"""A database error is transient wherever it happens, never permanent (store/outage.py).

First the gateway's classifier on real SQLAlchemy exceptions, each produced by a real database: PostgreSQL refusing
connections, a backend terminated under an open connection, the pool exhausted, SQLite locked. Then a real 3 s
PostgreSQL blip (a TCP relay cut and restored) while scoring: the papers waiting for their call slot hit it in the
pre-call check (orphan check, claim fence), which was classified "permanent: unexpected error calling the LLM" and
sent the user to fix the API key. Now every failure recorded is transient and a second run scores what is left,
each paper paid once."""

from __future__ import annotations

import socket
import sqlite3
import threading
import time
from collections.abc import Callable

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import make_url

from agentr_dagster.domain.failures import NEXT_STEP, FailureClass, TransientError
from agentr_dagster.llm.backends import LLMStageBackend
from agentr_dagster.llm.gateway import LLMSettings, OpenAICompatibleBackend, classify_api_error
from agentr_dagster.stages.intent import run_intent
from agentr_dagster.stages.lifecycle import database_failures_recorded
from agentr_dagster.stages.queries import run_queries
from agentr_dagster.stages.scoring import score_project
from agentr_dagster.store import DomainStore
from agentr_dagster.store.outage import database_failure
from tests.support.cli import agentr
from tests.support.recovery import API_KEY, MODEL, assert_ledger_reconciles, chain_responder, make_project, stage_name
from tests.support.relay import Relay


def _raised(action: Callable[[], object]) -> BaseException:
    try:
        action()
    except Exception as exc:  # noqa: BLE001 - the test wants the real exception instance
        return exc
    raise AssertionError("the database did not fail")


def refused_connection(pg_url: str) -> BaseException:
    """PostgreSQL's address with nothing listening: psycopg2's 'Connection refused', as SQLAlchemy raises it."""
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))  # bound, never listening: connecting is refused
        url = make_url(pg_url).set(host="127.0.0.1", port=closed.getsockname()[1])
        engine = sa.create_engine(url)
        try:
            return _raised(lambda: engine.connect())
        finally:
            engine.dispose()


def terminated_backend(pg_url: str) -> BaseException:
    """An open connection whose server process was terminated (pg_terminate_backend): a server restart."""
    engine = sa.create_engine(pg_url, poolclass=sa.pool.NullPool)
    admin = sa.create_engine(pg_url, poolclass=sa.pool.NullPool)
    try:
        with engine.connect() as conn:
            pid = conn.execute(sa.text("SELECT pg_backend_pid()")).scalar_one()
            with admin.connect() as other:
                other.execute(sa.text("SELECT pg_terminate_backend(:pid)"), {"pid": pid})
            return _raised(lambda: conn.execute(sa.text("SELECT 1")))
    finally:
        engine.dispose()
        admin.dispose()


def exhausted_pool(pg_url: str) -> BaseException:
    """Every pooled connection in use: SQLAlchemy's pool TimeoutError."""
    engine = sa.create_engine(pg_url, pool_size=1, max_overflow=0, pool_timeout=0.2)
    try:
        with engine.connect():
            return _raised(lambda: engine.connect())
    finally:
        engine.dispose()


def locked_sqlite(tmp_path) -> BaseException:
    """A SQLite file whose write lock another connection holds: 'database is locked'."""
    path = tmp_path / "locked.sqlite"
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("CREATE TABLE t (x INTEGER)")
    holder.execute("BEGIN IMMEDIATE")
    engine = sa.create_engine(f"sqlite:///{path}", connect_args={"timeout": 0.1})
    try:
        with engine.connect() as conn:
            return _raised(lambda: conn.execute(sa.text("INSERT INTO t VALUES (1)")))
    finally:
        engine.dispose()
        holder.close()


@pytest.mark.parametrize("make_error", ["refused", "terminated", "pool", "sqlite-locked"])
def test_real_database_errors_are_transient_never_permanent(make_error, pg_url, tmp_path):
    exc = {"refused": lambda: refused_connection(pg_url), "terminated": lambda: terminated_backend(pg_url),
           "pool": lambda: exhausted_pool(pg_url), "sqlite-locked": lambda: locked_sqlite(tmp_path)}[make_error]()
    assert isinstance(exc, sa.exc.SQLAlchemyError), repr(exc)
    if make_error == "terminated":
        assert exc.connection_invalidated  # what a restarted server looks like to an open connection

    error = classify_api_error(exc)

    assert error.failure_class is FailureClass.transient and isinstance(error, TransientError)
    assert error.retryable
    assert "the domain database failed" in error.message and "unexpected error calling the LLM" not in error.message
    assert "\n" not in error.message and "API key" not in NEXT_STEP[error.failure_class]
    assert database_failure(exc, "score") is not None
    assert database_failure(ValueError("not a database"), "score") is None


def test_a_database_blip_before_the_call_is_transient_and_a_rerun_completes(pg_url, pg_store, tmp_path,  # noqa: F811
                                                                             scripted_server):
    slug, n = "blip", 8
    make_project(pg_store, tmp_path, slug, n)
    relay = Relay(make_url(pg_url).port or 5432)
    relay.start()
    blips: list[float] = []

    def blip(index: int, body: dict):
        """The database goes away for 3 s when the second score request arrives: the papers queued behind it
        meet the outage in their pre-call checks, the answer in flight meets it when it settles."""
        if stage_name(body) == "score" and sum(stage_name(b) == "score" for b in server.requests) == 2:
            blips.append(time.monotonic())
            relay.stop()
            threading.Timer(3.0, relay.start).start()
        return None

    server = scripted_server(chain_responder, latency=0.3, faults=blip)
    store = DomainStore(make_url(pg_url).set(port=relay.port).render_as_string(hide_password=False))
    settings = LLMSettings(base_url=server.base_url, api_key=API_KEY, model=MODEL, backoff_base_s=0.2,
                           backoff_max_s=1.0)
    backend = LLMStageBackend(OpenAICompatibleBackend(settings, store))
    try:
        run_intent(store, backend, slug, run_id="run-blip")
        run_queries(store, backend, slug, run_id="run-blip")
        try:
            with database_failures_recorded(store, slug, "score", "run-blip", backend, wait_s=20):
                summary = score_project(store, backend, slug, concurrency=2, run_id="run-blip")
        except TransientError:
            summary = None  # the outage reached the stage's own writes: recorded as transient too
        assert blips, "the blip never happened: the test proves nothing"
        # the second run, after the blip: what is missing is scored, nothing is paid twice
        again = score_project(store, backend, slug, concurrency=2, run_id="run-after")
    finally:
        relay.close()
        store.close()

    recorded = [f for f in pg_store.lifecycle.failures(slug) if f.stage == "score"]
    assert recorded, "the blip left no failure: the pre-call checks never met it"
    assert {f.failure_class for f in recorded} == {"transient"}, [(f.failure_class, f.message) for f in recorded]
    assert not any("unexpected error calling the LLM" in f.message for f in recorded)
    assert any("the domain database failed" in f.message for f in recorded)
    if summary is not None:
        assert not summary.failed.get(FailureClass.permanent)
    assert not again.failed and again.scored + again.reused == n
    assert len(pg_store.results.results_for_project(slug)) == n
    report = pg_store.ledger.verify_ledger()
    assert report.ok, report.violations
    assert_ledger_reconciles(pg_store)
    # what the user reads: transient, run again later — not "fix the API key"
    failures = agentr("failures", slug, env={"AGENTR_DATABASE_URL": pg_store.url}).output
    assert "transient" in failures and "permanent" not in failures and "API key" not in failures, failures
