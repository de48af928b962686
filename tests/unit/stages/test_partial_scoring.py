"""When the scores stand although some papers failed (ScoringSummary.partial), and the command each failure class
prints for the papers it left (domain/failures.retry_command)."""

from __future__ import annotations

from collections import Counter

import pytest

from agentr_dagster.domain.failures import NOT_CLASSIFIED, FailureClass, retry_command
from agentr_dagster.stages.scoring import ScoringSummary


def summary(scored: int, failed: dict, *, retryable: bool = False, stopped: int = 0) -> ScoringSummary:
    return ScoringSummary(total=scored + sum(failed.values()), scored=scored, failed=Counter(failed),
                          retryable=retryable, stopped=stopped)


@pytest.mark.parametrize("cls", [FailureClass.invalid_output, FailureClass.transient, FailureClass.no_credits])
def test_papers_failed_on_their_own_leave_the_others_standing(cls):
    assert summary(150, {cls: 150}).partial(retries_left=True)
    assert summary(1, {cls: 1, FailureClass.invalid_output: 3}).partial(retries_left=False)


def test_nothing_scored_is_a_failure_not_a_partial_result():
    assert not summary(0, {FailureClass.invalid_output: 3}).partial(retries_left=False)


def test_a_transient_failure_that_a_step_retry_may_cure_is_retried_first():
    retryable = summary(5, {FailureClass.transient: 2}, retryable=True)
    assert not retryable.partial(retries_left=True)
    assert retryable.partial(retries_left=False)  # the last attempt: what is valid goes on


def test_credits_running_out_keep_the_papers_scored_but_nothing_scored_is_a_failure():
    assert summary(5, {FailureClass.no_credits: 2}).partial(retries_left=True)
    assert not summary(0, {FailureClass.no_credits: 7}).partial(retries_left=False)


@pytest.mark.parametrize("cls", [FailureClass.permanent, FailureClass.orphan])
def test_failures_that_stop_the_stage_for_everyone_still_fail_it(cls):
    assert not summary(5, {cls: 2}).partial(retries_left=False)
    assert not summary(5, {cls: 1, FailureClass.invalid_output: 1}).partial(retries_left=False)


def test_a_stopped_run_is_not_partial():
    assert not summary(5, {FailureClass.transient: 2}, stopped=2).partial(retries_left=False)


def test_a_complete_run_is_not_partial():
    assert not summary(5, {}).partial(retries_left=False)


def test_each_class_names_the_command_that_asks_again():
    assert retry_command("invalid_output", "r") == "agentr run r --retry-invalid"
    assert retry_command("no_credits", "r") == "agentr credits grant AMOUNT, then agentr resume r"
    assert retry_command("transient", "r").startswith("agentr run r")
    assert retry_command("permanent", "r").endswith("then agentr run r")
    assert retry_command(NOT_CLASSIFIED, "r") == "agentr resume r"
