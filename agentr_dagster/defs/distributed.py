"""Scale-out: the project chain on Dagster's Celery executor, so a run's steps spread over worker machines.

The orchestrating run process submits each step as a Celery task to a broker (RabbitMQ by default, Redis
works too); any `dagster-celery worker` listening on the same queue picks it up, loads this code location,
and executes the step against the shared Dagster instance (PostgreSQL storage) and the shared domain store
(AGENTR_DATABASE_URL). Workers are configured by the same environment as the code location.

    # on each worker machine (same package, same env: DAGSTER_HOME, DAGSTER_PG_URL, AGENTR_* ...)
    dagster-celery worker start -A dagster_celery.app -y celery.yaml -q dagster

`celery.yaml` is `worker_config(...)` written as YAML: the executor block the run uses, so workers and runs
agree on the broker, backend and queue.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from math import ceil, floor
from pathlib import Path

from dagster import AssetSelection, ExecutorDefinition, define_asset_job

from agentr_dagster.defs.assets import project_assets
from agentr_dagster.defs.partitions import CELERY_JOB, projects
from agentr_dagster.settings import CeleryConfig, get_settings

celery_executor: ExecutorDefinition | None
try:
    from dagster_celery import celery_executor
except ImportError:  # the `distributed` extra is not installed: the code location loads without the Celery job
    celery_executor = None

DEFAULT_BROKER = "amqp://guest:guest@127.0.0.1:5672//"
DEFAULT_BACKEND = "rpc://"
DEFAULT_QUEUE = "dagster"  # dagster_celery's own default queue


def _env_or(field: str, default: str) -> str | dict:
    """A set variable stays a reference ({"env": ...}), so a password in a broker URL never lands in the run
    config shown in the UI; unset, the plain default is used."""
    return {"env": CeleryConfig.variable(field)} if getattr(get_settings().celery, field) else default


def celery_executor_config(
    broker: str | dict | None = None, backend: str | dict | None = None, queue: str | None = None
) -> dict:
    """The `execution.config` block of the Celery job (also what `dagster-celery worker start -y` reads).

    A queue other than the default routes every step of the run to workers started with `-q <queue>`: one
    broker can then serve several isolated deployments (or tests) without workers stealing each other's steps.
    """
    queue = queue or get_settings().celery.queue or DEFAULT_QUEUE
    config: dict = {
        "broker": broker if broker is not None else _env_or("broker_url", DEFAULT_BROKER),
        "backend": backend if backend is not None else _env_or("backend_url", DEFAULT_BACKEND),
    }
    if queue != DEFAULT_QUEUE:
        config["config_source"] = {"task_default_queue": queue}
    return config


def worker_config(broker: str, backend: str = DEFAULT_BACKEND, queue: str = DEFAULT_QUEUE) -> dict:
    """The YAML document for `dagster-celery worker start -y`: the same block as the run's executor config.

    Workers read literal values (the file is private to the worker machine), not `{"env": ...}` references.
    """
    return {"execution": {"config": celery_executor_config(broker=broker, backend=backend, queue=queue)}}


def worker_command(config_yaml: str | Path, queue: str = DEFAULT_QUEUE, name: str | None = None,
                   *, loglevel: str = "INFO", pool: str = "solo", concurrency: int = 1) -> list[str]:
    """The command line that starts one Celery worker for this code location.

    `solo` runs one step at a time in the worker process itself; scale out by starting more workers (one per
    core or machine) rather than by forking inside one.
    """
    exe = Path(sys.executable).with_name("dagster-celery")
    command = [str(exe) if exe.exists() else "dagster-celery", "worker", "start", "-A", "dagster_celery.app",
               "-y", str(config_yaml), "-q", queue, "--loglevel", loglevel]
    if name:
        command += ["--name", name]
    return command + ["--", f"--pool={pool}", f"--concurrency={concurrency}", "--without-gossip",
                      "--without-mingle", "--without-heartbeat"]


def celery_project_job(selection: AssetSelection | None = None):
    """The project chain (`selection`, by default the project assets) with every step executed by a Celery
    worker."""
    if celery_executor is None:
        raise RuntimeError("dagster-celery is not installed: pip install 'agentr-dagster[distributed]'")
    return define_asset_job(
        CELERY_JOB,
        selection=selection if selection is not None else AssetSelection.assets(*project_assets),
        partitions_def=projects,
        executor_def=celery_executor,
        config={"execution": {"config": celery_executor_config()}},
        description="The whole chain for one project, each step executed by a Celery worker "
        f"(broker: ${CeleryConfig.variable('broker_url')}, default the local RabbitMQ).",
    )


def distributed_jobs(selection: AssetSelection | None = None) -> list:
    """The jobs the code location registers for scale-out (the same chain as the in-process job, so the two
    never drift apart): none without the `distributed` extra."""
    return [celery_project_job(selection)] if celery_executor is not None else []


@dataclass(frozen=True)
class Limits:
    """Settings that keep a deployment inside one endpoint's rate limits (see `size_for_endpoint`)."""

    concurrent_requests: int  # requests in flight at once that the endpoint tolerates
    llm_pool_limit: int  # `dagster instance concurrency set llm N`
    per_step_concurrency: int  # AGENTR_LLM_CONCURRENCY (scoring calls in flight per step)
    max_concurrent_runs: int  # concurrency.runs.max_concurrent_runs
    celery_workers: int  # worker processes (solo pool) to start


def size_for_endpoint(
    requests_per_minute: float,
    tokens_per_minute: float | None,
    mean_latency_s: float,
    tokens_per_call: float = 2500.0,
    *,
    per_step_concurrency: int = 4,
    headroom: float = 0.8,
) -> Limits:
    """Little's law: requests in flight = arrival rate x time in the system. An endpoint allowing R requests
    and T tokens a minute, at L seconds a call, sustains about min(R, T / tokens_per_call) * L / 60 calls in
    flight; more only earns 429s and backoff. `headroom` leaves room for retries and for other clients of the
    same key.

    Every `llm`-pool step holds one pool slot and runs up to `per_step_concurrency` calls, so
    pool limit x per-step concurrency <= requests in flight. Runs beyond the pool limit would only wait for
    slots; one extra run lets non-LLM steps (imports, exports) proceed meanwhile. Each running step occupies
    one solo Celery worker.
    """
    if requests_per_minute <= 0 or mean_latency_s <= 0 or tokens_per_call <= 0:
        raise ValueError("rate, latency and tokens per call must be positive")
    if not 0 < headroom <= 1:
        raise ValueError("headroom must be in (0, 1]")
    per_minute = requests_per_minute
    if tokens_per_minute is not None:
        if tokens_per_minute <= 0:
            raise ValueError("tokens per minute must be positive")
        per_minute = min(per_minute, tokens_per_minute / tokens_per_call)
    if per_step_concurrency < 1:
        raise ValueError("per-step concurrency must be at least 1")
    in_flight = max(1, floor(per_minute * mean_latency_s / 60 * headroom))
    # As many pool slots as the per-step cap requires, then spread the budget evenly over them (6 in flight
    # with a cap of 4 gives 2 steps x 3 calls, not 1 x 4): more projects progress at once for the same load.
    pool = ceil(in_flight / per_step_concurrency)
    step_concurrency = in_flight // pool
    return Limits(
        concurrent_requests=in_flight,
        llm_pool_limit=pool,
        per_step_concurrency=step_concurrency,
        max_concurrent_runs=pool + 1,
        celery_workers=pool + 1,
    )
