"""The one settings object: every variable read in one place, documented in docs/configuration.md (generated from
the model), never at import time."""

from __future__ import annotations

import pytest

from agentr_dagster.settings import LLMConfig, Settings, get_settings, with_reference
from tests.support import REPO

CONFIGURATION_DOC = REPO / "docs" / "configuration.md"


def test_the_configuration_reference_is_what_the_model_generates():
    text = CONFIGURATION_DOC.read_text()
    assert with_reference(text) == text, "docs/configuration.md is not what the model generates: run " \
        "python scripts/config_reference.py"


def test_the_reference_names_every_variable_once():
    text = CONFIGURATION_DOC.read_text()
    variables = [section.variable(field) for name, info in Settings.model_fields.items()
                 for section in [info.annotation] for field in section.model_fields]
    assert len(variables) == len(set(variables)) and [v for v in variables if f"| `{v}`" not in text] == []


def test_flat_variables_fill_the_nested_sections(monkeypatch):
    monkeypatch.setenv("AGENTR_LLM_RPM", "30")
    monkeypatch.setenv("AGENTR_LLM_TIMEOUT", "9")
    monkeypatch.setenv("AGENTR_STOP_AT_RECALL", "0.9")
    monkeypatch.setenv("AGENTR_SOURCE_TIMEOUT", "4")
    monkeypatch.setenv("AGENTR_SENSOR_FILES_PER_TICK", "3")
    settings = get_settings()
    assert (settings.llm.rpm, settings.llm.timeout_s, settings.llm.stop_at_recall) == (30, 9.0, 0.9)
    assert (settings.sources.timeout, settings.sensors.files_per_tick) == (4.0, 3)
    assert LLMConfig.variable("timeout_s") == "AGENTR_LLM_TIMEOUT" and LLMConfig.variable("rpm") == "AGENTR_LLM_RPM"


def test_the_environment_is_read_when_asked_not_at_import(monkeypatch):
    monkeypatch.setenv("AGENTR_LLM_MODEL", "model-a")
    assert get_settings().llm.model == "model-a"
    monkeypatch.setenv("AGENTR_LLM_MODEL", "model-b")
    assert get_settings().llm.model == "model-b"


def test_llm_configured_is_decided_by_the_endpoint_alone(monkeypatch):
    monkeypatch.delenv("AGENTR_LLM_BASE_URL", raising=False)
    monkeypatch.setenv("AGENTR_LLM_API_KEY", "sk-x")
    assert get_settings().llm.configured is False
    monkeypatch.setenv("AGENTR_LLM_BASE_URL", "   ")
    assert get_settings().llm.configured is False  # blank is unset
    monkeypatch.setenv("AGENTR_LLM_BASE_URL", "http://127.0.0.1:9/v1")
    assert get_settings().llm.configured is True


def test_blank_values_fall_back_to_defaults(monkeypatch):
    monkeypatch.setenv("AGENTR_LAKE_PER_QUERY", "")
    monkeypatch.setenv("AGENTR_LLM_CONCURRENCY", " ")
    settings = get_settings()
    assert settings.lake.per_query == 20 and settings.llm.concurrency == 4


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


def test_resources_take_section_values_by_their_one_name(monkeypatch):
    from pydantic import ValidationError

    from agentr_dagster.defs.resources import LLMResource, SourcesResource

    monkeypatch.setenv("AGENTR_LLM_RPM", "60")
    assert LLMResource().llm_settings().limits.requests_per_minute == 60  # the environment's section
    assert LLMResource(settings={"rpm": 5}).llm_settings().limits.requests_per_minute == 5  # laid over it
    with pytest.raises(ValidationError, match="requests_per_minute"):
        LLMResource(settings={"requests_per_minute": 5}).llm_settings()  # no second name for a setting
    with pytest.raises(ValidationError, match="source_timeout"):
        SourcesResource(settings={"source_timeout": 5}).section()
