"""A gated repair schedule: re-requests failed or missing project partitions, at most N times a day each.

Gates (an ``AutomationCondition`` of ``missing() | execution_failed()`` would re-request every tick, an LLM cost loop):
- stopped by default: turn it on in the UI (or `dagster schedule start repair_schedule`);
- a partition is requested only when the domain store says it is incomplete, no run of it is queued or running,
  and its last failure is one a retry can fix (transient, or no credits once the balance is positive again);
  a project without candidate papers is not incomplete: it waits for papers, and a run would change nothing;
  orphans (deleted projects), permanent failures (bad key, unknown model, unusable input) and invalid output
  (answers that never validated) need a person; whatever it requests, the attempt cap (domain/attempts.py) bounds
  the calls its runs may make;
- at most ``AGENTR_REPAIR_MAX_PER_DAY`` (default 2) repair runs per partition per UTC day, counted durably from
  the repair tag on the runs in Dagster's run storage.

The decisions (what is incomplete, which failure needs a person, whether credits are there, whether a repair is
due and why) are ``stages/staleness.py``'s (``repair_view``, ``repair_decision``); this module reads Dagster's run
storage (runs queued, alive or gone; repair runs today) and turns the decisions into run requests.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import TYPE_CHECKING

from dagster import (
    DefaultScheduleStatus,
    RunRequest,
    RunsFilter,
    ScheduleEvaluationContext,
    SkipReason,
    schedule,
)

from agentr_dagster.defs.partitions import (
    ATTEMPT_TAG,
    PARTITION_TAG,
    PIPELINE_JOB,
    PROJECTS_PARTITIONS,
    REPAIR_TAG,
    SOURCE_TAG,
)
from agentr_dagster.defs.recovery import IN_FLIGHT, mark_interrupted, partition_runs, run_is_live
from agentr_dagster.defs.resources import StoreResource
from agentr_dagster.settings import get_settings
from agentr_dagster.stages.staleness import (
    RepairView,
    configured_model,
    find_project,
    release_project_reservations,
    repair_decision,
    repair_view,
)

if TYPE_CHECKING:
    from agentr_dagster.store import DomainStore

MAX_PER_DAY_ENV = "AGENTR_REPAIR_MAX_PER_DAY"
DEFAULT_MAX_PER_DAY = 2
DEFAULT_CRON = "17 * * * *"


def max_per_day() -> int:
    return get_settings().sensors.repair_max_per_day


def _utc_day_start(at: datetime) -> datetime:
    at = at.astimezone(timezone.utc) if at.tzinfo else at.replace(tzinfo=timezone.utc)
    return at.replace(hour=0, minute=0, second=0, microsecond=0)


def _in_flight(store: DomainStore, instance, slug: str, model: str) -> bool:
    """A queued or live run; started runs whose process is gone are marked interrupted here (as resume does)."""

    if store.leases.live_lease(slug) is not None:  # a run of any Dagster home (or the CLI) holds the project
        return True
    runs = partition_runs(instance, slug, statuses=IN_FLIGHT)
    if any(run_is_live(instance, run, stale_after=900.0) for run in runs):
        return True
    for run in runs:
        mark_interrupted(store, instance, run, slug, model)
    if runs:
        release_project_reservations(store, slug, "released by the repair schedule: its run's process is gone")
    return False


def repair_views(store: DomainStore, instance, now: datetime, uses_llm: bool) -> list[RepairView]:
    """One view per partition or project: run storage answers in flight and attempts today, the store the rest."""
    model = configured_model()
    slugs = set(instance.get_dynamic_partitions(PROJECTS_PARTITIONS)) | {p.slug for p in store.projects.list_projects()}
    day = _utc_day_start(now)
    views = []
    for slug in sorted(slugs):
        project = find_project(store, slug)
        if project is None:  # a partition with no project in the store: nothing to repair
            continue
        in_flight = _in_flight(store, instance, slug, model)
        attempts = len(instance.get_run_ids(
            RunsFilter(tags={PARTITION_TAG: slug, REPAIR_TAG: "schedule"}, created_after=day)
        ))
        views.append(repair_view(store, project, in_flight=in_flight, attempts_today=attempts, model=model,
                                 uses_llm=uses_llm))
    return views


def repair_requests(
    store: DomainStore, instance, now: datetime, limit: int | None = None, uses_llm: bool | None = None
):
    """(run requests, one line per partition saying what was decided)."""
    limit = max_per_day() if limit is None else limit
    uses_llm = get_settings().llm.configured if uses_llm is None else uses_llm
    requests, lines = [], []
    for view in repair_views(store, instance, now, uses_llm):
        go, why = repair_decision(view, limit)
        lines.append(f"{view.slug}: {'repair' if go else 'skip'}: {why}")
        if not go:
            continue
        if not instance.has_dynamic_partition(PROJECTS_PARTITIONS, view.slug):
            instance.add_dynamic_partitions(PROJECTS_PARTITIONS, [view.slug])  # storage was wiped: restore the key
        attempt = view.attempts_today + 1
        requests.append(RunRequest(
            partition_key=view.slug,
            run_key=f"repair:{view.slug}:{_utc_day_start(now).date().isoformat()}:{attempt}",
            job_name=PIPELINE_JOB,
            tags={REPAIR_TAG: "schedule", ATTEMPT_TAG: str(attempt), SOURCE_TAG: "repair_schedule"},
        ))
    return requests, lines


def make_repair_schedule(cron: str = DEFAULT_CRON):
    """The repair schedule ticking on `cron` ($AGENTR_REPAIR_CRON in the code location)."""

    @schedule(
        name="repair_schedule",
        cron_schedule=cron,
        job_name=PIPELINE_JOB,
        default_status=DefaultScheduleStatus.STOPPED,
        description="Re-requests project partitions the domain store calls incomplete: a stage failed or left in "
        "progress, or an output missing or stale for the current abstract, prompts, model and papers (an edited "
        "prompt re-runs what it changes). Skips projects with a run queued or running, or whose last failure needs a "
        f"person or credits; at most ${MAX_PER_DAY_ENV} (default {DEFAULT_MAX_PER_DAY}) runs a day each. Stopped by "
        "default.",
    )
    def repair_schedule(context: ScheduleEvaluationContext, store: StoreResource):
        now = context.scheduled_execution_time or datetime.now(timezone.utc)
        requests, lines = repair_requests(store.get(), context.instance, now)
        for line in lines:
            context.log.info(line)
        return requests or SkipReason("; ".join(lines) or "no projects")

    return repair_schedule


repair_schedule = make_repair_schedule()  # the default; the code location builds the configured one


# ------------------------------------------------------------------------------------------- living reviews
LIVING_SOURCE = "living_review"


def living_review_requests(store: DomainStore, instance, now: datetime, sources_enabled: bool):
    """(run requests, one line per project): every active project with queries re-searches, all runs of the
    update sharing one update tag (its scheduled UTC time to the minute, so any cron works, several ticks a day
    included), so the UI lists them together (filter by the tag)."""
    from agentr_dagster.defs.partitions import LIVING_TAG
    from agentr_dagster.stages.living import living_decision, living_view

    if not sources_enabled:
        return [], ["no search source is enabled (AGENTR_SOURCES is empty)"]
    update_id = living_update_id(now)
    slugs = set(instance.get_dynamic_partitions(PROJECTS_PARTITIONS)) | {p.slug for p in store.projects.list_projects()}
    requests, lines = [], []
    for slug in sorted(slugs):
        in_flight = bool(instance.get_run_ids(RunsFilter(tags={PARTITION_TAG: slug}, statuses=IN_FLIGHT), limit=1))
        view = living_view(store, slug, in_flight)
        if view is None:
            continue
        go, why = living_decision(view)
        lines.append(f"{slug}: {'update' if go else 'skip'}: {why}")
        if not go:
            continue
        if not instance.has_dynamic_partition(PROJECTS_PARTITIONS, slug):
            instance.add_dynamic_partitions(PROJECTS_PARTITIONS, [slug])
        requests.append(RunRequest(
            partition_key=slug, run_key=f"living:{update_id}:{slug}", job_name=PIPELINE_JOB,
            tags={LIVING_TAG: update_id, SOURCE_TAG: LIVING_SOURCE},
        ))
    return requests, lines


def living_update_id(now: datetime) -> str:
    """The update's id: its scheduled UTC time to the minute (``2026-12-01T0600``), a file-name-safe run key part."""
    at = now if now.tzinfo is not None else now.replace(tzinfo=timezone.utc)
    return at.astimezone(timezone.utc).strftime("%Y-%m-%dT%H%M")


def make_living_review_schedule(cron: str = "0 6 * * 1"):
    """The living-review schedule ticking on `cron` ($AGENTR_LIVING_REVIEW_CRON in the code location)."""

    @schedule(
        name="living_review",
        cron_schedule=cron,
        job_name=PIPELINE_JOB,
        default_status=DefaultScheduleStatus.STOPPED,
        description="Living reviews: re-runs every active project's source searches for records newer than its last "
        "search, adds what is new and scores only that (one update tag per tick; digest in results/<slug>/updates/)."
        " Stopped by default.",
    )
    def living_review(context: ScheduleEvaluationContext, store: StoreResource):
        now = context.scheduled_execution_time or datetime.now(timezone.utc)
        requests, lines = living_review_requests(store.get(), context.instance, now, bool(get_settings().sources.names))
        for line in lines:
            context.log.info(line)
        return requests or SkipReason("; ".join(lines) or "no projects")

    return living_review


living_review = make_living_review_schedule()  # the default; the code location builds the configured one
