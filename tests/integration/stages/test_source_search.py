"""The search stage against real HTTP on loopback (the replay server speaking the five APIs), over the domain store
on SQLite and PostgreSQL: an empty project fills from the sources with found_by, a repeat run sends nothing, a source
that is down fails alone and only its searches are sent again, and snowballing adds references and citations."""

from __future__ import annotations

from collections import Counter
from datetime import date

import pytest

from agentr_dagster.settings import get_settings
from agentr_dagster.sources.cache import ResponseCache
from agentr_dagster.sources.registry import build_sources
from agentr_dagster.stages.search import search_project
from agentr_dagster.stages.snowball import snowball_project
from agentr_dagster.testing.replay_server import Fault, ReplayServer
from tests.support.sources import new_paper, point_sources_at, project_with_queries

ALL = "openalex,pubmed,europepmc,arxiv,crossref"


@pytest.fixture
def server():
    with ReplayServer() as replay:
        yield replay


def sources(store, refresh: bool = False):
    return build_sources(get_settings(), ResponseCache(store, refresh=refresh))


def test_an_empty_project_fills_from_every_source_once_and_a_repeat_sends_nothing(store, server, monkeypatch):
    point_sources_at(monkeypatch, server, ALL)
    monkeypatch.setenv("AGENTR_PUBMED_API_KEY", "ncbi-secret-key-1")
    project_with_queries(store, "fill")
    assert store.projects.count_papers("fill") == 0

    summary = search_project(store, "fill", sources(store), max_results=40, add_to_lake=False)

    papers = store.projects.list_papers("fill")
    assert summary.added == len(papers) > 10 and summary.failures() == []
    found_by = store.searches.found_by("fill")
    assert set(found_by) == {p.id for p in papers}  # every paper says which search found it
    by_source = Counter(label.split(":")[0] for labels in found_by.values() for label in labels)
    assert set(by_source) == {"openalex", "pubmed", "europepmc", "arxiv"}
    # one paper per DOI however many sources found it, each source's sighting kept on it
    dois = [p.doi for p in papers if p.doi]
    assert len(dois) == len(set(dois))
    assert any(len({label.split(":")[0] for label in labels}) >= 3 for labels in found_by.values())
    # OpenAlex lacks one abstract in five in the replay corpus: the other sources' records of the paper fill it
    assert all(p.abstract for p in papers)
    rows = store.searches.searches("fill")
    assert len(rows) == 44 and {r.status for r in rows} == {"completed"}
    assert {r.translated for r in rows if r.source == "pubmed" and r.query_name == "boolean"} != {""}
    sent = server.total_requests
    assert sent == sum(r.requests for r in rows) + server.counts["crossref"]
    # the key went to PubMed, and nowhere into what is stored or shown
    assert any(params.get("api_key") == "ncbi-secret-key-1" for route, _, params in server.requests
               if route.startswith("pubmed"))
    shown = summary.markdown() + repr(summary.metadata()) + repr(rows) + repr(store.searches.sightings("fill"))
    assert "ncbi-secret-key-1" not in shown

    again = search_project(store, "fill", sources(store), max_results=40, add_to_lake=False)
    assert server.total_requests == sent and again.searches == [] and again.skipped == 44
    assert store.projects.count_papers("fill") == len(papers)

    # --refresh-sources: every search again over HTTP, the same papers (nothing duplicated)
    refreshed = search_project(store, "fill", sources(store, refresh=True), max_results=40, refresh=True,
                               add_to_lake=False)
    assert len(refreshed.searches) == 44 and server.total_requests > sent and refreshed.added == 0
    assert store.projects.count_papers("fill") == len(papers)


def test_crossref_fills_what_the_only_source_lacks(store, monkeypatch):
    corpus = [new_paper(1, "Active learning for screening in public health", date(2021, 3, 1),
                        abstract_in_openalex=False),
              new_paper(2, "Transfer learning for anomaly detection in public health", date(2022, 5, 1))]
    with ReplayServer(corpus) as server:
        point_sources_at(monkeypatch, server, "openalex,crossref")
        project_with_queries(store, "enrich")

        summary = search_project(store, "enrich", sources(store), max_results=40, add_to_lake=False)

    papers = {p.doi: p for p in store.projects.list_papers("enrich")}
    assert set(papers) == {"10.5555/replay.0001", "10.5555/replay.0002"}
    assert papers["10.5555/replay.0001"].abstract == corpus[0].abstract  # from Crossref: OpenAlex had none
    assert summary.enriched == 1 == server.counts["crossref"] and summary.metadata()["crossref_enriched"] == 1


def test_a_source_that_stays_down_fails_alone_and_only_its_searches_are_sent_again(store, server, monkeypatch):
    point_sources_at(monkeypatch, server, "openalex,pubmed")
    project_with_queries(store, "down")
    server.faults("pubmed.esearch", then=Fault("status", 503, retry_after=0))

    first = search_project(store, "down", sources(store), max_results=25, add_to_lake=False)

    failed = first.failures()
    assert {f.source for f in failed} == {"pubmed"} and len(failed) == 11
    assert server.counts["pubmed.esearch"] == 5  # one search and its four retries; the others were not sent
    openalex_only = store.projects.count_papers("down")
    assert openalex_only > 0 and first.metadata()["pubmed_failures"] == 11
    assert any(f.stage == "search:pubmed" for f in store.lifecycle.failures("down"))
    assert {r.status for r in store.searches.searches("down") if r.source == "pubmed"} == {"failed"}

    server.clear_faults()
    server.reset_counts()
    second = search_project(store, "down", sources(store), max_results=25, add_to_lake=False)

    assert {s.source for s in second.searches} == {"pubmed"} and second.failures() == []
    assert set(server.counts) == {"pubmed.esearch", "pubmed.efetch"}  # OpenAlex answered already: not asked
    assert store.projects.count_papers("down") >= openalex_only  # PubMed indexes a subset: mostly papers known
    labels = {label for labels in store.searches.found_by("down").values() for label in labels}
    assert "pubmed:boolean" in labels and "openalex:boolean" in labels
    assert sum(s.hits for s in second.searches) > 0


def test_snowballing_adds_references_and_citing_works_with_provenance(store, server, monkeypatch):
    point_sources_at(monkeypatch, server, "openalex")
    project_with_queries(store, "snow")
    search_project(store, "snow", sources(store), max_results=5, add_to_lake=False)
    seeds = [p for p in store.projects.list_papers("snow")][:2]
    for seed in seeds:
        store.labels.set_label("snow", seed.id, "include")
    before = {p.id for p in store.projects.list_papers("snow")}
    server.reset_counts()
    openalex = sources(store).by_name("openalex")

    summary = snowball_project(store, "snow", openalex, top=2, add_to_lake=False)

    assert [s.paper_id for s in summary.seeds] == [s.id for s in seeds]
    assert all(s.work_id and s.work_id.startswith("W") for s in summary.seeds)
    assert len(summary.chases) == 4 and not any(c.failure for c in summary.chases)
    found_by = store.searches.found_by("snow")
    chased = {label for labels in found_by.values() for label in labels if label.split(":")[0] in
              ("backward", "forward")}
    assert chased and chased <= {f"{d}:{s.id}" for d in ("backward", "forward") for s in seeds}
    added = [p for p in store.projects.list_papers("snow") if p.id not in before]
    assert len(added) == summary.added > 0
    assert all(p.provenance["source"] == "snowball" for p in added)
    assert all(any(label.split(":")[0] in ("backward", "forward") for label in found_by[p.id]) for p in added)
    # the replay corpus' citation graph: backward hits are works the seed cites
    paper_of = {p.id: p for p in store.projects.list_papers("snow")}
    by_number = {f"10.5555/replay.{p.number:04d}": p for p in server.papers}
    for pid, labels in found_by.items():
        for label in labels:
            kind, _, seed_id = label.partition(":")
            if kind == "backward" and paper_of[pid].doi:
                seed = by_number[paper_of[int(seed_id)].doi]
                assert by_number[paper_of[pid].doi].number in seed.references

    sent = server.total_requests
    again = snowball_project(store, "snow", openalex, top=2, add_to_lake=False)
    assert again.skipped == 4 and again.chases == [] and server.total_requests == sent
