"""A process-wide request to stop paid work (SIGTERM/SIGINT to `agentr run`): set once, read before every paid
call. Calls already sent finish and are settled; nothing new is asked; the stage ends as ``stopped`` (resumable).
"""

from __future__ import annotations

import threading

_stop = threading.Event()
_reason: list[str] = []


def request_stop(reason: str) -> None:
    if not _stop.is_set():
        _reason[:] = [reason]
    _stop.set()


def stop_requested() -> bool:
    return _stop.is_set()


def stop_reason() -> str:
    return _reason[0] if _reason else "a stop was requested"


def clear_stop() -> None:
    """For a process that runs again after a stop it handled (tests, a long-lived worker)."""
    _stop.clear()
    _reason.clear()
