"""One run per project, whoever starts it: project leases, per-paper claims and per-request claims in the domain
store.

A lease row per project names its holder (a token), the holder's host and pid and its last heartbeat. It is taken
atomically (an insert that does nothing on conflict, then the existing row read under a row lock — ``FOR UPDATE``
on PostgreSQL, ``BEGIN IMMEDIATE`` on SQLite) and taken over only when its holder is proven gone:

- a holder on this host is gone when its process has exited (or its pid now names a process started after the
  lease was taken); its heartbeat's age is not asked, so a stalled but live process (SIGSTOP, swap, a debugger)
  keeps what it holds however long it stalls;
- a holder on another host is gone when its heartbeat is older than ``AGENTR_LEASE_TTL_S`` (180 s by default,
  above the LLM timeout: a holder renews its claim right before each call, so a call it sent is over before the
  claim can go stale).

Fencing: a holder renews the claim of the paper or request right before each paid call (an update that must find
its own row) and stops when it has lost it; a heartbeat that finds the project's lease no longer names it marks
the project lost in this process, and no further call is made for it. A paper claim is the same thing for one
scoring cache key, a request claim for one LLM request (intent, queries, related-work rewrites): no two workers
pay for the same request, whichever project asks.
"""

from __future__ import annotations

import contextlib
import os
import socket
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from agentr_dagster.domain.failures import StoppedError
from agentr_dagster.domain.stopping import stop_reason, stop_requested
from agentr_dagster.store import schema as t
from agentr_dagster.store.database import Database, now_utc
from agentr_dagster.store.rows import from_row

if TYPE_CHECKING:
    from agentr_dagster.store.store import DomainStore

LEASE_TTL_S = 180.0  # default AGENTR_LEASE_TTL_S: a holder on another host silent this long is presumed gone
HEARTBEAT_S = 3.0
POLL_S = 0.5
LEASE_TAG = "agentr/lease"  # Dagster run tag: the lease holder that started the run (steps in its process re-enter)
_CHUNK = 400  # keys per statement (SQLite's bound-parameter limit is far above; this keeps statements small)
HOST = socket.gethostname()[:255]


def new_holder(kind: str = "proc") -> str:
    """A token unique to this process and call: ``kind:host:pid:random``."""
    return f"{kind}:{HOST}:{os.getpid()}:{uuid.uuid4().hex[:12]}"[:200]


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # exists, owned by someone else
        return True
    except OSError:
        return False
    try:  # a zombie has exited; it only waits for its parent to reap it
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return fields[0] != "Z"
    except (OSError, IndexError):
        return True


def lease_ttl_s() -> float:
    """AGENTR_LEASE_TTL_S, read now (a test or a long-lived process sees a changed environment)."""
    from agentr_dagster.settings import get_settings

    return get_settings().lease_ttl_s


def _boot_time() -> float | None:
    try:
        for line in Path("/proc/stat").read_text().splitlines():
            if line.startswith("btime "):
                return float(line.split()[1])
    except (OSError, ValueError):
        return None
    return None


def process_started_at(pid: int) -> float | None:
    """When process ``pid`` started (epoch seconds, to about a second), from /proc; None where unknown."""
    boot = _boot_time()
    if boot is None:
        return None
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return boot + int(fields[19]) / os.sysconf("SC_CLK_TCK")  # field 22 of stat(5): start time in ticks
    except (OSError, IndexError, ValueError):
        return None


def holder_gone(host: str, pid: int, holder: str, since: datetime, heartbeat_at: datetime, now: datetime,
                ttl_s: float) -> bool:
    """Is the holder proven gone (see the module docstring)? ``since`` is when it took what it holds."""
    if host != HOST:
        return heartbeat_at < now - timedelta(seconds=ttl_s)
    if pid == os.getpid():  # this very process: gone once it no longer beats (it let go, or lost the database)
        with _beating_lock:
            return not _beating[holder]
    if not pid_alive(pid):
        return True
    started = process_started_at(pid)  # the pid may have been reused by a later process
    return started is not None and started > since.timestamp() + 2.0


@dataclass(frozen=True)
class LeaseHolder:
    """Who holds a project's lease (what a waiting command prints)."""

    slug: str
    holder: str
    host: str
    pid: int
    run_id: str | None
    acquired_at: datetime
    heartbeat_at: datetime

    def describe(self) -> str:
        run = f" run {self.run_id}" if self.run_id else ""
        return f"pid {self.pid} on {self.host}{run}, since {self.acquired_at:%H:%M:%S} UTC"


def _owned(table: sa.Table, mine: dict) -> list:
    return [table.c.holder == mine["holder"], table.c.host == mine["host"], table.c.pid == mine["pid"]]


def _is_self(row: sa.Row, holder: str) -> bool:
    return row.holder == holder and row.host == HOST and row.pid == os.getpid()


def _gone(row: sa.Row, now: datetime, ttl_s: float | None) -> bool:
    since = getattr(row, "acquired_at", None) or row.claimed_at
    return holder_gone(row.host, row.pid, row.holder, since, row.heartbeat_at, now,
                       lease_ttl_s() if ttl_s is None else ttl_s)


_lost_lock = threading.Lock()
_lost_projects: set[str] = set()  # projects whose lease a holder of this process held and lost


def lease_lost(slug: str) -> bool:
    """This process held the project's lease and found it taken by another holder: no more calls for it."""
    with _lost_lock:
        return slug in _lost_projects


def _mark_lost(slug: str, lost: bool) -> None:
    with _lost_lock:
        (_lost_projects.add if lost else _lost_projects.discard)(slug)


class Leases:
    """The store's part for project leases and per-paper claims (see the module docstring)."""

    def __init__(self, db: Database):
        self.db = db

    # -- project leases -----------------------------------------------------------------------------------------

    def try_acquire_project_lease(self, slug: str, holder: str, *, run_id: str | None = None,
                                  ttl_s: float | None = None) -> tuple[bool, LeaseHolder | None]:
        """``(True, None)`` when ``holder`` now holds the lease (new, already its own in this process, or taken
        over from a gone holder); ``(False, current)`` when a live holder has it. The same token in another
        process (e.g. a re-executed run that copied its parent's tags) is another holder."""
        pid = os.getpid()

        def tx(conn: Connection) -> tuple[bool, LeaseHolder | None]:
            project = self.db.project(conn, slug)  # deleted or not: the stage under the lease reports the orphan
            now = now_utc()
            values = {"holder": holder, "host": HOST, "pid": pid, "run_id": run_id, "acquired_at": now,
                      "heartbeat_at": now}
            inserted = conn.execute(
                self.db.insert(t.project_leases).values(project_id=project.id, **values)
                .on_conflict_do_nothing(index_elements=["project_id"])
            ).rowcount
            if inserted:
                return True, None
            lease = t.project_leases
            q = sa.select(lease).where(lease.c.project_id == project.id)
            row = conn.execute(q.with_for_update() if self.db.is_postgres else q).first()
            if row is None:  # released between the insert and the read: take it
                conn.execute(sa.insert(lease).values(project_id=project.id, **values))
                return True, None
            if _is_self(row, holder):
                conn.execute(sa.update(lease).where(lease.c.project_id == project.id).values(heartbeat_at=now))
                return True, None
            if _gone(row, now, ttl_s):
                conn.execute(sa.update(lease).where(lease.c.project_id == project.id).values(**values))
                return True, None
            return False, from_row(LeaseHolder, row, slug=slug)

        taken = self.db.run(tx)
        if taken[0]:
            _mark_lost(slug, False)
        return taken

    def release_project_lease(self, slug: str, holder: str) -> bool:
        def tx(conn: Connection) -> bool:
            project = self.db.project(conn, slug)
            lease = t.project_leases
            return bool(conn.execute(
                sa.delete(lease).where(lease.c.project_id == project.id, lease.c.holder == holder)
            ).rowcount)

        return self.db.run(tx)

    def project_lease(self, slug: str) -> LeaseHolder | None:
        def tx(conn: Connection) -> LeaseHolder | None:
            project = self.db.project(conn, slug)
            lease = t.project_leases
            row = conn.execute(sa.select(lease).where(lease.c.project_id == project.id)).first()
            if row is None:
                return None
            return from_row(LeaseHolder, row, slug=slug)

        return self.db.read(tx)

    def live_lease(self, slug: str, ttl_s: float | None = None) -> LeaseHolder | None:
        """The project's lease when its holder is not proven gone (the test every recovery path asks before it
        releases anything of the project)."""
        lease = self.project_lease(slug)
        if lease is None:
            return None
        gone = holder_gone(lease.host, lease.pid, lease.holder, lease.acquired_at, lease.heartbeat_at, now_utc(),
                           lease_ttl_s() if ttl_s is None else ttl_s)
        return None if gone else lease

    def heartbeat(self, holder: str) -> int:
        """Refresh every lease and claim of ``holder``; returns how many project leases it still holds."""

        def tx(conn: Connection) -> int:
            now = now_utc()
            mine = {"holder": holder, "host": HOST, "pid": os.getpid()}
            held = conn.execute(sa.update(t.project_leases).where(*_owned(t.project_leases, mine))
                                .values(heartbeat_at=now)).rowcount
            for table in (t.paper_claims, t.request_claims):
                conn.execute(sa.update(table).where(*_owned(table, mine)).values(heartbeat_at=now))
            return held

        return self.db.run(tx)

    def holds_project(self, slug: str, holder: str) -> bool:
        lease = self.project_lease(slug)
        return lease is not None and (lease.holder, lease.host, lease.pid) == (holder, HOST, os.getpid())

    def renew_claim(self, holder: str, cache_key: str) -> bool:
        """The fence before a paper's paid call: refresh the claim; False when it no longer names ``holder``."""
        return self._renew(t.paper_claims, t.paper_claims.c.cache_key == cache_key, holder)

    def _renew(self, table: sa.Table, which, holder: str) -> bool:
        mine = {"holder": holder, "host": HOST, "pid": os.getpid()}
        return bool(self.db.run(lambda conn: conn.execute(
            sa.update(table).where(which, *_owned(table, mine)).values(heartbeat_at=now_utc())).rowcount))

    # -- request claims -------------------------------------------------------------------------------------------

    def try_claim_request(self, request_hash: str, holder: str, stage: str, ttl_s: float | None = None) -> bool:
        """Claim one LLM request (its hash) for ``holder``: True when it now holds it (new, its own, or taken over
        from a gone holder), False while a live holder (another project's run, perhaps) is asking it."""
        c = t.request_claims

        def tx(conn: Connection) -> bool:
            now = now_utc()
            mine = {"holder": holder, "host": HOST, "pid": os.getpid(), "stage": stage[:32], "claimed_at": now,
                    "heartbeat_at": now}
            if conn.execute(self.db.insert(c).values(request_hash=request_hash, **mine)
                            .on_conflict_do_nothing(index_elements=["request_hash"])).rowcount:
                return True
            q = sa.select(c).where(c.c.request_hash == request_hash)
            row = conn.execute(q.with_for_update() if self.db.is_postgres else q).first()
            if row is None:  # released between the insert and the read
                conn.execute(sa.insert(c).values(request_hash=request_hash, **mine))
                return True
            if _is_self(row, holder):
                return True
            if _gone(row, now, ttl_s):
                conn.execute(sa.update(c).where(c.c.request_hash == request_hash, c.c.holder == row.holder)
                             .values(**mine))
                return True
            return False

        return self.db.run(tx)

    def renew_request(self, request_hash: str, holder: str) -> bool:
        """The fence before a request's paid call (see :meth:`renew_claim`)."""
        return self._renew(t.request_claims, t.request_claims.c.request_hash == request_hash, holder)

    def release_request(self, request_hash: str, holder: str) -> bool:
        c = t.request_claims
        return bool(self.db.run(lambda conn: conn.execute(
            sa.delete(c).where(c.c.request_hash == request_hash, c.c.holder == holder)).rowcount))

    # -- paper claims ---------------------------------------------------------------------------------------------

    def claim_papers(self, slug: str, holder: str, items: Iterable[tuple[int, str]],
                     ttl_s: float | None = None) -> set[str]:
        """Claim (paper id, cache key) pairs; returns the keys ``holder`` now holds (its own, new, or taken over
        from a gone holder). Keys held by a live worker are left out: their papers are being scored."""
        items = list(items)
        pid = os.getpid()
        claimed: set[str] = set()
        c = t.paper_claims
        for start in range(0, len(items), _CHUNK):
            chunk = items[start : start + _CHUNK]

            def tx(conn: Connection, chunk=chunk) -> set[str]:
                project = self.db.project(conn, slug)  # a deletion is seen by the reservation, as an orphan
                now = now_utc()
                mine = {"holder": holder, "host": HOST, "pid": pid, "claimed_at": now, "heartbeat_at": now}
                conn.execute(
                    self.db.insert(c).on_conflict_do_nothing(index_elements=["cache_key"]),
                    [{"cache_key": key, "project_id": project.id, "paper_id": pid_, **mine} for pid_, key in chunk],
                )
                keys = [key for _, key in chunk]
                q = sa.select(c).where(c.c.cache_key.in_(keys))
                got = set()
                for row in conn.execute(q.with_for_update() if self.db.is_postgres else q):
                    if _is_self(row, holder):
                        got.add(row.cache_key)
                    elif _gone(row, now, ttl_s):
                        conn.execute(sa.update(c).where(c.c.cache_key == row.cache_key, c.c.holder == row.holder)
                                     .values(**mine))
                        got.add(row.cache_key)
                return got

            claimed |= self.db.run(tx)
        return claimed

    def release_claims(self, holder: str, keys: Iterable[str] | None = None) -> int:
        c = t.paper_claims

        def tx(conn: Connection, keys=None if keys is None else list(keys)) -> int:
            if keys is None:
                return conn.execute(sa.delete(c).where(c.c.holder == holder)).rowcount
            released = 0
            for start in range(0, len(keys), _CHUNK):
                released += conn.execute(
                    sa.delete(c).where(c.c.holder == holder, c.c.cache_key.in_(keys[start : start + _CHUNK]))
                ).rowcount
            return released

        return self.db.run(tx)


_beating: Counter = Counter()  # holders of this process with a running heartbeat
_beating_lock = threading.Lock()


class Heartbeat:
    """Beats ``store.leases.heartbeat(holder)`` from a daemon thread until stopped (a failed beat is retried next time:
    a database blip must not kill the run; a long outage lets the lease go stale, which is the point)."""

    def __init__(self, store: DomainStore, holder: str, every_s: float = HEARTBEAT_S):
        self._store, self._holder, self._every = store, holder, every_s
        self.watch: str | None = None  # the project whose lease this holder took: a beat must find it still its own
        self._stop = threading.Event()
        with _beating_lock:
            _beating[holder] += 1
        self._thread = threading.Thread(target=self._loop, name="agentr-heartbeat", daemon=True)
        self._thread.start()

    def _loop(self) -> None:
        while not self._stop.wait(self._every):
            try:
                held = self._store.leases.heartbeat(self._holder)
            except Exception:  # noqa: BLE001 - see the class docstring
                continue
            if self.watch is not None and not held:  # replaced: another holder has the lease now
                _mark_lost(self.watch, True)

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()
        with _beating_lock:
            _beating[self._holder] -= 1
            if _beating[self._holder] <= 0:
                del _beating[self._holder]


@contextmanager
def hold_project(store: DomainStore, slug: str, holder: str, *, run_id: str | None = None,
                 on_wait: Callable[[LeaseHolder], None] | None = None, poll_s: float = POLL_S,
                 ttl_s: float | None = None) -> Iterator[bool]:
    """Hold the project's lease for the block, waiting (and saying so once, via ``on_wait``) while a live holder
    has it. Yields True when this call took the lease, False when ``holder`` already held it (then the block
    leaves it to the outer holder to release)."""
    already = store.leases.project_lease(slug)
    reentered = already is not None and (already.holder, already.host, already.pid) == (holder, HOST, os.getpid())
    if reentered:
        yield False
        return
    beat = Heartbeat(store, holder)  # beats before the lease is taken: a holder in this process is live while it beats
    try:
        told = False
        while True:
            taken, current = store.leases.try_acquire_project_lease(slug, holder, run_id=run_id, ttl_s=ttl_s)
            if taken:
                break
            if stop_requested():
                raise StoppedError(f"{slug}: {stop_reason()} while waiting for the run in flight; nothing was run")
            if on_wait is not None and current is not None and not told:  # not taken: a live holder has it
                on_wait(current)
                told = True
            time.sleep(poll_s)
        # No other run of the project is alive now: reservations its ended runs left open hold credits for
        # calls that are over (a lost settle, a killed process); give them back before this run reserves more.
        store.ledger.release_ended_runs_reservations(slug, keep_run_id=run_id)
        beat.watch = slug
        yield True
    finally:
        beat.stop()
        with contextlib.suppress(Exception):  # the database may be gone; the lease then goes stale
            store.leases.release_project_lease(slug, holder)
