"""The database the store's parts share: the engine and its pool, transactions with retries, the fork check,
the SQLite writer lock, and the lookups every part needs (a project by slug, an active project, a paper check,
an advisory lock)."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from datetime import datetime, timezone
from typing import Any, TypeVar

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection, Engine

from agentr_dagster.domain.retry import retrying
from agentr_dagster.store import hot
from agentr_dagster.store.engine import IMMEDIATE, make_engine, normalise_url, upgrade
from agentr_dagster.store.rows import OrphanError, ProjectNotFound, StoreError

T = TypeVar("T")
UTC = timezone.utc
_RETRYABLE_PGCODES = {"40001", "40P01"}  # serialization failure, deadlock detected
_ATTEMPTS = 5


def now_utc() -> datetime:
    return datetime.now(UTC)


def as_utc(value: datetime | None) -> datetime:
    """``None`` → now; naive → taken as UTC; aware → converted to UTC."""
    if value is None:
        return now_utc()
    if not isinstance(value, datetime):
        raise TypeError(f"expected a datetime, got {type(value).__name__}")
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def _retryable(exc: BaseException) -> bool:
    """A conflict another try may not meet: a deadlock, a serialization failure, a locked SQLite database."""
    if not isinstance(exc, sa.exc.DBAPIError):
        return False
    code = getattr(exc.orig, "pgcode", None)
    if code in _RETRYABLE_PGCODES:
        return True
    return "database is locked" in str(exc.orig).lower()


class Database:
    """Owns the engine; :meth:`run` / :meth:`read` run a function in one short transaction."""

    def __init__(self, url: str, *, migrate: bool = True, **engine_kwargs: Any):
        self.url: str = normalise_url(url)
        self._engine: Engine = make_engine(self.url, **engine_kwargs)
        self._pid = os.getpid()
        # SQLite has one writer at a time and its busy handler waits by sleeping (1, 2, 5, 10 ms...): threads of
        # this process queue on a lock instead, so a write starts the moment the previous one commits.
        self._sqlite_writer = threading.Lock()
        if migrate:
            upgrade(self._engine)

    @property
    def engine(self) -> Engine:
        self.check_fork()
        return self._engine

    @property
    def dialect(self) -> str:
        return self._engine.dialect.name

    @property
    def is_postgres(self) -> bool:
        return self.dialect == "postgresql"

    def close(self) -> None:
        self._engine.dispose()

    def __repr__(self) -> str:
        return f"Database({self._engine.url.render_as_string(hide_password=True)!r})"

    def check_fork(self) -> None:
        pid = os.getpid()
        if pid != self._pid:  # pooled connections must not be shared with a parent process
            self._engine.dispose(close=False)
            self._pid = pid

    def run(self, fn: Callable[[Connection], T], *, write: bool = True) -> T:
        """Run ``fn(conn)`` in one transaction (``BEGIN IMMEDIATE`` for writes on SQLite); retried on deadlock,
        serialization failure or a locked SQLite database. ``fn`` must only touch the database."""
        self.check_fork()
        # a policy per call (~15 µs): its state is per thread, and a transaction may run inside another's retry
        return retrying(attempts=_ATTEMPTS, base=0.1, cap=1.6, when=_retryable)(self._transaction, fn, write)

    def _transaction(self, fn: Callable[[Connection], T], write: bool) -> T:
        if write and self.dialect == "sqlite":
            with self._sqlite_writer, self._engine.connect() as conn:
                conn.execution_options(**{IMMEDIATE: True})
                with conn.begin():
                    return fn(conn)
        with self._engine.connect() as conn, conn.begin():
            return fn(conn)

    def read(self, fn: Callable[[Connection], T]) -> T:
        return self.run(fn, write=False)

    def insert(self, table: sa.Table):
        """Dialect insert, for ``on_conflict_do_nothing`` / ``on_conflict_do_update``."""
        return (postgresql.insert if self.is_postgres else sqlite.insert)(table)

    def insert_response(self, conn: Connection, request_hash: str, content: str) -> None:
        values = {"request_hash": request_hash, "content": content, "created_at": now_utc()}
        conn.execute(hot.insert_response(self.dialect), values)

    def advisory_lock(self, conn: Connection, key: int) -> None:
        """Transaction-scoped lock on PostgreSQL; SQLite write transactions are already exclusive."""
        if self.is_postgres:
            conn.execute(sa.text("SELECT pg_advisory_xact_lock(:k)"), {"k": key})

    # -- lookups the parts share -----------------------------------------------------------------------------

    def project(self, conn: Connection, slug: str, *, lock: bool = False) -> sa.Row:
        """The project row (deleted or not); ProjectNotFound if there is none."""
        row = conn.execute(hot.PROJECT_BY_SLUG_FOR_UPDATE if lock else hot.PROJECT_BY_SLUG, {"slug": slug}).first()
        if row is None:
            raise ProjectNotFound(f"no project {slug!r}")
        return row

    def visible_project(self, conn: Connection, slug: str, include_deleted: bool) -> sa.Row:
        row = self.project(conn, slug)
        if row.deleted_at is not None and not include_deleted:
            raise ProjectNotFound(f"project {slug!r} is deleted")
        return row

    def active_project(self, conn: Connection, slug: str, *, lock: bool = False) -> sa.Row:
        """The project row for work on it: OrphanError if soft-deleted."""
        row = self.project(conn, slug, lock=lock)
        if row.deleted_at is not None:
            raise OrphanError(f"project {slug!r} was deleted at {row.deleted_at.isoformat()}")
        return row

    def check_paper(self, conn: Connection, project: sa.Row, paper_id: int) -> sa.Row:
        row = conn.execute(hot.PAPER_OWNER, {"paper_id": paper_id}).first()
        if row is None or row.project_id != project.id:
            raise StoreError(f"paper {paper_id} does not belong to project {project.slug!r}")
        if row.deleted_at is not None:
            raise OrphanError(f"paper {paper_id} of project {project.slug!r} was deleted")
        return row
