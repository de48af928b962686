"""The search sources' response cache (``source_responses``): one stored body per normalised request.

Bodies over a few kilobytes are kept zlib-compressed (base64, marked ``z:``): a page of OpenAlex or PubMed
records shrinks about fivefold, which matters on SQLite (PostgreSQL compresses large text itself as well)."""

from __future__ import annotations

import base64
import zlib

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from agentr_dagster.store import schema as t
from agentr_dagster.store.database import Database, now_utc

_COMPRESS_FROM = 4096  # characters
_MARK = "z:"


def pack(body: str) -> str:
    if len(body) < _COMPRESS_FROM and not body.startswith(_MARK):
        return body
    return _MARK + base64.b64encode(zlib.compress(body.encode(), 6)).decode("ascii")


def unpack(stored: str | None) -> str | None:
    if stored is None or not stored.startswith(_MARK):
        return stored
    return zlib.decompress(base64.b64decode(stored[len(_MARK):])).decode()


class Sources:
    """``store.sources``: read, write (overwriting: a refresh replaces the answer) and count cached answers."""

    def __init__(self, db: Database):
        self.db = db

    def get_response(self, cache_key: str) -> str | None:
        sr = t.source_responses
        query = sa.select(sr.c.body).where(sr.c.cache_key == cache_key)
        return unpack(self.db.read(lambda conn: conn.execute(query).scalar()))

    def put_response(self, cache_key: str, *, source: str, url: str, body: str) -> None:
        values = {"cache_key": cache_key, "source": source[:32], "url": url, "body": pack(body),
                  "fetched_at": now_utc()}

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
