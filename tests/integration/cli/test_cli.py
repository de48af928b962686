"""The `agentr` command line, as a user runs it: real store, real Dagster instance, real HTTP server."""

from __future__ import annotations

import json
import re
from collections import Counter
from decimal import Decimal
from pathlib import Path

import pandas as pd

from agentr_dagster.testing.responders import stage_of, valid_responder
from tests.support import DEMO
from tests.support.cli import agentr, scripted_llm_env


def test_demo_runs_offline_and_writes_every_score(tmp_path):
    home = Path(tmp_path / "agentr-home")
    result = agentr("demo")
    assert result.exit_code == 0, result.output
    assert "40 of 40 papers have a current score" in result.output
    assert "this run: 40 scored, 0 reused of 40" in result.output
    # The progress bar moves step by step as the run works (not 0/40 until scoring, then 100 %).
    shown = {int(n) for n in re.findall(r"step (\d)/8 ", result.output)}
    assert len(shown) >= 3 and "step 4/8 relevance" in result.output, result.output[-2000:]
    assert "100%|" in result.output and "demo-slr-automation: 8/8 steps done" in result.output
    frame = pd.read_csv(home / "results" / "demo-slr-automation" / "scores.csv")
    assert len(frame) == 40 and frame["c1_score"].between(0, 10).all()
    assert set(frame["backend"]) == {"offline"}
    status = json.loads(agentr("status", "demo-slr-automation", "--json").output)
    score = next(row for row in status if row["stage"] == "score")
    assert score["state"] == "completed" and score["paper_counts"] == {"completed": 40}
    # Running the demo again adds nothing and re-scores nothing.
    again = agentr("demo")
    assert again.exit_code == 0 and "(40 imported now)" not in again.output
    assert "this run: 0 scored, 40 reused of 40" in again.output  # reused, never counted as scored


def test_project_lifecycle_with_an_llm_endpoint(tmp_path, scripted_server):  # noqa: F811
    server = scripted_server(valid_responder)
    env = scripted_llm_env(server)
    abstract = tmp_path / "abstract.md"
    abstract.write_text((DEMO / "abstract.md").read_text())
    papers = tmp_path / "papers.csv"
    pd.read_csv(DEMO / "papers.csv").head(6).to_csv(papers, index=False)

    assert agentr("pricing", "set", "scripted-model", "--input", "3", "--output", "15").exit_code == 0
    assert agentr("credits", "grant", "500").exit_code == 0
    assert agentr("project", "add", "cli-review", "--abstract", str(abstract)).exit_code == 0
    added = agentr("papers", "add", "cli-review", str(papers))
    assert "6 added" in added.output
    assert "already imported" in agentr("papers", "add", "cli-review", str(papers)).output
    run = agentr("run", "cli-review", "--no-progress", env=env)
    assert run.exit_code == 0, run.output
    stages = Counter(stage_of(r) for r in server.requests)
    assert (stages["intent"], stages["queries"], stages["score"]) == (1, 1, 6)
    calls = server.calls  # the rest are the related-work draft's paragraph rewrites

    usage = json.loads(agentr("usage", "cli-review", "--calls", "--json").output)
    assert len(usage) == calls
    for row in usage:
        expected = (Decimal(row["input_tokens"]) * 3 + Decimal(row["output_tokens"]) * 15) / Decimal(10**6)
        assert abs(Decimal(row["cost_usd"]) - expected) < Decimal("1e-8")
    aggregated = json.loads(agentr("usage", "cli-review", "--json").output)
    assert sum(row["calls"] for row in aggregated) == calls

    out = tmp_path / "out"
    exported = agentr("export", "cli-review", "--format", "xlsx", "--out", str(out))
    assert exported.exit_code == 0 and len(pd.read_excel(out / "scores.xlsx")) == 6

    # Re-running the unchanged project makes zero calls.
    assert agentr("run", "cli-review", "--no-progress", env=env).exit_code == 0
    assert server.calls == calls
    status = agentr("status", "cli-review", env=env).output
    assert "cli-review: 6 candidate papers; finished" in status
    assert "next: read the report (" in status and "agentr export cli-review --format ris" in status

    # One paper added to the finished project: before anything is paid, it says what the next run re-does and
    # what that costs (the scoring call priced, one rewrite call per paragraph of the draft).
    one = tmp_path / "one.csv"
    pd.read_csv(DEMO / "papers.csv").iloc[[10]].to_csv(one, index=False)
    paragraphs = sum(1 for row in usage if row["stage"] == "related_work")  # one rewrite per paragraph
    more = agentr("papers", "add", "cli-review", str(one), env=env)
    assert more.exit_code == 0 and "1 added" in more.output
    assert ("note: cli-review had finished; adding 1 paper makes its next run re-rank all 7 papers, score the new "
            "ones and rebuild the landscape and the related-work draft with scripted-model: 1 scoring call (") \
        in more.output, more.output
    assert f"and about {paragraphs} paragraph rewrite calls (one per paragraph of the draft" in more.output
    assert f"credits each at the mean of {paragraphs} past rewrite(s)" in more.output
    assert server.calls == calls  # nothing paid yet
    assert agentr("run", "cli-review", "--no-progress", env=env).exit_code == 0
    stages = Counter(stage_of(r) for r in server.requests[calls:])
    # as announced: one scoring call; a rewrite per paragraph, the new paper's sections adding their own
    assert stages["score"] == 1 and stages["related_work"] >= paragraphs
    assert "finished" in agentr("status", "cli-review", env=env).output
    # a label given since the ranking: status says so, and what re-ranks it
    from agentr_dagster.cli.common import open_store

    paper = open_store().projects.list_papers("cli-review")[0]
    assert agentr("label", "cli-review", f"id:{paper.id}", "include").exit_code == 0
    labelled = agentr("status", "cli-review", env=env).output.splitlines()
    assert labelled[0] == "cli-review: 7 candidate papers; labels or papers changed since the ranking"
    assert labelled[-1].startswith("next: the labels sensor re-ranks it") and "agentr run cli-review" in labelled[-1]


def test_clear_errors(tmp_path):
    abstract = tmp_path / "a.md"
    abstract.write_text("too short")
    bad = agentr("project", "add", "Bad Slug", "--abstract", str(abstract))
    assert bad.exit_code != 0 and "invalid project slug" in bad.output
    short = agentr("project", "add", "ok", "--abstract", str(abstract))
    assert short.exit_code != 0 and "too short" in short.output
    missing = agentr("papers", "add", "nope", str(DEMO / "papers.csv"))
    assert missing.exit_code != 0
