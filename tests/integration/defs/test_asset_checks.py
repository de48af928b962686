"""Each asset check of the project chain fails on bad stored data, and says why in its result.

The chain runs once on the offline backend over a real SQLite store (all checks pass); then the stored artefact a
check reads is spoiled through the store API or SQL, and the check is evaluated again from the store, directly
and through Dagster (the intent and queries checks guard paid work: a re-run asks again for an artefact that breaks
its contract, the repair their failure names).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
import sqlalchemy as sa
from dagster import (
    AssetCheckSeverity,
    AssetSelection,
    DagsterInstance,
    FloatMetadataValue,
    IntMetadataValue,
    materialize,
)

from agentr_dagster.defs import checks
from agentr_dagster.defs.assets import project_assets
from agentr_dagster.defs.resources import LLMResource, SourcesResource, StoreResource
from agentr_dagster.settings import results_dir
from agentr_dagster.stages.intake import add_papers_file, add_project
from agentr_dagster.store import schema
from tests.support import DEMO

SLUG = "checks-demo"


def _materialize(store, instance: DagsterInstance, *assets: str):
    selection = AssetSelection.assets(*assets) if assets else None
    return materialize(
        project_assets, partition_key=SLUG, instance=instance, raise_on_error=False, selection=selection,
        resources={"store": StoreResource(database_url=store.url), "llm": LLMResource(), "sources": SourcesResource()},
    )


def _evaluations(result) -> dict:
    return {e.check_name: e for e in result.get_asset_check_evaluations()}


def _meta(evaluation) -> dict:
    return {k: v.value for k, v in evaluation.metadata.items()}


@pytest.fixture
def chain(sqlite_store, tmp_path):
    """A project whose chain has run once, all checks passing; yields (store, instance, model)."""
    add_project(sqlite_store, SLUG, (DEMO / "abstract.md").read_text())
    papers = tmp_path / "papers.csv"
    pd.read_csv(DEMO / "papers.csv").head(6).to_csv(papers, index=False)
    add_papers_file(sqlite_store, SLUG, papers)
    instance = DagsterInstance.ephemeral()
    instance.add_dynamic_partitions("projects", [SLUG])
    result = _materialize(sqlite_store, instance)
    assert result.success
    evaluations = _evaluations(result)
    assert set(evaluations) == {spec.name for spec in checks.project_check_specs}
    assert all(e.passed for e in evaluations.values()), {n: e.description for n, e in evaluations.items()}
    for evaluation in evaluations.values():  # said in words; no per-partition number for the history plot to mix
        assert evaluation.description, evaluation.check_name
        numeric = [k for k, v in evaluation.metadata.items() if isinstance(v, (IntMetadataValue, FloatMetadataValue))]
        assert not numeric, (evaluation.check_name, numeric)
    return sqlite_store, instance, LLMResource().backend(sqlite_store).model


def _respoil(store, stage: str, payload: dict) -> None:
    """Store a new latest artefact for the stage with the same input hash, so a re-run reuses it as stored."""
    latest = store.results.latest_artifact(SLUG, stage)
    store.results.save_artifact(SLUG, stage, payload, prompt_version=latest.prompt_version, model=latest.model,
                        backend=latest.backend, input_hash=latest.input_hash)


# -- intent_matches_contract ---------------------------------------------------------------------------------

def test_intent_check_passes_on_the_stored_intent(chain):
    store, _, _ = chain
    result = checks.evaluate_intent(store, SLUG)
    assert result.passed and result.metadata["contract_errors"].value == "0"


def test_intent_check_fails_on_an_invalid_stored_intent(chain):
    store, instance, _ = chain
    bad = dict(store.results.latest_artifact(SLUG, "intent").payload)
    del bad["methodologies"]
    bad["seed_keywords"] = ["only-one"]
    _respoil(store, "intent", bad)

    result = checks.evaluate_intent(store, SLUG)
    assert not result.passed and result.severity is AssetCheckSeverity.ERROR
    meta = {k: v.value for k, v in result.metadata.items()}
    assert meta["contract_errors"] == "2" and meta["seed_keywords"] == "1"
    assert any(e.startswith("methodologies") for e in meta["errors"])

    # What is wrong, and the repair: the check guards paid work (blocking) and says to re-materialise ...
    assert checks.INTENT_CHECK.blocking and "methodologies" in result.description
    assert f"agentr run {SLUG}" in result.description and "asked again, not reused" in result.description
    # ... which works: through Dagster, a stored intent that breaks its contract is produced again, not reused.
    run = _materialize(store, instance, "research_intent")
    evaluation = _evaluations(run)["intent_matches_contract"]
    assert run.success and evaluation.passed, evaluation.description
    assert store.results.latest_artifact(SLUG, "intent").payload.get("methodologies")


def test_intent_check_fails_when_no_intent_is_stored(sqlite_store):
    add_project(sqlite_store, SLUG, (DEMO / "abstract.md").read_text())
    result = checks.evaluate_intent(sqlite_store, SLUG)
    assert not result.passed and result.severity is AssetCheckSeverity.ERROR
    assert "no stored intent" in result.description


# -- queries_parse_and_count ---------------------------------------------------------------------------------

def test_queries_check_passes_on_the_stored_queries(chain):
    store, _, _ = chain
    result = checks.evaluate_queries(store, SLUG)
    assert result.passed
    assert result.metadata["search_strings"].value == "10" and result.metadata["boolean_query_parses"].value


def test_queries_check_fails_on_nine_stored_search_strings(chain):
    store, instance, _ = chain
    bad = dict(store.results.latest_artifact(SLUG, "queries").payload)
    bad["search_strings"] = bad["search_strings"][:9]
    _respoil(store, "queries", bad)

    result = checks.evaluate_queries(store, SLUG)
    assert not result.passed and result.severity is AssetCheckSeverity.ERROR
    meta = {k: v.value for k, v in result.metadata.items()}
    assert meta["search_strings"] == "9" and meta["boolean_query_parses"] and meta["contract_errors"] == "1"
    assert "search strings: 9" in result.description

    assert checks.QUERIES_CHECK.blocking and "materialise search_queries again" in result.description
    run = _materialize(store, instance, "search_queries")  # the repair the check names
    evaluation = _evaluations(run)["queries_parse_and_count"]
    assert evaluation.passed and _meta(evaluation)["search_strings"] == "10", evaluation.description


def test_queries_check_fails_on_a_stored_query_that_does_not_parse(chain):
    store, _, _ = chain
    bad = dict(store.results.latest_artifact(SLUG, "queries").payload)
    bad["boolean_query"] = '("unclosed AND'
    _respoil(store, "queries", bad)
    result = checks.evaluate_queries(store, SLUG)
    assert not result.passed
    assert result.metadata["boolean_query_parses"].value is False
    assert result.metadata["search_strings"].value == "10"


# -- has_candidates ------------------------------------------------------------------------------------------

def test_candidates_check_passes_with_stored_papers(chain):
    store, _, _ = chain
    result = checks.evaluate_candidates(store, SLUG)
    assert result.passed and result.metadata["papers"].value == "6"


def test_candidates_check_warns_on_a_project_waiting_for_papers(sqlite_store):
    """No candidates yet is a valid state (the later assets wait for them): the check fails at WARN severity
    (which never fails the run) and says how to add papers."""
    add_project(sqlite_store, SLUG, (DEMO / "abstract.md").read_text())
    result = checks.evaluate_candidates(sqlite_store, SLUG)
    assert not result.passed and result.severity is AssetCheckSeverity.WARN
    assert result.metadata["papers"].value == "0"
    assert result.metadata["status"].value == "waiting for candidates"
    assert result.description == f"waiting for candidates: add papers: agentr papers add {SLUG} FILE..., or drop a " \
        f"file in inbox/{SLUG}/"


# -- every_paper_scored --------------------------------------------------------------------------------------

def test_scores_check_passes_when_every_paper_has_a_current_score(chain):
    store, _, model = chain
    result = checks.evaluate_scores(store, SLUG, model)
    assert result.passed
    assert result.metadata["scored"].value == "6" and result.metadata["missing"].value == "0"


def test_scores_check_fails_on_a_missing_stored_score(chain):
    store, _, model = chain
    victim = store.projects.list_papers(SLUG)[2].id
    with store.engine.begin() as conn:
        conn.execute(sa.delete(schema.paper_results).where(schema.paper_results.c.paper_id == victim))

    result = checks.evaluate_scores(store, SLUG, model)
    assert not result.passed and result.severity is AssetCheckSeverity.WARN
    meta = {k: v.value for k, v in result.metadata.items()}
    assert meta["missing"] == "1" and meta["scored"] == "5" and meta["papers"] == "6"
    assert meta["missing_paper_ids"] == [victim]
    assert "1 of 6 paper(s) have no current score" in result.description


def test_scores_check_counts_scores_for_another_model_as_missing(chain):
    store, _, _ = chain
    result = checks.evaluate_scores(store, SLUG, "another-model")
    assert not result.passed and result.metadata["missing"].value == "6"


def test_scores_check_fails_on_a_stored_score_breaking_the_contract(chain):
    store, _, model = chain
    victim = store.projects.list_papers(SLUG)[0].id
    with store.engine.begin() as conn:
        conn.execute(sa.update(schema.paper_results).where(schema.paper_results.c.paper_id == victim)
                     .values(payload={"semantic_similarity": 7}))

    result = checks.evaluate_scores(store, SLUG, model)
    assert not result.passed and result.severity is AssetCheckSeverity.ERROR
    assert result.metadata["invalid"].value == "1" and result.metadata["invalid_paper_ids"].value == [victim]
    assert result.metadata["missing"].value == "0"


# -- export_row_count ----------------------------------------------------------------------------------------

def _written() -> dict[str, Path]:
    return {fmt: results_dir(SLUG) / f"scores.{fmt}" for fmt in ("csv", "parquet")}


def test_exports_check_passes_on_the_written_exports(chain):
    store, _, _ = chain
    result = checks.evaluate_exports(store, SLUG, _written())
    assert result.passed
    assert result.metadata["csv_rows"].value == "6" and result.metadata["parquet_rows"].value == "6"


def test_exports_check_fails_on_a_short_export_file(chain):
    store, _, _ = chain
    csv = _written()["csv"]
    pd.read_csv(csv).head(4).to_csv(csv, index=False)
    result = checks.evaluate_exports(store, SLUG, _written())
    assert not result.passed and result.severity is AssetCheckSeverity.WARN
    assert result.metadata["csv_rows"].value == "4" and result.metadata["parquet_rows"].value == "6"


def test_exports_check_fails_on_a_missing_export_file(chain):
    store, _, _ = chain
    _written()["parquet"].unlink()
    result = checks.evaluate_exports(store, SLUG, _written())
    assert not result.passed and result.severity is AssetCheckSeverity.ERROR
    assert "parquet" in result.description


def test_exports_check_warns_when_the_files_miss_a_paper_and_unscored_papers_get_a_row(chain, tmp_path):
    store, instance, _ = chain
    written = {fmt: results_dir(SLUG) / f"scores.{fmt}" for fmt in ("csv", "parquet")}
    extra = tmp_path / "more.csv"
    pd.read_csv(DEMO / "papers.csv").iloc[[10]].to_csv(extra, index=False)
    assert add_papers_file(store, SLUG, extra).added == 1

    evaluation = checks.evaluate_exports(store, SLUG, written)  # the files written before the paper came
    assert not evaluation.passed and evaluation.severity is AssetCheckSeverity.WARN
    assert _meta(evaluation) == {"papers": "7", "csv_rows": "6", "parquet_rows": "6"}

    run = _materialize(store, instance, "score_exports")  # re-written: the new paper has a row, not yet scored
    assert _evaluations(run)["export_row_count"].passed
    frame = pd.read_parquet(written["parquet"])
    assert (frame["not_scored"] == "not scored yet").sum() == 1 and frame["c1_score"].isna().sum() == 1


# -- taxonomy_structure and draft_validates (the synthesis assets) ---------------------------------------------

@pytest.fixture
def synthesised(chain):
    """The chain plus the synthesis assets, materialised once (all checks passing)."""
    from agentr_dagster.defs.assets import pipeline_assets

    store, instance, model = chain
    result = materialize(pipeline_assets, partition_key=SLUG, instance=instance, raise_on_error=False,
                         resources={"store": StoreResource(database_url=store.url), "llm": LLMResource(),
                                    "sources": SourcesResource()})
    assert result.success
    evaluations = _evaluations(result)
    assert evaluations["taxonomy_structure"].passed and evaluations["draft_validates"].passed
    for name in ("taxonomy_structure", "draft_validates"):
        assert evaluations[name].description, name
        assert not [k for k, v in evaluations[name].metadata.items()
                    if isinstance(v, (IntMetadataValue, FloatMetadataValue))], name
    return store


def test_taxonomy_check_fails_on_a_stored_taxonomy_with_a_cycle(synthesised):
    store = synthesised
    latest = store.results.latest_artifact(SLUG, "landscape")
    payload = dict(latest.payload)
    nodes = [dict(n) for n in payload["taxonomy"]["nodes"]]
    root = next(n for n in nodes if not n.get("parent"))
    child = next(n for n in nodes if n.get("parent") == root["id"])
    root["parent"] = child["id"]  # the root now hangs below its own child
    payload["taxonomy"] = {**payload["taxonomy"], "nodes": nodes}
    _respoil(store, "landscape", payload)
    result = checks.evaluate_taxonomy(store, SLUG)
    assert not result.passed and result.severity == AssetCheckSeverity.WARN
    assert int(_meta(result)["problems"]) >= 1


def test_taxonomy_check_fails_when_no_landscape_is_stored(sqlite_store):
    add_project(sqlite_store, SLUG, (DEMO / "abstract.md").read_text())
    result = checks.evaluate_taxonomy(sqlite_store, SLUG)
    assert not result.passed and result.severity == AssetCheckSeverity.ERROR


def test_draft_check_fails_on_a_stored_draft_recorded_invalid(synthesised):
    store = synthesised
    assert checks.evaluate_draft(store, SLUG).passed
    latest = store.results.latest_artifact(SLUG, "related_work")
    issue = {"code": "unresolved", "message": "numeric citation that resolves to no entry: '[7]'"}
    payload = {**latest.payload, "valid": False, "validation": {"ok": False, "issues": [issue]}}
    _respoil(store, "related_work", payload)
    result = checks.evaluate_draft(store, SLUG)
    assert not result.passed and result.severity == AssetCheckSeverity.ERROR
    meta = _meta(result)
    assert meta["markdown_issues"] == "1" and "[7]" in meta["findings"]
