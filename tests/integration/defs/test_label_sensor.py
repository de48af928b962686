"""Labels in the workflow: labels files through the real drop-folder sensor, and the labels sensor re-running the
ranking and what depends on it for the changed project only, without calling the LLM again."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import pandas as pd
from dagster import (
    AssetMaterialization,
    DagsterInstance,
    DagsterRunStatus,
    SkipReason,
    build_sensor_context,
    materialize,
)
from dagster._core.storage.dagster_run import DagsterRun
from dagster._core.utils import make_new_run_id

from agentr_dagster.defs import label_sensor
from agentr_dagster.defs.assets import pipeline_assets
from agentr_dagster.defs.label_sensor import LABELS_SELECTION, RANKED_BY_LABELS, labels_sensor
from agentr_dagster.defs.resources import LLMResource, SourcesResource, StoreResource
from agentr_dagster.stages.intake import add_papers_file, add_project
from agentr_dagster.testing.responders import stage_of, valid_responder
from tests.support import ABSTRACT, DEMO
from tests.support.label_samples import asreview_v2, papers_csv
from tests.support.sensor import SensorTicks


def test_labels_files_dropped_in_a_project_folder_label_its_papers(store, tmp_path, monkeypatch):
    home = tmp_path / "home"
    monkeypatch.setenv("AGENTR_HOME", str(home))
    inbox = home / "inbox"
    folder = inbox / "lab"
    folder.mkdir(parents=True)
    ticks = SensorTicks(store.url, DagsterInstance.ephemeral())  # a file is taken once two ticks see it unchanged
    (inbox / "lab.md").write_text(ABSTRACT)
    (folder / "candidates.csv").write_text(papers_csv())
    ticks.settled()
    assert store.projects.count_papers("lab") == 5

    # An ASReview dataset export (it has `included`): labels, not papers; the unmatched row is reported.
    (folder / "asreview_export.csv").write_text(
        "record_id,title,abstract,included\n"
        "R1,Active learning for citation screening in systematic reviews,x,1\n"
        "R4,A survey of bird migration in northern Europe,y,0\n"
        "R77,Something else entirely,z,1\n"
    )
    result = ticks.settled()
    assert not getattr(result, "run_requests", None)  # the labels sensor re-ranks; the inbox adds no papers
    assert store.projects.count_papers("lab") == 5
    assert sorted(r.label for r in store.labels.list_labels("lab")) == ["exclude", "include"]
    processed = inbox / "processed" / "lab"
    report = (processed / "asreview_export.csv.labels.txt").read_text()
    assert "3 decisions, 2 matched" in report and "row 4: record id R77: no paper" in report

    # An ASReview project file, and a labels file without a usable column (quarantined with its reason).
    (folder / "review.asreview").write_bytes(asreview_v2({2: 1, 4: 1}))
    (folder / "labels.csv").write_text("record_id,notes\nR1,looks good\n")
    ticks.settled()
    assert len(store.labels.list_labels("lab")) == 4
    assert (processed / "review.asreview").exists()
    reason = (inbox / "rejected" / "lab" / "labels.csv.error.txt").read_text()
    assert "no decision column" in reason and "'included'" in reason
    assert len(store.labels.list_labels("lab")) == 4 and store.projects.count_papers("lab") == 5


def _chain(store, slug, llm, instance, selection=None):
    if not instance.has_dynamic_partition("projects", slug):
        instance.add_dynamic_partitions("projects", [slug])
    result = materialize(pipeline_assets, selection=selection, partition_key=slug, instance=instance,
                         resources={"store": StoreResource(database_url=store.url), "llm": llm,
                                    "sources": SourcesResource()})
    assert result.success
    return result


def test_new_labels_rerun_the_ranking_of_that_project_only_without_new_llm_calls(
        sqlite_store, tmp_path, monkeypatch, scripted_server):
    # The store side (labels' state) is covered on both databases in test_label_import; one is enough here.
    store = sqlite_store
    monkeypatch.setenv("AGENTR_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("AGENTR_LABELS_QUIET_SECONDS", "0")  # the debounce has its own test below
    server = scripted_server(valid_responder)
    llm = LLMResource(base_url=server.base_url, api_key="sk-test-not-a-real-key", settings={"model": "scripted-model"})
    store.ledger.ensure_account("default")
    instance = DagsterInstance.ephemeral()
    csv = tmp_path / "papers.csv"
    pd.read_csv(DEMO / "papers.csv").head(6).to_csv(csv, index=False)
    for slug in ("labelled", "other"):
        add_project(store, slug, ABSTRACT)
        add_papers_file(store, slug, csv)
    _chain(store, "labelled", llm, instance)
    assert sum(stage_of(r) == "score" for r in server.requests) == 6
    instance.add_dynamic_partitions("projects", ["other"])  # run before too, by another process
    instance.report_runless_asset_event(AssetMaterialization(RANKED_BY_LABELS, partition="other"))

    def tick(cursor):
        context = build_sensor_context(instance=instance, cursor=cursor,
                                       resources={"store": StoreResource(database_url=store.url)})
        return labels_sensor(context)

    first = tick(None)  # no labels anywhere: nothing to re-run, the cursor records both projects
    assert not first.run_requests and set(json.loads(first.cursor)) == {"labelled", "other"}
    papers = store.projects.list_papers("labelled")
    store.labels.set_labels("labelled", [(papers[0].id, "include", None), (papers[1].id, "exclude", None)])
    second = tick(first.cursor)
    assert [r.partition_key for r in second.run_requests] == ["labelled"]
    assert isinstance(tick(second.cursor), SkipReason)  # nothing changed since

    calls = server.calls
    rerun = _chain(store, "labelled", llm, instance, selection=LABELS_SELECTION)
    materialised = {(e.asset_key.to_user_string(), e.partition) for e in rerun.get_asset_materialization_events()}
    assert {p for _, p in materialised} == {"labelled"}
    assert {"relevance", "paper_scores", "score_exports"} <= {a for a, _ in materialised}
    assert not {"research_intent", "search_queries", "candidate_papers"} & {a for a, _ in materialised}
    relevance = next(e.materialization.metadata for e in rerun.get_asset_materialization_events()
                     if e.asset_key.to_user_string() == "relevance")
    assert relevance["labels_used"].value == 2 and relevance["method"].value == "active"
    # Every paper's score was cached: no scoring call made again. The labels are part of the synthesis's inputs
    # (an excluded paper leaves the draft), so only the related-work draft may be written again.
    again = [stage_of(r) for r in server.requests[calls:]]
    assert "score" not in again and set(again) <= {"related_work"}, again


def _run(instance, slug: str, status: DagsterRunStatus) -> str:
    """A run of the project's ranking in the instance's run storage, as the queue holds it."""
    run = DagsterRun(job_name="__ASSET_JOB", run_id=make_new_run_id(), status=status,
                     tags={"dagster/partition": slug, "agentr/source": "labels_sensor"},
                     asset_selection=frozenset({RANKED_BY_LABELS}))
    instance.add_run(run)
    return run.run_id


def test_a_burst_of_ten_labels_is_one_rerank_and_a_queued_run_absorbs_newer_labels(sqlite_store, monkeypatch,
                                                                                    tmp_path):
    """Ten labels given one after another while the sensor ticks: no run while they keep changing, one run
    once they are quiet; labels given while that run is still queued are its, not a second run's. The sensor's
    clock is the test's: it moves past the debounce instead of sleeping."""
    store = sqlite_store
    quiet = 60.0
    monkeypatch.setenv("AGENTR_LABELS_QUIET_SECONDS", str(quiet))
    ahead = timedelta(0)
    monkeypatch.setattr(label_sensor, "sensor_now", lambda: datetime.now(timezone.utc) + ahead)

    def quiet_passes() -> None:
        nonlocal ahead
        ahead += timedelta(seconds=quiet + 1)
    instance = DagsterInstance.ephemeral()
    slug = "burst"
    add_project(store, slug, ABSTRACT)
    csv = tmp_path / "papers.csv"
    csv.write_text(papers_csv([(f"R{i}", f"Paper number {i} on citation screening", None) for i in range(14)]))
    add_papers_file(store, slug, csv)
    instance.add_dynamic_partitions("projects", [slug])
    instance.report_runless_asset_event(AssetMaterialization(RANKED_BY_LABELS, partition=slug))  # run before
    papers = store.projects.list_papers(slug)
    cursor, requests = None, []

    def tick():
        nonlocal cursor
        context = build_sensor_context(instance=instance, cursor=cursor,
                                       resources={"store": StoreResource(database_url=store.url)})
        result = labels_sensor(context)
        if not isinstance(result, SkipReason):
            cursor = result.cursor or cursor
            requests.extend(result.run_requests)
        return result

    tick()
    for i, paper in enumerate(papers[:10]):  # a person labelling; the sensor ticks between decisions
        store.labels.set_label(slug, paper.id, "include" if i % 3 == 0 else "exclude")
        tick()
    waiting = tick()
    assert requests == []  # still changing
    assert isinstance(waiting, SkipReason) and "labels changing (10 labels" in waiting.skip_message
    quiet_passes()
    tick()
    assert [r.partition_key for r in requests] == [slug]
    assert requests[0].run_key.startswith(f"{slug}:labels:10:4:")
    assert isinstance(tick(), SkipReason) and len(requests) == 1  # nothing new since

    # The run has not started (NOT_STARTED, as QUEUED, STARTING: a queued run needs a code location's origin
    # to be stored); four more labels arrive before it starts.
    queued = _run(instance, slug, DagsterRunStatus.NOT_STARTED)
    for paper in papers[10:]:
        store.labels.set_label(slug, paper.id, "exclude")
    quiet_passes()
    tick()
    assert len(requests) == 1 and json.loads(cursor)[slug].startswith("14:")  # the queued run ranks with them
    assert isinstance(tick(), SkipReason) and len(requests) == 1

    # Once it has started it may have read the labels already: a change now gets one run of its own.
    instance.delete_run(queued)
    _run(instance, slug, DagsterRunStatus.STARTED)
    store.labels.set_label(slug, papers[0].id, "clear")
    quiet_passes()
    tick()
    assert len(requests) == 2 and requests[1].run_key.startswith(f"{slug}:labels:13:")
