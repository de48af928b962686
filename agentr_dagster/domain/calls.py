"""Who an LLM call is for: the context every stage passes to the gateway (``llm/gateway.py``).

It lives in the domain so that pure rooms (``synthesis/redraft.py``) can build one without importing ``llm/``.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass


@dataclass
class CallContext:
    slug: str
    stage: str
    paper_id: int | None = None
    run_id: str | None = None
    # Held for the HTTP call only: a run's own cap on parallel calls, so that its threads can look up the cache
    # and reserve credits for their next paper while the calls before it are still in flight.
    call_gate: AbstractContextManager | None = None
    # Called right before each paid call by a caller that holds its own claim (scoring: the paper's): raises a
    # StoppedError once the claim is lost. Without it the gateway takes a claim on the request itself.
    fence: Callable[[], None] | None = None
    # With ``fence``: the claim the settlement must still hold (``store.leases.ClaimFence``), checked in the
    # transaction that charges: a late answer after a takeover is then operator waste, not a second charge.
    claim: object | None = None
