"""The attempt cap's decision, pure (the store's counts are given)."""

import pytest

from agentr_dagster.domain.attempts import MAX_ANSWERS, MAX_UNANSWERED, AttemptCap, Attempts
from agentr_dagster.domain.failures import FailureClass


def test_a_fresh_request_may_be_called():
    assert AttemptCap().refusal("score", Attempts()) is None


def test_the_answer_and_one_repair_then_invalid_output():
    cap = AttemptCap()
    assert cap.refusal("score", Attempts(answered=MAX_ANSWERS - 1)) is None
    refused = cap.refusal("score", Attempts(answered=MAX_ANSWERS))
    assert refused is not None and refused.failure_class is FailureClass.invalid_output
    assert not refused.retryable and "--retry-invalid" in refused.message


def test_unanswered_attempts_are_capped_and_not_worth_a_step_retry_once_reached():
    cap = AttemptCap()
    assert cap.refusal("score", Attempts(answered=1, unanswered=MAX_UNANSWERED - 1)) is None
    refused = cap.refusal("score", Attempts(unanswered=MAX_UNANSWERED))
    assert refused is not None and refused.failure_class is FailureClass.transient
    assert cap.per_request == MAX_ANSWERS + MAX_UNANSWERED


def test_a_cap_must_allow_one_answer():
    with pytest.raises(ValueError):
        AttemptCap(answers=0)
