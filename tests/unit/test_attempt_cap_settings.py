"""The attempt cap's unanswered-call limit and its window come from the settings and reach the gateway."""

from __future__ import annotations

import pytest

from agentr_dagster.defs.resources import resources_from_env
from agentr_dagster.domain.attempts import Attempts
from agentr_dagster.domain.failures import TransientError


def test_the_unanswered_cap_and_window_reach_the_gateway_settings(monkeypatch):
    monkeypatch.setenv("AGENTR_LLM_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("AGENTR_LLM_MAX_UNANSWERED", "1")
    monkeypatch.setenv("AGENTR_LLM_RETRY_WINDOW_HOURS", "0.5")
    cap = resources_from_env(resolve=True)["llm"].llm_settings().cap
    assert (cap.unanswered, cap.unanswered_window_s, cap.answers) == (1, 1800.0, 2)
    assert cap.refusal("score", Attempts(unanswered=0)) is None
    refused = cap.refusal("score", Attempts(unanswered=1))
    assert isinstance(refused, TransientError) and "0.5 h" in refused.message


def test_the_default_cap_is_three_unanswered_calls_in_six_hours(monkeypatch):
    monkeypatch.setenv("AGENTR_LLM_BASE_URL", "http://127.0.0.1:9/v1")
    for name in ("AGENTR_LLM_MAX_UNANSWERED", "AGENTR_LLM_RETRY_WINDOW_HOURS"):
        monkeypatch.delenv(name, raising=False)
    cap = resources_from_env(resolve=True)["llm"].llm_settings().cap
    assert (cap.unanswered, cap.unanswered_window_s) == (3, 6 * 3600.0)


def test_a_window_of_no_length_is_refused_with_its_variable_named(monkeypatch):
    monkeypatch.setenv("AGENTR_LLM_RETRY_WINDOW_HOURS", "0")
    from agentr_dagster.settings import get_settings

    with pytest.raises(Exception, match="AGENTR_LLM_RETRY_WINDOW_HOURS"):
        get_settings()
