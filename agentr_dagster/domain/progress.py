"""Progress of long work reported to whoever runs it, without threading a callback through every layer: the caller
sets a reporter for the duration of a call (``with reporting_to(log)``), and the long step asks for one
(:func:`progress_for`). The terminal gets a tqdm bar when no reporter is set; a Dagster asset sets one that writes
``context.log`` lines, so the UI's run page shows counts while the step runs (a bar on stderr shows nowhere there).

A reporter is per context (a :mod:`contextvars` variable): threads and runs in one process do not see each other's.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

EVERY_S = 10.0  # at most one line per this many seconds (and one at the end)

_REPORTER: ContextVar[Callable[[str], None] | None] = ContextVar("agentr_progress_reporter", default=None)


@contextmanager
def reporting_to(write: Callable[[str], None]) -> Iterator[None]:
    """Send the progress of long steps run inside this block to ``write`` (one line at a time)."""
    token = _REPORTER.set(write)
    try:
        yield
    finally:
        _REPORTER.reset(token)


class ProgressLines:
    """``update(k)`` / ``close()`` like a tqdm bar; writes "<what>: done/total (p%), r/s" at most every EVERY_S
    seconds, and once at the close with the time taken."""

    def __init__(self, write: Callable[[str], None], total: int, what: str, every_s: float = EVERY_S,
                 clock: Callable[[], float] = time.monotonic):
        self.write, self.total, self.what, self.every_s, self.clock = write, total, what, every_s, clock
        self.done = 0
        self.started = self.last = clock()
        write(f"{what}: 0/{total:,} started")

    def update(self, k: int = 1) -> None:
        self.done += k
        now = self.clock()
        if now - self.last >= self.every_s and self.done < self.total:
            self.last = now
            self.write(f"{self.what}: {self._counts(now)}")

    def close(self) -> None:
        now = self.clock()
        self.write(f"{self.what}: {self._counts(now)}, done in {now - self.started:.0f} s")

    def _counts(self, now: float) -> str:
        share = 100 * self.done / self.total if self.total else 100.0
        rate = self.done / (now - self.started) if now > self.started else 0.0
        return f"{self.done:,}/{self.total:,} ({share:.0f}%), {rate:.1f}/s"


def progress_for(total: int, what: str) -> ProgressLines | None:
    """Progress lines to the reporter set by :func:`reporting_to`, or None when none is set."""
    write = _REPORTER.get()
    return None if write is None else ProgressLines(write, total, what)
