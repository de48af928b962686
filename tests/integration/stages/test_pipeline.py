"""The chain materialised on a real Dagster instance, over the domain store on SQLite and PostgreSQL,
with the offline backend and with a real OpenAI-compatible HTTP server on loopback."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pandas as pd
import pytest
from dagster import DagsterInstance, materialize

from agentr_dagster.defs.assets import project_assets
from agentr_dagster.defs.resources import LLMResource, SourcesResource, StoreResource
from agentr_dagster.domain import failures as st
from agentr_dagster.domain.contracts import PaperAssessment
from agentr_dagster.stages.exports import scores_dataframe
from agentr_dagster.stages.intake import add_papers_file, add_project
from agentr_dagster.testing.responders import stage_of, valid_responder
from agentr_dagster.testing.scripted_server import Fault
from tests.support import ABSTRACT, DEMO


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("AGENTR_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("AGENTR_LLM_BASE_URL", raising=False)
    return tmp_path / "home"


def small_csv(tmp_path: Path, n: int, name: str = "papers.csv") -> Path:
    frame = pd.read_csv(DEMO / "papers.csv").head(n)
    path = tmp_path / name
    frame.to_csv(path, index=False)
    return path


def run_chain(store, slug: str, llm: LLMResource, instance: DagsterInstance | None = None):
    instance = instance or DagsterInstance.ephemeral()
    if not instance.has_dynamic_partition("projects", slug):
        instance.add_dynamic_partitions("projects", [slug])
    result = materialize(
        project_assets, partition_key=slug, instance=instance, raise_on_error=False,
        resources={"store": StoreResource(database_url=store.url), "llm": llm, "sources": SourcesResource()},
    )
    return result, instance


def materialization_metadata(result, asset: str) -> dict:
    for event in result.get_asset_materialization_events():
        if event.asset_key.path[-1] == asset:
            return {k: v.value for k, v in event.materialization.metadata.items()}
    raise AssertionError(f"no materialization of {asset}")


def test_offline_chain_end_to_end(store, home):
    slug = "offline-demo"
    add_project(store, slug, ABSTRACT)
    added = add_papers_file(store, slug, DEMO / "papers.csv")
    assert added.added == 40
    result, instance = run_chain(store, slug, LLMResource())
    assert result.success
    frame = scores_dataframe(store, slug)
    assert len(frame) == 40 and set(frame["backend"]) == {"offline"}
    for payload in (r.payload for r in store.results.results_for_project(slug)):
        PaperAssessment.model_validate(payload)
    for fmt in ("csv", "parquet", "xlsx"):
        assert (home / "results" / slug / f"scores.{fmt}").stat().st_size > 0
    assert len(pd.read_parquet(home / "results" / slug / "scores.parquet")) == 40
    assert store.results.latest_artifact(slug, "intent").backend == "offline"
    assert store.ledger.usage(slug) == []  # offline costs nothing
    checks = [e for e in result.all_events if e.event_type_value == "ASSET_CHECK_EVALUATION"]
    assert checks and all(e.event_specific_data.passed for e in checks)

    # Re-materialising the unchanged partition reuses everything.
    intent_id = store.results.latest_artifact(slug, "intent").id
    again, _ = run_chain(store, slug, LLMResource(), instance)
    assert again.success
    meta = materialization_metadata(again, "paper_scores")
    assert meta["reused"] == 40 and meta["scored_now"] == 0
    assert store.results.latest_artifact(slug, "intent").id == intent_id


def test_dagster_storage_on_postgres(store, home, pg_url_for_dagster):
    """Dagster's own run/event storage on the machine's PostgreSQL."""
    from dagster._core.test_utils import instance_for_test

    slug = "pg-dagster"
    add_project(store, slug, ABSTRACT)
    add_papers_file(store, slug, small_csv(home.parent, 5))
    with instance_for_test(overrides={"storage": {"postgres": {"postgres_url": pg_url_for_dagster}}}) as instance:
        result, _ = run_chain(store, slug, LLMResource(), instance)
        assert result.success
        runs = instance.get_runs()
        assert any(r.tags.get("dagster/partition") == slug for r in runs)
        from dagster import AssetKey

        mats = instance.fetch_materializations(AssetKey("paper_scores"), limit=10).records
        assert [m.partition_key for m in mats] == [slug]


def llm(server, **kw) -> LLMResource:
    return LLMResource(base_url=server.base_url, api_key="sk-test-not-a-real-key",
                       settings={"model": "scripted-model", **kw})


def test_llm_chain_priced_and_idempotent(store, home, scripted_server):  # noqa: F811
    server = scripted_server(valid_responder)
    store.ledger.set_pricing("scripted-model", Decimal("2.50"), Decimal("10.00"))
    store.ledger.ensure_account("default")
    before = store.ledger.balance("default")
    slug = "llm-chain"
    add_project(store, slug, ABSTRACT)
    add_papers_file(store, slug, small_csv(home.parent, 12))
    result, instance = run_chain(store, slug, llm(server, concurrency=4))
    assert result.success
    assert server.calls == 2 + 12
    # Per-stage temperatures are actually sent, with JSON mode.
    temps = {stage_of(r): r["temperature"] for r in server.requests}
    assert temps == {"intent": 0.3, "queries": 0.4, "score": 0.4}
    assert all(r["response_format"] == {"type": "json_object"} for r in server.requests)
    # Every call has one usage row priced by the formula under the rows in force.
    rows = store.ledger.usage(slug)
    assert len(rows) == server.calls
    pricing = store.ledger.pricing_in_force("scripted-model")
    multiplier = store.ledger.multiplier_in_force()
    for row in rows:
        expected = (
            Decimal(row.input_tokens) * Decimal("2.50") + Decimal(row.output_tokens) * Decimal("10.00")
        ) / Decimal(1_000_000)
        assert abs(Decimal(row.cost_usd) - expected) < Decimal("1e-8")
        assert abs(Decimal(row.credits) - expected * multiplier.credits_per_usd) < Decimal("1e-6")
        assert row.pricing_id == pricing.id and row.multiplier_id == multiplier.id
    spent = sum(Decimal(r.credits) for r in rows)
    assert abs(store.ledger.balance("default") - (before - spent)) < Decimal("1e-6")
    assert store.ledger.open_reservations() == []

    # Re-materialising the unchanged partition makes zero LLM calls.
    calls = server.calls
    again, _ = run_chain(store, slug, llm(server), instance)
    assert again.success and server.calls == calls
    assert len(store.ledger.usage(slug)) == calls


def test_schema_violation_is_repaired_and_charged(store, home, scripted_server):  # noqa: F811
    server = scripted_server(valid_responder, faults=[Fault(kind="schema_violation")])
    slug = "repair"
    add_project(store, slug, ABSTRACT)
    add_papers_file(store, slug, small_csv(home.parent, 2))
    result, _ = run_chain(store, slug, llm(server))
    assert result.success
    assert server.calls == 1 + 2 + 2  # one bad intent answer, its repair, queries, two papers
    repair = server.requests[1]["messages"]
    assert "did not validate" in repair[-1]["content"]
    assert len(store.ledger.usage(slug)) == server.calls  # the bad answer was a real call and is charged


def test_out_of_credits_stops_cleanly_and_resumes(store, home, scripted_server):  # noqa: F811
    server = scripted_server(valid_responder)
    store.ledger.set_pricing("scripted-model", Decimal("1000"), Decimal("1000"))  # expensive: a few calls drain it
    store.ledger.ensure_account("default")
    balance = store.ledger.balance("default")
    store.ledger.adjust("default", Decimal("60") - balance, note="test: leave a small balance")
    slug = "broke"
    add_project(store, slug, ABSTRACT)
    add_papers_file(store, slug, small_csv(home.parent, 10))
    result, instance = run_chain(store, slug, llm(server, concurrency=1))
    assert not result.success
    assert store.ledger.balance("default") >= 0
    states = {row.state for row in store.lifecycle.status(slug) if getattr(row, "stage", None) == "score"}
    assert st.FAILED_NO_CREDITS in states or any(
        f.failure_class == "no_credits" for f in store.lifecycle.failures(slug)
    )
    assert store.ledger.open_reservations() == []
    scored_before = len(store.results.results_for_project(slug))
    assert scored_before < 10
    calls_before = server.calls

    store.ledger.grant("default", Decimal("100000"), note="top-up")
    result, _ = run_chain(store, slug, llm(server, concurrency=1), instance)
    assert result.success
    assert len(scores_dataframe(store, slug)) == 10
    # Only the missing papers were called for: no paper scored twice.
    score_calls = [r for r in server.requests[calls_before:] if stage_of(r) == "score"]
    assert len(score_calls) == 10 - scored_before


def test_a_language_models_intent_records_no_background(store, home, scripted_server):  # noqa: F811
    """The model sees ``background`` in the schema; what it writes there is not what judged the terms."""
    import json

    def claims_a_background(body: dict) -> str:
        if stage_of(body) == "intent":
            return json.dumps({**json.loads(valid_responder(body)), "background": "openalex hit counts"})
        return valid_responder(body)

    server = scripted_server(claims_a_background)
    slug = "llm-background"
    add_project(store, slug, ABSTRACT)
    add_papers_file(store, slug, small_csv(home.parent, 2))
    result, _ = run_chain(store, slug, llm(server))
    assert result.success
    assert store.results.latest_artifact(slug, "intent").payload["background"] == ""
