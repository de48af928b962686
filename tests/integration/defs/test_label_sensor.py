"""Labels in the workflow: labels files through the real drop-folder sensor, and the labels sensor re-running the
ranking and what depends on it for the changed project only, without calling the LLM again."""

from __future__ import annotations

import json

import pandas as pd
from dagster import AssetMaterialization, DagsterInstance, SkipReason, build_sensor_context, materialize

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
    server = scripted_server(valid_responder)
    llm = LLMResource(base_url=server.base_url, api_key="sk-test-not-a-real-key", model="scripted-model")
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
    assert server.calls == calls  # every paper's score was cached: no call made again
