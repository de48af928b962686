"""Relevance labels: a project's include/exclude decisions on its papers (``paper_labels``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from agentr_dagster.store import schema as t
from agentr_dagster.store.database import Database, now_utc
from agentr_dagster.store.rows import LabelRow, from_row

LABELS = t.LABELS


@dataclass(frozen=True)
class LabelsWritten:
    """What one :meth:`Labels.set_labels` call changed."""

    added: int  # papers that had no label
    changed: int  # papers whose label flipped
    unchanged: int  # the same decision again: not touched, so the labels' state does not move


@dataclass(frozen=True)
class LabelsState:
    """A project's labels at a glance; two equal states mean no label was added, changed or cleared between."""

    slug: str
    count: int
    includes: int
    last_change: str  # ISO time of the newest decision ("" without labels)

    @property
    def fingerprint(self) -> str:
        return f"{self.count}:{self.includes}:{self.last_change}"


class Labels:
    """``store.labels``: set, change or clear a paper's label; list a project's labels."""

    def __init__(self, db: Database):
        self.db = db

    def set_label(self, slug: str, paper_id: int, label: str, *, note: str | None = None) -> LabelRow | None:
        """Record (or change) the project's decision on a paper; ``label="clear"`` removes it (returns None).
        OrphanError for a deleted project or paper."""
        if label not in (*LABELS, "clear"):
            raise ValueError(f"label must be include, exclude or clear, not {label!r}")
        pl, p = t.paper_labels, t.papers

        def tx(conn: Connection) -> LabelRow | None:
            project = self.db.active_project(conn, slug, lock=True)
            self.db.check_paper(conn, project, paper_id)
            where = (pl.c.project_id == project.id, pl.c.paper_id == paper_id)
            if label == "clear":
                conn.execute(sa.delete(pl).where(*where))
                return None
            now = now_utc()
            existing = conn.execute(sa.select(pl.c.id).where(*where)).first()
            if existing is None:
                conn.execute(sa.insert(pl).values(project_id=project.id, paper_id=paper_id, label=label, note=note,
                                                  created_at=now, updated_at=now))
            else:
                conn.execute(sa.update(pl).where(pl.c.id == existing.id).values(label=label, note=note, updated_at=now))
            q = sa.select(pl, p.c.paper_key, p.c.title).join(p, p.c.id == pl.c.paper_id).where(*where)
            r = conn.execute(q).one()
            return from_row(LabelRow, r)

        return self.db.run(tx)

    def set_labels(self, slug: str, decisions: Sequence[tuple[int, str, str | None]]) -> LabelsWritten:
        """Record many decisions ``(paper_id, include|exclude, note)`` in one transaction (all or none); a
        decision equal to the stored one is left alone. OrphanError for a deleted project or paper."""
        pl = t.paper_labels
        latest: dict[int, tuple[str, str | None]] = {}  # a paper named twice: its last decision counts
        for paper_id, label, note in decisions:
            if label not in LABELS:
                raise ValueError(f"label must be include or exclude, not {label!r}")
            latest.pop(paper_id, None)
            latest[paper_id] = (label, note)

        def tx(conn: Connection) -> LabelsWritten:
            project = self.db.active_project(conn, slug, lock=True)
            stored = {r.paper_id: r for r in conn.execute(
                sa.select(pl.c.id, pl.c.paper_id, pl.c.label, pl.c.note).where(pl.c.project_id == project.id))}
            now = now_utc()
            added = changed = unchanged = 0
            for paper_id, (label, note) in latest.items():
                old = stored.get(paper_id)
                if old is not None and old.label == label:
                    unchanged += 1
                    continue
                self.db.check_paper(conn, project, paper_id)
                if old is None:
                    conn.execute(sa.insert(pl).values(project_id=project.id, paper_id=paper_id, label=label,
                                                      note=note, created_at=now, updated_at=now))
                    added += 1
                else:
                    conn.execute(sa.update(pl).where(pl.c.id == old.id).values(label=label, note=note, updated_at=now))
                    changed += 1
            return LabelsWritten(added, changed, unchanged)

        return self.db.run(tx)

    def states(self) -> list[LabelsState]:
        """Every live project's labels state (live papers only), in slug order: one grouped query."""
        pl, p, pr = t.paper_labels, t.papers, t.projects
        includes = sa.func.sum(sa.case((pl.c.label == "include", 1), else_=0))
        q = (
            sa.select(pr.c.slug, sa.func.count(pl.c.id), includes, sa.func.max(pl.c.updated_at))
            .select_from(pr)
            .outerjoin(pl, pl.c.project_id == pr.c.id)
            .outerjoin(p, p.c.id == pl.c.paper_id)
            .where(pr.c.deleted_at.is_(None), sa.or_(pl.c.id.is_(None), p.c.deleted_at.is_(None)))
            .group_by(pr.c.slug)
            .order_by(pr.c.slug)
        )

        def tx(conn: Connection) -> list[LabelsState]:
            return [LabelsState(slug, int(n or 0), int(inc or 0), last.isoformat() if last else "")
                    for slug, n, inc, last in conn.execute(q)]

        return self.db.read(tx)

    def list_labels(self, slug: str) -> list[LabelRow]:
        """The project's current labels on live papers, oldest decision first."""
        pl, p = t.paper_labels, t.papers

        def tx(conn: Connection) -> list[LabelRow]:
            project = self.db.visible_project(conn, slug, False)
            q = (
                sa.select(pl, p.c.paper_key, p.c.title)
                .join(p, p.c.id == pl.c.paper_id)
                .where(pl.c.project_id == project.id, p.c.deleted_at.is_(None))
                .order_by(pl.c.created_at, pl.c.id)
            )
            return [from_row(LabelRow, r) for r in conn.execute(q)]

        return self.db.read(tx)
