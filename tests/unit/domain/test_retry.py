"""The one retry policy: bounded backoff that honours a server's Retry-After (seconds or HTTP-date), and a tenacity
policy that retries only what it is told to, as many times as it is told, and then raises the error itself."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from email.utils import format_datetime

import pytest

from agentr_dagster.domain.retry import backoff_delay, parse_retry_after, retrying


def test_backoff_is_bounded_and_honours_retry_after():
    for attempt in range(10):
        assert 0 <= backoff_delay(attempt, 0.5, 8.0, None) <= min(8.0, 0.5 * 2**attempt)
    assert backoff_delay(0, 0.5, 30.0, retry_after=3.0) >= 3.0
    assert backoff_delay(0, 0.5, 2.0, retry_after=60.0) == 2.0  # capped


def test_retry_after_reads_seconds_and_http_dates():
    now = datetime(2026, 12, 3, 12, 0, tzinfo=timezone.utc)
    assert parse_retry_after("7") == 7.0 and parse_retry_after(" 1.5 ") == 1.5
    assert parse_retry_after(format_datetime(now + timedelta(seconds=30), usegmt=True), now=now) == 30.0
    assert parse_retry_after(format_datetime(now - timedelta(seconds=30), usegmt=True), now=now) == 0.0
    assert parse_retry_after("-3") == 0.0
    assert parse_retry_after("soon") is None and parse_retry_after(None) is None and parse_retry_after("") is None


class Flaky(Exception):
    pass


def test_retrying_retries_what_it_is_told_then_raises_the_error_itself():
    calls = []

    def fails_twice() -> str:
        calls.append(1)
        if len(calls) < 3:
            raise Flaky(f"try {len(calls)}")
        return "done"

    policy = retrying(attempts=3, base=0.001, cap=0.01, when=lambda exc: isinstance(exc, Flaky))
    assert policy(fails_twice) == "done" and len(calls) == 3

    calls.clear()
    with pytest.raises(Flaky, match="try 2"):  # the last error, not tenacity's RetryError
        retrying(attempts=2, base=0.001, cap=0.01, when=lambda exc: isinstance(exc, Flaky))(fails_twice)
    assert len(calls) == 2


def test_retrying_leaves_other_errors_alone():
    calls = []

    def broken() -> None:
        calls.append(1)
        raise KeyError("a defect")

    with pytest.raises(KeyError):
        retrying(attempts=5, base=0.001, cap=0.01, when=lambda exc: isinstance(exc, Flaky), jitter=False)(broken)
    assert len(calls) == 1
