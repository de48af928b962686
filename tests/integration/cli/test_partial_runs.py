"""A failed paper never hides the others. `agentr run` against the scripted server (real HTTP, the real store on
PostgreSQL, Dagster's run storage under AGENTR_HOME), as a user types it:

- half the papers' answers never validate: the valid half is exported, synthesised and drafted, the run exits 3
  (partial), naming each missing paper with its class and the command that retries it (`--retry-invalid`), and
  `agentr status` / `agentr failures` say the same; the retry then completes the project;
- credits run out during the related-work rewrites: the draft stands (extractive where not rewritten) but is
  `partial` in `agentr status` and `agentr failures`, with the grant-and-resume command, and the run exits 3;
  after a grant, `agentr resume` finishes the draft without paying again for the paragraphs already rewritten;
- credits run out during the scoring: the papers scored are kept, exported and synthesised, the run exits 3 naming
  the papers not scored and the grant-and-resume command; after a grant, `agentr resume` scores only the rest.
"""

from __future__ import annotations

from collections import Counter
from decimal import Decimal

import pandas as pd
import pytest

from agentr_dagster.domain.attempts import MAX_ANSWERS
from agentr_dagster.settings import results_dir
from agentr_dagster.testing.scripted_server import Fault
from tests.support.cli import agentr
from tests.support.recovery import chain_responder, llm_env, make_project, stage_name, title_of

N = 8
PARTIAL_EXIT = 3


def _titles(store, slug: str) -> dict[str, int]:
    return {p.title.strip(): p.id for p in store.projects.list_papers(slug)}


@pytest.mark.usefixtures("fast_home")
def test_half_the_papers_invalid_still_exports_synthesises_and_drafts_the_rest(pg_store, tmp_path, scripted_server,
                                                                               monkeypatch):
    slug = "half-invalid"
    make_project(pg_store, tmp_path, slug, N)
    titles = _titles(pg_store, slug)
    invalid = set(sorted(titles)[::2])  # every other paper's answers never validate
    retry_allowed = {"on": False}

    def faults(index: int, body: dict):
        if stage_name(body) == "score" and title_of(body) in invalid and not retry_allowed["on"]:
            return Fault("schema_violation")
        return None

    server = scripted_server(chain_responder, faults=faults)
    env = llm_env(monkeypatch, server, pg_store)
    pg_store.ledger.set_pricing("scripted-model", Decimal("2.50"), Decimal("10.00"))

    run = agentr("run", slug, "--no-progress", env=env)

    assert run.exit_code == PARTIAL_EXIT, run.output
    # the valid half went through every stage after the scores
    frame = pd.read_csv(results_dir(slug) / "scores.csv", keep_default_na=False)
    assert len(frame) == N and int((frame["not_scored"] == "").sum()) == N - len(invalid)
    assert (results_dir(slug) / "scores.parquet").exists() and (results_dir(slug) / "scores.xlsx").exists()
    draft = (results_dir(slug) / "related_work.md").read_text()
    assert "WARNING" not in draft.split("---", 2)[-1][:400]
    assert pg_store.results.latest_artifact(slug, "landscape") is not None
    # the missing papers, each named with its class, and the command that asks them again
    assert f"{slug}: partial: {N - len(invalid)} of {N} papers scored; {len(invalid)} missing (invalid_output " \
           f"{len(invalid)})" in run.output, run.output
    for title in invalid:
        assert f"missing paper {titles[title]} [invalid_output]: {title[:80]}" in run.output
    assert f"retry invalid_output: agentr run {slug} --retry-invalid" in run.output
    scored_titles = Counter(title_of(b) for b in server.requests if stage_name(b) == "score")
    assert {t: scored_titles[t] for t in invalid} == dict.fromkeys(invalid, MAX_ANSWERS)  # the cap held

    status = agentr("status", slug, env=env)
    assert f"{slug}: partial: " in status.output and f"agentr run {slug} --retry-invalid" in status.output
    failures = agentr("failures", slug, env=env)
    assert "invalid_output:" in failures.output and f"agentr run {slug} --retry-invalid" in failures.output
    assert agentr("ledger", "verify", env=env).exit_code == 0

    # the command it printed completes the project
    retry_allowed["on"] = True
    retried = agentr("run", slug, "--no-progress", "--retry-invalid", env=env)
    assert retried.exit_code == 0, retried.output
    assert f"{slug}: complete: {N} of {N} papers scored" in retried.output
    assert "partial" not in agentr("status", slug, env=env).output


@pytest.mark.usefixtures("fast_home")
def test_credits_running_out_in_the_draft_leave_it_partial_until_granted_and_resumed(pg_store, tmp_path,
                                                                                     scripted_server, monkeypatch):
    slug = "draft-broke"
    make_project(pg_store, tmp_path, slug, N)
    rewrites = {"n": 0}

    def faults(index: int, body: dict):
        """The account runs dry during the rewrites: when the 4th arrives, the free balance is taken away and the
        model's price jumps. The calls already reserved are paid at their own price; the next one may hold what is
        left (the last credits are usable) and the one after it is refused."""
        if stage_name(body) == "related_work":
            rewrites["n"] += 1
            if rewrites["n"] == 4:
                pg_store.ledger.set_pricing("scripted-model", Decimal("1000000"), Decimal("1000000"))
                pg_store.ledger.adjust("default", -pg_store.ledger.balance("default"), note="test: credits run out")
        return None

    server = scripted_server(chain_responder, faults=faults)
    env = llm_env(monkeypatch, server, pg_store)
    pg_store.ledger.set_pricing("scripted-model", Decimal("2.50"), Decimal("10.00"))

    run = agentr("run", slug, "--no-progress", env=env)

    assert run.exit_code == PARTIAL_EXIT, run.output
    assert 4 <= rewrites["n"] <= 5, rewrites  # the rewrites stopped when credits ran out
    assert f"{slug}: partial: {N} of {N} papers scored; unfinished: related_work (no_credits)" in run.output
    assert f"retry no_credits: agentr credits grant AMOUNT, then agentr resume {slug}" in run.output
    assert (results_dir(slug) / "related_work.md").exists()  # the draft stands, extractive where not rewritten
    status = agentr("status", slug, env=env).output
    row = next(line for line in status.splitlines() if line.strip().startswith("related-work draft"))
    assert "failed no credits" in row and "partial: " in row, status
    assert f"agentr resume {slug}" in status
    failures = agentr("failures", slug, env=env).output
    assert "no_credits: 1 failure(s)" in failures and f"then `agentr resume {slug}`" in failures, failures
    assert "no failures recorded" not in failures
    paid = len([u for u in pg_store.ledger.usage(slug) if u.stage == "related_work"])
    assert paid >= 1

    pg_store.ledger.set_pricing("scripted-model", Decimal("2.50"), Decimal("10.00"))
    assert agentr("credits", "grant", "100000", env=env).exit_code == 0
    resumed = agentr("resume", slug, env=env)
    assert resumed.exit_code == 0, resumed.output
    after = agentr("status", slug, env=env).output
    row = next(line for line in after.splitlines() if line.strip().startswith("related-work draft"))
    assert "completed" in row and "partial" not in after, after
    assert "resolved: 1 earlier failure(s)" in agentr("failures", slug, env=env).output
    # the paragraphs rewritten before the stop came from the response cache, not a second payment
    report = pg_store.ledger.verify_ledger()
    assert report.ok, report.violations
    charged = Counter(u.request_hash for u in pg_store.ledger.usage(slug) if u.stage == "related_work")
    assert max(charged.values()) == 1


@pytest.mark.usefixtures("fast_home")
def test_credits_running_out_while_scoring_keep_the_scored_papers_and_resume_scores_only_the_rest(
        pg_store, tmp_path, scripted_server, monkeypatch):
    slug, n = "score-broke", 12
    make_project(pg_store, tmp_path, slug, n)
    seen = {"score": 0}

    def faults(index: int, body: dict):
        """When the 5th paper's call arrives the free balance is taken away and the price jumps: the calls
        already reserved are paid at their own price, later ones are refused."""
        if stage_name(body) == "score":
            seen["score"] += 1
            if seen["score"] == 5:
                pg_store.ledger.set_pricing("scripted-model", Decimal("1000000"), Decimal("1000000"))
                pg_store.ledger.adjust("default", -pg_store.ledger.balance("default"), note="test: credits run out")
        return None

    server = scripted_server(chain_responder, faults=faults)
    env = llm_env(monkeypatch, server, pg_store, concurrency=2)
    pg_store.ledger.set_pricing("scripted-model", Decimal("2.50"), Decimal("10.00"))

    run = agentr("run", slug, "--no-progress", env=env)

    assert run.exit_code == PARTIAL_EXIT, run.output
    scored = len(pg_store.results.results_for_project(slug))
    assert 0 < scored < n, scored
    frame = pd.read_csv(results_dir(slug) / "scores.csv", keep_default_na=False)
    assert len(frame) == n and int((frame["not_scored"] == "").sum()) == scored
    assert pg_store.results.latest_artifact(slug, "landscape") is not None  # synthesised from what was scored
    assert f"{slug}: partial: {scored} of {n} papers scored; {n - scored} missing (no_credits {n - scored})" \
        in run.output, run.output
    assert f"retry no_credits: agentr credits grant AMOUNT, then agentr resume {slug}" in run.output
    assert f"{slug}: partial: " in agentr("status", slug, env=env).output
    assert agentr("ledger", "verify", env=env).exit_code == 0
    score_requests = seen["score"]

    pg_store.ledger.set_pricing("scripted-model", Decimal("2.50"), Decimal("10.00"))
    assert agentr("credits", "grant", "100000", env=env).exit_code == 0
    resumed = agentr("resume", slug, env=env)
    assert resumed.exit_code == 0, resumed.output
    assert seen["score"] - score_requests == n - scored  # only the papers not scored were asked
    charged = Counter(u.request_hash for u in pg_store.ledger.usage(slug) if u.stage == "score")
    assert sum(charged.values()) == n and max(charged.values()) == 1  # one charge per paper, none twice
    frame = pd.read_csv(results_dir(slug) / "scores.csv", keep_default_na=False)
    assert int((frame["not_scored"] == "").sum()) == n
    verify = agentr("ledger", "verify", env=env)
    assert verify.exit_code == 0, verify.output
