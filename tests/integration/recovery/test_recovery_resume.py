"""Resume after a killed process and after lost Dagster storage, and the gated repair schedule.

The crash test runs the real `agentr run` in a subprocess against a real OpenAI-compatible server with latency,
SIGKILLs it half-way, and lets `agentr resume` finish. The storage-loss test wipes DAGSTER_HOME after a partial
run and lets `agentr resume --all` rebuild every incomplete project from the domain store alone.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from collections import Counter
from datetime import datetime, timedelta, timezone
from decimal import Decimal
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner
from dagster import DagsterInstance, DagsterRunStatus, build_schedule_context
from dagster._core.test_utils import create_run_for_test

from agentr_dagster.cli import main
from agentr_dagster.defs.recovery import open_instance, partition_runs
from agentr_dagster.defs.resources import StoreResource
from agentr_dagster.defs.schedules import REPAIR_TAG, repair_requests, repair_schedule
from agentr_dagster.domain import failures as st
from agentr_dagster.settings import dagster_home, results_dir
from agentr_dagster.stages.staleness import project_gap
from agentr_dagster.store import DomainStore
from agentr_dagster.testing.scripted_server import Fault
from tests.support.polling import wait_for
from tests.support.recovery import (
    assert_ledger_reconciles,
    billable_calls,
    chain_responder,
    llm,
    llm_env,
    make_project,
    run_chain,
    served,
    stage_name,
)


def agentr(*args: str, env: dict | None = None):
    return CliRunner().invoke(main, list(args), env=env, catch_exceptions=False)


def _usage_per_paper(store, slug: str) -> dict[int, int]:
    counts: dict[int, int] = {}
    for row in store.ledger.usage(slug):
        if row.stage == "score":
            counts[row.paper_id] = counts.get(row.paper_id, 0) + 1
    return counts


@pytest.mark.usefixtures("fast_home")
def test_sigkilled_run_is_resumed_without_losing_or_double_charging(sqlite_url, tmp_path, scripted_server,  # noqa: F811
                                                                    monkeypatch):
    slug, n = "crash", 24
    server = scripted_server(chain_responder, latency=0.15)
    store = DomainStore(sqlite_url)
    store.ledger.set_pricing("scripted-model", Decimal("2.50"), Decimal("10.00"))
    store.ledger.ensure_account("default")
    make_project(store, tmp_path, slug, n)
    env = {**os.environ, **llm_env(monkeypatch, server, store, concurrency=2)}
    log = (tmp_path / "run.log").open("w")
    proc = subprocess.Popen([sys.executable, "-m", "agentr_dagster.cli", "run", slug, "--no-progress"],
                            env=env, stdout=log, stderr=subprocess.STDOUT)
    # Kill it a third of the way through, while a call is in flight (a reservation is open).
    def a_third_done_and_a_call_in_flight() -> bool:
        assert proc.poll() is None, (tmp_path / "run.log").read_text()
        return len(store.results.results_for_project(slug)) >= n // 3 and bool(store.ledger.open_reservations())

    wait_for(a_third_done_and_a_call_in_flight, "a third of the papers scored with a call in flight", timeout=120,
             interval=0.02)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    log.close()

    before = {r.paper_id for r in store.results.results_for_project(slug)}
    assert n // 3 <= len(before) < n
    instance = open_instance()
    [killed] = partition_runs(instance, slug)
    assert killed.status == DagsterRunStatus.STARTED  # Dagster still believes it is running
    held = len(store.ledger.open_reservations())
    instance.dispose()

    result = agentr("resume", slug, env=env)

    assert result.exit_code == 0, result.output
    assert "interrupted run" in result.output and "re-executed" in result.output
    [interrupted] = [f for f in store.lifecycle.failures(slug) if f.stage == "project"]
    assert interrupted.run_id == killed.run_id and interrupted.step_key == "paper_scores"
    instance = open_instance()
    child, parent = partition_runs(instance, slug)[:2]
    assert parent.run_id == killed.run_id and parent.status == DagsterRunStatus.FAILURE
    assert child.status == DagsterRunStatus.SUCCESS and child.parent_run_id == killed.run_id
    assert child.tags["dagster/partition"] == slug and child.tags["agentr/source"] == "cli"
    # Every paper scored, each exactly one stored result; the ones stored before the kill were not asked again.
    papers = store.projects.list_papers(slug)
    assert sorted(r.paper_id for r in store.results.results_for_project(slug)) == sorted(p.id for p in papers)
    answers = served(server)
    assert all(answers[p.title.strip()] == 1 for p in papers if p.id in before)
    # Nothing charged twice: per paper, charged calls <= answered calls; the difference is only calls the killed
    # process had in flight (answered but never settled: their reservations were released, not charged).
    usage = _usage_per_paper(store, slug)
    assert all(usage.get(p.id, 0) <= answers[p.title.strip()] for p in papers)
    lost = sum(answers.values()) - sum(usage.values())
    assert 0 <= lost <= 2
    assert len(store.ledger.usage(slug)) <= billable_calls(server)
    assert_ledger_reconciles(store)
    released = [e for e in store.ledger.ledger() if e.kind == "release" and "resume" in (e.note or "")]
    assert len(released) == held  # the killed process's reservations were given back, not charged
    assert set(store.lifecycle.paper_states(slug, "score").values()) == {st.COMPLETED}
    assert len(pd.read_csv(results_dir(slug) / "scores.csv")) == n
    assert project_gap(store, slug).complete
    # Resuming a complete project is a no-op: no run, no call.
    calls = server.calls
    again = agentr("resume", slug, env=env)
    assert again.exit_code == 0 and f"{slug}: complete" in again.output and server.calls == calls
    instance.dispose()
    store.close()


@pytest.mark.usefixtures("fast_home")
def test_resume_all_rebuilds_from_the_domain_store_after_dagster_storage_is_lost(  # noqa: F811
    pg_store, tmp_path, scripted_server, monkeypatch  # noqa: F811
):
    store = pg_store
    refused = {"after": 8}
    scored = {"n": 0}

    def faults(index: int, body: dict):
        if stage_name(body) != "score":
            return None
        scored["n"] += 1
        return Fault("status", status=401) if scored["n"] > refused["after"] else None

    server = scripted_server(chain_responder, faults=faults)
    store.ledger.set_pricing("scripted-model", Decimal("2.50"), Decimal("10.00"))
    make_project(store, tmp_path, "partial", 20)
    make_project(store, tmp_path, "done", 5, offset=20)
    make_project(store, tmp_path, "fresh", 5, offset=25)
    make_project(store, tmp_path, "gone", 5, offset=30)
    instance = open_instance()
    refused["after"] = 10**6
    assert run_chain(store, "done", llm(server, concurrency=1), instance).success
    refused["after"] = scored["n"] + 8
    assert not run_chain(store, "partial", llm(server, concurrency=1), instance).success
    store.projects.soft_delete_project("gone")
    assert len(store.results.results_for_project("partial")) == 8
    instance.dispose()
    shutil.rmtree(dagster_home())  # Dagster's run storage, event log and partitions: gone

    refused["after"] = 10**6  # the key is fixed
    env = llm_env(monkeypatch, server, store)
    calls = server.calls
    result = agentr("resume", "--all", env=env)

    assert result.exit_code == 0, result.output
    lines = {line.split(":")[0]: line for line in result.output.splitlines()}
    assert "launched" in lines["partial"] and "launched" in lines["fresh"]
    assert lines["done"] == "done: complete" and "gone" not in lines  # a deleted project is never resumed
    for slug in ("partial", "fresh", "done"):
        assert project_gap(store, slug).complete, slug
    # Only what was missing was called for: 12 papers of 'partial' and 5 of 'fresh' (whose intent and queries
    # requests are the same as the other projects', so the response cache answers them without a call).
    asked = Counter(stage_name(b) for b in server.requests[calls:])
    assert asked["score"] == 12 + 5 and asked["intent"] == asked["queries"] == 0
    answers = served(server)
    for slug in ("partial", "fresh", "done"):
        assert all(answers[p.title.strip()] == 1 for p in store.projects.list_papers(slug)), slug
    assert len(store.ledger.usage()) == billable_calls(server)
    assert_ledger_reconciles(store)
    instance = open_instance()
    assert set(instance.get_dynamic_partitions("projects")) >= {"partial", "fresh"}
    for slug in ("partial", "fresh"):
        [run] = partition_runs(instance, slug)
        assert run.status == DagsterRunStatus.SUCCESS and run.tags["agentr/resume"] == "store"
    assert partition_runs(instance, "done") == [] and partition_runs(instance, "gone") == []
    instance.dispose()


def _failed_repair_run(instance: DagsterInstance, slug: str) -> None:
    run = create_run_for_test(instance, job_name="project_pipeline",
                              tags={"dagster/partition": slug, REPAIR_TAG: "schedule"})
    instance.report_run_failed(run)


@pytest.mark.usefixtures("fast_home")
def test_repair_schedule_is_gated_and_counts_attempts_durably(sqlite_store, tmp_path, monkeypatch):
    store = sqlite_store
    for slug in ("flaky", "needs-key", "broke", "busy", "gone"):
        make_project(store, tmp_path, slug, 2, offset=len(store.projects.list_projects(include_deleted=True)) * 2)
    store.lifecycle.set_status("flaky", "intent", st.FAILED_TRANSIENT)
    store.lifecycle.set_status("needs-key", "intent", st.FAILED_OTHER)
    store.lifecycle.set_status("broke", "intent", st.FAILED_NO_CREDITS)
    store.projects.soft_delete_project("gone")
    store.ledger.ensure_account("default")
    store.ledger.adjust("default", -store.ledger.balance("default"), note="test: empty")
    instance = open_instance()
    instance.add_dynamic_partitions("projects", ["gone"])  # deleted in the store, still a partition in Dagster
    create_run_for_test(instance, job_name="project_pipeline", status=DagsterRunStatus.STARTED,
                        tags={"dagster/partition": "busy"})  # started a moment ago: presumed live
    now = datetime.now(timezone.utc)

    requests, lines = repair_requests(store, instance, now, limit=2, uses_llm=True)
    assert [r.partition_key for r in requests] == ["flaky"]
    assert requests[0].tags[REPAIR_TAG] == "schedule" and requests[0].tags["agentr/repair_attempt"] == "1"
    said = {line.split(":")[0]: line for line in lines}
    assert "needs a person" in said["needs-key"] and "top-up" in said["broke"]
    assert "queued or running" in said["busy"] and "deleted" in said["gone"]
    assert instance.has_dynamic_partition("projects", "flaky")  # restored for the run request

    # Two failed repair runs today use up the day's budget; tomorrow it starts again.
    _failed_repair_run(instance, "flaky")
    assert repair_requests(store, instance, now, limit=2, uses_llm=True)[0][0].tags["agentr/repair_attempt"] == "2"
    _failed_repair_run(instance, "flaky")
    requests, lines = repair_requests(store, instance, now, limit=2, uses_llm=True)
    assert requests == [] and any("2 repair runs today already" in line for line in lines)
    assert [r.partition_key for r in repair_requests(store, instance, now + timedelta(days=1), limit=2,
                                                     uses_llm=True)[0]] == ["flaky"]

    # A top-up makes the out-of-credits project repairable; the schedule itself evaluates the same way.
    store.ledger.grant("default", Decimal("100"), note="top-up")
    monkeypatch.setenv("AGENTR_REPAIR_MAX_PER_DAY", "2")
    monkeypatch.setenv("AGENTR_LLM_BASE_URL", "http://127.0.0.1:9/v1")  # an LLM backend: credits matter
    context = build_schedule_context(instance=instance, scheduled_execution_time=now,
                                     resources={"store": StoreResource(database_url=store.url)})
    result = repair_schedule(context)
    assert [r.partition_key for r in result] == ["broke"]
    instance.dispose()


@pytest.mark.usefixtures("fast_home")
def test_resume_cli_runs_a_never_run_project_offline_and_reports_json(sqlite_store, tmp_path, monkeypatch):
    monkeypatch.setenv("AGENTR_DATABASE_URL", sqlite_store.url)
    make_project(sqlite_store, tmp_path, "never-run", 5)
    assert agentr("resume").exit_code == 2  # a slug or --all

    first = agentr("resume", "never-run", "--json")

    assert first.exit_code == 0, first.output
    [outcome] = json.loads(first.output)
    assert outcome["action"] == "launched" and outcome["success"] and outcome["papers_missing_before"] == 5
    assert outcome["stages_before"][:3] == ["intent", "queries", "score"]
    assert project_gap(sqlite_store, "never-run").complete
    [again] = json.loads(agentr("resume", "never-run", "--json").output)
    assert again["action"] == "complete" and again["run_ids"] == []


def test_pid_liveness_sees_through_zombies():
    from agentr_dagster.store.leases import pid_alive

    assert pid_alive(os.getpid())
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    wait_for(lambda: Path(f"/proc/{child.pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z",
             "the child a zombie (exited, not reaped)", timeout=30)
    assert not pid_alive(child.pid)  # exited, not yet reaped
    child.wait()
    assert not pid_alive(child.pid)


def test_code_location_carries_the_repair_schedule_stopped():
    from dagster import DefaultScheduleStatus

    from agentr_dagster.definitions import defs

    schedule = defs.resolve_schedule_def("repair_schedule")
    assert schedule.default_status == DefaultScheduleStatus.STOPPED and schedule.job_name == "project_pipeline"
