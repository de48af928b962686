"""The research_intent asset on a new project (an empty paper lake) with search sources enabled, on a real Dagster
run against the replay server over loopback: its background is the preferred source's hit counts, said in the
asset's metadata and stored with the intent; with no source enabled, general English alone, as before."""

from __future__ import annotations

import pytest
from dagster import DagsterInstance, materialize

from agentr_dagster.defs.assets.project import research_intent
from agentr_dagster.defs.resources import LLMResource, SourcesResource, StoreResource
from agentr_dagster.llm.backends import NO_BACKGROUND
from agentr_dagster.stages.intake import add_project
from agentr_dagster.stages.intent import current_intent
from agentr_dagster.testing.replay_server import ReplayServer
from tests.integration.sources.test_source_background import QUESTION, N, corpus
from tests.support.sources import point_sources_at


def intent_background(store, slug: str) -> str:
    instance = DagsterInstance.ephemeral()
    instance.add_dynamic_partitions("projects", [slug])
    result = materialize([research_intent], partition_key=slug, raise_on_error=False, instance=instance,
                         resources={"store": StoreResource(database_url=store.url), "llm": LLMResource(),
                                    "sources": SourcesResource()})
    assert result.success
    event = result.get_asset_materialization_events()[0]
    said = event.materialization.metadata["background"].value
    assert said == current_intent(store, slug)[0].background  # stored with the intent too
    return str(said)


@pytest.mark.usefixtures("fast_home")
def test_a_new_project_judges_its_terms_by_the_sources_hit_counts(sqlite_store, monkeypatch):
    with ReplayServer(corpus()) as server:
        point_sources_at(monkeypatch, server, "pubmed,openalex,crossref")
        # by default only a source of a million records or more is a background: this one holds 1,200
        add_project(sqlite_store, "hedges-small", QUESTION)
        assert intent_background(sqlite_store, "hedges-small") == NO_BACKGROUND
        assert server.counts["openalex"] == 1  # its record count was asked, no term

        monkeypatch.setenv("AGENTR_SOURCE_BACKGROUND_MIN_RECORDS", str(N))
        add_project(sqlite_store, "hedges", QUESTION)
        assert intent_background(sqlite_store, "hedges") == f"openalex hit counts ({N} records)"
        assert server.counts["openalex"] >= 2 and server.counts["pubmed.esearch"] == 0  # only the preferred one

        monkeypatch.setenv("AGENTR_SOURCES", "")
        add_project(sqlite_store, "hedges-offline", QUESTION)
        assert intent_background(sqlite_store, "hedges-offline") == NO_BACKGROUND
