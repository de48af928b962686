"""Lifecycle: the current state of each stage (and of each paper in it), the transitions that led there, and
failures. Lifecycle writes work on soft-deleted projects too, so that an orphan can be recorded as such."""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from agentr_dagster.store import schema as t
from agentr_dagster.store.database import Database, now_utc
from agentr_dagster.store.rows import FailureRow, StatusRow, TransitionRow, from_row

log = logging.getLogger(__name__)
PROJECT_STAGE = "project"  # stage name of project-level lifecycle rows (e.g. 'reinitiated')
_CHUNK = 500


def _check_state(state: str) -> str:
    if state not in t.STATES:
        raise ValueError(f"unknown state {state!r}; expected one of {', '.join(t.STATES)}")
    return state


class Lifecycle:
    """``store.lifecycle``: status, transitions and failures. :meth:`write_status` / :meth:`write_status_many`
    write inside a caller's transaction (the other parts use them to change state in the same commit)."""

    def __init__(self, db: Database):
        self.db = db
        # failures that could not be written (the database was away): kept, with their time, for flush_kept
        self._kept: list[dict[str, Any]] = []
        self._kept_lock = threading.Lock()

    def write_status(
        self,
        conn: Connection,
        project_id: int,
        stage: str,
        state: str,
        paper_id: int | None,
        detail: str | None,
        run_id: str | None,
        now,
    ) -> None:
        ss = t.stage_status
        stmt = self.db.insert(ss).values(
            project_id=project_id,
            stage=stage,
            paper_id=t.STAGE_LEVEL if paper_id is None else paper_id,
            state=state,
            detail=detail,
            run_id=run_id,
            updated_at=now,
        )
        stmt = stmt.on_conflict_do_update(
            index_elements=["project_id", "stage", "paper_id"],
            set_={"state": state, "detail": detail, "run_id": run_id, "updated_at": now},
        )
        conn.execute(stmt)
        conn.execute(
            sa.insert(t.status_transitions).values(
                project_id=project_id,
                stage=stage,
                paper_id=paper_id,
                state=state,
                detail=detail,
                run_id=run_id,
                created_at=now,
            )
        )

    def set_status(
        self,
        slug: str,
        stage: str,
        state: str,
        *,
        paper_id: int | None = None,
        detail: str | None = None,
        run_id: str | None = None,
    ) -> None:
        """Upsert the current state of a stage (or of one paper in it) and append a timestamped transition.
        Works on soft-deleted projects too (to record ``failed_orphan``)."""
        _check_state(state)
        if paper_id is not None and paper_id <= 0:
            raise ValueError("paper_id must be a positive paper id (None for the stage itself)")

        def tx(conn: Connection) -> None:
            project = self.db.project(conn, slug)
            self.write_status(conn, project.id, stage, state, paper_id, detail, run_id, now_utc())

        self.db.run(tx)

    def set_status_many(
        self,
        slug: str,
        stage: str,
        state: str,
        paper_ids: Iterable[int],
        *,
        run_id: str | None = None,
        detail: str | None = None,
    ) -> None:
        """The same state for many papers of a stage, in batched statements in one transaction."""
        _check_state(state)
        ids = sorted(set(paper_ids))  # a fixed order keeps concurrent batches from deadlocking
        if any(i <= 0 for i in ids):
            raise ValueError("paper ids must be positive")
        if not ids:
            return

        def tx(conn: Connection) -> None:
            project = self.db.project(conn, slug)
            self.write_status_many(conn, project.id, stage, state, ids, run_id, detail)

        self.db.run(tx)

    def write_status_many(
        self, conn: Connection, project_id: int, stage: str, state: str, ids: list[int], run_id, detail
    ) -> None:
        now = now_utc()
        ss = t.stage_status
        stmt = self.db.insert(ss)
        stmt = stmt.on_conflict_do_update(
            index_elements=["project_id", "stage", "paper_id"],
            set_={
                "state": stmt.excluded.state,
                "detail": stmt.excluded.detail,
                "run_id": stmt.excluded.run_id,
                "updated_at": stmt.excluded.updated_at,
            },
        )
        for start in range(0, len(ids), _CHUNK):
            chunk = ids[start : start + _CHUNK]
            common = {"project_id": project_id, "stage": stage, "state": state, "detail": detail}
            conn.execute(stmt, [{**common, "paper_id": i, "run_id": run_id, "updated_at": now} for i in chunk])
            conn.execute(
                sa.insert(t.status_transitions),
                [{**common, "paper_id": i, "run_id": run_id, "created_at": now} for i in chunk],
            )

    def status(self, slug: str | None = None) -> list[StatusRow]:
        """Current stage-level rows, each with its papers counted by state; ordered by slug, then stage.
        Without ``slug``: live projects only; with it, deleted projects too."""
        ss, p = t.stage_status, t.projects

        def tx(conn: Connection) -> list[StatusRow]:
            scope = []
            if slug is None:
                scope.append(p.c.deleted_at.is_(None))
            else:
                scope.append(p.c.id == self.db.project(conn, slug).id)
            stage_rows = conn.execute(
                sa.select(ss, p.c.slug).join(p, p.c.id == ss.c.project_id).where(ss.c.paper_id == t.STAGE_LEVEL, *scope)
            ).all()
            counts = conn.execute(
                sa.select(ss.c.project_id, p.c.slug, ss.c.stage, ss.c.state, sa.func.count().label("n"))
                .join(p, p.c.id == ss.c.project_id)
                .where(ss.c.paper_id != t.STAGE_LEVEL, *scope)
                .group_by(ss.c.project_id, p.c.slug, ss.c.stage, ss.c.state)
            ).all()
            merged = {(r.project_id, r.stage): from_row(StatusRow, r) for r in stage_rows}
            for r in counts:
                key = (r.project_id, r.stage)
                if key not in merged:  # per-paper rows only; a count row's state is its papers', not the stage's
                    merged[key] = StatusRow(r.project_id, r.slug, r.stage, None, None, None, None)
                merged[key].paper_counts[r.state] = int(r.n)
            rows = list(merged.values())
            return sorted(rows, key=lambda s: (s.slug, s.stage))

        return self.db.read(tx)

    def paper_states(self, slug: str, stage: str) -> dict[int, str]:
        """Current per-paper states of one stage: {paper_id: state}."""
        ss = t.stage_status

        def tx(conn: Connection) -> dict[int, str]:
            project = self.db.project(conn, slug)
            rows = conn.execute(
                sa.select(ss.c.paper_id, ss.c.state).where(
                    ss.c.project_id == project.id, ss.c.stage == stage, ss.c.paper_id != t.STAGE_LEVEL
                )
            )
            return {r.paper_id: r.state for r in rows}

        return self.db.read(tx)

    def transitions(self, slug: str, stage: str | None = None, paper_id: int | None = None) -> list[TransitionRow]:
        """The project's transitions in order; ``stage``/``paper_id`` filter when given."""
        st = t.status_transitions

        def tx(conn: Connection) -> list[TransitionRow]:
            project = self.db.project(conn, slug)
            q = sa.select(st).where(st.c.project_id == project.id).order_by(st.c.id)
            if stage is not None:
                q = q.where(st.c.stage == stage)
            if paper_id is not None:
                q = q.where(st.c.paper_id == paper_id)
            return [from_row(TransitionRow, r, slug=project.slug) for r in conn.execute(q)]

        return self.db.read(tx)

    def record_failure(
        self,
        slug: str,
        stage: str,
        failure_class: str,
        message: str,
        *,
        paper_id: int | None = None,
        attempt: int = 0,
        run_id: str | None = None,
        step_key: str | None = None,
        at: datetime | None = None,
    ) -> int:
        """Append a failure record (classes: transient, no_credits, orphan, permanent, other, invalid_output)."""
        if failure_class not in t.FAILURE_CLASSES:
            raise ValueError(f"unknown failure class {failure_class!r}; expected one of {t.FAILURE_CLASSES}")

        def tx(conn: Connection) -> int:
            project = self.db.project(conn, slug)
            return conn.execute(
                sa.insert(t.failures)
                .values(
                    project_id=project.id,
                    paper_id=paper_id,
                    stage=stage,
                    failure_class=failure_class,
                    message=str(message),
                    attempt=attempt,
                    run_id=run_id,
                    step_key=step_key,
                    created_at=at or now_utc(),
                )
                .returning(t.failures.c.id)
            ).scalar_one()

        return self.db.run(tx)

    def record_failure_kept(self, slug: str, stage: str, failure_class: str, message: str, *,
                            paper_id: int | None = None, attempt: int = 0, run_id: str | None = None,
                            state: str | None = None) -> bool:
        """Record a failure (and set the stage's or paper's ``state`` with the message, when given). When the
        database is away, the failure is kept in this process, with its time, and written by :meth:`flush_kept`
        once it answers again: a failure is never replaced by the outage's own error. True when written now."""
        entry = {"slug": slug, "stage": stage, "failure_class": failure_class, "message": message,
                 "paper_id": paper_id, "attempt": attempt, "run_id": run_id, "state": state, "at": now_utc()}
        try:
            self._write_kept(entry)
        except sa.exc.SQLAlchemyError as exc:
            log.warning("failure of %s/%s kept until the database is back (%s)", slug, stage, type(exc).__name__)
            with self._kept_lock:
                self._kept.append(entry)
            return False
        return True

    def _write_kept(self, entry: dict[str, Any]) -> None:
        if entry["state"] is not None:
            self.set_status(entry["slug"], entry["stage"], entry["state"], paper_id=entry["paper_id"],
                            detail=entry["message"][:500], run_id=entry["run_id"])
        self.record_failure(entry["slug"], entry["stage"], entry["failure_class"], entry["message"],
                            paper_id=entry["paper_id"], attempt=entry["attempt"], run_id=entry["run_id"],
                            at=entry["at"])

    def flush_kept(self) -> int:
        """Write the failures kept during an outage (oldest first); returns how many are still kept."""
        with self._kept_lock:
            kept, self._kept = self._kept, []
        left = []
        for i, entry in enumerate(kept):
            try:
                self._write_kept(entry)
            except sa.exc.SQLAlchemyError:
                left = kept[i:]  # still away: keep the rest, in order
                break
        with self._kept_lock:
            self._kept[:0] = left
            return len(self._kept)

    def failures(self, slug: str | None = None) -> list[FailureRow]:
        f, p = t.failures, t.projects

        def tx(conn: Connection) -> list[FailureRow]:
            q = sa.select(f, p.c.slug).join(p, p.c.id == f.c.project_id).order_by(f.c.id)
            if slug is not None:
                q = q.where(f.c.project_id == self.db.project(conn, slug).id)
            return [from_row(FailureRow, r) for r in conn.execute(q)]

        return self.db.read(tx)
