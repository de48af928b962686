"""The chain with search sources enabled, on a real Dagster instance, against the replay server on loopback: an
empty project fills its candidates from the sources, is scored (offline backend) and exported with found_by; a
second run sends no request; the living-review schedule adds only newer records and scores only them, in runs that
share one update tag; snowballing from the UI's asset adds references and citations with provenance."""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone

import pandas as pd
import pytest
from dagster import RunsFilter, build_schedule_context, materialize

from agentr_dagster.defs.assets import expansion_assets, project_assets
from agentr_dagster.defs.instance import open_instance
from agentr_dagster.defs.partitions import LIVING_TAG, REFRESH_SOURCES_TAG
from agentr_dagster.defs.resources import LLMResource, SourcesResource, StoreResource
from agentr_dagster.defs.schedules import living_review
from agentr_dagster.settings import results_dir
from agentr_dagster.stages.intake import add_project
from agentr_dagster.stages.report import build_report
from agentr_dagster.stages.search import UPDATE_OVERLAP_DAYS
from agentr_dagster.testing.replay_server import ReplayServer, generate_corpus
from tests.support.sources import SOURCES_ABSTRACT, new_paper, point_sources_at

SLUG = "living"


def metadata(result, asset: str) -> dict:
    for event in result.get_asset_materialization_events():
        if event.asset_key.path[-1] == asset:
            return {k: v.value for k, v in event.materialization.metadata.items()}
    raise AssertionError(f"no materialization of {asset}")


def run(store, instance, assets=project_assets, tags=None, run_config=None):
    result = materialize(assets, partition_key=SLUG, instance=instance, raise_on_error=False, tags=tags or {},
                         resources={"store": StoreResource(database_url=store.url), "llm": LLMResource(),
                                    "sources": SourcesResource()}, run_config=run_config)
    assert result.success
    return result


@pytest.mark.usefixtures("fast_home")
def test_sources_fill_score_and_stay_current(sqlite_store, monkeypatch):
    store = sqlite_store
    server = ReplayServer(generate_corpus(60)).start()
    instance = open_instance()  # persistent (under the test's home): the schedule context needs its ref
    try:
        point_sources_at(monkeypatch, server, "openalex,pubmed,crossref")
        monkeypatch.setenv("AGENTR_SOURCE_MAX_RESULTS", "30")
        add_project(store, SLUG, SOURCES_ABSTRACT)  # no imported file
        instance.add_dynamic_partitions("projects", [SLUG])

        first = run(store, instance)

        candidates, scores = metadata(first, "candidate_papers"), metadata(first, "paper_scores")
        papers = store.projects.count_papers(SLUG)
        assert candidates["papers"] == papers > 5 and candidates["source_new_papers"] == papers
        assert candidates["openalex_hits"] > 0 and candidates["pubmed_requests"] > 0
        assert "`filter=title_and_abstract.search:" in candidates["source_queries"]  # the translation, shown
        # no background of many topics (a small lake, a small source): the query is not widened, and it says why
        assert candidates["prf_skipped"].startswith("no background of many topics")
        assert candidates["prf_new_papers"] == 0
        assert scores["scored_now"] == papers
        exported = pd.read_csv(results_dir(SLUG) / "scores.csv")
        assert len(exported) == papers and exported["found_by"].notna().all()
        assert exported["found_by"].str.contains(r"(?:openalex|pubmed):(?:boolean|string-\d\d)").all()
        prisma = pd.read_csv(results_dir(SLUG) / "prisma.csv").set_index("box")["count"]
        assert prisma["records identified: total"] - prisma["duplicates removed"] == papers
        assert prisma["records scored"] == papers and prisma["records identified: openalex"] > 0
        assert prisma["records not scored"] == 0

        sent = server.total_requests
        second = run(store, instance)
        assert server.total_requests == sent  # nothing sent twice
        assert metadata(second, "paper_scores")["scored_now"] == 0
        # the search added its papers to the paper lake; the lake finding them again is no new identification
        assert metadata(second, "candidate_papers")["lake_found"] > 0
        assert not pd.read_csv(results_dir(SLUG) / "scores.csv")["found_by"].str.contains("lake:").any()

        # `agentr run --refresh-sources`: every search sent again past the cache, nothing duplicated or rescored
        refreshed = run(store, instance, tags={REFRESH_SOURCES_TAG: "1"})
        assert server.total_requests > sent and store.projects.count_papers(SLUG) == papers
        assert metadata(refreshed, "candidate_papers")["source_searches_sent"] == 22
        assert metadata(refreshed, "paper_scores")["scored_now"] == 0

        # Newer records appear (and an old one the index only now holds: not newer, so not wanted).
        today = datetime.now(timezone.utc).date()
        fresh = new_paper(901, "Active learning for systematic review screening in public health", today)
        late = new_paper(902, "Transfer learning for screening in public health", date(2017, 2, 1))
        server.papers.extend([fresh, late])
        before = {p.id for p in store.projects.list_papers(SLUG)}

        context = build_schedule_context(instance=instance, scheduled_execution_time=datetime.now(timezone.utc),
                                         resources={"store": StoreResource(database_url=store.url)})
        requests = list(living_review(context))
        assert [r.partition_key for r in requests] == [SLUG]
        update_id = requests[0].tags[LIVING_TAG]
        assert update_id.startswith(today.isoformat() + "T") and requests[0].run_key == f"living:{update_id}:{SLUG}"
        server.reset_counts()

        update = run(store, instance, tags=requests[0].tags)

        added = [p for p in store.projects.list_papers(SLUG) if p.id not in before]
        assert [p.doi for p in added] == [fresh.doi]
        assert metadata(update, "paper_scores")["scored_now"] == 1  # only the new paper; the rest from the cache
        searched = [params for route, _, params in server.requests if route == "openalex"]
        since = (today - timedelta(days=UPDATE_OVERLAP_DAYS)).isoformat()  # by index date, with the overlap
        assert searched and all(f"from_created_date:{since}" in p.get("filter", "") for p in searched)
        exports = metadata(update, "score_exports")
        assert exports["update_new_papers"] == 1 and fresh.title in exports["update_top_new"]
        digest = pd.read_csv(results_dir(SLUG) / "updates" / f"{update_id}.csv")
        assert digest["doi"].tolist() == [fresh.doi] and digest["c1_score"].notna().all()
        assert len(instance.get_run_ids(RunsFilter(tags={LIVING_TAG: update_id}))) == 1

        # Snowballing, as the UI materialises it (not part of the chain): from the top-ranked papers via OpenAlex.
        chased = run(store, instance, assets=expansion_assets, run_config={"ops": {"snowball": {"config": {"top": 3}}}})
        snow = metadata(chased, "snowball")
        assert snow["seeds"] == 3 and snow["failures"] == 0 and snow["chases_sent"] == 6 and snow["new_papers"] > 0
        rescored = run(store, instance)  # the next chain run scores what snowballing added, and only that
        assert metadata(rescored, "paper_scores")["scored_now"] == snow["new_papers"]
        found = pd.read_csv(results_dir(SLUG) / "scores.csv")["found_by"]
        assert found.str.contains(r"^(?:backward|forward):\d+").sum() == snow["new_papers"]
        prisma = pd.read_csv(results_dir(SLUG) / "prisma.csv").set_index("box")["count"]
        chased = [f"records identified: {d}" for d in ("backward", "forward") if f"records identified: {d}" in prisma]
        assert chased and sum(prisma[box] for box in chased) >= snow["new_papers"]  # citation searching, counted

        html = build_report(store, SLUG)
        assert "PRISMA 2020 flow diagram" in html and "Living-review updates" in html and fresh.title in html
    finally:
        server.stop()
        instance.dispose()


def test_the_living_review_skips_without_sources(sqlite_store, monkeypatch):
    from dagster import SkipReason

    monkeypatch.delenv("AGENTR_SOURCES", raising=False)
    instance = open_instance()
    try:
        context = build_schedule_context(instance=instance, scheduled_execution_time=datetime.now(timezone.utc),
                                         resources={"store": StoreResource(database_url=sqlite_store.url)})
        result = living_review(context)
        assert isinstance(result, SkipReason) and "AGENTR_SOURCES is empty" in result.skip_message
    finally:
        instance.dispose()


@pytest.mark.usefixtures("fast_home")
def test_materialize_all_offline_stays_green_and_snowball_says_what_it_needs(sqlite_store, monkeypatch, tmp_path):
    """Seen in the UI: "Materialize all" (the chain plus snowball) on an offline project failed its run on snowball
    ("add openalex to AGENTR_SOURCES") although the chain had done everything asked. Snowball now materialises as
    not run, saying what to do, and the run succeeds."""
    from agentr_dagster.stages.intake import add_papers_file
    from tests.support import DEMO

    monkeypatch.delenv("AGENTR_SOURCES", raising=False)
    add_project(sqlite_store, SLUG, SOURCES_ABSTRACT)
    add_papers_file(sqlite_store, SLUG, DEMO / "papers.csv")
    instance = open_instance()
    try:
        instance.add_dynamic_partitions("projects", [SLUG])
        result = run(sqlite_store, instance, assets=[*project_assets, *expansion_assets])  # asserts success
        snow = metadata(result, "snowball")
        assert snow["status"].startswith("not run") and "add openalex to AGENTR_SOURCES" in snow["next"]
        assert snow["new_papers"] == 0
    finally:
        instance.dispose()
