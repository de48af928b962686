"""What the store holds about the calls made for one request (``store.attempts``): the durable side of the one cap
on paid attempts (:mod:`agentr_dagster.domain.attempts`). Every call takes a reservation whose idempotency key
starts with the request hash; a settled one has a usage row carrying that hash (an answered, paid call), a released
one got no answer. ``agentr run --retry-invalid`` records a mark: attempts up to it no longer count."""

from __future__ import annotations

from datetime import timedelta

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from agentr_dagster.domain.attempts import Attempts
from agentr_dagster.store import hot
from agentr_dagster.store import schema as t
from agentr_dagster.store.database import Database, now_utc

RETRY_INVALID_STAGE = "retry_invalid"  # artifact: the user asked again for invalid answers (the mark)


class CallAttempts:
    """``store.attempts``: count a request's attempts; record and read the ``--retry-invalid`` marks."""

    def __init__(self, db: Database, results):
        self.db = db
        self.results = results  # the mark is a project artifact, written as any other

    def count(self, request_hash: str, *, after_reservation: int = 0, window_s: float) -> Attempts:
        """Answered calls for the request (ever) and attempts without an answer in the last ``window_s`` seconds,
        both only after reservation ``after_reservation`` (a ``--retry-invalid`` mark)."""
        return self.db.read(lambda conn: self._count(conn, request_hash, after_reservation, window_s))

    def lookup(self, request_hash: str, *, after_reservation: int = 0, window_s: float) -> tuple[str | None, Attempts]:
        """The request's cached (validated) answer, if any, and its attempts (:meth:`count`), in one read: what the
        gateway asks before a call, so the cap costs no transaction of its own."""

        def tx(conn: Connection) -> tuple[str | None, Attempts]:
            cached = conn.execute(hot.CACHED_RESPONSE, {"request_hash": request_hash}).scalar()
            if cached is not None:
                return cached, Attempts()
            return None, self._count(conn, request_hash, after_reservation, window_s)

        return self.db.read(tx)

    @staticmethod
    def _count(conn: Connection, request_hash: str, after_reservation: int, window_s: float) -> Attempts:
        u, r = t.usage_log, t.reservations
        prefix = f"{request_hash}:"
        answered = conn.execute(
            sa.select(sa.func.count()).select_from(u).where(
                u.c.request_hash == request_hash, sa.func.coalesce(u.c.reservation_id, 0) > after_reservation)
        ).scalar_one()
        # released since the window's start (the state/created_at index), then the request's own prefix
        unanswered = conn.execute(
            sa.select(sa.func.count()).select_from(r).where(
                r.c.state == "released", r.c.created_at >= now_utc() - timedelta(seconds=window_s),
                r.c.id > after_reservation,
                sa.func.substr(r.c.idempotency_key, 1, len(prefix)) == prefix)
        ).scalar_one()
        return Attempts(answered=int(answered), unanswered=int(unanswered))

    def mark_retry_invalid(self, slug: str) -> int:
        """Record that the user asks again for the project's invalid answers; returns the mark (the newest
        reservation id: attempts after it count afresh)."""
        def tx(conn: Connection) -> int:
            return int(conn.execute(sa.select(sa.func.coalesce(sa.func.max(t.reservations.c.id), 0))).scalar_one())

        mark = self.db.read(tx)
        self.results.save_artifact(slug, RETRY_INVALID_STAGE, {"after_reservation": mark},
                                   prompt_version=None, model=None, backend=None, input_hash=None)
        return mark

    def retry_invalid_mark(self, slug: str) -> int:
        """The project's latest ``--retry-invalid`` mark (0: none)."""
        a, p = t.artifacts, t.projects

        def tx(conn: Connection) -> int:
            payload = conn.execute(
                sa.select(a.c.payload).join(p, p.c.id == a.c.project_id)
                .where(p.c.slug == slug, a.c.stage == RETRY_INVALID_STAGE).order_by(a.c.id.desc()).limit(1)
            ).scalar_one_or_none()
            return int((payload or {}).get("after_reservation", 0))

        return self.db.read(tx)

    def marks(self) -> dict[int, list[int]]:
        """Every project's marks, oldest first: project id -> reservation ids."""
        a = t.artifacts

        def tx(conn: Connection) -> dict[int, list[int]]:
            out: dict[int, list[int]] = {}
            for pid, payload in conn.execute(
                    sa.select(a.c.project_id, a.c.payload).where(a.c.stage == RETRY_INVALID_STAGE).order_by(a.c.id)):
                out.setdefault(pid, []).append(int((payload or {}).get("after_reservation", 0)))
            return out

        return self.db.read(tx)
