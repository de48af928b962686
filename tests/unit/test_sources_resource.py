"""The `sources` resource: its values laid over the settings' sources section, the timeout reaching every client,
and the living-review update id to the minute (several updates a day are distinct runs)."""

from __future__ import annotations

from datetime import datetime, timezone

from agentr_dagster.defs.resources import SourcesResource, resources_from_env
from agentr_dagster.defs.schedules import living_update_id
from agentr_dagster.settings import get_settings
from agentr_dagster.sources.cache import ResponseCache
from agentr_dagster.sources.registry import build_sources


def test_values_left_out_take_the_settings_and_given_ones_override_them(monkeypatch):
    monkeypatch.setenv("AGENTR_SOURCES", "openalex,crossref")
    monkeypatch.setenv("AGENTR_SOURCE_TIMEOUT", "12.5")
    assert SourcesResource().enabled() == ("openalex", "crossref")
    assert SourcesResource().section().timeout == 12.5
    mirror = SourcesResource(settings={"names": "pubmed", "pubmed_url": "http://127.0.0.1:9/pubmed", "timeout": 3.0})
    section = mirror.section()
    assert section.names == ("pubmed",) and section.pubmed_url == "http://127.0.0.1:9/pubmed"
    enabled = build_sources(get_settings().model_copy(update={"sources": section}), ResponseCache())
    [pubmed] = enabled.search
    assert pubmed.base_url == "http://127.0.0.1:9/pubmed" and pubmed.fetcher.timeout == 3.0
    assert pubmed.fetcher._client.timeout.read == 3.0


def test_the_deployment_resource_carries_the_settings_as_config(monkeypatch):
    monkeypatch.setenv("AGENTR_SOURCES", "arxiv")
    monkeypatch.setenv("AGENTR_SOURCE_TIMEOUT", "7")
    resource = resources_from_env(resolve=True)["sources"]
    assert resource.settings["names"] == ["arxiv"] and resource.settings["timeout"] == 7.0
    assert resource.settings["arxiv_url"].startswith("https://") and "pubmed_api_key" not in resource.settings


def test_two_updates_on_one_day_have_their_own_ids():
    morning = living_update_id(datetime(2026, 12, 1, 6, 0, tzinfo=timezone.utc))
    noon = living_update_id(datetime(2026, 12, 1, 12, 30, tzinfo=timezone.utc))
    assert (morning, noon) == ("2026-12-01T0600", "2026-12-01T1230")
