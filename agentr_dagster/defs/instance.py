"""The local Dagster instance and the project partitions on it, opened one way for the CLI and recovery."""

from __future__ import annotations

from dagster import DagsterInstance

from agentr_dagster.defs.partitions import PROJECTS_PARTITIONS
from agentr_dagster.settings import dagster_home


def open_instance() -> DagsterInstance:
    """The instance `agentr run` and `agentr resume` use: DAGSTER_HOME if set, else $AGENTR_HOME/dagster."""
    return DagsterInstance.from_config(str(dagster_home()))


def ensure_partition(instance: DagsterInstance, slug: str) -> None:
    """Register the project's partition on the instance (a no-op when it is there already)."""
    if not instance.has_dynamic_partition(PROJECTS_PARTITIONS, slug):
        instance.add_dynamic_partitions(PROJECTS_PARTITIONS, [slug])
