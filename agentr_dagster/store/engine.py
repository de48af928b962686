"""Engines and migrations for the domain store (no Dagster imports).

SQLite: WAL, busy_timeout, foreign keys, ``check_same_thread=False``; SQLAlchemy emits ``BEGIN`` itself
(pysqlite's legacy transaction handling is switched off) so that write transactions can be ``BEGIN IMMEDIATE``
— a write lock taken up front, which is what serialises ledger updates on SQLite.
PostgreSQL: psycopg2, ``pool_pre_ping``; migrations run under ``pg_advisory_xact_lock`` so several processes
can start at once.
"""

from __future__ import annotations

import json
import sqlite3
import time
from datetime import date, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import event
from sqlalchemy.engine import Engine, make_url
from sqlalchemy.pool import StaticPool

PACKAGE_DIR = Path(__file__).resolve().parent
ALEMBIC_INI = PACKAGE_DIR / "alembic.ini"
MIGRATIONS_DIR = PACKAGE_DIR / "migrations"
IMMEDIATE = "agentr_sqlite_immediate"  # execution option: open the transaction with BEGIN IMMEDIATE
MIGRATION_LOCK_KEY = 0x4147_4E54_5230  # pg advisory lock key for migrations ("AGNTR0")
SQLITE_BUSY_TIMEOUT_MS = 30_000


def normalise_url(url: str) -> str:
    """``postgresql://`` / ``postgres://`` mean psycopg2 here (SQLAlchemy 2.1 would pick psycopg 3)."""
    for prefix in ("postgresql://", "postgres://"):
        if url.startswith(prefix):
            return "postgresql+psycopg2://" + url[len(prefix) :]
    return url


def default_database_url(home: Path) -> str:
    """``$AGENTR_DATABASE_URL`` if set, else ``sqlite:///{home}/agentr.db``; bare postgresql:// → psycopg2."""
    from agentr_dagster.settings import get_settings

    url = get_settings().store.database_url
    if not url:
        url = f"sqlite:///{Path(home).expanduser().resolve() / 'agentr.db'}"
    return normalise_url(url)


def _json_default(value: Any) -> Any:
    if isinstance(value, (datetime, date)):
        return value.isoformat()
    if isinstance(value, (Decimal, Path)):
        return str(value)
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json")
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")


def _json_dumps(value: Any) -> str:
    return json.dumps(value, default=_json_default, ensure_ascii=False)


def make_engine(url: str, **kwargs: Any) -> Engine:
    url = normalise_url(url)
    parsed = make_url(url)
    kwargs.setdefault("json_serializer", _json_dumps)
    if parsed.get_backend_name() == "sqlite":
        database = parsed.database or ""
        memory = not database or database == ":memory:" or database.startswith("file::memory:")
        connect_args = kwargs.pop("connect_args", {})
        connect_args.setdefault("check_same_thread", False)
        connect_args.setdefault("timeout", SQLITE_BUSY_TIMEOUT_MS / 1000)
        if memory:
            kwargs.setdefault("poolclass", StaticPool)
        else:
            Path(database).expanduser().parent.mkdir(parents=True, exist_ok=True)
            _size_pool(kwargs)
        engine = sa.create_engine(url, connect_args=connect_args, **kwargs)
        _install_sqlite_hooks(engine, wal=not memory)
        return engine
    kwargs.setdefault("pool_pre_ping", True)
    _size_pool(kwargs)
    engine = sa.create_engine(url, **kwargs)
    sa.event.listen(engine, "connect", _end_frozen_transactions)
    return engine


PG_IDLE_IN_TRANSACTION_S = 60  # far above any of the store's transactions, which are short and never wait on a person


def _end_frozen_transactions(dbapi_connection: Any, _record: Any) -> None:
    """A process frozen inside a transaction (SIGSTOP, a VM pause, a debugger) would hold its row locks for as long
    as it stays frozen, and every other worker would wait for them: the lease's takeover, the account's next
    reservation. PostgreSQL ends such a session after ``PG_IDLE_IN_TRANSACTION_S``; when the process wakes, its
    transaction is gone (nothing of it committed), and its retry meets the settlement fence."""
    with dbapi_connection.cursor() as cursor:
        cursor.execute(f"SET idle_in_transaction_session_timeout = {PG_IDLE_IN_TRANSACTION_S * 1000}")
    dbapi_connection.commit()


def _size_pool(kwargs: dict[str, Any]) -> None:
    """A fixed set of connections per process: ``$AGENTR_DB_POOL_SIZE`` (8) kept open, ``$AGENTR_DB_POOL_OVERFLOW``
    (0) more on demand. Parallel scoring runs many threads, but each holds a connection for one short
    transaction; opening overflow connections for bursts (and closing them again) cost more than waiting for a
    pooled one (measured with ``agentr bench scoring --concurrency 32`` on PostgreSQL and SQLite)."""
    if kwargs.get("poolclass") is not None:
        return
    from agentr_dagster.settings import get_settings

    settings = get_settings().store
    kwargs.setdefault("pool_size", settings.db_pool_size)
    kwargs.setdefault("max_overflow", settings.db_pool_overflow)


def _switch_to_wal(cursor: Any) -> None:
    """Put the database file in WAL mode (a no-op once it is: the mode is stored in the file).

    The switch needs an exclusive lock, and SQLite answers "database is locked" at once, without its busy
    handler, while other connections are opening the same new file: several processes or threads starting on a
    fresh database all try it. So it is retried with a short backoff, up to the busy timeout."""
    if str(cursor.execute("PRAGMA journal_mode").fetchone()[0]).lower() == "wal":
        return
    deadline = time.monotonic() + SQLITE_BUSY_TIMEOUT_MS / 1000
    delay = 0.005
    while True:
        try:
            cursor.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(delay)
            delay = min(delay * 2, 0.2)


def _install_sqlite_hooks(engine: Engine, *, wal: bool) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection, _record):  # pragma: no cover - exercised on every connect
        dbapi_connection.isolation_level = None  # we emit BEGIN ourselves
        cursor = dbapi_connection.cursor()
        try:
            cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
            if wal:
                _switch_to_wal(cursor)
                cursor.execute("PRAGMA synchronous=NORMAL")
            cursor.execute("PRAGMA foreign_keys=ON")
        finally:
            cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn):
        if conn.get_execution_options().get(IMMEDIATE):
            conn.exec_driver_sql("BEGIN IMMEDIATE")
        else:
            conn.exec_driver_sql("BEGIN")


def alembic_config(connection: sa.Connection | None = None, url: str | None = None) -> Config:
    cfg = Config(str(ALEMBIC_INI))
    cfg.set_main_option("script_location", str(MIGRATIONS_DIR))
    if url:
        cfg.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    if connection is not None:
        cfg.attributes["connection"] = connection
    return cfg


_HEAD: str | None = None


def head_revision() -> str:
    global _HEAD
    if _HEAD is None:
        head = ScriptDirectory.from_config(alembic_config()).get_current_head()
        if head is None:
            raise RuntimeError("the store's migrations have no head revision")
        _HEAD = head
    return _HEAD


def current_revision(engine: Engine) -> str | None:
    with engine.connect() as conn:
        return MigrationContext.configure(conn).get_current_revision()


def upgrade(engine: Engine, revision: str = "head") -> None:
    """``alembic upgrade`` in one transaction, serialised across processes.

    PostgreSQL: ``pg_advisory_xact_lock`` (transactional DDL, so a waiting process then sees the new version).
    SQLite: ``BEGIN IMMEDIATE`` holds the write lock for the whole upgrade (SQLite DDL is transactional too).
    """
    if revision == "head" and current_revision(engine) == head_revision():
        return
    with engine.connect() as conn:
        if engine.dialect.name == "sqlite":
            conn.execution_options(**{IMMEDIATE: True})
        with conn.begin():
            if engine.dialect.name == "postgresql":
                conn.execute(sa.text("SELECT pg_advisory_xact_lock(:k)"), {"k": MIGRATION_LOCK_KEY})
            command.upgrade(alembic_config(connection=conn), revision)
