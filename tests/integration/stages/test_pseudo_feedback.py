"""Pseudo-relevance feedback in the run, against the replay server over loopback (real HTTP, the clients
unpatched) and the domain store: for an abstract with a background of many topics (the source's hit counts) the
query gains the word its best matches share and one more search brings the papers it alone finds; a question, or
no background, leaves the query as it is and says why; a re-run asks nothing again."""

from __future__ import annotations

from datetime import date

import pytest

from agentr_dagster.settings import get_settings
from agentr_dagster.sources.cache import ResponseCache
from agentr_dagster.sources.registry import build_sources
from agentr_dagster.stages.pseudo_feedback import feedback_summary, pseudo_feedback
from agentr_dagster.stages.search import (
    PRF_QUERY_NAME,
    PSEUDO_FEEDBACK_STAGE,
    SearchCaps,
    pending_searches,
    search_project,
)
from agentr_dagster.testing.replay_server import ReplayPaper, ReplayServer
from tests.support.sources import point_sources_at, project_with_queries

ABSTRACT = (
    "Hedgerows for pollinators in orchards: a systematic review. Hedgerow planting is promoted to support "
    "pollinators in fruit orchards. This review examines the effect of hedgerow planting on pollinator abundance "
    "in apple orchards. We searched three databases and included 31 field studies. Most studies found more "
    "pollinators near hedgerows.")
QUESTION = "What is the effect of hedgerow planting on pollinator abundance in apple orchards?"
OTHER_TOPICS = ["soil microbes under drought", "grazing pressure on alpine meadows", "seed dispersal by birds",
                "nitrogen runoff from farmland", "coral bleaching after heatwaves", "trout spawning in cold rivers"]
MATCHED, MISSED, N = 24, 16, 1500


def corpus() -> list[ReplayPaper]:
    """Invented records of many topics: 24 on hedgerows and pollinators that also name flowering field margins,
    and 16 on pollinators in flowering field margins that never name hedgerows (what the abstract's query
    misses)."""
    papers = []
    for i in range(N):
        if i < MATCHED:
            title = f"Hedgerow plantings and pollinator visits in apple orchard {i}"
            abstract = f"Pollinators were counted at orchard site {i} along hedgerows and flowering field margins."
        elif i < MATCHED + MISSED:
            title = f"Flowering field margins and wild bees at farm {i}"
            abstract = f"Pollinators foraged on flowering field margins at farm {i}; wild bees were counted."
        else:
            topic = OTHER_TOPICS[i % len(OTHER_TOPICS)]
            title = f"Field study {i} of {topic}"
            abstract = f"We measured {topic} at site {i}; results are compared between years."
        papers.append(ReplayPaper(number=i + 1, title=title, abstract=abstract,
                                  published=date(2010 + i % 12, 1 + i % 12, 1), doi=f"10.5555/prf.{i}",
                                  authors=("Ada Lovelace",), venue="Journal of Invented Ecology"))
    return papers


@pytest.fixture(scope="module")
def papers() -> list[ReplayPaper]:
    return corpus()


def run(store, slug: str):
    sources = build_sources(get_settings(), ResponseCache(store))
    # the ten strings read 3 records each: what the project holds beside the Boolean query's matches is theirs
    caps = SearchCaps(3, 5000)
    search_project(store, slug, sources, max_results=3, boolean_max_results=5000, add_to_lake=False)
    section = get_settings().sources
    return pseudo_feedback(store, slug, sources, caps, enabled=section.pseudo_feedback,
                           min_source_records=section.background_min_records, add_to_lake=False)


def test_an_abstract_with_a_background_gains_a_term_and_its_papers_and_a_rerun_asks_nothing(
        store, papers, monkeypatch):
    with ReplayServer(papers) as server:
        point_sources_at(monkeypatch, server, "openalex")
        monkeypatch.setenv("AGENTR_SOURCE_BACKGROUND_MIN_RECORDS", str(N))  # this small index stands for a big one
        project_with_queries(store, "hedges", ABSTRACT)
        result = run(store, "hedges")

        assert result.reason == "" and result.background == f"openalex hit counts ({N} records)"
        added = [t for terms in result.added.values() for t in terms]
        assert added and not any("hedgerow" in t or "pollinator" in t for t in added)
        # the 16 records the abstract's query missed came in through the widened query's own search
        titles = {p.title for p in store.projects.list_papers("hedges")}
        assert sum(t.startswith("Flowering field margins") for t in titles) == MISSED == result.new_papers
        rows = [r for r in store.searches.searches("hedges") if r.query_name == PRF_QUERY_NAME]
        assert len(rows) == 1 and rows[0].status == "completed" and rows[0].new_papers == MISSED
        labels = store.searches.found_by("hedges")
        assert sum(labels.get(p.id) == [f"openalex:{PRF_QUERY_NAME}"] for p in store.projects.list_papers("hedges")
                   ) == MISSED
        stored = store.results.latest_artifact("hedges", PSEUDO_FEEDBACK_STAGE)
        assert stored is not None and stored.payload["query_after"] == result.query != stored.payload["query_before"]
        assert len(stored.payload["pseudo_seed_ids"]) == 20 and result.metadata()["prf_new_papers"] == MISSED
        assert f"brought {MISSED} new paper(s)" in (feedback_summary(store, "hedges") or "")

        # the same query and papers: nothing asked of the source, neither counts nor the search
        sent = server.total_requests
        again = run(store, "hedges")
        assert server.total_requests == sent
        assert again.reused and again.added == result.added and again.new_papers == 0
        assert len([r for r in store.searches.searches("hedges") if r.query_name == PRF_QUERY_NAME]) == 1
        assert pending_searches(store, "hedges", ["openalex"]) == []


def test_a_question_and_a_project_without_a_background_are_left_as_they_are(store, papers, monkeypatch):
    with ReplayServer(papers) as server:
        point_sources_at(monkeypatch, server, "openalex")
        monkeypatch.setenv("AGENTR_SOURCE_BACKGROUND_MIN_RECORDS", str(N))
        project_with_queries(store, "asked", QUESTION)
        asked = run(store, "asked")
        assert "review question" in asked.reason and asked.metadata()["prf_skipped"] == asked.reason
        assert store.results.latest_artifact("asked", PSEUDO_FEEDBACK_STAGE) is None

        # by default only a source of a million records is a background, and the lake is empty
        monkeypatch.delenv("AGENTR_SOURCE_BACKGROUND_MIN_RECORDS")
        project_with_queries(store, "bare", ABSTRACT)
        bare = run(store, "bare")
        assert bare.reason.startswith("no background of many topics") and bare.added == {}
        assert bare.metadata() == {"prf_added_terms": "none", "prf_new_papers": 0, "prf_skipped": bare.reason}
        assert not [r for r in store.searches.searches("bare") if r.query_name == PRF_QUERY_NAME]
        sent = server.total_requests
        assert run(store, "bare").reason == bare.reason and server.total_requests == sent  # not asked again
        assert feedback_summary(store, "bare") is None

        monkeypatch.setenv("AGENTR_PSEUDO_FEEDBACK", "0")
        assert "switched off" in run(store, "bare").reason


@pytest.mark.usefixtures("fast_home")
def test_candidate_papers_runs_it_after_the_searches_and_counts_its_search(sqlite_store, papers, monkeypatch):
    from dagster import DagsterInstance, materialize

    from agentr_dagster.defs.assets.project import candidate_papers
    from agentr_dagster.defs.resources import SourcesResource, StoreResource

    with ReplayServer(papers) as server:
        point_sources_at(monkeypatch, server, "openalex")
        monkeypatch.setenv("AGENTR_SOURCE_BACKGROUND_MIN_RECORDS", str(N))
        monkeypatch.setenv("AGENTR_SOURCE_MAX_RESULTS", "3")  # the strings read 3 records each, as in run()
        project_with_queries(sqlite_store, "hedges", ABSTRACT)
        instance = DagsterInstance.ephemeral()
        instance.add_dynamic_partitions("projects", ["hedges"])
        result = materialize([candidate_papers], partition_key="hedges", instance=instance, raise_on_error=False,
                             resources={"store": StoreResource(database_url=sqlite_store.url),
                                        "sources": SourcesResource()})
        assert result.success
        meta = {k: v.value for k, v in result.get_asset_materialization_events()[0].materialization.metadata.items()}
        assert meta["prf_added_terms"] != "none" and meta["prf_new_papers"] == MISSED
        assert meta["papers"] == MATCHED + MISSED == meta["source_new_papers"]  # the widened search's papers counted
        assert meta["source_searches_sent"] == 12 and f"| openalex | {PRF_QUERY_NAME} |" in meta["source_queries"]


def test_a_lake_of_many_topics_weighs_the_terms_without_asking_the_source(store, papers, monkeypatch, tmp_path):
    from agentr_dagster.domain.contracts import PaperRecord
    from agentr_dagster.lake import add_records

    def to_lake(some: list[ReplayPaper]) -> None:
        add_records([PaperRecord(title=p.title, abstract=p.abstract, year=p.published.year, doi=p.doi) for p in some],
                    name="earlier projects", root=tmp_path / "lake")

    # 1,020 papers, 24 of them the project's own once it has searched: 996 others are too few to weigh by
    to_lake(papers[:1020])
    with ReplayServer(papers) as server:
        point_sources_at(monkeypatch, server, "openalex")  # a source of 1,500 records: no background by itself
        project_with_queries(store, "lake-hedges", ABSTRACT)
        sources = build_sources(get_settings(), ResponseCache(store))
        search_project(store, "lake-hedges", sources, max_results=3, boolean_max_results=5000, add_to_lake=False)

        def feedback():
            return pseudo_feedback(store, "lake-hedges", sources, SearchCaps(3, 5000), lake_root=tmp_path / "lake",
                                   add_to_lake=False)

        assert feedback().reason.startswith("no background of many topics")
        to_lake(papers[1020:])  # other projects' papers of many topics
        searched = server.total_requests
        result = feedback()
        assert result.background == f"paper lake ({N - MATCHED} papers besides the project's)" and result.added
        assert result.new_papers == MISSED
        assert server.total_requests == searched + 1  # the widened query's search; no count was asked
