"""The `relevance` asset materialised through Dagster on SQLite and PostgreSQL: every candidate ranked by the
screening engine and stored with the engine's version; labels change the ranking; metadata for the UI."""

from __future__ import annotations

import pandas as pd
from dagster import AssetCheckSeverity, AssetSelection, DagsterInstance, materialize

from agentr_dagster.defs.assets import project_assets
from agentr_dagster.defs.resources import LLMResource, SourcesResource, StoreResource
from agentr_dagster.screening.screen import screen
from agentr_dagster.screening.version import engine_version
from agentr_dagster.stages.intake import add_papers_file, add_project
from agentr_dagster.stages.relevance import relevance_question
from tests.support import DEMO

SLUG = "rel-demo"


def _project(store, tmp_path, rows: int = 24) -> list:
    add_project(store, SLUG, (DEMO / "abstract.md").read_text())
    papers = tmp_path / "papers.csv"
    pd.read_csv(DEMO / "papers.csv").head(rows).to_csv(papers, index=False)
    add_papers_file(store, SLUG, papers)
    return store.projects.list_papers(SLUG)


def _materialize_relevance(store, instance):
    result = materialize(
        project_assets, partition_key=SLUG, instance=instance, selection=AssetSelection.assets("relevance"),
        resources={"store": StoreResource(database_url=store.url), "llm": LLMResource(), "sources": SourcesResource()},
    )
    assert result.success
    [mat] = result.asset_materializations_for_node("relevance")
    [check] = result.get_asset_check_evaluations()
    # the run's log (what the UI's run page shows) says what the step is doing, with counts, as it goes
    logs = [r.user_message for r in instance.all_logs(result.run_id) if r.user_message]
    assert any(m.startswith("ranking the ") and " candidates of rel-demo" in m for m in logs), logs
    assert any(m.startswith("ranked ") and " papers (" in m for m in logs), logs
    return {k: v.value for k, v in mat.metadata.items()}, check


def test_relevance_ranks_every_candidate_as_agentr_screen_does_and_learns_from_labels(store, tmp_path):
    papers = _project(store, tmp_path)
    instance = DagsterInstance.ephemeral()
    instance.add_dynamic_partitions("projects", [SLUG])

    meta, check = _materialize_relevance(store, instance)
    rows = store.relevance.for_project(SLUG)
    assert check.passed, check.description
    assert [r.rank for r in rows] == list(range(1, len(papers) + 1))
    assert {r.paper_id for r in rows} == {p.id for p in papers}
    assert {r.engine_version for r in rows} == {engine_version()} and {r.method for r in rows} == {"zero-shot"}
    # the same engine, the same input as `agentr screen`: the same order
    frame = pd.DataFrame({"record_id": [str(p.id) for p in papers], "title": [p.title for p in papers],
                          "abstract": [p.abstract for p in papers]})
    expected = [int(r) for r in screen(relevance_question(store, SLUG), frame)["record_id"]]
    assert [r.paper_id for r in rows] == expected
    assert meta["labels_used"] == 0 and meta["papers"] == len(papers) and meta["method"] == "zero-shot"
    assert meta["plot_relevance"].startswith("![relevance distribution](data:image/png;base64,")
    assert len(meta["top_unlabelled"].records) == 10 and meta["labelled"].records == []
    assert meta["top_unlabelled"].records[0].data["paper_id"] == expected[0]
    by_id = {p.id: p for p in papers}  # and the id of the user's own file, to find it (and label it) there
    assert [r.data["source_id"] for r in meta["top_unlabelled"].records] == \
        [by_id[i].source_id or "" for i in expected[:10]]
    assert any(r.data["source_id"] for r in meta["top_unlabelled"].records)
    assert isinstance(meta["estimated_relevant"], float) and 0 < meta["estimated_relevant"] <= len(papers)
    # one scale: the stored score is the calibrated probability of inclusion, falling down the list
    probabilities = [r.score for r in rows]
    assert all(0 < p < 1 for p in probabilities) and probabilities == sorted(probabilities, reverse=True)
    assert all(a > b for a, b in zip(probabilities, probabilities[1:], strict=False))  # strictly: no plateau
    shown = [r.data["p_include"] for r in meta["top_unlabelled"].records]
    assert len(set(shown)) == len(shown)  # the table shows them apart, in its own order
    assert all(r.data["why"] for r in meta["top_unlabelled"].records)  # a reason a reader can check
    assert meta["estimated_relevant_low"] <= meta["estimated_relevant"] <= meta["estimated_relevant_high"]
    assert abs(meta["estimated_relevant"] - sum(probabilities)) < 0.1
    assert "likely" in meta["estimated_includes"] and "probability of inclusion" in meta["scale"]

    again, _ = _materialize_relevance(store, instance)  # unchanged inputs: reused, not recomputed
    assert again["reused"] is True
    assert again["estimated_relevant_high"] == meta["estimated_relevant_high"]  # the count is reused with it

    # a person's labels: the bottom paper included, the top one excluded -> learnt, placed first / last
    bottom, top = expected[-1], expected[0]
    store.labels.set_label(SLUG, bottom, "include")
    store.labels.set_label(SLUG, top, "exclude")
    meta, check = _materialize_relevance(store, instance)
    rows = store.relevance.for_project(SLUG)
    assert check.passed
    assert meta["labels_used"] == 2 and meta["labels_include"] == 1 and meta["method"] == "active"
    assert rows[0].paper_id == bottom and rows[-1].paper_id == top
    assert rows[0].score == 1.0 and rows[-1].score == 0.0  # a label's probability is the label
    assert meta["estimated_relevant_low"] >= 1  # the labelled include is counted
    assert {r.method for r in rows} == {"active"} and meta["reused"] is False
    # what to screen next: the best unlabelled papers; the two decided ones apart, in rank order
    top = [r.data for r in meta["top_unlabelled"].records]
    assert len(top) == 10 and not {bottom, top_id := expected[0]} & {r["paper_id"] for r in top}
    assert [r["paper_id"] for r in top] == [r.paper_id for r in rows if r.paper_id not in (bottom, top_id)][:10]
    assert all(f"nearest labelled include: paper {bottom}" in r["why"] for r in top)  # the one include
    assert [(r.data["paper_id"], r.data["label"], r.data["rank"]) for r in meta["labelled"].records] == [
        (bottom, "include", 1), (top_id, "exclude", len(rows))]


def test_relevance_of_a_project_without_candidates_waits_not_fails(sqlite_store):
    add_project(sqlite_store, SLUG, (DEMO / "abstract.md").read_text())
    instance = DagsterInstance.ephemeral()
    instance.add_dynamic_partitions("projects", [SLUG])
    result = materialize(
        project_assets, partition_key=SLUG, instance=instance, selection=AssetSelection.assets("relevance"),
        resources={"store": StoreResource(database_url=sqlite_store.url), "llm": LLMResource(),
                   "sources": SourcesResource()},
    )
    assert result.success
    [mat] = result.asset_materializations_for_node("relevance")  # what its partition page shows
    assert mat.metadata["status"].value == "waiting for candidates" and mat.metadata["papers"].value == 0
    [check] = result.get_asset_check_evaluations()  # not evaluated: a warning, which leaves the run successful
    assert not check.passed and check.severity is AssetCheckSeverity.WARN
    assert check.description.startswith("not evaluated: waiting for candidates")
    assert sqlite_store.relevance.for_project(SLUG) == []
