"""The search-source settings: AGENTR_SOURCES parsed and checked, endpoints defaulted, keys kept secret."""

from __future__ import annotations

import pytest

from agentr_dagster.settings import SOURCE_NAMES, get_settings


def test_sources_are_off_by_default_and_parsed_in_order_once(monkeypatch):
    monkeypatch.delenv("AGENTR_SOURCES", raising=False)
    assert get_settings().sources.names == ()
    monkeypatch.setenv("AGENTR_SOURCES", " PubMed, openalex,,pubmed ,crossref ")
    assert get_settings().sources.names == ("pubmed", "openalex", "crossref")
    monkeypatch.setenv("AGENTR_SOURCES", "  ")
    assert get_settings().sources.names == ()


def test_an_unknown_source_is_an_error_naming_the_variable_and_the_choices(monkeypatch):
    monkeypatch.setenv("AGENTR_SOURCES", "openalex,scopus")
    with pytest.raises(ValueError, match=r"(?s)AGENTR_SOURCES.*unknown source 'scopus'.*openalex, pubmed"):
        get_settings()


def test_source_bounds_and_cron_defaults(monkeypatch):
    s = get_settings()
    assert s.sources.names == () and s.sources.max_results == 200 and s.sensors.living_review_cron == "0 6 * * 1"
    monkeypatch.setenv("AGENTR_SOURCE_MAX_RESULTS", "0")
    with pytest.raises(ValueError, match="AGENTR_SOURCE_MAX_RESULTS"):
        get_settings()


def test_source_api_keys_count_by_presence_only(monkeypatch):
    monkeypatch.setenv("AGENTR_PUBMED_API_KEY", "ncbi-secret-1")
    monkeypatch.setenv("AGENTR_OPENALEX_API_KEY", "oa-secret-1")
    settings = get_settings()
    first = settings.fingerprint()
    assert "ncbi-secret-1" not in repr(settings) and "ncbi-secret-1" not in repr(settings.model_dump())
    monkeypatch.setenv("AGENTR_PUBMED_API_KEY", "ncbi-secret-2")
    assert get_settings().fingerprint() == first
    monkeypatch.delenv("AGENTR_PUBMED_API_KEY")
    assert get_settings().fingerprint() != first


def test_every_source_with_a_base_url_has_a_client_and_no_other():
    from agentr_dagster.sources.registry import CLIENTS

    assert sorted(SOURCE_NAMES) == sorted(CLIENTS)


def test_every_client_has_a_base_url_setting_defaulting_to_its_public_https_endpoint():
    from agentr_dagster.sources.registry import CLIENTS

    settings = get_settings()
    assert all(settings.sources.base_url(name).startswith("https://") for name in CLIENTS)


def test_the_registry_builds_the_enabled_clients_from_the_settings(monkeypatch):
    from agentr_dagster.sources.cache import ResponseCache
    from agentr_dagster.sources.registry import build_sources

    monkeypatch.setenv("AGENTR_SOURCES", "pubmed,crossref,openalex")
    monkeypatch.setenv("AGENTR_PUBMED_URL", "http://127.0.0.1:9/pubmed/")
    monkeypatch.setenv("AGENTR_PUBMED_API_KEY", "ncbi-key")
    monkeypatch.setenv("AGENTR_CONTACT_EMAIL", "me@example.org")
    enabled = build_sources(get_settings(), ResponseCache())
    assert enabled.names == ["pubmed", "openalex", "crossref"]
    pubmed = enabled.by_name("pubmed")
    assert pubmed.base_url == "http://127.0.0.1:9/pubmed" and pubmed.api_key == "ncbi-key"
    assert pubmed.contact_email == "me@example.org" and enabled.by_name("openalex").api_key is None
    assert enabled.enricher.base_url == "https://api.crossref.org"
    assert build_sources(get_settings(), ResponseCache(), names=["openalex"]).names == ["openalex"]
