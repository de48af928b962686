"""Who may pay for a request: the per-request claim (one LLM request is paid once, whichever project asks it) and
the fence checked right before every paid call (store/leases.py explains both).

The gateway takes a request claim around each request unless the caller already holds a narrower one (scoring
holds each paper's claim and passes its renewal as ``CallContext.fence``). A worker that finds the request claimed
by a live holder waits for it and then reads the answer that holder put in the response cache. The claim is checked
twice: renewed right before the call (:meth:`RequestClaims.fence`), and again in the transaction that charges the
answer (:meth:`RequestClaims.settlement_fence`), so that an answer that arrives after a takeover is never charged.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING

from agentr_dagster.domain.failures import StoppedError
from agentr_dagster.domain.stopping import stop_reason, stop_requested
from agentr_dagster.store.leases import POLL_S, Heartbeat, lease_lost, new_holder

if TYPE_CHECKING:
    from agentr_dagster.store import DomainStore


class RequestClaims:
    def __init__(self, store: DomainStore, poll_s: float = POLL_S):
        self.store = store
        self.poll_s = poll_s
        self._local = threading.local()

    def _held(self) -> dict[str, str]:
        held = getattr(self._local, "held", None)
        if held is None:
            held = self._local.held = {}
        return held

    @contextlib.contextmanager
    def request(self, key: str, ctx) -> Iterator[None]:
        """Hold the claim on request ``key`` for the block (waiting while a live holder asks it)."""
        if ctx.fence is not None or key in self._held():
            yield
            return
        holder = new_holder("req")
        beat = Heartbeat(self.store, holder)  # a claim of this process is live while it beats
        try:
            while not self.store.leases.try_claim_request(key, holder, ctx.stage):
                self.check(ctx)
                time.sleep(self.poll_s)
            self._held()[key] = holder
            yield
        finally:
            self._held().pop(key, None)
            beat.stop()
            with contextlib.suppress(Exception):  # the database may be away: the claim is then freed as gone
                self.store.leases.release_request(key, holder)

    def check(self, ctx) -> None:
        """No database read: a stop was asked, or this process lost the project's lease."""
        if stop_requested():
            raise StoppedError(f"{ctx.stage}: {stop_reason()}; no call made (`agentr resume {ctx.slug}` continues)")
        if lease_lost(ctx.slug):
            raise StoppedError(f"{ctx.stage}: another run took the lease of {ctx.slug!r} over; this run stops "
                               "without calling")

    def settlement_fence(self, ctx, key: str):
        """The claim the settlement of this call must still hold (``store.leases.ClaimFence``), or None."""
        if ctx.fence is not None:
            return ctx.claim
        holder = self._held().get(key)
        return None if holder is None else self.store.leases.fence("request", key, holder)

    def fence(self, ctx, key: str) -> None:
        """Right before a paid call: the checks above, then the caller's claim renewed (it must still be ours)."""
        self.check(ctx)
        if ctx.fence is not None:
            ctx.fence()
            return
        holder = self._held().get(key)
        if holder is not None and not self.store.leases.renew_request(key, holder):
            raise StoppedError(f"{ctx.stage}: the claim on this request was taken over by another worker; no call "
                               "made here")
