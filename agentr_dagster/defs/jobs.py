"""The jobs: the project chain (in-process, and on Celery workers when the `distributed` extra is installed).
Defined once here; the code location, the repair schedule and `agentr resume` all use these."""

from __future__ import annotations

from dagster import AssetSelection, define_asset_job, in_process_executor

from agentr_dagster.defs.assets import pipeline_assets
from agentr_dagster.defs.distributed import distributed_jobs
from agentr_dagster.defs.partitions import PIPELINE_JOB, projects

PIPELINE_SELECTION = AssetSelection.assets(*pipeline_assets)
PIPELINE_DESCRIPTION = ("The whole chain for one project: intent, queries, candidates, scores, exports, landscape, "
                        "related-work draft.")


def pipeline_job(executor_def=None):
    """The project chain as an asset job, its steps in the run's own process by default (as `agentr run`).

    Chosen by measurement (scripts/bench_executor.py, a 300-paper review, docs/ui.md "The Dagster UI"): steps of 1-2 s
    each waited for a fresh process under the multiprocess executor (the chain's steps run one after another, so
    the processes bought no parallelism); a forkserver preloading the package cut that wait but stayed slower
    than in-process. Scoring concurrency comes from threads inside `paper_scores`; the Celery job spreads steps
    over workers when that is wanted. `executor_def` overrides it."""
    return define_asset_job(PIPELINE_JOB, selection=PIPELINE_SELECTION, partitions_def=projects,
                            executor_def=executor_def or in_process_executor, description=PIPELINE_DESCRIPTION)


project_pipeline = pipeline_job()


def all_jobs() -> list:
    return [project_pipeline, *distributed_jobs(PIPELINE_SELECTION)]
