"""The domain store: projects, papers, artifacts, per-paper results, response cache, lifecycle status, failures,
plus (from :class:`LedgerMixin`) money and the credit ledger.

Every public method is one short transaction and returns plain frozen dataclasses, never ORM objects. Work on a
soft-deleted project raises :class:`OrphanError`; lifecycle writes (status, failures) still work on it so that
an orphan can be recorded as such.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

import sqlalchemy as sa
from pydantic import BaseModel
from sqlalchemy.engine import Connection

from agentr_dagster.domain.contracts import PaperRecord, validate_slug
from agentr_dagster.store import hot
from agentr_dagster.store import schema as t
from agentr_dagster.store.core import now_utc
from agentr_dagster.store.engine import default_database_url
from agentr_dagster.store.leases import LeaseMixin
from agentr_dagster.store.ledger import LedgerMixin, _money
from agentr_dagster.store.rows import (
    AddPapersResult,
    ArtifactRow,
    FailureRow,
    PaperRow,
    ProjectRow,
    ResultRow,
    StatusRow,
    StoreError,
    TransitionRow,
)

PROJECT_STAGE = "project"  # stage name of project-level lifecycle rows (e.g. 'reinitiated')
_CHUNK = 500


def _payload(value: Any) -> dict:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if not isinstance(value, dict):
        raise TypeError(f"payload must be a dict or a pydantic model, got {type(value).__name__}")
    return value


def _check_state(state: str) -> str:
    if state not in t.STATES:
        raise ValueError(f"unknown state {state!r}; expected one of {', '.join(t.STATES)}")
    return state


def _paper_row(r: sa.Row) -> PaperRow:
    return PaperRow(
        id=r.id,
        project_id=r.project_id,
        paper_key=r.paper_key,
        content_hash=r.content_hash,
        title=r.title,
        abstract=r.abstract,
        year=r.year,
        doi=r.doi,
        authors=list(r.authors or []),
        venue=r.venue,
        url=r.url,
        source_id=r.source_id,
        provenance=dict(r.provenance or {}),
        created_at=r.created_at,
        deleted_at=r.deleted_at,
    )


def _result_row(r: sa.Row) -> ResultRow:
    return ResultRow(
        id=r.id,
        project_id=r.project_id,
        paper_id=r.paper_id,
        cache_key=r.cache_key,
        payload=r.payload,
        prompt_version=r.prompt_version,
        model=r.model,
        backend=r.backend,
        created_at=r.created_at,
    )


class DomainStore(LeaseMixin, LedgerMixin):
    """``DomainStore(url)`` connects and (``migrate=True``) runs ``alembic upgrade head`` under a lock."""

    # -- projects ---------------------------------------------------------------------------------------------

    def _project_row(self, conn: Connection, row: sa.Row) -> ProjectRow:
        return self._projects(conn, t.projects.c.id == row.id)[0]

    def _projects(self, conn: Connection, *where) -> list[ProjectRow]:
        p, a = t.projects, t.accounts
        q = sa.select(p, a.c.name.label("account_name")).join(a, a.c.id == p.c.account_id).where(*where)
        return [
            ProjectRow(
                id=r.id,
                slug=r.slug,
                title=r.title,
                abstract=r.abstract,
                account_id=r.account_id,
                account=r.account_name,
                budget_credits=r.budget_credits,
                created_at=r.created_at,
                updated_at=r.updated_at,
                deleted_at=r.deleted_at,
            )
            for r in conn.execute(q.order_by(p.c.id))
        ]

    def create_project(
        self,
        slug: str,
        abstract: str,
        *,
        title: str | None = None,
        account: str = "default",
        budget_credits=None,
    ) -> ProjectRow:
        """Create the project, or update a live one: a changed abstract marks the project and every stage that
        has a stage-level status as ``reinitiated``. ``title``/``budget_credits`` given as ``None`` are left
        as they are; the account of an existing project is not changed. A soft-deleted slug raises
        StoreError (slugs are never reused)."""
        validate_slug(slug)
        if not isinstance(abstract, str) or not abstract.strip():
            raise ValueError("abstract must be a non-empty string")
        abstract = abstract.strip()
        budget = None if budget_credits is None else _money(budget_credits)
        if budget is not None and budget < 0:
            raise ValueError("budget_credits cannot be negative")
        account_id = self.ensure_account(account)

        def tx(conn: Connection) -> ProjectRow:
            now = now_utc()
            p = t.projects
            row = conn.execute(sa.select(p).where(p.c.slug == slug).with_for_update()).first()
            if row is None:
                new_id = conn.execute(
                    self._insert(p)
                    .values(
                        slug=slug,
                        title=title,
                        abstract=abstract,
                        account_id=account_id,
                        budget_credits=budget,
                        created_at=now,
                        updated_at=now,
                    )
                    .on_conflict_do_nothing(index_elements=["slug"])
                    .returning(p.c.id)
                ).scalar()
                if new_id is not None:
                    return self._projects(conn, p.c.id == new_id)[0]
                row = self._project(conn, slug, lock=True)  # created concurrently: treat as existing
            if row.deleted_at is not None:
                raise StoreError(f"project {slug!r} was deleted; choose another slug")
            changes: dict[str, Any] = {}
            if abstract != row.abstract:
                changes["abstract"] = abstract
            if title is not None and title != row.title:
                changes["title"] = title
            if budget is not None and budget != row.budget_credits:
                changes["budget_credits"] = budget
            if changes:
                conn.execute(sa.update(p).where(p.c.id == row.id).values(**changes, updated_at=now))
            if "abstract" in changes:
                ss = t.stage_status
                stages = conn.execute(
                    sa.select(ss.c.stage).where(ss.c.project_id == row.id, ss.c.paper_id == t.STAGE_LEVEL)
                ).scalars()
                for stage in sorted({PROJECT_STAGE, *stages}):
                    self._set_status_tx(conn, row.id, stage, "reinitiated", None, "abstract changed", None, now)
            return self._project_row(conn, row)

        return self._run(tx)

    def set_budget(self, slug: str, budget_credits) -> ProjectRow:
        """Set (or with ``None`` remove) the project's credit budget."""
        budget = None if budget_credits is None else _money(budget_credits)

        def tx(conn: Connection) -> ProjectRow:
            row = self._active_project(conn, slug, lock=True)
            conn.execute(
                sa.update(t.projects)
                .where(t.projects.c.id == row.id)
                .values(budget_credits=budget, updated_at=now_utc())
            )
            return self._project_row(conn, self._project(conn, slug))

        return self._run(tx)

    def get_project(self, slug: str, *, include_deleted: bool = False) -> ProjectRow:
        return self._read(lambda conn: self._project_row(conn, self._visible_project(conn, slug, include_deleted)))

    def list_projects(self, include_deleted: bool = False) -> list[ProjectRow]:
        def tx(conn: Connection) -> list[ProjectRow]:
            if include_deleted:
                return self._projects(conn)
            return self._projects(conn, t.projects.c.deleted_at.is_(None))

        return self._read(tx)

    def soft_delete_project(self, slug: str) -> None:
        """Mark the project and its papers deleted. Usage, ledger, status and failure rows are kept."""

        def tx(conn: Connection) -> None:
            row = self._project(conn, slug, lock=True)
            if row.deleted_at is not None:
                return
            now = now_utc()
            conn.execute(sa.update(t.projects).where(t.projects.c.id == row.id).values(deleted_at=now))
            conn.execute(
                sa.update(t.papers)
                .where(t.papers.c.project_id == row.id, t.papers.c.deleted_at.is_(None))
                .values(deleted_at=now)
            )

        self._run(tx)

    def is_active(self, slug: str, paper_id: int | None = None) -> bool:
        """The orphan check: the project (and the paper, if given, in that project) exists and is not deleted."""

        def tx(conn: Connection) -> bool:
            p = conn.execute(hot.PROJECT_BY_SLUG, {"slug": slug}).first()
            if p is None or p.deleted_at is not None:
                return False
            if paper_id is None:
                return True
            paper = conn.execute(hot.PAPER_OWNER, {"paper_id": paper_id}).first()
            return paper is not None and paper.project_id == p.id and paper.deleted_at is None

        return self._read(tx)

    # -- papers -----------------------------------------------------------------------------------------------

    def add_papers(
        self,
        slug: str,
        records: Iterable[PaperRecord],
        *,
        key_fn: Callable[[PaperRecord], str],
        hash_fn: Callable[[PaperRecord], str],
        provenance: dict,
        imported_file: tuple[str, str] | None = None,
    ) -> AddPapersResult:
        """Insert the records whose key is new to the project; a key already present (or repeated within
        ``records``) counts as a duplicate and is not updated. ``paper_ids`` are the ids of the papers added,
        in input order. Per-paper provenance = ``provenance`` + the record's own source format/file/row +
        ``imported_at``. ``imported_file`` (sha256, name) is remembered in the same transaction, so a file is
        never stored without being recorded (see :meth:`record_imported_file`)."""
        records = list(records)
        base = dict(provenance or {})
        imported_at = base.pop("imported_at", None) or now_utc().isoformat()
        prepared: list[dict[str, Any]] = []
        for rec in records:
            if not isinstance(rec, PaperRecord):
                rec = PaperRecord.model_validate(rec)
            prov = dict(base)
            if rec.source_format and rec.source_format != "unknown":
                prov["format"] = rec.source_format
            prov.setdefault("format", rec.source_format)
            if rec.source_file is not None:
                prov["file"] = rec.source_file
            prov.setdefault("file", None)
            if rec.source_row is not None:
                prov["row"] = rec.source_row
            prov.setdefault("row", None)
            prov["imported_at"] = imported_at
            prepared.append(
                {
                    "paper_key": str(key_fn(rec)),
                    "content_hash": str(hash_fn(rec)),
                    "title": rec.title,
                    "abstract": rec.abstract,
                    "year": rec.year,
                    "doi": rec.doi,
                    "authors": list(rec.authors),
                    "venue": rec.venue,
                    "url": rec.url,
                    "source_id": rec.source_id,
                    "provenance": prov,
                }
            )

        def tx(conn: Connection) -> AddPapersResult:
            project = self._active_project(conn, slug, lock=True)
            seen = set(
                conn.execute(sa.select(t.papers.c.paper_key).where(t.papers.c.project_id == project.id)).scalars()
            )
            now = now_utc()
            fresh = []
            for row in prepared:
                if row["paper_key"] in seen:
                    continue
                seen.add(row["paper_key"])
                fresh.append({**row, "project_id": project.id, "created_at": now})
            ids: list[int] = []
            for start in range(0, len(fresh), _CHUNK):
                result = conn.execute(
                    sa.insert(t.papers).returning(t.papers.c.id, sort_by_parameter_order=True),
                    fresh[start : start + _CHUNK],
                )
                ids.extend(result.scalars().all())
            if imported_file is not None:
                self._record_imported_file(conn, project.id, *imported_file)
            return AddPapersResult(added=len(ids), duplicates=len(prepared) - len(ids), paper_ids=ids)

        return self._run(tx)

    def record_imported_file(self, slug: str, sha256: str, name: str) -> bool:
        """Remember that the project imported this exact file; False if it already had (re-drop = no-op)."""

        def tx(conn: Connection) -> bool:
            return self._record_imported_file(conn, self._active_project(conn, slug).id, sha256, name)

        return self._run(tx)

    def _record_imported_file(self, conn: Connection, project_id: int, sha256: str, name: str) -> bool:
        result = conn.execute(
            self._insert(t.imported_files)
            .values(project_id=project_id, sha256=sha256, name=name, created_at=now_utc())
            .on_conflict_do_nothing(index_elements=["project_id", "sha256"])
        )
        return result.rowcount == 1

    def is_file_imported(self, slug: str, sha256: str) -> bool:
        def tx(conn: Connection) -> bool:
            project = self._visible_project(conn, slug, True)
            f = t.imported_files
            found = conn.execute(sa.select(f.c.id).where(f.c.project_id == project.id, f.c.sha256 == sha256)).first()
            return found is not None

        return self._read(tx)

    def list_papers(self, slug: str, *, include_deleted: bool = False) -> list[PaperRow]:
        def tx(conn: Connection) -> list[PaperRow]:
            project = self._visible_project(conn, slug, include_deleted)
            q = sa.select(t.papers).where(t.papers.c.project_id == project.id).order_by(t.papers.c.id)
            if not include_deleted:
                q = q.where(t.papers.c.deleted_at.is_(None))
            return [_paper_row(r) for r in conn.execute(q)]

        return self._read(tx)

    def iter_papers(self, slug: str, batch_size: int = 1000) -> Iterator[PaperRow]:
        """Stream the project's live papers in id order, one short transaction per batch."""
        if batch_size < 1:
            raise ValueError("batch_size must be positive")
        project_id = self._read(lambda conn: self._visible_project(conn, slug, False).id)
        last = 0
        while True:

            def tx(conn: Connection, after: int = last) -> list[PaperRow]:
                q = (
                    sa.select(t.papers)
                    .where(
                        t.papers.c.project_id == project_id,
                        t.papers.c.deleted_at.is_(None),
                        t.papers.c.id > after,
                    )
                    .order_by(t.papers.c.id)
                    .limit(batch_size)
                )
                return [_paper_row(r) for r in conn.execute(q)]

            batch = self._read(tx)
            yield from batch
            if len(batch) < batch_size:
                return
            last = batch[-1].id

    def count_papers(self, slug: str) -> int:
        def tx(conn: Connection) -> int:
            project = self._visible_project(conn, slug, False)
            return conn.execute(
                sa.select(sa.func.count())
                .select_from(t.papers)
                .where(t.papers.c.project_id == project.id, t.papers.c.deleted_at.is_(None))
            ).scalar_one()

        return self._read(tx)

    # -- artifacts and per-paper results ----------------------------------------------------------------------

    def save_artifact(
        self,
        slug: str,
        stage: str,
        payload: dict,
        *,
        prompt_version: str | None,
        model: str | None,
        backend: str | None,
        input_hash: str | None,
    ) -> int:
        """Append a stage artifact (the latest per (project, stage) is the current one)."""
        body = _payload(payload)

        def tx(conn: Connection) -> int:
            project = self._active_project(conn, slug)
            return conn.execute(
                sa.insert(t.artifacts)
                .values(
                    project_id=project.id,
                    stage=stage,
                    payload=body,
                    prompt_version=prompt_version,
                    model=model,
                    backend=backend,
                    input_hash=input_hash,
                    created_at=now_utc(),
                )
                .returning(t.artifacts.c.id)
            ).scalar_one()

        return self._run(tx)

    def latest_artifact(self, slug: str, stage: str) -> ArtifactRow | None:
        def tx(conn: Connection) -> ArtifactRow | None:
            project = self._visible_project(conn, slug, False)
            a = t.artifacts
            r = conn.execute(
                sa.select(a).where(a.c.project_id == project.id, a.c.stage == stage).order_by(a.c.id.desc()).limit(1)
            ).first()
            if r is None:
                return None
            return ArtifactRow(
                r.id, r.project_id, r.stage, r.payload, r.prompt_version, r.model, r.backend, r.input_hash, r.created_at
            )

        return self._read(tx)

    def get_result(self, paper_id: int, cache_key: str) -> dict | None:
        pr = t.paper_results
        return self._read(
            lambda conn: conn.execute(
                sa.select(pr.c.payload).where(pr.c.paper_id == paper_id, pr.c.cache_key == cache_key)
            ).scalar()
        )

    def save_result(
        self,
        slug: str,
        paper_id: int,
        cache_key: str,
        payload: dict,
        *,
        prompt_version: str | None,
        model: str | None,
        backend: str | None,
        completes_stage: str | None = None,
        run_id: str | None = None,
    ) -> bool:
        """Store a paper's result once per (paper, cache key); False if it was already there. OrphanError if
        the project or paper has been deleted. With ``completes_stage``, the paper's state in that stage becomes
        ``completed`` in the same transaction (one commit per paper on the hot path)."""
        body = _payload(payload)

        def tx(conn: Connection) -> bool:
            project = self._active_project(conn, slug)
            self._check_paper(conn, project, paper_id)
            if completes_stage is not None:
                self._set_status_tx(conn, project.id, completes_stage, "completed", paper_id, None, run_id, now_utc())
            result = conn.execute(
                self._insert(t.paper_results)
                .values(
                    project_id=project.id,
                    paper_id=paper_id,
                    cache_key=cache_key,
                    payload=body,
                    prompt_version=prompt_version,
                    model=model,
                    backend=backend,
                    created_at=now_utc(),
                )
                .on_conflict_do_nothing(index_elements=["paper_id", "cache_key"])
            )
            return result.rowcount == 1

        return self._run(tx)

    def results_for_project(self, slug: str, cache_keys: dict[int, str] | None = None) -> list[ResultRow]:
        """One result per live paper, ordered by paper id: the latest one, or with ``cache_keys`` the one whose
        key matches that paper's entry (papers without a matching result are left out)."""
        pr, pa = t.paper_results, t.papers

        def tx(conn: Connection) -> list[ResultRow]:
            project = self._visible_project(conn, slug, False)
            live = sa.select(pa.c.id).where(pa.c.project_id == project.id, pa.c.deleted_at.is_(None))
            if cache_keys is None:
                latest = (
                    sa.select(sa.func.max(pr.c.id))
                    .where(pr.c.project_id == project.id, pr.c.paper_id.in_(live))
                    .group_by(pr.c.paper_id)
                )
                q = sa.select(pr).where(pr.c.id.in_(latest)).order_by(pr.c.paper_id)
                return [_result_row(r) for r in conn.execute(q)]
            wanted = set(cache_keys.values())
            if not wanted:
                return []
            q = (
                sa.select(pr)
                .where(pr.c.project_id == project.id, pr.c.paper_id.in_(live), pr.c.cache_key.in_(wanted))
                .order_by(pr.c.paper_id, pr.c.id)
            )
            return [_result_row(r) for r in conn.execute(q) if cache_keys.get(r.paper_id) == r.cache_key]

        return self._read(tx)

    def cached_response(self, request_hash: str) -> str | None:
        return self._read(lambda conn: conn.execute(hot.CACHED_RESPONSE, {"request_hash": request_hash}).scalar())

    # -- lifecycle --------------------------------------------------------------------------------------------

    def _set_status_tx(
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
        stmt = self._insert(ss).values(
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
            project = self._project(conn, slug)
            self._set_status_tx(conn, project.id, stage, state, paper_id, detail, run_id, now_utc())

        self._run(tx)

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
            project = self._project(conn, slug)
            self._set_status_many_tx(conn, project.id, stage, state, ids, run_id, detail)

        self._run(tx)

    def _set_status_many_tx(
        self, conn: Connection, project_id: int, stage: str, state: str, ids: list[int], run_id, detail
    ) -> None:
        now = now_utc()
        ss = t.stage_status
        stmt = self._insert(ss)
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

    def save_results_many(
        self,
        slug: str,
        results: list[tuple[int, str, dict]],
        *,
        prompt_version: str | None,
        model: str | None,
        backend: str | None,
        completes_stage: str,
        run_id: str | None = None,
    ) -> list[int]:
        """Store many (paper_id, cache_key, payload) results and mark those papers completed in one transaction.
        Papers deleted meanwhile are skipped (they are orphans, not errors). Returns the ids of the papers whose
        result is now stored (new or already there)."""

        def tx(conn: Connection) -> int:
            project = self._active_project(conn, slug)
            wanted = [paper_id for paper_id, _, _ in results]
            live = set()
            for start in range(0, len(wanted), _CHUNK):
                live.update(conn.execute(
                    sa.select(t.papers.c.id).where(
                        t.papers.c.project_id == project.id,
                        t.papers.c.id.in_(wanted[start : start + _CHUNK]),
                        t.papers.c.deleted_at.is_(None),
                    )
                ).scalars())
            rows = [
                {"project_id": project.id, "paper_id": paper_id, "cache_key": key, "payload": _payload(payload),
                 "prompt_version": prompt_version, "model": model, "backend": backend, "created_at": now_utc()}
                for paper_id, key, payload in results if paper_id in live
            ]
            insert = self._insert(t.paper_results).on_conflict_do_nothing(index_elements=["paper_id", "cache_key"])
            for start in range(0, len(rows), _CHUNK):
                conn.execute(insert, rows[start : start + _CHUNK])
            self._set_status_many_tx(conn, project.id, completes_stage, "completed", sorted(live), run_id, None)
            return sorted(live)

        return self._run(tx)

    def status(self, slug: str | None = None) -> list[StatusRow]:
        """Current stage-level rows, each with its papers counted by state; ordered by slug, then stage.
        Without ``slug``: live projects only; with it, deleted projects too."""
        ss, p = t.stage_status, t.projects

        def tx(conn: Connection) -> list[StatusRow]:
            scope = []
            if slug is None:
                scope.append(p.c.deleted_at.is_(None))
            else:
                scope.append(p.c.id == self._project(conn, slug).id)
            stage_rows = conn.execute(
                sa.select(ss, p.c.slug).join(p, p.c.id == ss.c.project_id).where(ss.c.paper_id == t.STAGE_LEVEL, *scope)
            ).all()
            counts = conn.execute(
                sa.select(ss.c.project_id, p.c.slug, ss.c.stage, ss.c.state, sa.func.count().label("n"))
                .join(p, p.c.id == ss.c.project_id)
                .where(ss.c.paper_id != t.STAGE_LEVEL, *scope)
                .group_by(ss.c.project_id, p.c.slug, ss.c.stage, ss.c.state)
            ).all()
            merged: dict[tuple[int, str], dict[str, Any]] = {}
            for r in stage_rows:
                merged[(r.project_id, r.stage)] = {
                    "project_id": r.project_id,
                    "slug": r.slug,
                    "stage": r.stage,
                    "state": r.state,
                    "detail": r.detail,
                    "run_id": r.run_id,
                    "updated_at": r.updated_at,
                    "paper_counts": {},
                }
            for r in counts:
                entry = merged.setdefault(
                    (r.project_id, r.stage),
                    {
                        "project_id": r.project_id,
                        "slug": r.slug,
                        "stage": r.stage,
                        "state": None,
                        "detail": None,
                        "run_id": None,
                        "updated_at": None,
                        "paper_counts": {},
                    },
                )
                entry["paper_counts"][r.state] = int(r.n)
            rows = [StatusRow(**v) for v in merged.values()]
            return sorted(rows, key=lambda s: (s.slug, s.stage))

        return self._read(tx)

    def paper_states(self, slug: str, stage: str) -> dict[int, str]:
        """Current per-paper states of one stage: {paper_id: state}."""
        ss = t.stage_status

        def tx(conn: Connection) -> dict[int, str]:
            project = self._project(conn, slug)
            rows = conn.execute(
                sa.select(ss.c.paper_id, ss.c.state).where(
                    ss.c.project_id == project.id, ss.c.stage == stage, ss.c.paper_id != t.STAGE_LEVEL
                )
            )
            return {r.paper_id: r.state for r in rows}

        return self._read(tx)

    def transitions(self, slug: str, stage: str | None = None, paper_id: int | None = None) -> list[TransitionRow]:
        """The project's transitions in order; ``stage``/``paper_id`` filter when given."""
        st = t.status_transitions

        def tx(conn: Connection) -> list[TransitionRow]:
            project = self._project(conn, slug)
            q = sa.select(st).where(st.c.project_id == project.id).order_by(st.c.id)
            if stage is not None:
                q = q.where(st.c.stage == stage)
            if paper_id is not None:
                q = q.where(st.c.paper_id == paper_id)
            return [
                TransitionRow(
                    r.id, r.project_id, project.slug, r.stage, r.paper_id, r.state, r.detail, r.run_id, r.created_at
                )
                for r in conn.execute(q)
            ]

        return self._read(tx)

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
    ) -> int:
        """Append a failure record (classes: transient, no_credits, orphan, permanent, other)."""
        if failure_class not in t.FAILURE_CLASSES:
            raise ValueError(f"unknown failure class {failure_class!r}; expected one of {t.FAILURE_CLASSES}")

        def tx(conn: Connection) -> int:
            project = self._project(conn, slug)
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
                    created_at=now_utc(),
                )
                .returning(t.failures.c.id)
            ).scalar_one()

        return self._run(tx)

    def failures(self, slug: str | None = None) -> list[FailureRow]:
        f, p = t.failures, t.projects

        def tx(conn: Connection) -> list[FailureRow]:
            q = sa.select(f, p.c.slug).join(p, p.c.id == f.c.project_id).order_by(f.c.id)
            if slug is not None:
                q = q.where(f.c.project_id == self._project(conn, slug).id)
            return [
                FailureRow(
                    id=r.id,
                    project_id=r.project_id,
                    slug=r.slug,
                    paper_id=r.paper_id,
                    stage=r.stage,
                    failure_class=r.failure_class,
                    message=r.message,
                    attempt=r.attempt,
                    run_id=r.run_id,
                    step_key=r.step_key,
                    created_at=r.created_at,
                )
                for r in conn.execute(q)
            ]

        return self._read(tx)


__all__ = ["DomainStore", "default_database_url"]
