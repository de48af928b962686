"""Waiting for something to happen in another thread or process: poll until a deadline, then fail saying what
never happened. A fixed sleep guesses how long the machine takes and flakes on loaded cores; a loop without a
deadline hangs CI instead of failing. The one other shape, something that must stay true for a while (a lease a
frozen process keeps), is :func:`holds_for`. Tests poll through these two, never with loops of their own."""

from __future__ import annotations

import time
from collections.abc import Callable

DEADLINE_S = 60.0  # far above what any of these waits takes on an idle machine, so load alone never trips it


def wait_for(condition: Callable[[], object], what: str | Callable[[], str], timeout: float = DEADLINE_S,
             interval: float = 0.01, pause: Callable[[float], object] = time.sleep):
    """Return the first truthy value of ``condition()``; AssertionError naming ``what`` after ``timeout`` s
    (``what`` may be a function, called then, for a message that shows the state at the deadline: a log's tail).
    ``pause`` waits between two polls (a browser page's own wait lets its events arrive meanwhile)."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() >= deadline:
            raise AssertionError(f"{what() if callable(what) else what}: not seen within {timeout:.0f} s")
        pause(interval)


def holds_for(check: Callable[[], object], seconds: float, interval: float = 0.1) -> None:
    """Call ``check`` (it asserts) every ``interval`` s for ``seconds``: what must stay true while time passes."""
    until = time.monotonic() + seconds
    while time.monotonic() < until:
        check()
        time.sleep(interval)
    check()
