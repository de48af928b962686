"""The `sources` resource: its config fields laid over the settings, the timeout reaching every client, and the
living-review update id to the minute (several updates a day are distinct runs)."""

from __future__ import annotations

from datetime import datetime, timezone

from agentr_dagster.defs.resources import SourcesResource, resources_from_env
from agentr_dagster.defs.schedules import living_update_id
from agentr_dagster.sources.cache import ResponseCache
from agentr_dagster.sources.registry import build_sources


def test_empty_fields_take_the_settings_and_set_ones_override_them(monkeypatch):
    monkeypatch.setenv("AGENTR_SOURCES", "openalex,crossref")
    monkeypatch.setenv("AGENTR_SOURCE_TIMEOUT", "12.5")
    assert SourcesResource().enabled() == ("openalex", "crossref")
    assert SourcesResource().settings().source_timeout == 12.5
    mirror = SourcesResource(sources="pubmed", pubmed_url="http://127.0.0.1:9/pubmed", timeout_s=3.0)
    settings = mirror.settings()
    assert settings.sources == ("pubmed",) and settings.pubmed_url == "http://127.0.0.1:9/pubmed"
    enabled = build_sources(settings, ResponseCache())
    [pubmed] = enabled.search
    assert pubmed.base_url == "http://127.0.0.1:9/pubmed" and pubmed.fetcher.timeout == 3.0
    assert pubmed.fetcher._client.timeout.read == 3.0


def test_the_deployment_resource_carries_the_settings_as_config(monkeypatch):
    monkeypatch.setenv("AGENTR_SOURCES", "arxiv")
    monkeypatch.setenv("AGENTR_SOURCE_TIMEOUT", "7")
    resource = resources_from_env(resolve=True)["sources"]
    assert resource.sources == "arxiv" and resource.timeout_s == 7.0 and resource.arxiv_url.startswith("https://")


def test_two_updates_on_one_day_have_their_own_ids():
    morning = living_update_id(datetime(2026, 12, 1, 6, 0, tzinfo=timezone.utc))
    noon = living_update_id(datetime(2026, 12, 1, 12, 30, tzinfo=timezone.utc))
    assert (morning, noon) == ("2026-12-01T0600", "2026-12-01T1230")
