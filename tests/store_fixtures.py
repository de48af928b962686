"""Pytest fixtures for the domain store, shared across test modules.

    from tests.store_fixtures import *  # noqa: F403

- ``store``: a freshly migrated :class:`DomainStore`, parametrised over SQLite (a temp file) and PostgreSQL;
- ``store_url``: the same pair of URLs without opening a store (for tests that start their own processes);
- ``sqlite_url`` / ``sqlite_store``, ``pg_url`` / ``pg_store``: one backend only;
- ``pg_database_url``: a database created for the test session (``agentr_test_<random>``), dropped at the end.

Each PostgreSQL test gets its own empty schema in that database; the URL carries it in libpq ``options``
(``-csearch_path=<schema> -csynchronous_commit=off``), so a URL handed to another process lands in the same
schema.
PostgreSQL tests fail (never skip) if the server (``$AGENTR_TEST_PG_ADMIN_URL``, default
``postgresql+psycopg2://postgres@127.0.0.1:5432/postgres``) cannot be reached.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import make_url

from agentr_dagster.store import DomainStore
from agentr_dagster.store.engine import normalise_url

PG_SERVER_URL = os.environ.get("AGENTR_TEST_PG_ADMIN_URL", "postgresql+psycopg2://postgres@127.0.0.1:5432/postgres")

__all__ = [
    "pg_database_url",
    "pg_store",
    "pg_url",
    "sqlite_store",
    "sqlite_url",
    "store",
    "store_url",
]


def _admin_engine(url) -> sa.Engine:
    return sa.create_engine(url, isolation_level="AUTOCOMMIT", connect_args={"connect_timeout": 5})


@pytest.fixture(scope="session")
def pg_database_url() -> Iterator[str]:
    """A fresh PostgreSQL database for the session, dropped afterwards; fails if PostgreSQL is unreachable."""
    server = make_url(normalise_url(PG_SERVER_URL))
    name = f"agentr_test_{uuid.uuid4().hex[:12]}"
    admin = _admin_engine(server)
    try:
        with admin.connect() as conn:
            conn.exec_driver_sql(f'CREATE DATABASE "{name}"')
    except sa.exc.OperationalError as exc:
        admin.dispose()
        pytest.fail(
            f"PostgreSQL not available at {server.render_as_string()}: {exc.orig} "
            "(start it: scripts/ensure_services.sh)", pytrace=False,
        )
    try:
        yield server.set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as conn:
            conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.dispose()


@pytest.fixture
def pg_url(pg_database_url: str) -> Iterator[str]:
    """An empty schema of the session database, as a URL whose search_path selects it."""
    schema = f"t_{uuid.uuid4().hex[:12]}"
    base = make_url(pg_database_url)
    admin = _admin_engine(base)
    try:
        with admin.connect() as conn:
            conn.exec_driver_sql(f'CREATE SCHEMA "{schema}"')
        # synchronous_commit=off: test commits need not wait for the WAL flush (durability is not under test)
        url = base.update_query_dict({"options": f"-csearch_path={schema} -csynchronous_commit=off"})
        yield url.render_as_string(hide_password=False)
        with admin.connect() as conn:
            conn.exec_driver_sql(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
    finally:
        admin.dispose()


@pytest.fixture
def sqlite_url(tmp_path) -> str:
    return f"sqlite:///{tmp_path / 'agentr.db'}"


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request) -> str:
    return request.getfixturevalue("sqlite_url" if request.param == "sqlite" else "pg_url")


@pytest.fixture
def store(store_url: str) -> Iterator[DomainStore]:
    with DomainStore(store_url) as s:
        yield s


@pytest.fixture
def sqlite_store(sqlite_url: str) -> Iterator[DomainStore]:
    with DomainStore(sqlite_url) as s:
        yield s


@pytest.fixture
def pg_store(pg_url: str) -> Iterator[DomainStore]:
    with DomainStore(pg_url) as s:
        yield s
