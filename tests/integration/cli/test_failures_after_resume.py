"""`agentr failures` after credits ran out mid-run names the command to paste (`agentr resume <slug>`), and once
credits were granted and the resume completed the stage it no longer tells the user to top up: the old rows stay
(the history) but are counted as resolved. Against the scripted server, no mocks."""

from __future__ import annotations

from pathlib import Path

import agentr_dagster.data
from agentr_dagster.testing.responders import valid_responder
from tests.support.cli import agentr, scripted_llm_env

DEMO = Path(agentr_dagster.data.__file__).parent / "demo"



def test_failures_name_the_slug_then_count_resolved_ones_apart(scripted_server):
    server = scripted_server(valid_responder)
    env = scripted_llm_env(server)
    assert agentr("credits", "set-default", "0").exit_code == 0
    assert agentr("pricing", "set", "scripted-model", "--input", "10", "--output", "10").exit_code == 0
    assert agentr("credits", "grant", "60").exit_code == 0  # intent, queries and a few papers
    assert agentr("project", "add", "broke", "--abstract", str(DEMO / "abstract.md")).exit_code == 0
    assert agentr("papers", "add", "broke", str(DEMO / "papers.csv")).exit_code == 0

    run = agentr("run", "broke", "--no-progress", env=env)
    assert run.exit_code == 3 and "`agentr resume broke`" in run.output, run.output  # partial: some scored
    before = agentr("failures", "broke").output
    assert "no_credits: " in before and "then `agentr resume broke`" in before, before
    assert "resolved:" not in before

    assert agentr("credits", "grant", "100000").exit_code == 0
    resumed = agentr("resume", "broke", env=env)
    assert resumed.exit_code == 0 and "complete" in resumed.output, resumed.output
    after = agentr("failures", "broke").output
    summary = [line for line in after.splitlines() if not line.startswith("id=")]
    assert not any(line.startswith("no_credits:") for line in summary), after
    # the partial run went on to the draft, whose rewrites ran out too: both stages completed since
    assert any(line.startswith("resolved: ") and "broke score): nothing to do" in line for line in summary), after
