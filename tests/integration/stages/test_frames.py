"""`agentr_dagster.scores(slug)` and `agentr_dagster.usage(slug)`: pandas frames from the store the settings name
(AGENTR_DATABASE_URL, else SQLite under AGENTR_HOME), with no store plumbing, on SQLite and PostgreSQL."""

from __future__ import annotations

import subprocess
import sys
from datetime import datetime, timezone
from decimal import Decimal

import pandas as pd
import pytest

import agentr_dagster
from agentr_dagster.llm.backends import OfflineStageBackend
from agentr_dagster.stages.exports import COLUMNS
from agentr_dagster.stages.intake import add_papers_file, add_project
from agentr_dagster.stages.intent import run_intent
from agentr_dagster.stages.scoring import score_project
from agentr_dagster.store import DomainStore, ProjectNotFound, UsageIn, default_database_url
from tests.support import ABSTRACT, DEMO, REPO


def _scored_project(store: DomainStore, slug: str, tmp_path, papers: int = 6) -> None:
    add_project(store, slug, ABSTRACT)
    csv = tmp_path / "papers.csv"
    pd.read_csv(DEMO / "papers.csv").head(papers).to_csv(csv, index=False)
    add_papers_file(store, slug, csv)
    backend = OfflineStageBackend()
    run_intent(store, backend, slug)
    score_project(store, backend, slug)
    store.ledger.set_pricing("m", 1000, 2000, at=datetime(2026, 1, 1, tzinfo=timezone.utc))  # USD per M tokens
    rid = store.ledger.reserve("default", 1, idempotency_key=f"{slug}-call", slug=slug, stage="score")
    store.ledger.settle(rid, usage=UsageIn(model="m", input_tokens=10, output_tokens=5,
                                           at=datetime(2026, 3, 1, 12, tzinfo=timezone.utc)))


def test_scores_and_usage_from_the_database_url_setting(store_url, tmp_path, monkeypatch):
    monkeypatch.setenv("AGENTR_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("AGENTR_DATABASE_URL", store_url)
    with DomainStore(store_url) as store:
        _scored_project(store, "frames-demo", tmp_path)

    frame = agentr_dagster.scores("frames-demo")
    assert list(frame.columns) == COLUMNS and len(frame) == 6
    assert frame["rank"].tolist() == list(range(1, 7))
    assert frame["c1_score"].is_monotonic_decreasing  # best direct competitors first

    spent = agentr_dagster.usage("frames-demo")
    assert spent[["project", "stage", "model", "day", "calls"]].values.tolist() == [
        ["frames-demo", "score", "m", "2026-03-01", 1]]
    assert spent["cost_usd"].iloc[0] == Decimal("0.02")  # 10 x 1000 + 5 x 2000 USD per million tokens
    assert agentr_dagster.usage("frames-demo", by=["stage"])["calls"].tolist() == [1]


def test_agentr_home_alone_names_the_sqlite_store(tmp_path, monkeypatch):
    home = tmp_path / "home"
    monkeypatch.setenv("AGENTR_HOME", str(home))
    monkeypatch.delenv("AGENTR_DATABASE_URL", raising=False)
    home.mkdir()
    with DomainStore(default_database_url(home.resolve())) as store:
        _scored_project(store, "home-demo", tmp_path, papers=3)
    assert len(agentr_dagster.scores("home-demo")) == 3


def test_an_unknown_project_is_a_clear_error_naming_the_store(store_url, tmp_path, monkeypatch):
    monkeypatch.setenv("AGENTR_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("AGENTR_DATABASE_URL", store_url)
    with DomainStore(store_url) as store:
        store.projects.create_project("known-one", "an abstract about screening")
        store.projects.create_project("gone", "an abstract about screening")
        store.projects.soft_delete_project("gone")
    with pytest.raises(ProjectNotFound) as err:
        agentr_dagster.scores("no-such-review")
    message = str(err.value)
    assert "no-such-review" in message and "known-one" in message and "AGENTR_DATABASE_URL" in message
    assert store_url.split("://")[0] in message
    with pytest.raises(ProjectNotFound):
        agentr_dagster.scores("gone")  # deleted: no scores
    assert agentr_dagster.usage("gone").empty  # but its usage (none here) is still asked for, not refused
    with pytest.raises(ProjectNotFound):
        agentr_dagster.usage("no-such-review")


def test_import_stays_cheap():
    """`import agentr_dagster` loads neither pandas, the store nor Dagster: only calling does."""
    code = ("import sys, agentr_dagster; heavy = [m for m in ('pandas', 'sqlalchemy', 'dagster') if m in sys.modules];"
            " print(heavy)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO)
    assert out.stdout.strip() == "[]"
