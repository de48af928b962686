"""The search-source settings: AGENTR_SOURCES parsed and checked, endpoints defaulted, keys kept secret."""

from __future__ import annotations

import pytest

from agentr_dagster.settings import SOURCE_NAMES, get_settings
from agentr_dagster.sources import contract


def test_sources_are_off_by_default_and_parsed_in_order_once(monkeypatch):
    monkeypatch.delenv("AGENTR_SOURCES", raising=False)
    assert get_settings().sources == ()
    monkeypatch.setenv("AGENTR_SOURCES", " PubMed, openalex,,pubmed ,crossref ")
    assert get_settings().sources == ("pubmed", "openalex", "crossref")
    monkeypatch.setenv("AGENTR_SOURCES", "  ")
    assert get_settings().sources == ()


def test_an_unknown_source_is_an_error_naming_the_variable_and_the_choices(monkeypatch):
    monkeypatch.setenv("AGENTR_SOURCES", "openalex,scopus")
    with pytest.raises(ValueError, match=r"(?s)AGENTR_SOURCES.*unknown source 'scopus'.*openalex, pubmed"):
        get_settings()


def test_source_defaults_are_the_public_endpoints_and_the_bounds(monkeypatch):
    s = get_settings()
    assert s.openalex_url == "https://api.openalex.org" and s.crossref_url == "https://api.crossref.org"
    assert s.pubmed_url.startswith("https://eutils.ncbi.nlm.nih.gov/") and "europepmc" in s.europepmc_url
    assert "arxiv.org" in s.arxiv_url and s.source_max_results == 200 and s.living_review_cron == "0 6 * * 1"
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


def test_settings_and_the_source_contract_name_the_same_sources():
    assert SOURCE_NAMES == contract.SOURCE_NAMES
