"""The labels sensor: when a project's screening decisions change (``agentr label``, ``agentr labels --import``,
a labels file in the drop folder), re-materialise the relevance ranking and everything downstream of it, for
that project's partition only. Papers the LLM has already scored are not called again: their results are
cached by paper text, intent, prompt version and model, none of which a label changes.

The cursor maps each project to the fingerprint of its labels (count, includes, newest decision). A project
never materialised yet is only recorded: its first run reads the labels anyway."""

from __future__ import annotations

import json

from dagster import (
    AssetKey,
    AssetSelection,
    DefaultSensorStatus,
    RunRequest,
    SensorEvaluationContext,
    SensorResult,
    SkipReason,
    sensor,
)

from agentr_dagster.defs.assets import pipeline_assets
from agentr_dagster.defs.partitions import SOURCE_TAG, projects
from agentr_dagster.defs.resources import StoreResource
from agentr_dagster.stages.intake import store_outage
from agentr_dagster.store import DomainStore

#: The asset labels feed: the ranking, and through it the scores, exports and synthesis.
RANKED_BY_LABELS = AssetKey("relevance")
LABELS_SELECTION = AssetSelection.assets(RANKED_BY_LABELS).downstream() & AssetSelection.assets(*pipeline_assets)


def labels_pass(store: DomainStore, instance, cursor: dict[str, str]) -> tuple[list[RunRequest], dict[str, str],
                                                                               list[str]]:
    """Run requests for the projects whose labels changed since ``cursor``; the new cursor; log lines."""
    materialised = instance.get_materialized_partitions(RANKED_BY_LABELS)
    partitions = set(instance.get_dynamic_partitions(projects.name))
    requests: list[RunRequest] = []
    lines: list[str] = []
    seen: dict[str, str] = {}
    for state in store.labels.states():
        fingerprint = state.fingerprint
        seen[state.slug] = fingerprint
        before = cursor.get(state.slug)
        if before == fingerprint or (before is None and state.count == 0):
            continue
        if state.slug not in partitions or state.slug not in materialised:
            lines.append(f"{state.slug}: {state.count} labels; not run yet, its first run will use them")
            continue
        lines.append(f"{state.slug}: labels changed ({state.count} labels, {state.includes} includes): re-ranking")
        requests.append(RunRequest(partition_key=state.slug, run_key=f"{state.slug}:labels:{fingerprint}",
                                   tags={SOURCE_TAG: "labels_sensor"}))
    return requests, seen, lines


@sensor(
    name="labels_sensor",
    minimum_interval_seconds=30,
    default_status=DefaultSensorStatus.RUNNING,
    asset_selection=LABELS_SELECTION,
    description="Re-ranks a project (relevance and downstream, that partition only) when its labels change.",
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
        return SkipReason("no label changed")
    return SensorResult(run_requests=requests, cursor=json.dumps(seen, sort_keys=True))
