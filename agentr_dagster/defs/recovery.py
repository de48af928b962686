"""Resume anything that did not finish, from Dagster's run storage when it has the run and from the domain store
alone when it does not.

Order per project (``resume_project``):
0. a project whose lease a live holder has (a run from any Dagster home, or none: the lease is in the domain store)
   is left alone, and nothing of it is released (``store.leases.live_lease``);
1. a deleted project is an orphan: its open reservations are released and nothing runs;
2. a run still alive for the partition (queued, or started by a process that still exists) is left alone;
3. a started run whose process is gone (SIGKILL, OOM, reboot) is marked failed in Dagster, and the domain states it
   left behind (``in_progress``/``queued``) become ``reinitiated`` (or ``completed`` for a paper whose score was
   stored before the kill), so no state claims work that nobody is doing;
4. the project's open reservations are released (no live process can settle them) before anything runs again;
5. the latest failed run is re-executed from failure (same partition and tags, ``dagster/parent_run_id``), via
   ``ReexecutionOptions.from_failure`` + ``execute_job`` on a reconstructable job;
6. whatever the domain store still says is incomplete (no run in Dagster at all, storage wiped, re-execution
   had nothing to retry) gets a fresh run of the whole chain. Stages skip work whose durable output matches, so
   a fresh run only pays for what is missing.

What the store says (steps 1, 3's state corrections, 6: orphan, complete, no credits, which stages and papers are
missing) is decided in ``stages/staleness.py`` (``resume_verdict``, ``settle_interrupted_run``, ``project_gap``);
this module judges runs alive or gone from Dagster's run storage and re-executes or launches them.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from dagster import (
    DagsterEventType,
    DagsterInstance,
    DagsterRun,
    DagsterRunStatus,
    Definitions,
    FilesystemIOManager,
    JobDefinition,
    ReexecutionOptions,
    RunsFilter,
    build_reconstructable_job,
    execute_job,
    in_process_executor,
)

from agentr_dagster.defs.assets import pipeline_assets
from agentr_dagster.defs.instance import ensure_partition, open_instance
from agentr_dagster.defs.jobs import pipeline_job
from agentr_dagster.defs.partitions import PARTITION_TAG, PIPELINE_JOB, RESUME_TAG
from agentr_dagster.defs.resources import resources_from_env
from agentr_dagster.settings import get_settings
from agentr_dagster.stages.staleness import (
    configured_model,
    project_gap,
    release_project_reservations,
    resume_verdict,
    settle_interrupted_run,
)
from agentr_dagster.store.leases import pid_alive

if TYPE_CHECKING:
    from agentr_dagster.store import DomainStore

WAITING = (DagsterRunStatus.QUEUED, DagsterRunStatus.NOT_STARTED)
RUNNING = (DagsterRunStatus.STARTING, DagsterRunStatus.STARTED, DagsterRunStatus.CANCELING)
IN_FLIGHT = [*WAITING, *RUNNING]  # a run of the partition that is queued or under way (alive or not)
RESUMABLE = (DagsterRunStatus.FAILURE, DagsterRunStatus.CANCELED)
QUIET = {"loggers": {"console": {"config": {"log_level": "WARNING"}}}}


# ---------------------------------------------------------------- the job resume runs
def recovery_job() -> JobDefinition:
    """The project chain as a reconstructable job (see ``reconstructable_recovery_job``).

    In-process executor: one process per run, scoring concurrency comes from threads inside ``paper_scores``.
    The fs IO manager makes re-execution from failure legal (the assets pass nothing between them; Dagster
    only requires a persistent IO manager on the boundary)."""
    resources = {**resources_from_env(), "io_manager": FilesystemIOManager()}
    job = pipeline_job(in_process_executor)
    return Definitions(assets=pipeline_assets, jobs=[job], resources=resources).resolve_job_def(PIPELINE_JOB)


def recovery_job_for(env_fingerprint: str = "") -> JobDefinition:
    """``recovery_job`` under a pointer that names the configuration it was built for: Dagster caches a
    reconstructed job per pointer, and resources come from AGENTR_* variables, so a process that resumes under a
    changed environment must not get a job built for the old one. The fingerprint is a hash (no secrets)."""
    return recovery_job()


def env_fingerprint() -> str:
    return get_settings().fingerprint()


def reconstructable_recovery_job():
    return build_reconstructable_job(
        "agentr_dagster.defs.recovery", "recovery_job_for",
        reconstructable_kwargs={"env_fingerprint": env_fingerprint()},
    )


def job_step_keys() -> set[str]:
    return {node.name for node in recovery_job().nodes}


# ---------------------------------------------------------------- Dagster runs: alive or gone
def partition_runs(instance: DagsterInstance, slug: str, statuses=None, limit: int | None = None) -> list[DagsterRun]:
    """Runs of the partition (optionally only in these statuses), newest first."""
    return list(instance.get_runs(RunsFilter(tags={PARTITION_TAG: slug}, statuses=list(statuses or [])),
                                  limit=limit))


def run_pids(instance: DagsterInstance, run_id: str) -> set[int]:
    """Every process that wrote an event for the run (the run worker and, with multiprocess, step workers)."""
    return {
        e.dagster_event.pid
        for e in instance.all_logs(run_id)
        if e.dagster_event is not None and e.dagster_event.pid is not None
    }


def run_is_live(instance: DagsterInstance, run: DagsterRun, stale_after: float) -> bool:
    """Queued runs belong to the daemon; a started run is live while any process that ran it exists.

    Liveness is judged by local process ids, which holds for the CLI and the default run launcher on this host.
    A started run with no process recorded is only declared gone after ``stale_after`` seconds of silence."""
    if run.status in WAITING:
        return True
    if run.status not in RUNNING:
        return False
    pids = run_pids(instance, run.run_id)
    if pids:
        return any(pid_alive(pid) for pid in pids)
    record = instance.get_run_record_by_id(run.run_id)
    updated = record.update_timestamp.timestamp() if record and record.update_timestamp else time.time()
    return time.time() - updated < stale_after


def steps_to_retry(instance: DagsterInstance, run: DagsterRun) -> list[str]:
    """Steps of a failed run that did not succeed (what ``from_failure`` will execute)."""
    if not run.execution_plan_snapshot_id:
        return []
    plan = instance.get_execution_plan_snapshot(run.execution_plan_snapshot_id)
    succeeded = {
        r.event_log_entry.step_key
        for r in instance.get_records_for_run(run.run_id, of_type=DagsterEventType.STEP_SUCCESS).records
    }
    return [key for key in plan.step_keys_to_execute if key not in succeeded]


def steps_in_flight(instance: DagsterInstance, run: DagsterRun) -> list[str]:
    """Steps that started and never finished (what a killed process was doing)."""

    def keys(event_type: DagsterEventType) -> set[str]:
        records = instance.get_records_for_run(run.run_id, of_type=event_type).records
        return {r.event_log_entry.step_key for r in records if r.event_log_entry.step_key}

    finished = keys(DagsterEventType.STEP_SUCCESS) | keys(DagsterEventType.STEP_FAILURE)
    return sorted(keys(DagsterEventType.STEP_START) - finished)


# ---------------------------------------------------------------- resume
@dataclass
class ResumeOutcome:
    slug: str
    action: str  # complete | reexecuted | launched | running | orphan | no_credits | failed
    success: bool
    parent_run_id: str | None = None
    run_ids: list[str] = field(default_factory=list)
    interrupted_runs: list[str] = field(default_factory=list)
    released_reservations: int = 0
    stages_before: list[str] = field(default_factory=list)
    papers_missing_before: int = 0
    papers_missing_after: int = 0
    message: str = ""
    seconds: float = 0.0


def mark_interrupted(store: DomainStore, instance: DagsterInstance, run: DagsterRun, slug: str, model: str) -> None:
    """A started run whose processes are gone: fail it in Dagster, then let the store record it and correct the
    states it left (``staleness.settle_interrupted_run``: stored scores are kept, the rest runs again)."""
    instance.report_run_failed(
        run, message="agentr resume: every process that ran this run is gone (killed or crashed); marked failed"
    )
    settle_interrupted_run(store, slug, run.run_id, ",".join(steps_in_flight(instance, run)) or None, model)


def _resume_tags(parent: DagsterRun | None, slug: str, how: str) -> dict[str, str]:
    # Re-execution from Python does not copy the parent's tags: keep the user's, set the partition ourselves.
    tags = {k: v for k, v in (parent.tags if parent else {}).items() if not k.startswith("dagster/")}
    tags.update({PARTITION_TAG: slug, RESUME_TAG: how})
    if parent is not None:
        tags["dagster/parent_run_id"] = parent.run_id
        tags["dagster/root_run_id"] = parent.root_run_id or parent.run_id
    return tags


def reexecute_from_failure(instance: DagsterInstance, parent: DagsterRun, slug: str, verbose: bool = False):
    options = ReexecutionOptions.from_failure(run_id=parent.run_id, instance=instance)
    run_config = None if verbose else {**(parent.run_config or {}), **QUIET}
    return execute_job(
        reconstructable_recovery_job(), instance=instance, run_config=run_config,
        tags=_resume_tags(parent, slug, "from-failure"), reexecution_options=options,
    )


def launch_chain(instance: DagsterInstance, slug: str, how: str, verbose: bool = False, extra_tags=None):
    ensure_partition(instance, slug)
    tags = {**_resume_tags(None, slug, how), **(extra_tags or {})}
    return execute_job(reconstructable_recovery_job(), instance=instance, run_config=None if verbose else QUIET,
                       tags=tags)


def _last_failure(store: DomainStore, slug: str) -> str:
    rows = store.lifecycle.failures(slug)
    return f"{rows[-1].failure_class}: {rows[-1].message}" if rows else ""


def resume_project(
    store: DomainStore, instance: DagsterInstance, slug: str, *, stale_after: float = 900.0, verbose: bool = False,
    model: str | None = None,
) -> ResumeOutcome:
    started = time.monotonic()
    outcome = ResumeOutcome(slug, "complete", True)
    try:
        project = store.projects.get_project(slug, include_deleted=True)
    except Exception as exc:  # noqa: BLE001 - ProjectNotFound: say so, resume the rest
        return ResumeOutcome(slug, "failed", False, message=str(exc))
    held = store.leases.live_lease(slug)  # before anything is released: the lease knows runs of every home
    if held is not None:
        outcome.action, outcome.run_ids = "running", [held.run_id] if held.run_id else []
        outcome.message = f"a live run holds the project ({held.describe()}); left alone, nothing released"
        return outcome
    unfinished = partition_runs(instance, slug, statuses=IN_FLIGHT)
    live = [r for r in unfinished if run_is_live(instance, r, stale_after)]
    if live:
        outcome.action, outcome.success = "running", True
        outcome.run_ids = [r.run_id for r in live]
        waits = live[0].status in WAITING
        outcome.message = f"run {live[0].run_id} is " + (
            "queued: the daemon (dagster-daemon, or `make ui`) launches it" if waits
            else "still running in a live process") + "; left alone"
        return outcome
    model = model or configured_model()
    for run in unfinished:  # started, but every process that ran it is gone
        mark_interrupted(store, instance, run, slug, model)
        outcome.interrupted_runs.append(run.run_id)
    outcome.released_reservations = release_project_reservations(
        store, slug, "released by resume: no live process holds it"
    )
    verdict = resume_verdict(store, project, model, get_settings().llm.configured)
    if verdict.action == "orphan":
        outcome.action, outcome.message = verdict.action, verdict.message
        return outcome
    gap = verdict.gap
    assert gap is not None, "every verdict but an orphan's names the gap"
    outcome.stages_before, outcome.papers_missing_before = list(gap.stages), gap.papers_missing
    if verdict.action == "complete":
        outcome.papers_missing_after = 0
        outcome.seconds = time.monotonic() - started
        return outcome
    if verdict.action == "no_credits":
        outcome.action, outcome.success, outcome.message = verdict.action, False, verdict.message
        return outcome
    latest = partition_runs(instance, slug, limit=1)  # after marking: an interrupted run now reads as failed
    parent = latest[0] if latest else None
    result = None
    if parent is not None and parent.status in RESUMABLE:
        retry = steps_to_retry(instance, parent)
        if retry and set(retry) <= job_step_keys():
            outcome.action, outcome.parent_run_id = "reexecuted", parent.run_id
            result = reexecute_from_failure(instance, parent, slug, verbose)
            outcome.run_ids.append(result.run_id)
    gap = project_gap(store, slug, model)
    if not gap.complete and (result is None or result.success):
        # Nothing in Dagster to re-execute (storage wiped, no run yet, or the run had nothing left to retry),
        # or re-execution finished its steps and the store still lacks something: run the whole chain.
        outcome.action = "launched" if result is None else outcome.action
        result = launch_chain(instance, slug, "store" if parent is None else "chain", verbose)
        outcome.run_ids.append(result.run_id)
        gap = project_gap(store, slug, model)
    outcome.papers_missing_after = gap.papers_missing
    outcome.success = gap.complete
    if not gap.complete:
        outcome.action = "failed" if outcome.action == "complete" else outcome.action
        outcome.message = "; ".join(gap.reasons[:3]) + (f"; last failure {_last_failure(store, slug)}"
                                                         if store.lifecycle.failures(slug) else "")
    outcome.seconds = time.monotonic() - started
    return outcome


def resume(
    store: DomainStore, instance: DagsterInstance | None = None, slugs: list[str] | None = None, *,
    stale_after: float = 900.0, verbose: bool = False,
) -> list[ResumeOutcome]:
    """Resume the given projects, or (``slugs=None``) every live project plus open reservations of deleted ones.

    Reservations open longer than ``stale_after`` seconds are released first whatever their project."""
    own = instance is None
    instance = instance or open_instance()
    try:
        store.ledger.release_stale_reservations(stale_after)
        if slugs is None:
            active = [p.slug for p in store.projects.list_projects()]
            deleted = {p.slug for p in store.projects.list_projects(include_deleted=True)} - set(active)
            pending = {r.slug for r in store.ledger.reservations(state="open") if r.slug in deleted}
            slugs = active + sorted(pending)
        return [resume_project(store, instance, slug, stale_after=stale_after, verbose=verbose) for slug in slugs]
    finally:
        if own:
            instance.dispose()
