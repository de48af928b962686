"""`agentr snowball`, as a user runs it: the default store under AGENTR_HOME, a real Dagster instance, the replay
server on loopback for OpenAlex."""

from __future__ import annotations

import json

from click.testing import CliRunner

from agentr_dagster.cli import main
from agentr_dagster.cli.common import open_store
from agentr_dagster.settings import get_settings
from agentr_dagster.sources.cache import ResponseCache
from agentr_dagster.sources.registry import build_sources
from agentr_dagster.stages.search import search_project
from agentr_dagster.testing.replay_server import ReplayServer
from tests.support.sources import point_sources_at, project_with_queries


def agentr(*args: str):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def test_snowball_needs_openalex_then_adds_citations_once(monkeypatch):
    monkeypatch.delenv("AGENTR_SOURCES", raising=False)
    store = open_store()
    project_with_queries(store, "chase")
    refused = agentr("snowball", "chase")
    assert refused.exit_code == 1 and "add openalex to AGENTR_SOURCES" in refused.output

    with ReplayServer() as server:
        point_sources_at(monkeypatch, server, "openalex")
        search_project(store, "chase", build_sources(get_settings(), ResponseCache(store)), max_results=4,
                       add_to_lake=False)
        for paper in store.projects.list_papers("chase")[:2]:
            store.labels.set_label("chase", paper.id, "include")
        before = store.projects.count_papers("chase")

        first = agentr("snowball", "chase", "--top", "2")
        assert first.exit_code == 0, first.output
        assert "2 seeds, 4 chases sent (0 done before), 0 failed" in first.output
        assert store.projects.count_papers("chase") > before and "score them: agentr run chase" in first.output

        sent = server.total_requests
        again = json.loads(agentr("snowball", "chase", "--top", "2", "--json").stdout)
        assert again["chases_skipped"] == 4 and again["new_papers"] == 0 and server.total_requests == sent
