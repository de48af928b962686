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
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from decimal import Decimal
from typing import TYPE_CHECKING

from dagster import (
    DagsterRunStatus,
    DefaultScheduleStatus,
    RunRequest,
    RunsFilter,
    ScheduleEvaluationContext,
    SkipReason,
    schedule,
)

from agentr_dagster.defs.partitions import ATTEMPT_TAG, PARTITION_TAG, PIPELINE_JOB, REPAIR_TAG, SOURCE_TAG, projects
from agentr_dagster.defs.recovery import mark_interrupted, run_is_live
from agentr_dagster.defs.resources import StoreResource
from agentr_dagster.domain import failures as st
from agentr_dagster.domain.failures import FailureClass
from agentr_dagster.settings import get_settings
from agentr_dagster.stages.staleness import configured_model, project_gap, release_project_reservations

if TYPE_CHECKING:
    from agentr_dagster.store import DomainStore

MAX_PER_DAY_ENV = "AGENTR_REPAIR_MAX_PER_DAY"
DEFAULT_MAX_PER_DAY = 2
DEFAULT_CRON = "17 * * * *"
IN_FLIGHT = [
    DagsterRunStatus.QUEUED, DagsterRunStatus.NOT_STARTED, DagsterRunStatus.STARTING, DagsterRunStatus.STARTED,
    DagsterRunStatus.CANCELING,
]
# invalid_output too: the cap (domain/attempts.py) would refuse the call anyway, so a repair run would do nothing
NEEDS_A_PERSON = ("orphan", "permanent", "other", "invalid_output")


def max_per_day() -> int:
    return get_settings().repair_max_per_day


@dataclass(frozen=True)
class RepairView:
    """What the schedule knows about one partition when it decides."""

    slug: str
    active: bool
    complete: bool
    in_flight: bool
    last_failure_class: str | None  # of the latest recorded failure, if the project is incomplete
    credits_available: bool
    attempts_today: int
    waiting_for_candidates: bool = False  # no candidate papers: a run has nothing to do after the queries


def repair_decision(view: RepairView, limit: int) -> tuple[bool, str]:
    """Pure: whether to request a repair run for this partition now, and why (not)."""
    if not view.active:
        return False, "deleted (orphans are terminal)"
    if view.complete:
        return False, ("waiting for candidates (no papers yet): a run would have nothing to do"
                       if view.waiting_for_candidates else "complete")
    if view.in_flight:
        return False, "a run is queued or running"
    if view.last_failure_class in NEEDS_A_PERSON:
        return False, f"last failure is {view.last_failure_class}: needs a person (see `agentr failures`)"
    if view.last_failure_class == "no_credits" and not view.credits_available:
        return False, "out of credits: waits for a top-up"
    if view.attempts_today >= limit:
        return False, f"{view.attempts_today} repair runs today already (limit {limit})"
    return True, f"incomplete; repair attempt {view.attempts_today + 1} of {limit} today"


def _utc_day_start(at: datetime) -> datetime:
    at = at.astimezone(timezone.utc) if at.tzinfo else at.replace(tzinfo=timezone.utc)
    return at.replace(hour=0, minute=0, second=0, microsecond=0)


# A stage state -> the failure class it stands for (an interrupted stage counts as transient).
FAILED_STATE_CLASS = {
    **{state: cls.value for cls, state in st.STATE_FOR_CLASS.items() if cls is not FailureClass.invalid_output},
    **dict.fromkeys((st.REINITIATED, st.IN_PROGRESS, st.QUEUED), FailureClass.transient.value),
}


def last_failure_class(store: DomainStore, slug: str) -> str | None:
    """The class of the failure that stopped the chain: the first stage (in chain order) not completed.
    Stage states are the last word of each run; the failure log also holds in-process retries."""
    by_stage = {row.stage: row.state for row in store.lifecycle.status(slug)}
    for stage in ("intent", "queries", "score"):
        cls = FAILED_STATE_CLASS.get(by_stage.get(stage) or "")
        if cls:
            return cls
    return None


def _in_flight(store: DomainStore, instance, slug: str, model: str) -> bool:
    """A queued or live run; started runs whose process is gone are marked interrupted here (as resume does)."""

    if store.leases.live_lease(slug) is not None:  # a run of any Dagster home (or the CLI) holds the project
        return True
    runs = instance.get_runs(RunsFilter(tags={PARTITION_TAG: slug}, statuses=IN_FLIGHT))
    if any(run_is_live(instance, run, stale_after=900.0) for run in runs):
        return True
    for run in runs:
        mark_interrupted(store, instance, run, slug, model)
    if runs:
        release_project_reservations(store, slug, "released by the repair schedule: its run's process is gone")
    return False


def repair_views(store: DomainStore, instance, now: datetime, uses_llm: bool) -> list[RepairView]:

    model = configured_model()
    slugs = set(instance.get_dynamic_partitions(projects.name)) | {p.slug for p in store.projects.list_projects()}
    day = _utc_day_start(now)
    views = []
    for slug in sorted(slugs):
        try:
            project = store.projects.get_project(slug, include_deleted=True)
        except Exception:  # noqa: BLE001 - a partition with no project in the store: nothing to repair
            continue
        active = project.deleted_at is None
        in_flight = _in_flight(store, instance, slug, model)
        complete, last_class, credits, waiting = True, None, True, False
        if active:
            gap = project_gap(store, slug, model)
            complete, waiting = gap.complete, gap.waiting is not None
            if not complete:
                last_class = last_failure_class(store, slug)
                if uses_llm:
                    credits = store.ledger.balance(project.account) > Decimal(0)
        attempts = len(instance.get_run_ids(
            RunsFilter(tags={PARTITION_TAG: slug, REPAIR_TAG: "schedule"}, created_after=day)
        ))
        views.append(RepairView(slug, active, complete, in_flight, last_class, credits, attempts, waiting))
    return views


def repair_requests(
    store: DomainStore, instance, now: datetime, limit: int | None = None, uses_llm: bool | None = None
):
    """(run requests, one line per partition saying what was decided)."""
    limit = max_per_day() if limit is None else limit
    uses_llm = get_settings().llm_configured if uses_llm is None else uses_llm
    requests, lines = [], []
    for view in repair_views(store, instance, now, uses_llm):
        go, why = repair_decision(view, limit)
        lines.append(f"{view.slug}: {'repair' if go else 'skip'}: {why}")
        if not go:
            continue
        if not instance.has_dynamic_partition(projects.name, view.slug):
            instance.add_dynamic_partitions(projects.name, [view.slug])  # storage was wiped: restore the key
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
    slugs = set(instance.get_dynamic_partitions(projects.name)) | {p.slug for p in store.projects.list_projects()}
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
        if not instance.has_dynamic_partition(projects.name, slug):
            instance.add_dynamic_partitions(projects.name, [slug])
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
        requests, lines = living_review_requests(store.get(), context.instance, now, bool(get_settings().sources))
        for line in lines:
            context.log.info(line)
        return requests or SkipReason("; ".join(lines) or "no projects")

    return living_review


living_review = make_living_review_schedule()  # the default; the code location builds the configured one
