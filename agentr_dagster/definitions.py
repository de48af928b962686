"""The Dagster code location: `dagster dev -w workspace.yaml` shows all of this."""

from __future__ import annotations

from dagster import AssetSelection, Definitions, define_asset_job

from agentr_dagster.assets import project_assets, projects
from agentr_dagster.distributed import project_pipeline_celery
from agentr_dagster.resources import resources_from_env
from agentr_dagster.sensors import PIPELINE_JOB, inbox_sensor

project_pipeline = define_asset_job(
    PIPELINE_JOB,
    selection=AssetSelection.assets(*project_assets),
    partitions_def=projects,
    description="The whole chain for one project: intent, queries, candidates, scores, exports.",
)

defs = Definitions(
    assets=project_assets,
    jobs=[project_pipeline, project_pipeline_celery],
    sensors=[inbox_sensor],
    resources=resources_from_env(),
)
