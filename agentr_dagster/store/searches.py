"""Search sources' bookkeeping: the (source, query) searches a project ran and which search found which paper.

``store.searches``: :meth:`record_searches` appends what a run sent (completed or failed, so the next run retries
only what failed or is missing); :meth:`add_sightings` records ``found_by`` on papers (idempotent: a sighting is
kept once per paper); :meth:`found_by` and :meth:`sightings` read them back for exports, digests and PRISMA.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from agentr_dagster.store import schema as t
from agentr_dagster.store.database import Database, now_utc
from agentr_dagster.store.rows import from_row

_CHUNK = 500


@dataclass(frozen=True)
class SearchRow:
    """One (source, query) search as a run sent it."""

    id: int
    source: str
    query_name: str
    query_hash: str
    translated: str
    since: date | None
    status: str  # completed | failed
    hits: int
    new_papers: int
    requests: int
    total: int | None
    failure: str | None
    update_id: str | None
    run_id: str | None
    created_at: datetime


@dataclass(frozen=True)
class NewSearch:
    """What a run records about one (source, query) search."""

    source: str
    query_name: str
    query_hash: str
    translated: str
    status: str
    hits: int = 0
    new_papers: int = 0
    requests: int = 0
    total: int | None = None
    failure: str | None = None
    since: date | None = None


@dataclass(frozen=True)
class Sighting:
    """One search (``found_by``) found one of the project's papers."""

    paper_id: int
    found_by: str  # <source>:<query>, e.g. openalex:string-03, backward:12
    source: str
    source_id: str | None = None
    rank: int | None = None
    update_id: str | None = None


class Searches:
    def __init__(self, db: Database):
        self.db = db

    def record_searches(self, slug: str, searches: Iterable[NewSearch], *, run_id: str | None = None,
                        update_id: str | None = None) -> int:
        rows = [
            {"source": s.source, "query_name": s.query_name, "query_hash": s.query_hash, "translated": s.translated,
             "since": s.since, "status": s.status, "hits": s.hits, "new_papers": s.new_papers,
             "requests": s.requests, "total": s.total, "failure": s.failure, "update_id": update_id,
             "run_id": run_id}
            for s in searches
        ]
        for row in rows:
            if row["status"] not in t.SEARCH_STATUSES:
                raise ValueError(f"search status must be one of {t.SEARCH_STATUSES}, not {row['status']!r}")

        def tx(conn: Connection) -> int:
            project = self.db.active_project(conn, slug)
            now = now_utc()
            for start in range(0, len(rows), _CHUNK):
                conn.execute(sa.insert(t.source_searches),
                             [{**r, "project_id": project.id, "created_at": now} for r in rows[start:start + _CHUNK]])
            return len(rows)

        return self.db.run(tx) if rows else 0

    def searches(self, slug: str) -> list[SearchRow]:
        """Every search the project ran, oldest first."""
        s = t.source_searches

        def tx(conn: Connection) -> list[SearchRow]:
            project = self.db.visible_project(conn, slug, False)
            q = sa.select(s).where(s.c.project_id == project.id).order_by(s.c.id)
            return [from_row(SearchRow, r) for r in conn.execute(q)]

        return self.db.read(tx)

    def add_sightings(self, slug: str, sightings: Iterable[Sighting]) -> int:
        """Record the sightings not already recorded (same paper and ``found_by``); returns how many are new."""
        wanted = {(s.paper_id, s.found_by): s for s in sightings}
        if not wanted:
            return 0
        ps = t.paper_sightings

        def tx(conn: Connection) -> int:
            project = self.db.active_project(conn, slug)
            ids = sorted({paper_id for paper_id, _ in wanted})
            known: set[tuple[int, str]] = set()
            live: set[int] = set()
            for start in range(0, len(ids), _CHUNK):
                chunk = ids[start:start + _CHUNK]
                known.update((r.paper_id, r.found_by) for r in conn.execute(
                    sa.select(ps.c.paper_id, ps.c.found_by).where(ps.c.paper_id.in_(chunk))))
                live.update(conn.execute(sa.select(t.papers.c.id).where(
                    t.papers.c.project_id == project.id, t.papers.c.id.in_(chunk))).scalars())
            now = now_utc()
            fresh = [
                {"project_id": project.id, "paper_id": s.paper_id, "found_by": s.found_by[:255], "source": s.source,
                 "source_id": (s.source_id or None) and s.source_id[:255], "rank": s.rank, "update_id": s.update_id,
                 "created_at": now}
                for key, s in wanted.items() if key not in known and s.paper_id in live
            ]
            for start in range(0, len(fresh), _CHUNK):
                conn.execute(sa.insert(t.paper_sightings), fresh[start:start + _CHUNK])
            return len(fresh)

        return self.db.run(tx)

    def sightings(self, slug: str) -> list[Sighting]:
        """The project's sightings on live papers, in the order they were recorded."""
        ps, p = t.paper_sightings, t.papers

        def tx(conn: Connection) -> list[Sighting]:
            project = self.db.visible_project(conn, slug, False)
            q = (sa.select(ps).join(p, p.c.id == ps.c.paper_id)
                 .where(ps.c.project_id == project.id, p.c.deleted_at.is_(None)).order_by(ps.c.id))
            return [from_row(Sighting, r) for r in conn.execute(q)]

        return self.db.read(tx)

    def found_by(self, slug: str) -> dict[int, list[str]]:
        """paper id -> the searches that found it, in the order they did."""
        out: dict[int, list[str]] = defaultdict(list)
        for s in self.sightings(slug):
            out[s.paper_id].append(s.found_by)
        return dict(out)
