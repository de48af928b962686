"""Retrying, in one place: how long to wait before the next attempt, and what a server's ``Retry-After`` asks.

Every retry in the package waits by these rules (exponential backoff with full jitter, never shorter than the
server asked): the store's transactions and the gateway's settlement through tenacity (:func:`retrying`), the
gateway's calls and the search sources' requests through their own loops, which must also ask the attempt cap or
pause a shared limiter between attempts (their docstrings say so), with :func:`backoff_delay`."""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import datetime, timezone
from email.utils import parsedate_to_datetime

from tenacity import (
    RetryCallState,
    Retrying,
    retry_if_exception,
    stop_after_attempt,
    wait_exponential,
    wait_random_exponential,
)


def backoff_delay(attempt: int, base: float, cap: float, retry_after: float | None = None) -> float:
    """Seconds before attempt ``attempt + 1`` (``attempt`` counts from 0): full jitter up to ``base * 2**attempt``,
    at most ``cap``; never shorter than a server's Retry-After (itself capped)."""
    delay = random.uniform(0, min(cap, base * (2**attempt)))
    if retry_after is not None:
        delay = max(delay, min(retry_after, cap))
    return delay


def parse_retry_after(value: str | None, *, now: datetime | None = None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header: delta-seconds or an HTTP-date; None if absent/unreadable."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return max(0.0, (when - (now or datetime.now(timezone.utc))).total_seconds())


def retrying(*, attempts: int, base: float, cap: float, when: Callable[[BaseException], bool], jitter: bool = True,
             before_sleep: Callable[[RetryCallState], None] | None = None) -> Retrying:
    """A tenacity policy: up to ``attempts`` tries of what ``when`` calls retryable, the last error raised as itself.
    Waits ``base * 2**(n-1)`` (at most ``cap``) before try n+1: with full jitter where the retries contend with each
    other (a lock, a busy server), without where they wait out an outage (the whole backoff is then ridden out)."""
    wait = wait_random_exponential(multiplier=base, max=cap) if jitter else wait_exponential(multiplier=base, max=cap)
    return Retrying(stop=stop_after_attempt(attempts), wait=wait, retry=retry_if_exception(when),
                    before_sleep=before_sleep, reraise=True)
