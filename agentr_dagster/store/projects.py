"""Projects and their papers: create/update, budget, soft delete, the orphan check, papers and imported files.

Work on a soft-deleted project raises :class:`OrphanError`; a soft-deleted slug is never reused.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from agentr_dagster.domain import pricing as cost_rule
from agentr_dagster.domain.contracts import PaperRecord, validate_slug
from agentr_dagster.store import hot
from agentr_dagster.store import schema as t
from agentr_dagster.store.database import Database, now_utc
from agentr_dagster.store.ledger import Ledger
from agentr_dagster.store.lifecycle import PROJECT_STAGE, Lifecycle
from agentr_dagster.store.rows import AddPapersResult, ImportedFile, PaperRow, ProjectRow, StoreError, from_row

_CHUNK = 500


def _paper_row(r: sa.Row) -> PaperRow:
    # the JSON columns as a list and a dict: a JSON null (which NOT NULL still admits) reads as empty
    return from_row(PaperRow, r, authors=list(r.authors or []), provenance=dict(r.provenance or {}))


class Projects:
    """``store.projects``: projects, papers and imported files. Creating a project opens its account (through the
    ledger) and a changed abstract marks its stages ``reinitiated`` (through the lifecycle)."""

    def __init__(self, db: Database, ledger: Ledger, lifecycle: Lifecycle):
        self.db = db
        self.ledger = ledger
        self.lifecycle = lifecycle

    def _project_row(self, conn: Connection, row: sa.Row) -> ProjectRow:
        return self._projects(conn, t.projects.c.id == row.id)[0]

    def _projects(self, conn: Connection, *where) -> list[ProjectRow]:
        p, a = t.projects, t.accounts
        q = sa.select(p, a.c.name.label("account")).join(a, a.c.id == p.c.account_id).where(*where)
        return [from_row(ProjectRow, r) for r in conn.execute(q.order_by(p.c.id))]

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
        budget = None if budget_credits is None else cost_rule.quantize(budget_credits)
        if budget is not None and budget < 0:
            raise ValueError("budget_credits cannot be negative")
        account_id = self.ledger.ensure_account(account)

        def tx(conn: Connection) -> ProjectRow:
            now = now_utc()
            p = t.projects
            row = conn.execute(sa.select(p).where(p.c.slug == slug).with_for_update()).first()
            if row is None:
                new_id = conn.execute(
                    self.db.insert(p)
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
                row = self.db.project(conn, slug, lock=True)  # created concurrently: treat as existing
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
                    self.lifecycle.write_status(conn, row.id, stage, "reinitiated", None, "abstract changed", None, now)
            return self._project_row(conn, row)

        return self.db.run(tx)

    def set_budget(self, slug: str, budget_credits) -> ProjectRow:
        """Set (or with ``None`` remove) the project's credit budget."""
        budget = None if budget_credits is None else cost_rule.quantize(budget_credits)

        def tx(conn: Connection) -> ProjectRow:
            row = self.db.active_project(conn, slug, lock=True)
            conn.execute(
                sa.update(t.projects)
                .where(t.projects.c.id == row.id)
                .values(budget_credits=budget, updated_at=now_utc())
            )
            return self._project_row(conn, self.db.project(conn, slug))

        return self.db.run(tx)

    def get_project(self, slug: str, *, include_deleted: bool = False) -> ProjectRow:
        return self.db.read(lambda conn: self._project_row(conn, self.db.visible_project(conn, slug, include_deleted)))

    def list_projects(self, include_deleted: bool = False) -> list[ProjectRow]:
        def tx(conn: Connection) -> list[ProjectRow]:
            if include_deleted:
                return self._projects(conn)
            return self._projects(conn, t.projects.c.deleted_at.is_(None))

        return self.db.read(tx)

    def soft_delete_project(self, slug: str) -> None:
        """Mark the project and its papers deleted. Usage, ledger, status and failure rows are kept."""

        def tx(conn: Connection) -> None:
            row = self.db.project(conn, slug, lock=True)
            if row.deleted_at is not None:
                return
            now = now_utc()
            conn.execute(sa.update(t.projects).where(t.projects.c.id == row.id).values(deleted_at=now))
            conn.execute(
                sa.update(t.papers)
                .where(t.papers.c.project_id == row.id, t.papers.c.deleted_at.is_(None))
                .values(deleted_at=now)
            )

        self.db.run(tx)

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

        return self.db.read(tx)

    # -- papers -----------------------------------------------------------------------------------------------

    def add_papers(
        self,
        slug: str,
        records: Iterable[PaperRecord],
        *,
        key_fn: Callable[[PaperRecord], str],
        hash_fn: Callable[[PaperRecord], str],
        provenance: dict,
        imported_file: tuple[str, str] | ImportedFile | None = None,
    ) -> AddPapersResult:
        """Insert the records whose key is new to the project; a key already present (or repeated within
        ``records``) counts as a duplicate and is not updated. ``paper_ids`` are the ids of the papers added,
        in input order. Per-paper provenance = ``provenance`` + the record's own source format/file/row +
        ``imported_at``. ``imported_file`` (sha256, name, or an :class:`ImportedFile` with what the parser dropped) is
        remembered in the same transaction, with the added and duplicate counts of this call, so a file is never
        stored without being recorded (see :meth:`record_imported_file`)."""
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
            project = self.db.active_project(conn, slug, lock=True)
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
            outcome = AddPapersResult(added=len(ids), duplicates=len(prepared) - len(ids), paper_ids=ids)
            if imported_file is not None:
                file = imported_file if isinstance(imported_file, ImportedFile) else ImportedFile(*imported_file)
                self._record_imported_file(conn, project.id, file.sha256, file.name, {
                    "added": outcome.added, "duplicates": outcome.duplicates,
                    "rows_read": len(prepared) + (file.in_file_duplicates or 0) + (file.dropped or 0),
                    "in_file_duplicates": file.in_file_duplicates or 0, "dropped": file.dropped or 0,
                    "notes": list(file.notes)})
            return outcome

        return self.db.run(tx)

    def record_imported_file(self, slug: str, sha256: str, name: str) -> bool:
        """Remember that the project imported this exact file; False if it already had (re-drop = no-op)."""

        def tx(conn: Connection) -> bool:
            return self._record_imported_file(conn, self.db.active_project(conn, slug).id, sha256, name)

        return self.db.run(tx)

    def _record_imported_file(self, conn: Connection, project_id: int, sha256: str, name: str,
                              counts: dict[str, Any] | None = None) -> bool:
        result = conn.execute(
            self.db.insert(t.imported_files)
            .values(project_id=project_id, sha256=sha256, name=name, created_at=now_utc(), **(counts or {}))
            .on_conflict_do_nothing(index_elements=["project_id", "sha256"])
        )
        return result.rowcount == 1

    def is_file_imported(self, slug: str, sha256: str) -> bool:
        def tx(conn: Connection) -> bool:
            project = self.db.visible_project(conn, slug, True)
            f = t.imported_files
            found = conn.execute(sa.select(f.c.id).where(f.c.project_id == project.id, f.c.sha256 == sha256)).first()
            return found is not None

        return self.db.read(tx)

    def imported_files(self, slug: str) -> list[ImportedFile]:
        """The files the project imported, oldest first, each with what its import did."""

        def tx(conn: Connection) -> list[ImportedFile]:
            project = self.db.visible_project(conn, slug, True)
            f = t.imported_files
            rows = conn.execute(sa.select(f).where(f.c.project_id == project.id).order_by(f.c.id)).all()
            return [from_row(ImportedFile, r, notes=list(r.notes or [])) for r in rows]

        return self.db.read(tx)

    def list_papers(self, slug: str, *, include_deleted: bool = False) -> list[PaperRow]:
        def tx(conn: Connection) -> list[PaperRow]:
            project = self.db.visible_project(conn, slug, include_deleted)
            q = sa.select(t.papers).where(t.papers.c.project_id == project.id).order_by(t.papers.c.id)
            if not include_deleted:
                q = q.where(t.papers.c.deleted_at.is_(None))
            return [_paper_row(r) for r in conn.execute(q)]

        return self.db.read(tx)

    def iter_papers(self, slug: str, batch_size: int = 1000) -> Iterator[PaperRow]:
        """Stream the project's live papers in id order, one short transaction per batch."""
        if batch_size < 1:
            raise ValueError("batch_size must be positive")
        project_id = self.db.read(lambda conn: self.db.visible_project(conn, slug, False).id)
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

            batch = self.db.read(tx)
            yield from batch
            if len(batch) < batch_size:
                return
            last = batch[-1].id

    def count_papers(self, slug: str) -> int:
        def tx(conn: Connection) -> int:
            project = self.db.visible_project(conn, slug, False)
            return conn.execute(
                sa.select(sa.func.count())
                .select_from(t.papers)
                .where(t.papers.c.project_id == project.id, t.papers.c.deleted_at.is_(None))
            ).scalar_one()

        return self.db.read(tx)
