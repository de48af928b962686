"""The guards a paid LLM call passes, composed in one place; docs/paid-call.md draws them in order.

Outside in, for one call:

1. the step's guards, held for the whole stage (``defs/assets/project.llm_step``): failures classified for
   Dagster, a lost database recorded when it is back, and the project's lease with its heartbeat
   (:func:`hold_project_for_calls`: one run per project; taking the lease gives back the credits that runs
   which ended without settling left on hold);
2. a claim on what is paid for: the paper's, held by scoring for its batch (:func:`paper_call`), or the
   request's, taken here (:meth:`PaidCallGuard.request`), so that no two workers pay for the same answer;
3. the cheap checks before credits are reserved (:meth:`PaidCallGuard.check`: a stop asked, the lease lost);
4. the run's concurrency gate (``CallContext.call_gate``: at most that many calls of the run in flight);
5. the endpoint's limiter slot (``limits.py``: requests and tokens per minute, shared across processes);
6. the fence, right before the HTTP call: what may have gone stale while waiting (the gateway's question), the
   checks of 3 again, and the claim renewed (:meth:`PaidCallGuard.fence`); a lost claim makes no call;
7. the settlement fence: the claim checked again in the transaction that charges
   (:meth:`PaidCallGuard.settlement_fence`): a late answer after a takeover is operator waste, never charged.

The gateway (``llm/gateway.py``) holds one :class:`PaidCallGuard` and does the money between the guards: the
response cache and the attempt cap inside the claim, the reservation before the gate, the settlement after.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import nullcontext
from typing import TYPE_CHECKING

from agentr_dagster.domain.calls import CallContext
from agentr_dagster.domain.failures import StageError, StoppedError
from agentr_dagster.domain.stopping import stop_reason, stop_requested
from agentr_dagster.limits import InProcessLimiter, RedisLimiter
from agentr_dagster.store.leases import POLL_S, ClaimFence, Heartbeat, LeaseHolder, hold_project, lease_lost, new_holder

if TYPE_CHECKING:
    from agentr_dagster.store import DomainStore


@contextlib.contextmanager
def hold_project_for_calls(store: DomainStore, slug: str, holder: str, *, run_id: str | None = None,
                           on_wait: Callable[[LeaseHolder], None] | None = None) -> Iterator[bool]:
    """Hold the project's lease (:func:`~agentr_dagster.store.leases.hold_project`) for a block that makes paid
    calls. Once this call has taken it, no other run of the project is alive: reservations its ended runs left
    open hold credits for calls that are over (a lost settle, a killed process), so they are given back before
    this run reserves more. Yields what ``hold_project`` yields (True: this call took the lease)."""
    with hold_project(store, slug, holder, run_id=run_id, on_wait=on_wait) as took:
        if took:
            store.ledger.release_ended_runs_reservations(slug, keep_run_id=run_id)
        yield took


def paper_call(store: DomainStore, slug: str, paper_id: int, cache_key: str, holder: str, *, run_id: str | None,
               call_gate: contextlib.AbstractContextManager) -> CallContext:
    """The context of a scoring call made under the paper's claim, which ``holder`` took for the batch (guard 2):
    the fence renews that claim right before the call, and the settlement checks it again; the gateway then
    takes no request claim of its own."""

    def renew_claim() -> None:
        if not store.leases.renew_claim(holder, cache_key):
            raise StoppedError(f"score: paper {paper_id}'s claim was taken over; no call made here")

    return CallContext(slug=slug, stage="score", paper_id=paper_id, run_id=run_id, call_gate=call_gate,
                       fence=renew_claim, claim=store.leases.fence("paper", cache_key, holder))


class PaidCallGuard:
    """Guards 2 to 7 of one gateway's paid calls (the module docstring).

    A request claim is taken around each request unless the caller already holds a narrower one (scoring holds
    each paper's: ``CallContext.fence``). A worker that finds the request claimed by a live holder waits for it,
    and then reads the answer that holder put in the response cache."""

    def __init__(self, store: DomainStore, limiter: InProcessLimiter | RedisLimiter, poll_s: float = POLL_S):
        self.store = store
        self.limiter = limiter
        self.poll_s = poll_s
        self._local = threading.local()

    def _held(self) -> dict[str, str]:
        held = getattr(self._local, "held", None)
        if held is None:
            held = self._local.held = {}
        return held

    @contextlib.contextmanager
    def request(self, key: str, ctx: CallContext) -> Iterator[None]:
        """Guard 2: hold the claim on request ``key`` for the block (waiting while a live holder asks it)."""
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

    def check(self, ctx: CallContext) -> None:
        """Guard 3, no database read: a stop was asked, or this process lost the project's lease."""
        if stop_requested():
            raise StoppedError(f"{ctx.stage}: {stop_reason()}; no call made (`agentr resume {ctx.slug}` continues)")
        if lease_lost(ctx.slug):
            raise StoppedError(f"{ctx.stage}: another run took the lease of {ctx.slug!r} over; this run stops "
                               "without calling")

    @contextlib.contextmanager
    def call(self, key: str, ctx: CallContext, tokens: int,
             stale: Callable[[], StageError | None]) -> Iterator[None]:
        """Guards 4 to 6 around the HTTP call: the run's gate, the limiter's slot, then (the wait may have been
        long) ``stale``'s answer raised if it has one, and the fence."""
        with ctx.call_gate or nullcontext(), self.limiter.slot(tokens):
            gone = stale()
            if gone is not None:
                raise gone
            self.fence(ctx, key)
            yield

    def fence(self, ctx: CallContext, key: str) -> None:
        """Guard 6, right before a paid call: the checks of guard 3, then the caller's claim renewed (it must
        still be ours)."""
        self.check(ctx)
        if ctx.fence is not None:
            ctx.fence()
            return
        holder = self._held().get(key)
        if holder is not None and not self.store.leases.renew_request(key, holder):
            raise StoppedError(f"{ctx.stage}: the claim on this request was taken over by another worker; no call "
                               "made here")

    def settlement_fence(self, ctx: CallContext, key: str) -> ClaimFence | None:
        """Guard 7: the claim the settlement of this call must still hold, or None (no claim was taken)."""
        if ctx.fence is not None:
            return ctx.claim  # type: ignore[return-value]  # the caller's ClaimFence (domain cannot name it)
        holder = self._held().get(key)
        return None if holder is None else self.store.leases.fence("request", key, holder)
