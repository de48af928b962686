"""The table `agentr run` prints after a run against an LLM endpoint says which order it is in: with LLM scores the
export's rows follow the LLM's judgement (`llm_judgement`), not the `relevance` column, so the header must not
call them "top N by relevance" (it did, above a relevance column that was not descending). Each row gives the
paper's rank, P(include) to 4 decimals and its why as `scores.csv` has them (the why shortened to fit)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

import agentr_dagster.data
from agentr_dagster.settings import results_dir
from agentr_dagster.testing.responders import valid_responder
from tests.support.cli import agentr, scripted_llm_env

DEMO = Path(agentr_dagster.data.__file__).parent / "demo"



def test_llm_run_summary_names_the_llm_order_and_shows_its_column(scripted_server):
    server = scripted_server(valid_responder)
    env = scripted_llm_env(server)
    assert agentr("project", "add", "order-cli", "--abstract", str(DEMO / "abstract.md")).exit_code == 0
    assert agentr("papers", "add", "order-cli", str(DEMO / "papers.csv")).exit_code == 0

    result = agentr("run", "order-cli", "--no-progress", env=env)
    assert result.exit_code == 0, result.output
    assert "by relevance (the calibrated probability" not in result.output
    assert "top 10 in the export's order (the LLM's judgement, llm_judgement;" in result.output
    lines = result.output.splitlines()
    at = next(i for i, line in enumerate(lines) if line.split()[:2] == ["rank", "llm_judgement"])
    assert lines[at].split()[2] == "relevance" and lines[at].split()[-1] == "why", lines[at]
    rows = lines[at + 1 : at + 11]
    exported = pd.read_csv(results_dir("order-cli") / "scores.csv", keep_default_na=False).head(10)
    for line, paper in zip(rows, exported.itertuples(), strict=True):
        rank, _, relevance = line.split()[:3]
        assert int(rank) == paper.rank and relevance == f"{paper.relevance:.4f}", (line, paper.relevance)
        assert paper.why, paper  # every paper has a why to show
        shown = line[line.index(paper.why[:12]):].rstrip().removesuffix(" ...")
        assert len(shown) >= 12 and paper.why.startswith(shown), (line, paper.why)
    # no price was set for the model: the run says its calls cost nothing, and how to price them
    assert ("LLM call(s) of 'scripted-model' for order-cli were recorded at zero cost (no price in force)"
            in result.output)
    assert agentr("pricing", "set", "scripted-model", "--input", "1", "--output", "1").exit_code == 0
    again = agentr("run", "order-cli", "--no-progress", env=env)
    assert again.exit_code == 0 and "zero cost" not in again.output, again.output
