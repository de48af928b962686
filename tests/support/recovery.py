"""Shared helpers for the recovery tests (fault plans, per-paper call accounting, ledger checks). No tests here."""

from __future__ import annotations

import re
import shutil
import tempfile
import threading
import time
from collections import Counter, defaultdict
from decimal import Decimal
from pathlib import Path

import pandas as pd
import pytest
from dagster import DagsterInstance, materialize

from agentr_dagster.defs.assets import project_assets
from agentr_dagster.defs.resources import LLMResource, SourcesResource, StoreResource
from agentr_dagster.stages.intake import add_papers_file, add_project
from agentr_dagster.testing.responders import stage_of, valid_responder
from agentr_dagster.testing.scripted_server import Fault
from tests.support import DEMO

ABSTRACT = (DEMO / "abstract.md").read_text()
MODEL = "scripted-model"
API_KEY = "sk-test-not-a-real-key"
# Fault kinds after which the client holds a completion with usage: a real, billable call.
BILLABLE = {"ok", "latency", "invalid_json", "schema_violation"}
_TITLE = re.compile(r"Title: (.*)")


@pytest.fixture
def fast_home(monkeypatch, tmp_path):
    """AGENTR_HOME (so Dagster's SQLite run storage) on tmpfs when there is one: the event log fsyncs every event,
    which dominates these tests on a slow virtual disk. Durability against power loss is not under test here."""
    base = Path("/dev/shm")
    home = Path(tempfile.mkdtemp(prefix="agentr-test-", dir=base)) if base.is_dir() else tmp_path / "home"
    monkeypatch.setenv("AGENTR_HOME", str(home))
    yield home
    shutil.rmtree(home, ignore_errors=True)


def llm(server, **settings) -> LLMResource:
    """The LLM resource with a short in-process backoff, so fault tests stay fast."""
    return LLMResource(base_url=server.base_url, api_key=API_KEY,
                       settings={"model": MODEL, "backoff_base_s": 0.01, "backoff_max_s": 2.0, **settings})


def llm_env(monkeypatch, server, store=None, concurrency: int = 4) -> dict[str, str]:
    """The environment `agentr` (and the resume job's resources) read: same server, same store."""
    env = {"AGENTR_LLM_BASE_URL": server.base_url, "AGENTR_LLM_MODEL": MODEL, "AGENTR_LLM_API_KEY": API_KEY,
           "AGENTR_LLM_CONCURRENCY": str(concurrency)}
    if store is not None:
        env["AGENTR_DATABASE_URL"] = store.url
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    return env


def make_project(store, tmp_path: Path, slug: str, n: int = 20, offset: int = 0) -> None:
    add_project(store, slug, ABSTRACT)
    path = tmp_path / f"{slug}.csv"
    pd.read_csv(DEMO / "papers.csv").iloc[offset : offset + n].to_csv(path, index=False)
    assert add_papers_file(store, slug, path).added == n


def run_chain(store, slug: str, resource: LLMResource, instance: DagsterInstance, tags=None):
    if not instance.has_dynamic_partition("projects", slug):
        instance.add_dynamic_partitions("projects", [slug])
    return materialize(
        project_assets, partition_key=slug, instance=instance, raise_on_error=False,
        resources={"store": StoreResource(database_url=store.url), "llm": resource,
                   "sources": SourcesResource()}, tags=tags or {},
        run_config={"loggers": {"console": {"config": {"log_level": "CRITICAL"}}}},
    )


def stage_name(body: dict) -> str:
    """The stage a request belongs to (scoring chain or related-work rewrite), or 'other'."""
    try:
        return stage_of(body)
    except ValueError:
        return "other"


# Schema-valid answers for every LLM stage of the chain, related-work rewrites included.
chain_responder = valid_responder


def title_of(body: dict) -> str:
    user = next((m["content"] for m in body.get("messages", []) if m.get("role") == "user"), "")
    match = _TITLE.search(user)
    return match.group(1).strip() if match else ""


def key_of(body: dict) -> tuple[str, str]:
    stage = stage_name(body)
    return stage, title_of(body) if stage == "score" else ""


class FaultPlan:
    """Callable fault plan: ``fault_for(stage, title, attempt_no)`` decides; arrival times are recorded."""

    def __init__(self, fault_for):
        self.fault_for = fault_for
        self.seen: Counter = Counter()
        self.times: dict[tuple[str, str], list[float]] = defaultdict(list)
        self._lock = threading.Lock()

    def __call__(self, index: int, body: dict) -> Fault | None:
        key = key_of(body)
        with self._lock:
            self.seen[key] += 1
            self.times[key].append(time.monotonic())
            attempt = self.seen[key]
        return self.fault_for(key[0], key[1], attempt)


def first_attempt(fault: Fault, stages=("intent", "score")) -> FaultPlan:
    return FaultPlan(lambda stage, title, attempt: fault if stage in stages and attempt == 1 else None)


def served(server, stage: str = "score") -> Counter:
    """Valid answers the server gave, per paper title (what 'scored' means at the provider)."""
    counts: Counter = Counter()
    for body, fault in zip(server.requests, server.faults_applied, strict=True):
        if fault.kind in ("ok", "latency") and stage_name(body) == stage:
            counts[title_of(body)] += 1
    return counts


def requests_per_title(server, stage: str = "score") -> Counter:
    return Counter(title_of(b) for b in server.requests if stage_name(b) == stage)


def billable_calls(server) -> int:
    return sum(1 for f in server.faults_applied if f.kind in BILLABLE)


def step_retries(result) -> int:
    return sum(1 for e in result.all_events if e.event_type_value == "STEP_UP_FOR_RETRY")


def assert_ledger_reconciles(store, account: str = "default") -> None:
    assert store.ledger.open_reservations() == [], "a reservation was left open"
    assert store.ledger.balance(account) == store.ledger.ledger_sum(account), "balance != sum of ledger entries"
    assert store.ledger.balance(account) >= 0


def assert_scored_once(store, slug: str, server) -> None:
    """One stored result per live paper, and the provider gave exactly one valid answer per paper."""
    papers = store.projects.list_papers(slug)
    results = store.results.results_for_project(slug)
    assert sorted(r.paper_id for r in results) == sorted(p.id for p in papers), "a paper has no score"
    answers = served(server)
    assert {p.title.strip(): answers.get(p.title.strip(), 0) for p in papers} == {p.title.strip(): 1 for p in papers}


def assert_charged_per_call(store, server, slug: str | None = None) -> None:
    """Every call that returned a completion has exactly one usage row (and none without a call)."""
    assert len(store.ledger.usage(slug)) == billable_calls(server)
    settles = [e for e in store.ledger.ledger() if e.kind == "settle"]
    assert len(settles) == len({e.reservation_id for e in settles}) == len(store.ledger.usage(slug))


def spent(store, slug: str | None = None) -> Decimal:
    return sum((Decimal(r.credits) for r in store.ledger.usage(slug)), Decimal(0))
