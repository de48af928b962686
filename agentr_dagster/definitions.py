"""The Dagster code location (`dagster dev -w workspace.yaml`): it only assembles what `defs/` defines."""

from __future__ import annotations

from dagster import Definitions, in_process_executor

from agentr_dagster.defs.assets import expansion_assets, pipeline_assets
from agentr_dagster.defs.jobs import all_jobs, project_pipeline
from agentr_dagster.defs.label_sensor import labels_sensor
from agentr_dagster.defs.resources import resources_from_env
from agentr_dagster.defs.schedules import make_living_review_schedule, make_repair_schedule
from agentr_dagster.defs.sensors import inbox_asset, inbox_job_name, make_inbox_sensor
from agentr_dagster.settings import get_settings


def build_definitions() -> Definitions:
    jobs = all_jobs()
    inbox_job = inbox_job_name()
    if inbox_job not in {job.name for job in jobs}:
        raise ValueError(
            f"AGENTR_INBOX_JOB={inbox_job!r} names no job of this code location (jobs: "
            f"{', '.join(job.name for job in jobs)}); the Celery job needs the `distributed` extra installed"
        )
    return Definitions(
        assets=[*pipeline_assets, *expansion_assets, inbox_asset],
        jobs=jobs,
        sensors=[make_inbox_sensor(inbox_job), labels_sensor],
        schedules=[make_repair_schedule(get_settings().sensors.repair_cron),
                   make_living_review_schedule(get_settings().sensors.living_review_cron)],
        resources=resources_from_env(),
        # The default for every job without its own executor, above all the implicit asset job that the UI's
        # "Materialize" buttons and the labels sensor's re-rank runs use: in-process, as project_pipeline (measured:
        # docs/ui.md "A UI run is as fast as `agentr run`"); the Celery job keeps its own executor.
        executor=in_process_executor,
    )


defs = build_definitions()

__all__ = ["defs", "project_pipeline"]
