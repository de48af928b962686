"""Fixtures every test gets: an offline environment, closed store pools, and (as plugins) the stores and servers."""

from __future__ import annotations

import os
import uuid

import pytest
import sqlalchemy as sa

pytest_plugins = ["tests.fixtures.stores", "tests.fixtures.servers", "tests.support.recovery"]

PG_ADMIN_URL = os.environ.get("AGENTR_TEST_PG_ADMIN_URL", "postgresql+psycopg2://postgres@127.0.0.1:5432/postgres")

# The services a test needs, read from the fixtures it uses and the parameters it runs with, so that
# `pytest -m "not postgres"` (and redis, browser, llama) selects without editing every test file.
_FIXTURE_MARKS = {
    "pg_database_url": "postgres", "pg_url": "postgres", "pg_store": "postgres", "pg_url_for_dagster": "postgres",
    "llama_server": "llama",
}
_PARAM_MARKS = {"postgresql": "postgres", "redis": "redis"}  # store_url / backend / shared parameter values


def pytest_collection_modifyitems(config, items):
    for item in items:
        wanted = {_FIXTURE_MARKS[name] for name in getattr(item, "fixturenames", ()) if name in _FIXTURE_MARKS}
        params = getattr(getattr(item, "callspec", None), "params", {})
        wanted |= {_PARAM_MARKS[value] for value in params.values() if isinstance(value, str) and value in _PARAM_MARKS}
        for name in sorted(wanted - {mark.name for mark in item.iter_markers()}):
            item.add_marker(name)


@pytest.fixture(autouse=True)
def _offline_environment(monkeypatch, tmp_path):
    """No test may depend on the developer's environment: no endpoint, no database URL, a private home."""
    for name in ("AGENTR_LLM_BASE_URL", "AGENTR_LLM_API_KEY", "AGENTR_DATABASE_URL", "DAGSTER_HOME",
                 "AGENTR_EMBEDDING_CACHE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AGENTR_HOME", str(tmp_path / "agentr-home"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")


@pytest.fixture(autouse=True)
def _no_current_dagster_state_storage():
    """Each test starts and ends with no process-wide "current definitions-state storage". A Dagster context
    that enters an instance and is never closed (a sensor or schedule context built without `with`) leaves it set,
    and a later test's materialisation would then read that instance's storage after its home is deleted
    ("unable to open database file", seen in the UI test)."""
    from dagster._core.storage.defs_state.base import set_defs_state_storage

    with set_defs_state_storage(None):
        yield


@pytest.fixture(autouse=True)
def _close_cached_stores():
    """Each test's store URL is new; without this, cached pools would pile up connections on PostgreSQL."""
    yield
    from agentr_dagster.defs.resources import close_all_stores

    close_all_stores()


@pytest.fixture
def pg_url_for_dagster():
    """A fresh PostgreSQL database for Dagster's run/event/schedule storage, dropped afterwards."""
    name = f"agentr_dagster_test_{uuid.uuid4().hex[:10]}"
    admin = sa.create_engine(PG_ADMIN_URL, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(sa.text(f'CREATE DATABASE "{name}"'))
    url = PG_ADMIN_URL.rsplit("/", 1)[0] + f"/{name}"
    try:
        yield url
    finally:
        with admin.connect() as conn:
            conn.execute(sa.text(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = :n AND pid <> pg_backend_pid()"
            ), {"n": name})
            conn.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}"'))
        admin.dispose()
