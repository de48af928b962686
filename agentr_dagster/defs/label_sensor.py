"""The labels sensor: when a project's screening decisions change (``agentr label``, ``agentr labels --import``,
a labels file in the drop folder), re-materialise the relevance ranking and everything downstream of it, for
that project's partition only. Papers the LLM has already scored are not called again: their results are
cached by paper text, intent, prompt version and model, none of which a label changes.

A burst of labels is one re-rank: the sensor waits until the project's labels have been unchanged for
``AGENTR_LABELS_QUIET_SECONDS`` (a person labelling one paper after another keeps them changing), and a run of
the project that is queued and has not started yet absorbs newer labels (its ranking reads the labels when it
runs), so no second run is requested behind it. A run already under way may have read the labels before the
newest ones, so a change made during it gets one run of its own, queued after it.

The cursor maps each project to the fingerprint of the labels last handed to a run (count, includes, newest
decision). A project never materialised yet is only recorded: its first run reads the labels anyway.

Whether the labels call for a re-rank is ``stages/staleness.py``'s decision (``labels_decision``); this module
reads run storage (materialised partitions, runs not started yet), keeps the cursor and builds the run requests."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from functools import partial

from dagster import (
    AssetKey,
    AssetSelection,
    DagsterRunStatus,
    DefaultSensorStatus,
    RunRequest,
    RunsFilter,
    SensorEvaluationContext,
    SensorResult,
    SkipReason,
    sensor,
)

from agentr_dagster.defs.assets import pipeline_assets
from agentr_dagster.defs.partitions import PARTITION_TAG, PROJECTS_PARTITIONS, SOURCE_TAG
from agentr_dagster.defs.resources import StoreResource
from agentr_dagster.settings import get_settings
from agentr_dagster.stages.intake import store_outage
from agentr_dagster.stages.staleness import labels_decision
from agentr_dagster.store import DomainStore

#: The asset labels feed: the ranking, and through it the scores, exports and synthesis.
RANKED_BY_LABELS = AssetKey("relevance")
LABELS_SELECTION = AssetSelection.assets(RANKED_BY_LABELS).downstream() & AssetSelection.assets(*pipeline_assets)


#: Runs that have not read the labels yet: a change now reaches them, so they absorb it.
NOT_STARTED = [DagsterRunStatus.QUEUED, DagsterRunStatus.NOT_STARTED, DagsterRunStatus.STARTING]


def waiting_run(instance, slug: str) -> str | None:
    """The id of a run of the project's partition that will rank it and has not started yet (None if none)."""
    for record in instance.get_run_records(RunsFilter(tags={PARTITION_TAG: slug}, statuses=NOT_STARTED), limit=20):
        selection = record.dagster_run.asset_selection
        if selection is None or RANKED_BY_LABELS in selection:
            return record.dagster_run.run_id
    return None


def sensor_now() -> datetime:
    """The labels sensor's clock (a test moves it past the debounce instead of sleeping)."""
    return datetime.now(timezone.utc)


def labels_pass(store: DomainStore, instance, cursor: dict[str, str], *, now: datetime | None = None,
                quiet_seconds: float | None = None) -> tuple[list[RunRequest], dict[str, str], list[str]]:
    """Run requests for the projects whose labels changed since ``cursor`` and have been quiet for
    ``quiet_seconds`` (default: the setting); the new cursor; log lines. A project whose labels are still
    changing keeps its old cursor entry, so a later tick sees the change."""
    now = now or sensor_now()
    quiet = get_settings().sensors.labels_quiet_seconds if quiet_seconds is None else quiet_seconds
    materialised = instance.get_materialized_partitions(RANKED_BY_LABELS)
    partitions = set(instance.get_dynamic_partitions(PROJECTS_PARTITIONS))
    requests: list[RunRequest] = []
    lines: list[str] = []
    seen: dict[str, str] = {}
    for state in store.labels.states():
        decision = labels_decision(
            state, cursor.get(state.slug), has_run=state.slug in partitions and state.slug in materialised, now=now,
            quiet_seconds=quiet, queued_run=partial(waiting_run, instance, state.slug),
        )
        if decision.cursor is not None:
            seen[state.slug] = decision.cursor
        if decision.line is not None:
            lines.append(decision.line)
        if decision.rerank:
            requests.append(RunRequest(partition_key=state.slug, run_key=f"{state.slug}:labels:{state.fingerprint}",
                                       tags={SOURCE_TAG: "labels_sensor"}))
    return requests, seen, lines


@sensor(
    name="labels_sensor",
    minimum_interval_seconds=15,
    default_status=DefaultSensorStatus.RUNNING,
    asset_selection=LABELS_SELECTION,
    description="Re-ranks a project (relevance and downstream, that partition only) when its labels change: once "
                "they have been unchanged for AGENTR_LABELS_QUIET_SECONDS (a burst of labels is one run), and not "
                "while a run of it is queued (that run reads them).",
)
def labels_sensor(context: SensorEvaluationContext, store: StoreResource):
    cursor = json.loads(context.cursor) if context.cursor else {}
    try:
        requests, seen, lines = labels_pass(store.get(), context.instance, cursor)
    except Exception as exc:
        outage = store_outage(exc)
        if outage is None:
            raise
        return SkipReason(f"domain database unavailable ({outage}); labels checked next tick")
    for line in lines:
        context.log.info(line)
    if not requests and seen == cursor:
        return SkipReason("; ".join(lines) if lines else "no label changed")
    return SensorResult(run_requests=requests, cursor=json.dumps(seen, sort_keys=True))
