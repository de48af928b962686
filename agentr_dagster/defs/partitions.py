"""The project partitions, and the names of jobs and run tags that the sensor, schedules and recovery share."""

from __future__ import annotations

from dagster import DynamicPartitionsDefinition

# One partition per research project; its key is the project's slug.
PROJECTS_PARTITIONS = "projects"  # the name the instance keeps the project partition keys under
projects = DynamicPartitionsDefinition(name=PROJECTS_PARTITIONS)

PIPELINE_JOB = "project_pipeline"  # the whole chain for one project, in one process
CELERY_JOB = "project_pipeline_celery"  # the same chain, each step on a Celery worker

PARTITION_TAG = "dagster/partition"
RESUME_TAG = "agentr/resume"  # how `agentr resume` started the run
REPAIR_TAG = "agentr/repair"  # set on runs the repair schedule requests
ATTEMPT_TAG = "agentr/repair_attempt"
SOURCE_TAG = "agentr/source"  # who launched a run: cli, inbox_sensor, repair_schedule
LIVING_TAG = "agentr/living_update"  # a living-review update: its id (the UTC date) on every run of the update
REFRESH_SOURCES_TAG = "agentr/refresh_sources"  # "1": search sources bypass the response cache (--refresh-sources)
