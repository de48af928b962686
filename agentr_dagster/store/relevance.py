"""Relevance from the screening engine (``paper_relevance``): one score and rank per candidate of a project."""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from agentr_dagster.store import schema as t
from agentr_dagster.store.database import Database, now_utc
from agentr_dagster.store.rows import RelevanceRow, from_row


class Relevance:
    """``store.relevance``: replace a project's relevance in one transaction; read it back, best first."""

    def __init__(self, db: Database):
        self.db = db

    def replace(self, slug: str, scored: Sequence[tuple[int, float, int]], *, method: str, engine_version: str,
                input_hash: str) -> int:
        """Store ``(paper_id, score, rank)`` for the project, replacing what it held; papers of another project or
        deleted since are skipped. Returns the rows written. OrphanError for a deleted project."""
        rel, p = t.paper_relevance, t.papers

        def tx(conn: Connection) -> int:
            project = self.db.active_project(conn, slug, lock=True)
            live = set(conn.execute(sa.select(p.c.id).where(p.c.project_id == project.id,
                                                            p.c.deleted_at.is_(None))).scalars())
            conn.execute(sa.delete(rel).where(rel.c.project_id == project.id))
            now = now_utc()
            rows = [
                {"project_id": project.id, "paper_id": pid, "score": float(score), "rank": int(rank),
                 "method": method, "engine_version": engine_version, "input_hash": input_hash, "created_at": now}
                for pid, score, rank in scored if pid in live
            ]
            if rows:
                conn.execute(sa.insert(rel), rows)
            return len(rows)

        return self.db.run(tx)

    def for_project(self, slug: str) -> list[RelevanceRow]:
        """The project's stored relevance on live papers, best first (empty before the asset has run)."""
        rel, p = t.paper_relevance, t.papers

        def tx(conn: Connection) -> list[RelevanceRow]:
            project = self.db.visible_project(conn, slug, False)
            q = (
                sa.select(rel)
                .join(p, p.c.id == rel.c.paper_id)
                .where(rel.c.project_id == project.id, p.c.deleted_at.is_(None))
                .order_by(rel.c.rank, rel.c.paper_id)
            )
            return [from_row(RelevanceRow, r) for r in conn.execute(q)]

        return self.db.read(tx)
