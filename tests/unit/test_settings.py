"""The one settings object: every variable read in one place, documented in docs/configuration.md, never at
import time."""

from __future__ import annotations

import pytest

from agentr_dagster.settings import Settings, get_settings, variable_name
from tests.support import REPO

CONFIGURATION_DOC = REPO / "docs" / "configuration.md"


def test_every_setting_is_documented_in_the_configuration_table():
    text = CONFIGURATION_DOC.read_text()
    table = text[text.index("## Settings"):]
    variables = [variable_name(field) for field in Settings.model_fields if variable_name(field)]
    missing = [name for name in variables if f"`{name}`" not in table]
    assert missing == []


def test_the_environment_is_read_when_asked_not_at_import(monkeypatch):
    monkeypatch.setenv("AGENTR_LLM_MODEL", "model-a")
    assert get_settings().llm_model == "model-a"
    monkeypatch.setenv("AGENTR_LLM_MODEL", "model-b")
    assert get_settings().llm_model == "model-b"


def test_llm_configured_is_decided_by_the_endpoint_alone(monkeypatch):
    monkeypatch.delenv("AGENTR_LLM_BASE_URL", raising=False)
    monkeypatch.setenv("AGENTR_LLM_API_KEY", "sk-x")
    assert get_settings().llm_configured is False
    monkeypatch.setenv("AGENTR_LLM_BASE_URL", "   ")
    assert get_settings().llm_configured is False  # blank is unset
    monkeypatch.setenv("AGENTR_LLM_BASE_URL", "http://127.0.0.1:9/v1")
    assert get_settings().llm_configured is True


def test_blank_values_fall_back_to_defaults(monkeypatch):
    monkeypatch.setenv("AGENTR_LAKE_PER_QUERY", "")
    monkeypatch.setenv("AGENTR_LLM_CONCURRENCY", " ")
    settings = get_settings()
    assert settings.lake_per_query == 20 and settings.llm_concurrency == 4


@pytest.mark.parametrize("name, value", [("AGENTR_LAKE_PER_QUERY", "-1"), ("AGENTR_LLM_CONCURRENCY", "lots"),
                                         ("AGENTR_LLM_TIMEOUT", "0")])
def test_a_bad_value_names_its_variable(monkeypatch, name, value):
    monkeypatch.setenv(name, value)
    with pytest.raises(ValueError, match=name):
        get_settings()


def test_fingerprint_changes_with_configuration_but_never_holds_secrets(monkeypatch):
    monkeypatch.setenv("AGENTR_LLM_API_KEY", "sk-secret-1")
    first = get_settings().fingerprint()
    monkeypatch.setenv("AGENTR_LLM_API_KEY", "sk-secret-2")
    assert get_settings().fingerprint() == first  # a key counts by presence only
    monkeypatch.setenv("AGENTR_DATABASE_URL", "postgresql+psycopg2://u:pw1@h/db")
    with_db = get_settings().fingerprint()
    assert with_db != first
    monkeypatch.setenv("AGENTR_DATABASE_URL", "postgresql+psycopg2://u:pw2@h/db")
    assert get_settings().fingerprint() == with_db  # nor a password inside a URL
    monkeypatch.setenv("AGENTR_LLM_MODEL", "other-model")
    assert get_settings().fingerprint() != with_db
