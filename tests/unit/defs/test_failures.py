"""Which failures Dagster may retry: a classified transient one and a lost database, never a defect or a
permanent error (a retry fails the same way, minutes later, and for a paid call would ask again)."""

from __future__ import annotations

import pytest
import sqlalchemy as sa
from dagster import DagsterInstance, RetryPolicy, asset, materialize

from agentr_dagster.defs.failures import stage_failures
from agentr_dagster.domain.failures import PermanentError, TransientError

QUIET = {"loggers": {"console": {"config": {"log_level": "CRITICAL"}}}}


def _attempts_of(raise_it) -> tuple[int, str]:
    """Steps started for an asset whose body raises ``raise_it()`` on every attempt, and its last failure text."""
    calls = []

    @asset(retry_policy=RetryPolicy(max_retries=2))
    def flaky(context) -> None:
        calls.append(1)
        with stage_failures(context, "flaky"):
            raise_it()

    result = materialize([flaky], instance=DagsterInstance.ephemeral(), raise_on_error=False, run_config=QUIET)
    assert not result.success
    [failure] = [e for e in result.all_events if e.is_step_failure]
    data = failure.step_failure_data
    text = data.user_failure_data.description if data.user_failure_data else data.error.message
    return len(calls), text


def _lost_database():
    raise sa.exc.OperationalError("SELECT 1", {}, Exception("server closed the connection unexpectedly"))


@pytest.mark.parametrize(("raise_it", "attempts"), [
    (lambda: (_ for _ in ()).throw(KeyError("paper 26")), 1),
    (lambda: (_ for _ in ()).throw(PermanentError("HTTP 400: bad request")), 1),
    (lambda: (_ for _ in ()).throw(TransientError("HTTP 503")), 3),
    (_lost_database, 3),
], ids=["defect", "permanent", "transient", "lost-database"])
def test_only_what_a_retry_may_cure_is_retried(raise_it, attempts):
    made, text = _attempts_of(raise_it)
    assert made == attempts, text


def test_a_defect_says_what_it_is_in_one_line():
    _, text = _attempts_of(lambda: (_ for _ in ()).throw(KeyError("paper 26")))
    assert text.startswith("flaky: unexpected KeyError: 'paper 26'") and "not retried" in text
