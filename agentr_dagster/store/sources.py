"""The search sources' response cache (``source_responses``): one stored body per normalised request."""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from agentr_dagster.store import schema as t
from agentr_dagster.store.database import Database, now_utc


class Sources:
    """``store.sources``: read, write (overwriting: a refresh replaces the answer) and count cached answers."""

    def __init__(self, db: Database):
        self.db = db

    def get_response(self, cache_key: str) -> str | None:
        sr = t.source_responses
        return self.db.read(lambda conn: conn.execute(sa.select(sr.c.body).where(sr.c.cache_key == cache_key)).scalar())

    def put_response(self, cache_key: str, *, source: str, url: str, body: str) -> None:
        values = {"cache_key": cache_key, "source": source[:32], "url": url, "body": body, "fetched_at": now_utc()}

        def tx(conn: Connection) -> None:
            insert = self.db.insert(t.source_responses).values(**values)
            changed = {k: insert.excluded[k] for k in ("source", "url", "body", "fetched_at")}
            conn.execute(insert.on_conflict_do_update(index_elements=["cache_key"], set_=changed))

        self.db.run(tx)

    def count_responses(self, source: str | None = None) -> int:
        sr = t.source_responses
        query = sa.select(sa.func.count()).select_from(sr)
        if source is not None:
            query = query.where(sr.c.source == source)
        return int(self.db.read(lambda conn: conn.execute(query).scalar()) or 0)
