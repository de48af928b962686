"""One run per project whoever starts it: real `agentr run` processes started at the same moment.

Each process is the real CLI (a subprocess of this interpreter, with this worktree first on PYTHONPATH) against
the scripted OpenAI-compatible server and a real store (SQLite file or PostgreSQL schema). The project lease
serialises the runs and the per-paper claims keep two workers off one cache key, so the provider sees one
scoring call per paper however many commands were started.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from decimal import Decimal
from pathlib import Path

import pytest

from agentr_dagster.store import DomainStore
from tests.servers import scripted_server  # noqa: F401
from tests.store_fixtures import *  # noqa: F403
from tests.test_recovery_support import (  # noqa: F401 (fast_home is a fixture)
    assert_ledger_reconciles,
    chain_responder,
    fast_home,
    llm_env,
    make_project,
    requests_per_title,
)

WORKTREE = str(Path(__file__).resolve().parents[1])


def _cli_env(env: dict) -> dict:
    """The code under test first on the path of every child process."""
    path = env.get("PYTHONPATH", "")
    return {**env, "PYTHONPATH": WORKTREE + (os.pathsep + path if path else "")}


def start_runs(slug: str, count: int, env: dict, logs: Path) -> list[tuple[subprocess.Popen, Path]]:
    procs = []
    for i in range(count):
        log = logs / f"run-{i}.log"
        with log.open("w") as out:
            procs.append((subprocess.Popen(
                [sys.executable, "-m", "agentr_dagster.cli", "run", slug, "--no-progress"],
                env=_cli_env(env), stdout=out, stderr=subprocess.STDOUT,
            ), log))
    return procs


def wait_all(procs, timeout: float = 150.0) -> list[tuple[int, str]]:
    deadline = time.monotonic() + timeout
    out = []
    for proc, log in procs:
        try:
            proc.wait(timeout=max(1.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        out.append((proc.returncode, log.read_text()))
    return out


@pytest.mark.usefixtures("fast_home")
@pytest.mark.parametrize("count", [2, 4])
def test_runs_started_together_call_the_model_once_per_paper(store_url, count, tmp_path, scripted_server,  # noqa: F811
                                                              monkeypatch):
    slug, n = "together", 16
    server = scripted_server(chain_responder, latency=0.3)
    store = DomainStore(store_url)
    store.set_pricing("scripted-model", Decimal("2.50"), Decimal("10.00"))
    store.ensure_account("default")
    make_project(store, tmp_path, slug, n)
    env = {**os.environ, **llm_env(monkeypatch, server, store, concurrency=4)}

    outcomes = wait_all(start_runs(slug, count, env, tmp_path))

    for code, log in outcomes:
        assert code == 0, log
    per_title = requests_per_title(server)
    assert len(per_title) == n and set(per_title.values()) == {1}, per_title
    score_usage = [u for u in store.usage(slug) if u.stage == "score"]
    assert len(score_usage) == n
    assert len({u.paper_id for u in score_usage}) == n
    # the single-artifact stages too: one intent and one queries call in all
    assert sum(1 for u in store.usage(slug) if u.stage in ("intent", "queries")) == 2
    # the commands that found the run in flight said that they waited for it
    assert sum("waiting for the run in flight" in log for _, log in outcomes) >= 1, [o[1] for o in outcomes]
    assert_ledger_reconciles(store)
    verify = subprocess.run([sys.executable, "-m", "agentr_dagster.cli", "ledger", "verify"], env=_cli_env(env),
                            capture_output=True, text=True, timeout=60)
    assert verify.returncode == 0, verify.stdout + verify.stderr
    # the exports of whichever run wrote last are whole, and no temporary file is left behind
    results = Path(env["AGENTR_HOME"]) / "results" / slug
    assert not [p for p in results.iterdir() if ".tmp" in p.name], list(results.iterdir())
    store.close()
