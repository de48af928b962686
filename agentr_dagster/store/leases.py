"""One run per project, whoever starts it: project leases, per-paper claims and per-request claims in the domain
store.

A lease row per project names its holder (a token), the holder's identity (:class:`Identity`: host, *realm* and
pid) and its last heartbeat. It is taken atomically (an insert that does nothing on conflict, then the existing row
read under a row lock — ``FOR UPDATE`` on PostgreSQL, ``BEGIN IMMEDIATE`` on SQLite) and taken over only when its
holder is proven gone:

- a holder in this process's own pid namespace (same host, same boot, same PID namespace: the same *realm*) is
  gone when its process has exited (or its pid now names a process started after the lease was taken); its
  heartbeat's age is not asked, so a stalled but live process (SIGSTOP, swap, a debugger) keeps what it holds
  however long it stalls;
- any other holder (another host, another boot, another container with the same hostname, or a row whose realm
  is unknown) is judged by its heartbeat alone: gone when it is older than ``AGENTR_LEASE_TTL_S`` (180 s by
  default). Its pid means nothing here (it may name no process, or an unrelated one), so a holder whose heartbeat
  is fresh is never taken over.

Fencing: a holder renews the claim of the paper or request right before each paid call (an update that must find
its own row) and stops when it has lost it; a heartbeat that finds the project's lease no longer names it marks
the project lost in this process, and no further call is made for it. A holder frozen past the TTL (a VM pause, a
debugger) may wake with answers already waiting: their settlement is fenced too — :meth:`Ledger.settle` checks,
in the transaction that would charge, that the claim still names the holder (:class:`ClaimFence`), and records a
late answer of a holder that lost it as operator waste, never charged to the project. Taking over a gone holder's
project lease revokes the claims its process left (:meth:`Leases.revoke_gone`), so that every late settlement of
the old holder finds its claim gone. A settlement kept through a database outage is settled under the same fence
later; its claim is kept until then (:meth:`Leases.keep_for_settlement`). A paper claim is the same thing for one
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
from typing import Protocol

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from agentr_dagster.domain.failures import StoppedError
from agentr_dagster.domain.stopping import stop_reason, stop_requested
from agentr_dagster.store import schema as t
from agentr_dagster.store.database import Database, now_utc
from agentr_dagster.store.rows import from_row

LEASE_TTL_S = 180.0  # default AGENTR_LEASE_TTL_S: a holder outside this pid namespace silent this long is gone
HEARTBEAT_S = 3.0
POLL_S = 0.5
LEASE_TAG = "agentr/lease"  # Dagster run tag: the lease holder that started the run (steps in its process re-enter)
_CHUNK = 400  # keys per statement (SQLite's bound-parameter limit is far above; this keeps statements small)
HOST = socket.gethostname()[:255]


@dataclass(frozen=True)
class Identity:
    """Where a holder runs. ``realm`` names the boot and the PID namespace (``<boot id>/pid:[<inode>]``): a pid
    can be asked about (is it alive?) only by a process of the same host and realm."""

    host: str
    realm: str
    pid: int

    def same_realm(self, host: str, realm: str | None) -> bool:
        return host == self.host and realm is not None and realm == self.realm


def _read(path: str, link: bool = False) -> str | None:
    try:
        return (os.readlink(path) if link else Path(path).read_text()).strip() or None
    except OSError:
        return None


_realm_of_pid: dict[int, str] = {}


def current_realm() -> str:
    """``<boot id>/<pid namespace>`` of this process; a part that cannot be read is replaced by a random token
    (then no other process shares the realm, and every other holder is judged by its heartbeat alone)."""
    pid = os.getpid()
    realm = _realm_of_pid.get(pid)
    if realm is None:
        boot = _read("/proc/sys/kernel/random/boot_id") or f"boot?{uuid.uuid4().hex[:12]}"
        ns = _read("/proc/self/ns/pid", link=True) or f"pidns?{uuid.uuid4().hex[:12]}"
        realm = _realm_of_pid[pid] = f"{boot}/{ns}"[:100]
    return realm


def current_identity() -> Identity:
    return Identity(HOST, current_realm(), os.getpid())


def new_holder(kind: str = "proc", who: Identity | None = None) -> str:
    """A token unique to this process and call: ``kind:host:pid:random``."""
    who = who or current_identity()
    return f"{kind}:{who.host}:{who.pid}:{uuid.uuid4().hex[:12]}"[:200]


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

    return get_settings().store.lease_ttl_s


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
                ttl_s: float, *, realm: str | None, me: Identity | None = None) -> bool:
    """Is the holder proven gone (see the module docstring)? ``since`` is when it took what it holds; ``me`` is
    who asks (default: this process)."""
    me = me or current_identity()
    if not me.same_realm(host, realm):  # its pid names nothing we can ask about: the heartbeat alone decides
        return heartbeat_at < now - timedelta(seconds=ttl_s)
    if pid == me.pid:  # this very process: gone once it no longer beats (it let go, or lost the database)
        return not _THIS_PROCESS.beating(holder)
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
    realm: str | None = None

    def describe(self) -> str:
        run = f" run {self.run_id}" if self.run_id else ""
        return f"pid {self.pid} on {self.host}{run}, since {self.acquired_at:%H:%M:%S} UTC"


@dataclass(frozen=True)
class ClaimFence:
    """What a settlement must still hold to charge: the claim on one paper (``table="paper"``, its cache key) or
    one request (``table="request"``, its hash), in the name of ``holder`` run by ``who``."""

    table: str
    key: str
    holder: str
    who: Identity

    def holds(self, conn: Connection, *, lock: bool) -> bool:
        """Does the claim still name this holder? Read under a row lock on PostgreSQL (SQLite's write transaction
        holds the database), so that no takeover commits between this check and the charge."""
        table, column = ((t.paper_claims, t.paper_claims.c.cache_key) if self.table == "paper"
                         else (t.request_claims, t.request_claims.c.request_hash))
        q = sa.select(table.c.holder).where(column == self.key, *_owned(table, self.holder, self.who))
        return conn.execute(q.with_for_update() if lock else q).first() is not None


def _owned(table: sa.Table, holder: str, who: Identity) -> list:
    return [table.c.holder == holder, table.c.host == who.host, table.c.pid == who.pid, table.c.realm == who.realm]


def _is_self(row: sa.Row, holder: str, me: Identity) -> bool:
    return row.holder == holder and row.host == me.host and row.pid == me.pid and row.realm == me.realm


def _gone(row: sa.Row, now: datetime, ttl_s: float | None, me: Identity) -> bool:
    since = getattr(row, "acquired_at", None) or row.claimed_at
    return holder_gone(row.host, row.pid, row.holder, since, row.heartbeat_at, now,
                       lease_ttl_s() if ttl_s is None else ttl_s, realm=row.realm, me=me)


class _ProcessHolders:
    """What this process knows of its own holders, in one place: which have a heartbeat running (a holder of this
    process is live exactly while it beats: :func:`holder_gone`) and which projects' leases a holder here lost.
    Process-wide on purpose: the heartbeat thread that notices a loss and the gateway that must then stop calling
    (:func:`lease_lost`, asked before every paid call) share no object but the process."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._beating: Counter = Counter()  # holder -> heartbeats running for it
        self._lost: set[str] = set()  # projects whose lease a holder of this process held and lost
        # (table, key, holder): claims a settlement kept through an outage still needs (its fence), not released
        self._kept: set[tuple[str, str, str]] = set()

    def start_beating(self, holder: str) -> None:
        with self._lock:
            self._beating[holder] += 1

    def stop_beating(self, holder: str) -> None:
        with self._lock:
            self._beating[holder] -= 1
            if self._beating[holder] <= 0:
                del self._beating[holder]

    def beating(self, holder: str) -> bool:
        with self._lock:
            return bool(self._beating[holder])

    def mark_lost(self, slug: str, lost: bool) -> None:
        with self._lock:
            (self._lost.add if lost else self._lost.discard)(slug)

    def lost(self, slug: str) -> bool:
        with self._lock:
            return slug in self._lost

    def keep(self, table: str, key: str, holder: str, kept: bool) -> None:
        with self._lock:
            (self._kept.add if kept else self._kept.discard)((table, key, holder))

    def kept(self, table: str, holder: str) -> list[str]:
        with self._lock:
            return [k for tb, k, h in self._kept if tb == table and h == holder]


_THIS_PROCESS = _ProcessHolders()


def lease_lost(slug: str) -> bool:
    """This process held the project's lease and found it taken by another holder: no more calls for it."""
    return _THIS_PROCESS.lost(slug)


class Leases:
    """The store's part for project leases and per-paper claims (see the module docstring). ``identity`` says who
    this process is (injectable: a test plays a holder in another namespace by giving it another realm)."""

    def __init__(self, db: Database, identity: Callable[[], Identity] = current_identity):
        self.db = db
        self.identity = identity

    def fence(self, table: str, key: str, holder: str) -> ClaimFence:
        """The fence a settlement of ``holder``'s call checks (see :class:`ClaimFence`)."""
        return ClaimFence(table, key, holder, self.identity())

    def keep_for_settlement(self, fence: ClaimFence) -> None:
        """An answered call's settlement was kept (the database refused it, ``llm/unsettled.py``): its claim is
        not released by its holder until the kept settlement is settled under it (:meth:`release_kept`), so
        that it is fenced as the call was. No database access: the database is away."""
        _THIS_PROCESS.keep(fence.table, fence.key, fence.holder, True)

    def release_kept(self, fence: ClaimFence) -> None:
        """The kept settlement under ``fence`` is settled (charged or refused): release its claim, if it still
        names the holder."""
        _THIS_PROCESS.keep(fence.table, fence.key, fence.holder, False)
        if fence.table == "paper":
            self.release_claims(fence.holder, [fence.key])
        else:
            self.release_request(fence.key, fence.holder)

    @staticmethod
    def _values(holder: str, me: Identity, **more) -> dict:
        return {"holder": holder, "host": me.host, "realm": me.realm, "pid": me.pid, **more}

    # -- project leases -----------------------------------------------------------------------------------------

    def try_acquire_project_lease(self, slug: str, holder: str, *, run_id: str | None = None,
                                  ttl_s: float | None = None) -> tuple[bool, LeaseHolder | None]:
        """``(True, None)`` when ``holder`` now holds the lease (new, already its own in this process, or taken
        over from a gone holder); ``(False, current)`` when a live holder has it. The same token in another
        process (e.g. a re-executed run that copied its parent's tags) is another holder. Taking over a gone
        holder revokes the claims its process left (:meth:`revoke_gone`) in the same transaction."""
        me = self.identity()

        def tx(conn: Connection) -> tuple[bool, LeaseHolder | None]:
            project = self.db.project(conn, slug)  # deleted or not: the stage under the lease reports the orphan
            now = now_utc()
            values = self._values(holder, me, run_id=run_id, acquired_at=now, heartbeat_at=now)
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
            if _is_self(row, holder, me):
                conn.execute(sa.update(lease).where(lease.c.project_id == project.id).values(heartbeat_at=now))
                return True, None
            if _gone(row, now, ttl_s, me):
                conn.execute(sa.update(lease).where(lease.c.project_id == project.id).values(**values))
                self._revoke_gone(conn, project.id, now, ttl_s, me)
                return True, None
            return False, from_row(LeaseHolder, row, slug=slug)

        taken = self.db.run(tx)
        if taken[0]:
            _THIS_PROCESS.mark_lost(slug, False)
        return taken

    def revoke_gone(self, slug: str, ttl_s: float | None = None) -> int:
        """Delete the claims of gone holders (the project's paper claims, and request claims of any project):
        whatever a gone holder settles after this finds no claim, so its late answers are refused by the fence
        and recorded as waste. The caller is about to release reservations and call again. Returns how many."""
        me = self.identity()

        def tx(conn: Connection) -> int:
            return self._revoke_gone(conn, self.db.project(conn, slug).id, now_utc(), ttl_s, me)

        return self.db.run(tx)

    def _revoke_gone(self, conn: Connection, project_id: int, now: datetime, ttl_s: float | None,
                     me: Identity) -> int:
        revoked = 0
        for table, key, where in ((t.paper_claims, t.paper_claims.c.cache_key,
                                   t.paper_claims.c.project_id == project_id),
                                  (t.request_claims, t.request_claims.c.request_hash, sa.true())):
            q = sa.select(table).where(where)
            gone = [row for row in conn.execute(q.with_for_update() if self.db.is_postgres else q)
                    if _gone(row, now, ttl_s, me)]
            for row in gone:  # the holder is checked again: a row taken over meanwhile is not touched
                revoked += conn.execute(sa.delete(table).where(key == getattr(row, key.name),
                                                               table.c.holder == row.holder)).rowcount
        return revoked

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
                           lease_ttl_s() if ttl_s is None else ttl_s, realm=lease.realm, me=self.identity())
        return None if gone else lease

    def heartbeat(self, holder: str) -> int:
        """Refresh every lease and claim of ``holder``; returns how many project leases it still holds."""
        me = self.identity()

        def tx(conn: Connection) -> int:
            now = now_utc()
            held = conn.execute(sa.update(t.project_leases).where(*_owned(t.project_leases, holder, me))
                                .values(heartbeat_at=now)).rowcount
            for table in (t.paper_claims, t.request_claims):
                conn.execute(sa.update(table).where(*_owned(table, holder, me)).values(heartbeat_at=now))
            return held

        return self.db.run(tx)

    def holds_project(self, slug: str, holder: str) -> bool:
        lease = self.project_lease(slug)
        me = self.identity()
        return lease is not None and (lease.holder, lease.host, lease.realm, lease.pid) == (
            holder, me.host, me.realm, me.pid)

    def renew_claim(self, holder: str, cache_key: str) -> bool:
        """The fence before a paper's paid call: refresh the claim; False when it no longer names ``holder``."""
        return self._renew(t.paper_claims, t.paper_claims.c.cache_key == cache_key, holder)

    def _renew(self, table: sa.Table, which, holder: str) -> bool:
        me = self.identity()
        return bool(self.db.run(lambda conn: conn.execute(
            sa.update(table).where(which, *_owned(table, holder, me)).values(heartbeat_at=now_utc())).rowcount))

    # -- request claims -------------------------------------------------------------------------------------------

    def try_claim_request(self, request_hash: str, holder: str, stage: str, ttl_s: float | None = None) -> bool:
        """Claim one LLM request (its hash) for ``holder``: True when it now holds it (new, its own, or taken over
        from a gone holder), False while a live holder (another project's run, perhaps) is asking it."""
        c = t.request_claims
        me = self.identity()

        def tx(conn: Connection) -> bool:
            now = now_utc()
            mine = self._values(holder, me, stage=stage[:32], claimed_at=now, heartbeat_at=now)
            if conn.execute(self.db.insert(c).values(request_hash=request_hash, **mine)
                            .on_conflict_do_nothing(index_elements=["request_hash"])).rowcount:
                return True
            q = sa.select(c).where(c.c.request_hash == request_hash)
            row = conn.execute(q.with_for_update() if self.db.is_postgres else q).first()
            if row is None:  # released between the insert and the read
                conn.execute(sa.insert(c).values(request_hash=request_hash, **mine))
                return True
            if _is_self(row, holder, me):
                return True
            if _gone(row, now, ttl_s, me):
                conn.execute(sa.update(c).where(c.c.request_hash == request_hash, c.c.holder == row.holder)
                             .values(**mine))
                return True
            return False

        return self.db.run(tx)

    def renew_request(self, request_hash: str, holder: str) -> bool:
        """The fence before a request's paid call (see :meth:`renew_claim`)."""
        return self._renew(t.request_claims, t.request_claims.c.request_hash == request_hash, holder)

    def release_request(self, request_hash: str, holder: str) -> bool:
        if request_hash in _THIS_PROCESS.kept("request", holder):  # a kept settlement still needs it
            return False
        c = t.request_claims
        return bool(self.db.run(lambda conn: conn.execute(
            sa.delete(c).where(c.c.request_hash == request_hash, c.c.holder == holder)).rowcount))

    # -- paper claims ---------------------------------------------------------------------------------------------

    def claim_papers(self, slug: str, holder: str, items: Iterable[tuple[int, str]],
                     ttl_s: float | None = None) -> set[str]:
        """Claim (paper id, cache key) pairs; returns the keys ``holder`` now holds (its own, new, or taken over
        from a gone holder). Keys held by a live worker are left out: their papers are being scored."""
        items = list(items)
        me = self.identity()
        claimed: set[str] = set()
        c = t.paper_claims
        for start in range(0, len(items), _CHUNK):
            chunk = items[start : start + _CHUNK]

            def tx(conn: Connection, chunk=chunk) -> set[str]:
                project = self.db.project(conn, slug)  # a deletion is seen by the reservation, as an orphan
                now = now_utc()
                mine = self._values(holder, me, claimed_at=now, heartbeat_at=now)
                conn.execute(
                    self.db.insert(c).on_conflict_do_nothing(index_elements=["cache_key"]),
                    [{"cache_key": key, "project_id": project.id, "paper_id": pid_, **mine} for pid_, key in chunk],
                )
                keys = [key for _, key in chunk]
                q = sa.select(c).where(c.c.cache_key.in_(keys))
                got = set()
                for row in conn.execute(q.with_for_update() if self.db.is_postgres else q):
                    if _is_self(row, holder, me):
                        got.add(row.cache_key)
                    elif _gone(row, now, ttl_s, me):
                        conn.execute(sa.update(c).where(c.c.cache_key == row.cache_key, c.c.holder == row.holder)
                                     .values(**mine))
                        got.add(row.cache_key)
                return got

            claimed |= self.db.run(tx)
        return claimed

    def release_claims(self, holder: str, keys: Iterable[str] | None = None) -> int:
        """Release ``holder``'s paper claims (those on ``keys``, or all), except those a kept settlement still
        needs (:meth:`keep_for_settlement`)."""
        c = t.paper_claims
        kept = set(_THIS_PROCESS.kept("paper", holder))

        def tx(conn: Connection, keys=None if keys is None else [k for k in keys if k not in kept]) -> int:
            if keys is None:
                mine = sa.delete(c).where(c.c.holder == holder, c.c.cache_key.notin_(sorted(kept)))
                return conn.execute(mine).rowcount
            released = 0
            for start in range(0, len(keys), _CHUNK):
                released += conn.execute(
                    sa.delete(c).where(c.c.holder == holder, c.c.cache_key.in_(keys[start : start + _CHUNK]))
                ).rowcount
            return released

        return self.db.run(tx)


class LeaseStore(Protocol):
    """What holding a project's lease needs of the store (``DomainStore`` is one; named structurally so this
    module need not import the store that composes it)."""

    @property
    def leases(self) -> Leases: ...


class Heartbeat:
    """Beats ``store.leases.heartbeat(holder)`` from a daemon thread until stopped (a failed beat is retried next time:
    a database blip must not kill the run; a long outage lets the lease go stale, which is the point)."""

    def __init__(self, store: LeaseStore, holder: str, every_s: float = HEARTBEAT_S):
        self._store, self._holder, self._every = store, holder, every_s
        self.watch: str | None = None  # the project whose lease this holder took: a beat must find it still its own
        self._stop = threading.Event()
        _THIS_PROCESS.start_beating(holder)
        self._thread = threading.Thread(target=self._loop, name="agentr-heartbeat", daemon=True)
        self._thread.start()

    def _loop(self) -> None:
        while not self._stop.wait(self._every):
            try:
                held = self._store.leases.heartbeat(self._holder)
            except Exception:  # noqa: BLE001 - see the class docstring
                continue
            if self.watch is not None and not held:  # replaced: another holder has the lease now
                _THIS_PROCESS.mark_lost(self.watch, True)

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()
        _THIS_PROCESS.stop_beating(self._holder)


@contextmanager
def hold_project(store: LeaseStore, slug: str, holder: str, *, run_id: str | None = None,
                 on_wait: Callable[[LeaseHolder], None] | None = None, poll_s: float = POLL_S,
                 ttl_s: float | None = None) -> Iterator[bool]:
    """Hold the project's lease for the block, waiting (and saying so once, via ``on_wait``) while a live holder
    has it. Yields True when this call took the lease, False when ``holder`` already held it (then the block
    leaves it to the outer holder to release). What else taking the lease allows (giving back the credits of runs
    that ended without settling) is the caller's: ``llm/paid_call.hold_project_for_calls``."""
    if store.leases.holds_project(slug, holder):
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
        beat.watch = slug
        yield True
    finally:
        beat.stop()
        with contextlib.suppress(Exception):  # the database may be gone; the lease then goes stale
            store.leases.release_project_lease(slug, holder)
