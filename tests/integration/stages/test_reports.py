"""Usage reports (by project, stage, model and day; tokens, USD, credits) as frames, CLI table and JSON, asset
metadata and CSV exports; `agentr estimate` before a run against what the run then spent; budgets."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from decimal import Decimal
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner
from dagster import DagsterInstance, materialize

from agentr_dagster.cli import main
from agentr_dagster.defs.assets import project_assets
from agentr_dagster.defs.resources import LLMResource, SourcesResource, StoreResource
from agentr_dagster.stages.estimate import approx_tokens, estimate_project, get_tokenizer
from agentr_dagster.stages.exports import scores_dataframe
from agentr_dagster.stages.intake import add_papers_file, add_project
from agentr_dagster.stages.usage import aggregate, records, usage_calls_frame, usage_report, usage_totals
from agentr_dagster.store import UsageIn
from agentr_dagster.store.verify import verify_ledger
from agentr_dagster.testing.responders import stage_of, valid_responder
from tests.support import DEMO

D = Decimal
T0 = datetime(2024, 3, 1, 12, tzinfo=timezone.utc)
ABSTRACT = (DEMO / "abstract.md").read_text()
MODEL = "scripted-model"


def spend(store, slug, stage, model, inp, out, at):
    rid = store.ledger.reserve(
        "default", 1, idempotency_key=f"{slug}-{stage}-{model}-{inp}-{at.isoformat()}", slug=slug, stage=stage
    )
    store.ledger.settle(rid, usage=UsageIn(model=model, input_tokens=inp, output_tokens=out, at=at))


@pytest.fixture
def ledger_with_usage(store):
    store.ledger.set_pricing("a-model", 1000, 2000, at=T0 - timedelta(days=1))  # USD per million tokens
    store.ledger.set_pricing("b-model", 500, 500, at=T0 - timedelta(days=1))
    store.projects.create_project("p1", "first abstract")
    store.projects.create_project("p2", "second abstract")
    day1, day2 = T0, T0 + timedelta(days=1, hours=3)
    spend(store, "p1", "intent", "a-model", 10, 5, day1)  # 0.02 USD = 20 credits at 1000 credits/USD
    spend(store, "p1", "score", "a-model", 20, 10, day1)  # 0.04
    spend(store, "p1", "score", "a-model", 30, 0, day1 + timedelta(hours=11))  # 0.03, same UTC day
    spend(store, "p1", "score", "b-model", 100, 100, day2)  # 0.1
    spend(store, "p2", "score", "a-model", 1, 1, day2)  # 0.003
    return store


def test_report_by_project_stage_model_day(ledger_with_usage):
    store = ledger_with_usage
    store.projects.soft_delete_project("p2")  # the audit trail outlives the project
    frame = usage_report(store)
    got = [
        (r.project, r.stage, r.model, r.day, r.calls, r.input_tokens, r.output_tokens, r.cost_usd, r.credits)
        for r in frame.itertuples()
    ]
    assert got == [
        ("p1", "intent", "a-model", "2024-03-01", 1, 10, 5, D("0.02"), D("20")),
        ("p1", "score", "a-model", "2024-03-01", 2, 50, 10, D("0.07"), D("70")),
        ("p1", "score", "b-model", "2024-03-02", 1, 100, 100, D("0.1"), D("100")),
        ("p2", "score", "a-model", "2024-03-02", 1, 1, 1, D("0.003"), D("3")),
    ]
    totals = usage_totals(store)
    assert totals == {"calls": 5, "input_tokens": 161, "cached_input_tokens": 0, "output_tokens": 116,
                      "total_tokens": 277, "cost_usd": D("0.193"), "credits": D("193")}
    assert usage_totals(store, "p1", stage="score")["credits"] == D("170")
    by_model = aggregate(usage_calls_frame(store), ["model"])
    assert list(by_model["model"]) == ["a-model", "b-model"] and list(by_model["credits"]) == [D("93"), D("100")]
    assert records(usage_report(store, "p2")) == [{
        "project": "p2", "stage": "score", "model": "a-model", "day": "2024-03-02", "calls": 1, "input_tokens": 1,
        "cached_input_tokens": 0, "output_tokens": 1, "total_tokens": 2, "cost_usd": "0.00300000",
        "credits": "3.00000000",
    }]
    assert usage_report(store, "nobody").empty
    assert store.ledger.balance() == D("1000") - D("193")
    assert verify_ledger(store).ok


def test_usage_command_table_and_json(ledger_with_usage, monkeypatch):
    monkeypatch.setenv("AGENTR_DATABASE_URL", ledger_with_usage.url)
    runner = CliRunner()
    table = runner.invoke(main, ["usage"])
    assert table.exit_code == 0, table.output
    lines = table.output.splitlines()
    assert lines[0].split() == ["project", "stage", "model", "day", "calls", "input_tokens", "cached_input_tokens",
                                "output_tokens", "total_tokens", "cost_usd", "credits"]
    assert lines[2].split() == ["p1", "score", "a-model", "2024-03-01", "2", "50", "0", "10", "60", "0.07000000",
                                "70.00000000"]
    total = next(line for line in lines if line.startswith("total:"))
    assert "total: calls=5" in total and "credits=193.00000000" in total
    assert lines[-1] == "operator waste: none (every call served was charged)"  # waste is its own figure, last
    rows = json.loads(runner.invoke(main, ["usage", "p1", "--json"]).output)
    assert [(r["stage"], r["model"], r["calls"], r["credits"]) for r in rows] == [
        ("intent", "a-model", 1, "20.00000000"), ("score", "a-model", 2, "70.00000000"),
        ("score", "b-model", 1, "100.00000000"),
    ]
    calls = json.loads(runner.invoke(main, ["usage", "p1", "--json", "--calls"]).output)
    assert len(calls) == 4
    for c in calls:  # every call carries the prices it was charged at: the formula can be redone by hand
        cost = (D(c["input_tokens"]) * D(c["input_usd_per_m"]) + D(c["output_tokens"]) * D(c["output_usd_per_m"])) \
            / D(10**6)
        assert D(c["cost_usd"]) == cost and D(c["credits"]) == cost * D(c["credits_per_usd"])
    unknown = runner.invoke(main, ["usage", "no-such-project"])  # one line, non-zero: never a traceback
    assert unknown.exit_code == 1 and unknown.output.startswith("error: no project 'no-such-project'")


def test_offline_token_approximation():
    prose = ("Systematic reviews in software engineering need a reproducible, auditable selection of studies; "
             "we screen 12,345 candidate abstracts with active learning.")
    assert 25 <= approx_tokens(prose) <= 40  # ~4 characters a token for English prose (this is 148 characters)
    assert approx_tokens("") == 0
    assert approx_tokens('{"a": [1, 2, 3]}') >= 8


def small_csv(tmp_path: Path, rows: slice, name: str) -> Path:
    frame = pd.read_csv(DEMO / "papers.csv").iloc[rows]
    path = tmp_path / name
    frame.to_csv(path, index=False)
    return path


def run_chain(store, slug, server, instance):
    if not instance.has_dynamic_partition("projects", slug):
        instance.add_dynamic_partitions("projects", [slug])
    llm = LLMResource(base_url=server.base_url, api_key="sk-test", settings={"model": MODEL, "concurrency": 2})
    return materialize(project_assets, partition_key=slug, instance=instance, raise_on_error=False,
                       resources={"store": StoreResource(database_url=store.url), "llm": llm,
                                  "sources": SourcesResource()})


def metadata(result, asset: str) -> dict:
    for event in result.get_asset_materialization_events():
        if event.asset_key.path[-1] == asset:
            return {k: v.value for k, v in event.materialization.metadata.items()}
    raise AssertionError(f"no materialization of {asset}")


def input_tokens_by_stage(server, since: int = 0) -> dict[str, list[int]]:
    out: dict[str, list[int]] = {}
    for body in server.requests[since:]:
        chars = sum(len(m["content"]) for m in body["messages"])
        out.setdefault(stage_of(body), []).append(-(-chars // 4))  # the scripted server's count: ceil(chars/4)
    return out


def test_estimate_run_metadata_exports_and_budget(sqlite_store, tmp_path, monkeypatch, scripted_server):  # noqa: F811
    store = sqlite_store
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path / "empty-tiktoken-cache"))
    monkeypatch.setenv("AGENTR_DATABASE_URL", store.url)
    assert get_tokenizer(MODEL).name == "offline-approx"
    server = scripted_server(valid_responder)
    store.ledger.set_pricing(MODEL, D("2.50"), D("10.00"))
    slug = "estimated"
    add_project(store, slug, ABSTRACT)
    add_papers_file(store, slug, small_csv(tmp_path, slice(0, 6), "first.csv"))
    balance = store.ledger.balance()

    before = estimate_project(store, slug, model=MODEL)
    assert [(s.stage, s.calls, s.reused) for s in before.stages] == [("intent", 1, 0), ("queries", 1, 0),
                                                                     ("score", 6, 0)]
    assert before.tokenizer == "offline-approx" and before.verdict() == "fits"
    assert before.total("credits_expected") > 0 and before.total("credits_max") >= before.total("credits_expected")
    assert (
        store.ledger.balance() == balance and store.ledger.reservations() == [] and store.ledger.usage() == []
    )  # nothing spent

    instance = DagsterInstance.ephemeral()
    result = run_chain(store, slug, server, instance)
    assert result.success and server.calls == 8
    actual = input_tokens_by_stage(server)
    # the intent prompt is fully known in advance: the offline count is within 10% of the server's
    assert abs(before.stages[0].input_tokens - actual["intent"][0]) <= 0.1 * actual["intent"][0]
    # later prompts hold the intent JSON, counted at the intent's output cap before it exists: an over-estimate
    assert before.stages[2].input_tokens >= sum(actual["score"])

    # usage as asset metadata ...
    scores_meta = metadata(result, "paper_scores")
    rows = store.ledger.usage(slug)
    score_rows = [r for r in rows if r.stage == "score"]
    scores_usage = {r.data["scope"]: r.data for r in scores_meta["usage"].records}  # one table, one row a scope
    assert list(scores_usage) == ["this run", f"score / {MODEL}", "total"]
    assert scores_usage["this run"]["calls"] == scores_usage["total"]["calls"] == 6
    assert scores_usage["this run"]["input_tokens"] == sum(r.input_tokens for r in score_rows)
    assert D(scores_usage["this run"]["credits"]) == sum(r.credits for r in score_rows)  # exact, as text
    exports_meta = metadata(result, "score_exports")
    exports_usage = {r.data["scope"]: r.data for r in exports_meta["usage"].records}
    assert list(exports_usage) == [f"intent / {MODEL}", f"queries / {MODEL}", f"score / {MODEL}", "total"]
    assert exports_usage["total"]["calls"] == 8
    assert exports_usage["total"]["cost_usd"] == f"{sum(r.cost_usd for r in rows):f}"
    assert exports_usage["total"]["credits"] == f"{sum(r.credits for r in rows):f}"
    # ... and in the pandas export
    usage_csv = pd.read_csv(exports_meta["usage_csv"], dtype={"cost_usd": str, "credits": str})
    assert usage_csv["calls"].sum() == 8 and set(usage_csv["stage"]) == {"intent", "queries", "score"}
    assert sum(D(c) for c in usage_csv["credits"]) == sum(r.credits for r in rows)
    calls_csv = pd.read_csv(exports_meta["usage_calls_csv"], dtype=str)
    assert len(calls_csv) == 8
    for c in calls_csv.itertuples():
        cost = (D(c.input_tokens) * D(c.input_usd_per_m) + D(c.output_tokens) * D(c.output_usd_per_m)) / D(10**6)
        assert D(c.cost_usd) == cost and D(c.credits) == cost * D(c.credits_per_usd)

    # after the run nothing is left; new papers are the only remaining work, priced from the model's history
    assert estimate_project(store, slug, model=MODEL).calls == 0
    add_papers_file(store, slug, small_csv(tmp_path, slice(6, 9), "more.csv"))
    after = estimate_project(store, slug, model=MODEL)
    assert [(s.stage, s.calls, s.reused) for s in after.stages] == [("intent", 0, 1), ("queries", 0, 1),
                                                                    ("score", 3, 6)]
    assert after.stages[2].output_basis == "history (6 calls)"
    cli = CliRunner().invoke(main, ["estimate", slug, "--model", MODEL, "--json"])
    assert cli.exit_code == 0, cli.output
    as_json = json.loads(cli.output)
    assert as_json["totals"]["calls"] == 3 and as_json["tokenizer"] == "offline-approx"
    assert as_json["verdict"] == "fits"

    calls_before = server.calls
    assert run_chain(store, slug, server, instance).success
    new = input_tokens_by_stage(server, calls_before)
    assert list(new) == ["score"] and len(new["score"]) == 3
    # with the intent written, the score prompts are known exactly: within 10%
    assert abs(after.stages[2].input_tokens - sum(new["score"])) <= 0.1 * sum(new["score"])
    spent = sum(r.credits for r in store.ledger.usage(slug)[-3:])
    assert abs(after.stages[2].credits_expected - spent) <= D("0.25") * spent

    # a budget that cannot cover the next paper stops the scoring before the call: the paper is left below the
    # cut-off (a decision of the scoring plan, not a failure) until the budget grows
    used = sum((r.credits for r in store.ledger.usage(slug)), D(0))
    runner = CliRunner()
    assert runner.invoke(main, ["budget", "set", slug, str(used + D("0.001"))]).exit_code == 0
    assert "left 0.00100000" in runner.invoke(main, ["budget", "show", slug]).output
    add_papers_file(store, slug, small_csv(tmp_path, slice(9, 10), "one-more.csv"))
    assert estimate_project(store, slug, model=MODEL).verdict() == "does not fit"
    calls_before = server.calls
    blocked = run_chain(store, slug, server, instance)
    assert blocked.success and server.calls == calls_before
    assert store.lifecycle.failures(slug) == []
    frame = scores_dataframe(store, slug)
    assert (frame["not_scored"] == "below cut-off").sum() == 1 and (frame["not_scored"] == "").sum() == 9
    assert runner.invoke(main, ["budget", "set", slug, "none"]).output.strip() == f"{slug}: budget none"
    assert runner.invoke(main, ["budget", "set", slug, "-3"]).exit_code != 0
    assert runner.invoke(main, ["budget", "set", "no-such-project", "5"]).exit_code != 0
    report = verify_ledger(store)
    assert report.ok, [str(v) for v in report.violations]
