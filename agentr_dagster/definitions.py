"""The Dagster code location: `dagster dev -w workspace.yaml` shows all of this."""

from __future__ import annotations

from dagster import AssetSelection, Definitions, define_asset_job

from agentr_dagster.assets import pipeline_assets, projects
from agentr_dagster.distributed import distributed_jobs
from agentr_dagster.resources import resources_from_env
from agentr_dagster.schedules import repair_schedule
from agentr_dagster.sensors import INBOX_JOB_ENV, PIPELINE_JOB, inbox_sensor

project_pipeline = define_asset_job(
    PIPELINE_JOB,
    selection=AssetSelection.assets(*pipeline_assets),
    partitions_def=projects,
    description="The whole chain for one project: intent, queries, candidates, scores, exports, landscape, "
    "related-work draft.",
)

jobs = [project_pipeline, *distributed_jobs(project_pipeline.selection)]
if inbox_sensor.job_name not in {job.name for job in jobs}:
    raise ValueError(
        f"{INBOX_JOB_ENV}={inbox_sensor.job_name!r} names no job of this code location (jobs: "
        f"{', '.join(job.name for job in jobs)}); the Celery job needs the `distributed` extra installed"
    )

defs = Definitions(
    assets=pipeline_assets,
    jobs=jobs,
    sensors=[inbox_sensor],
    schedules=[repair_schedule],
    resources=resources_from_env(),
)
