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
from click.testing import CliRunner

from agentr_dagster.cli import main
from agentr_dagster.store import DomainStore
from tests.support import REPO, dead_pid
from tests.support.polling import wait_for
from tests.support.recovery import (
    assert_ledger_reconciles,
    chain_responder,
    llm_env,
    make_project,
    requests_per_title,
)

WORKTREE = str(REPO)


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
@pytest.mark.parametrize(("backend", "count"), [("sqlite", 2), ("postgresql", 4)])
def test_runs_started_together_call_the_model_once_per_paper(backend, count, request, tmp_path,
                                                              scripted_server, monkeypatch):  # noqa: F811
    slug, n = "together", 16
    server = scripted_server(chain_responder, latency=0.1)
    store = DomainStore(request.getfixturevalue("sqlite_url" if backend == "sqlite" else "pg_url"))
    store.ledger.set_pricing("scripted-model", Decimal("2.50"), Decimal("10.00"))
    store.ledger.ensure_account("default")
    make_project(store, tmp_path, slug, n)
    env = {**os.environ, **llm_env(monkeypatch, server, store, concurrency=4)}

    outcomes = wait_all(start_runs(slug, count, env, tmp_path))

    for code, log in outcomes:
        assert code == 0, log
    per_title = requests_per_title(server)
    assert len(per_title) == n and set(per_title.values()) == {1}, per_title
    score_usage = [u for u in store.ledger.usage(slug) if u.stage == "score"]
    assert len(score_usage) == n
    assert len({u.paper_id for u in score_usage}) == n
    # the single-artifact stages too: one intent and one queries call in all
    assert sum(1 for u in store.ledger.usage(slug) if u.stage in ("intent", "queries")) == 2
    # the commands that found the run in flight said that they waited for it
    assert sum("waiting for the run in flight" in log for _, log in outcomes) >= 1, [o[1] for o in outcomes]
    assert_ledger_reconciles(store)
    verify = CliRunner().invoke(main, ["ledger", "verify"], env=env)
    assert verify.exit_code == 0, verify.output
    # the exports of whichever run wrote last are whole, and no temporary file is left behind
    results = Path(env["AGENTR_HOME"]) / "results" / slug
    assert not [p for p in results.iterdir() if ".tmp" in p.name], list(results.iterdir())
    store.close()


def test_lease_is_taken_over_only_from_a_gone_holder(store, tmp_path):  # noqa: F811
    import sqlalchemy as sa

    from agentr_dagster.store import schema as t
    from agentr_dagster.store.leases import HOST, Heartbeat, new_holder

    make_project(store, tmp_path, "leased", 2)
    a, b = new_holder("a"), new_holder("b")
    beat = Heartbeat(store, a)  # a holder of this process is live while it beats
    assert store.leases.try_acquire_project_lease("leased", a) == (True, None)
    assert store.leases.try_acquire_project_lease("leased", a)[0]  # its own lease: re-entered
    taken, current = store.leases.try_acquire_project_lease("leased", b)
    assert not taken and current.holder == a  # a live holder (this process) keeps it
    with store.engine.begin() as conn:  # the holder becomes a process of this host that has exited
        conn.execute(sa.update(t.project_leases).values(pid=dead_pid()))
    assert store.leases.try_acquire_project_lease("leased", b) == (True, None)
    assert store.leases.project_lease("leased").holder == b
    with store.engine.begin() as conn:  # a holder on another host: gone only once its heartbeat is stale
        conn.execute(sa.update(t.project_leases).values(host=HOST + "-elsewhere", pid=1))
    assert not store.leases.try_acquire_project_lease("leased", a, ttl_s=60)[0]
    assert store.leases.try_acquire_project_lease("leased", a, ttl_s=0)[0]
    assert not store.leases.release_project_lease("leased", b) and store.leases.release_project_lease("leased", a)
    assert store.leases.project_lease("leased") is None
    # a holder of this very process that stopped beating (it lost the database while letting go) is gone
    assert store.leases.try_acquire_project_lease("leased", a)[0]
    beat.stop()
    assert store.leases.try_acquire_project_lease("leased", b)[0]


def test_a_claimed_paper_is_not_claimed_by_another_live_worker(store, tmp_path):  # noqa: F811
    import sqlalchemy as sa

    from agentr_dagster.store import schema as t
    from agentr_dagster.store.leases import Heartbeat, new_holder

    make_project(store, tmp_path, "claims", 3)
    p1, p2, p3 = (p.id for p in store.projects.list_papers("claims"))
    a, b = new_holder("a"), new_holder("b")
    beat = Heartbeat(store, a)
    assert store.leases.claim_papers("claims", a, [(p1, "k1"), (p2, "k2")]) == {"k1", "k2"}
    assert store.leases.claim_papers("claims", b, [(p1, "k1"), (p2, "k2"), (p3, "k3")]) == {"k3"}
    store.leases.release_claims(a, ["k1"])
    assert store.leases.claim_papers("claims", b, [(p1, "k1"), (p2, "k2")]) == {"k1"}
    with store.engine.begin() as conn:  # a's process dies holding k2
        conn.execute(sa.update(t.paper_claims).where(t.paper_claims.c.holder == a).values(pid=dead_pid()))
    assert store.leases.claim_papers("claims", b, [(p2, "k2")]) == {"k2"}
    assert store.leases.release_claims(b) == 3
    beat.stop()


@pytest.mark.usefixtures("fast_home")
def test_a_cli_run_beside_a_dagster_launched_run_calls_once_per_paper(pg_url, tmp_path, scripted_server,  # noqa: F811
                                                                      monkeypatch):
    """A run launched by Dagster itself (the UI, a sensor, a schedule: no lease tag) and `agentr run` at once:
    the steps of whichever comes second wait for the project's lease inside the step."""
    from dagster import DagsterInstance

    from tests.support.recovery import llm, run_chain

    slug, n = "beside", 12
    server = scripted_server(chain_responder, latency=0.3)
    store = DomainStore(pg_url)
    store.ledger.set_pricing("scripted-model", Decimal("2.50"), Decimal("10.00"))
    make_project(store, tmp_path, slug, n)
    env = {**os.environ, **llm_env(monkeypatch, server, store, concurrency=4)}
    procs = start_runs(slug, 1, env, tmp_path)
    def cli_run_holds_the_lease() -> bool:  # the CLI's run is in flight: now the UI launches one
        assert procs[0][0].poll() is None, procs[0][1].read_text()
        return store.leases.project_lease(slug) is not None

    wait_for(cli_run_holds_the_lease, "the CLI run holding the project's lease", interval=0.05)
    instance = DagsterInstance.ephemeral()
    launched = run_chain(store, slug, llm(server, concurrency=4), instance, tags={"agentr/source": "ui"})
    [(code, log)] = wait_all(procs)

    assert code == 0, log
    assert launched.success
    waited = [e for e in instance.all_logs(launched.run_id) if "waiting for the run in flight" in e.user_message]
    assert waited, "the launched run's step did not wait for the CLI's run"
    per_title = requests_per_title(server)
    assert len(per_title) == n and set(per_title.values()) == {1}, per_title
    assert len([u for u in store.ledger.usage(slug) if u.stage == "score"]) == n
    assert sum(1 for u in store.ledger.usage(slug) if u.stage in ("intent", "queries")) == 2
    assert_ledger_reconciles(store)
    assert store.ledger.verify_ledger().ok
    store.close()
