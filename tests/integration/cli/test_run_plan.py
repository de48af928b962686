"""`agentr run --stop-at-recall / --budget-credits`, as a user runs them against an LLM endpoint (the scripted
server judging as a perfect screener): the first stops early, a larger budget continues, nothing is called
twice, and `agentr ledger verify` stays clean."""

from __future__ import annotations

import re
from collections import Counter

import pandas as pd

from agentr_dagster.settings import results_dir
from agentr_dagster.testing.responders import stage_of
from tests.support.cli import agentr, scripted_llm_env
from tests.support.review import QUESTION, oracle_responder, synthetic_review, write_review


def test_run_stops_at_the_recall_target_then_a_budget_run_finishes_without_repeats(tmp_path, scripted_server):
    review = synthetic_review()
    server = scripted_server(oracle_responder(set(review.loc[review.label_included == 1, "title"])))
    env = scripted_llm_env(server)
    (tmp_path / "q.md").write_text(QUESTION)
    assert agentr("pricing", "set", "scripted-model", "--input", "3", "--output", "15").exit_code == 0
    assert agentr("credits", "grant", "100000").exit_code == 0
    assert agentr("project", "add", "plan-cli", "--abstract", str(tmp_path / "q.md")).exit_code == 0
    assert agentr("papers", "add", "plan-cli", str(write_review(review, tmp_path))).exit_code == 0

    first = agentr("run", "plan-cli", "--no-progress", "--stop-at-recall", "0.8", env=env)
    assert first.exit_code == 0, first.output
    scored = Counter(stage_of(r) for r in server.requests)["score"]
    export = pd.read_csv(results_dir("plan-cli") / "scores.csv", dtype={"source_id": str}, keep_default_na=False)
    below = int((export["not_scored"] == "below cut-off").sum())
    assert len(export) == len(review) and below > 0 and scored + below == len(review)
    assert f"this run: {scored} scored, 0 reused of {len(review)}, {below} below cut-off" in first.output
    assert "at 95 % confidence" in first.output and "target 0.8 reached: stop" in first.output
    # the summary states the interval's bound and the point estimate beside it
    assert re.search(r"recall >= [01]\.\d{3} at 95 % confidence"
                     r"(, under the decaying-rate model \(0\.\d{3} without it\))? "
                     r"\(estimate [01]\.\d{3}, \d+ includes found\)",
                     first.output), first.output

    second = agentr("run", "plan-cli", "--no-progress", "--budget-credits", "100000", env=env)
    assert second.exit_code == 0, second.output
    titles = [next(m["content"] for m in r["messages"] if m["role"] == "user").split("Title: ", 1)[1].split("\n")[0]
              for r in server.requests if stage_of(r) == "score"]
    assert len(titles) == len(set(titles)) == len(review)  # the rest scored, nothing twice
    verify = agentr("ledger", "verify")
    assert verify.exit_code == 0, verify.output
