"""Waiting for something to happen in another thread or process: poll until a deadline, then fail saying what
never happened. A fixed sleep guesses how long the machine takes and flakes on loaded cores; a loop without a
deadline hangs CI instead of failing."""

from __future__ import annotations

import time
from collections.abc import Callable

DEADLINE_S = 60.0  # far above what any of these waits takes on an idle machine, so load alone never trips it


def wait_for(condition: Callable[[], object], what: str | Callable[[], str], timeout: float = DEADLINE_S,
             interval: float = 0.01):
    """Return the first truthy value of ``condition()``; AssertionError naming ``what`` after ``timeout`` s
    (``what`` may be a function, called then, for a message that shows the state at the deadline: a log's tail)."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() >= deadline:
            raise AssertionError(f"{what() if callable(what) else what}: not seen within {timeout:.0f} s")
        time.sleep(interval)
