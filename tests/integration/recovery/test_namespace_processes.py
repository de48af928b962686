"""Issue 35: a run in another PID namespace with the same host name (a container with host networking), as real
processes: `agentr run` started under ``unshare --uts --pid --fork --mount-proc`` (its pid, inside, names no
process out here) and a second `agentr run` of the same project out here, both against the scripted server and
PostgreSQL.

- live: the holder in the other namespace keeps its lease while it beats, however dead its pid looks from here;
- frozen past the TTL (SIGSTOP): it is taken over, and the answers it had in flight are refused by the settlement
  fence when it wakes: each paper charged once, `agentr ledger verify` OK and naming the waste.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from agentr_dagster.cli import main
from agentr_dagster.store.leases import HOST, current_realm, pid_alive
from tests.integration.recovery.test_live_holders import _env, _poll, _priced_store, _scored, _start, _wait
from tests.support.polling import wait_for
from tests.support.recovery import assert_ledger_reconciles, chain_responder, llm_env, make_project, requests_per_title

TTL_S = 10.0  # above a few heartbeats (3 s apart), so that a loaded machine never makes a live holder look stale


def _free_pid() -> int:
    """A pid no process out here has: the other namespace's run gets it, so that from here it looks dead."""
    for pid in range(31000, 32000):
        if not Path(f"/proc/{pid}").exists() and not Path(f"/proc/{pid + 1}").exists():
            return pid + 1
    pytest.fail("no free pid in 31000-32000")


def _start_elsewhere(args: list[str], env: dict, log: Path, pid: int) -> subprocess.Popen:
    """`agentr <args>` in a new UTS and PID namespace (same host name, the same boot), as pid ``pid`` there."""
    inner = (f"echo {pid - 1} > /proc/sys/kernel/ns_last_pid; "
             + " ".join([sys.executable, "-m", "agentr_dagster.cli", *args]))
    with log.open("w") as out:
        return subprocess.Popen(["unshare", "--uts", "--pid", "--fork", "--mount-proc", "sh", "-c", inner],
                                env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)


def _unshare_works() -> None:
    probe = subprocess.run(["unshare", "--uts", "--pid", "--fork", "--mount-proc", "true"], capture_output=True)
    if probe.returncode != 0:
        pytest.fail(f"unshare is not available here (needs root): {probe.stderr.decode()}", pytrace=False)


@pytest.mark.usefixtures("fast_home")
def test_a_live_holder_in_another_pid_namespace_is_not_taken_over(pg_url, tmp_path, scripted_server, monkeypatch):
    _unshare_works()
    slug, n = "container-live", 30
    server = scripted_server(chain_responder, latency=2.0)  # scoring lasts longer than the second run's start + TTL
    store = _priced_store(pg_url)
    make_project(store, tmp_path, slug, n)
    env = _env({**os.environ, **llm_env(monkeypatch, server, store, concurrency=2)}, AGENTR_LEASE_TTL_S=str(TTL_S))
    log1, log2 = tmp_path / "elsewhere.log", tmp_path / "here.log"
    first = _start_elsewhere(["run", slug, "--no-progress"], env, log1, _free_pid())
    _poll(lambda: _scored(store, slug) >= 1, 120, "the other namespace's first score", first, log1)
    lease = store.leases.project_lease(slug)
    assert lease.host == HOST and lease.realm != current_realm() and not pid_alive(lease.pid)  # "dead" from here
    second = _start(["run", slug, "--no-progress"], env, log2)
    _poll(lambda: "waiting for the run in flight" in log2.read_text(), 180, "the second run waiting", second, log2)

    def scored_all_holding_the_lease() -> bool:  # while it scores, well past the TTL, it holds the lease
        current = store.leases.project_lease(slug)
        assert current is not None and current.holder == lease.holder, "a live holder in another namespace was replaced"
        return _scored(store, slug) >= n or first.poll() is not None

    wait_for(scored_all_holding_the_lease, "the other namespace's run scoring every paper", timeout=240, interval=0.2)
    code1, out1 = _wait(first, log1)
    code2, out2 = _wait(second, log2)
    assert code1 == 0 and "took the lease" not in out1, out1  # never lost its lease
    assert code2 == 0, out2
    per_title = requests_per_title(server)
    assert len(per_title) == n and set(per_title.values()) == {1}, per_title  # no paper asked twice
    assert len([u for u in store.ledger.usage(slug) if u.stage == "score"]) == n
    assert store.ledger.waste(slug) == []
    verify = CliRunner().invoke(main, ["ledger", "verify"], env=env)
    assert verify.exit_code == 0 and "operator waste: none" in verify.output, verify.output
    store.close()


@pytest.mark.usefixtures("fast_home")
def test_a_frozen_holder_in_another_namespace_is_taken_over_without_a_double_charge(pg_url, tmp_path,
                                                                                   scripted_server, monkeypatch):
    _unshare_works()
    slug, n = "container-frozen", 12
    server = scripted_server(chain_responder, latency=1.0)
    store = _priced_store(pg_url)
    make_project(store, tmp_path, slug, n)
    env = _env({**os.environ, **llm_env(monkeypatch, server, store, concurrency=2)}, AGENTR_LEASE_TTL_S=str(TTL_S))
    log1, log2 = tmp_path / "elsewhere.log", tmp_path / "here.log"
    first = _start_elsewhere(["run", slug, "--no-progress"], env, log1, _free_pid())
    _poll(lambda: _scored(store, slug) >= 2 and server.in_flight == 2, 120, "the first run's calls in flight",
          first, log1)
    os.killpg(first.pid, signal.SIGSTOP)  # a VM pause, a debugger: frozen with two calls at the endpoint
    try:
        frozen = store.leases.project_lease(slug)
        second = _start(["run", slug, "--no-progress"], env, log2)
        code2, out2 = _wait(second, log2, timeout=240)
        assert code2 == 0, out2
        assert store.leases.project_lease(slug) is None or store.leases.project_lease(slug).holder != frozen.holder
    finally:
        os.killpg(first.pid, signal.SIGCONT)
    code1, out1 = _wait(first, log1)  # it wakes, reads its late answers, finds its claims gone and stops
    score_charges = [u for u in store.ledger.usage(slug) if u.stage == "score"]
    assert len(score_charges) == n and len({u.paper_id for u in score_charges}) == n, out1  # each paper once
    late = [w for w in store.ledger.waste(slug) if w.cause == "fenced_late_answer"]
    assert late, (out1, store.ledger.waste(slug))
    asked = requests_per_title(server)
    assert sum(asked.values()) == n + len(late)  # every extra call the endpoint served is a waste row
    assert_ledger_reconciles(store)
    verify = CliRunner().invoke(main, ["ledger", "verify"], env=env)
    assert verify.exit_code == 0, verify.output
    assert "ledger verify: OK" in verify.output and f"fenced_late_answer {len(late)}" in verify.output
    store.close()
