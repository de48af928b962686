"""Relevance labels: a project's include/exclude decisions on its papers (``paper_labels``)."""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from agentr_dagster.store import schema as t
from agentr_dagster.store.database import Database, now_utc
from agentr_dagster.store.rows import LabelRow

LABELS = t.LABELS


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
            return LabelRow(r.paper_id, r.paper_key, r.title, r.label, r.note, r.created_at, r.updated_at)

        return self.db.run(tx)

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
            return [
                LabelRow(r.paper_id, r.paper_key, r.title, r.label, r.note, r.created_at, r.updated_at)
                for r in conn.execute(q)
            ]

        return self.db.read(tx)
