"""The project chain on a real distributed engine: Dagster storage on PostgreSQL (the production dagster.yaml),
the domain store on PostgreSQL, a run queued by the QueuedRunCoordinator and started by a real `dagster-daemon`,
and every step executed by one of two real Celery worker processes fed by the machine's RabbitMQ. The outcome must
equal an in-process run of the same project: the same results, exports, usage and ledger (to the credit), the same
statuses and transitions."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from urllib.parse import urlsplit

import pandas as pd
import pytest
import sqlalchemy as sa
import yaml
from dagster import (
    AssetKey,
    AssetSelection,
    DagsterEventType,
    DagsterInstance,
    DagsterRunStatus,
    materialize,
)
from sqlalchemy.engine import make_url

from agentr_dagster.definitions import defs
from agentr_dagster.defs.distributed import (
    CELERY_JOB,
    DEFAULT_BROKER,
    celery_executor_config,
    worker_command,
    worker_config,
)
from agentr_dagster.defs.resources import LLMResource, SourcesResource, StoreResource
from agentr_dagster.stages.exports import scores_dataframe
from agentr_dagster.stages.intake import add_papers_file, add_project
from agentr_dagster.store import DomainStore
from agentr_dagster.testing.responders import stage_of, valid_responder
from tests.support import REPO
from tests.support.polling import wait_for

pytestmark = [
    pytest.mark.distributed,
    pytest.mark.timeout(300),
    # dagster_celery registers its task again on every submission; celery warns each time, harmlessly.
    pytest.mark.filterwarnings("ignore::celery.exceptions.DuplicateTaskNameWarning"),
]

ROOT = REPO
DEMO = ROOT / "agentr_dagster" / "data" / "demo"
BROKER = os.environ.get("AGENTR_TEST_CELERY_BROKER", DEFAULT_BROKER)
MODEL = "scripted-model"
PAPERS = 12
WORKER_READY_TIMEOUT_S = 90
RUN_TIMEOUT_S = 150


def _reachable(url: str) -> bool:
    parsed = urlsplit(url)
    try:
        with socket.create_connection((parsed.hostname or "127.0.0.1", parsed.port or 5672), timeout=3):
            return True
    except OSError:
        return False


@pytest.fixture
def broker() -> str:
    if not _reachable(BROKER):
        pytest.fail(f"the Celery broker {BROKER.split('@')[-1]} is not reachable; start RabbitMQ "
                    "(scripts/ensure_services.sh)", pytrace=False)
    return BROKER


@pytest.fixture
def schemas(pg_database_url: str) -> Iterator[tuple[str, str]]:  # noqa: F811
    """Two empty schemas of the session database: one domain store for the Celery run, one for in-process."""
    base = make_url(pg_database_url)
    names = [f"dist_{uuid.uuid4().hex[:10]}" for _ in range(2)]
    admin = sa.create_engine(base, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        for name in names:
            conn.exec_driver_sql(f'CREATE SCHEMA "{name}"')
    urls = [base.update_query_dict({"options": f"-csearch_path={n}"}).render_as_string(hide_password=False)
            for n in names]
    try:
        yield urls[0], urls[1]
    finally:
        with admin.connect() as conn:
            for name in names:
                conn.exec_driver_sql(f'DROP SCHEMA IF EXISTS "{name}" CASCADE')
        admin.dispose()


class Processes:
    """Worker and daemon processes, each in its own session so that its whole process tree can be stopped."""

    def __init__(self, log_dir: Path):
        self.log_dir = log_dir
        self.procs: dict[str, tuple[subprocess.Popen, Path]] = {}

    def start(self, name: str, command: list[str], env: dict[str, str]) -> None:
        log = self.log_dir / f"{name}.log"
        with log.open("wb") as out:
            proc = subprocess.Popen(command, env=env, stdout=out, stderr=subprocess.STDOUT, cwd=ROOT,
                                    start_new_session=True)
        self.procs[name] = (proc, log)

    def wait_ready(self, timeout: float, only: list[str]) -> None:
        """Wait until each named Celery worker logs that it is ready (consuming from its queue)."""

        def ready() -> bool:
            for name in only:
                proc, _ = self.procs[name]
                if proc.poll() is not None:
                    pytest.fail(f"Celery worker {name} exited with {proc.returncode}:\n{self.tail(name)}")
            return all(" ready." in self.procs[name][1].read_text(errors="replace") for name in only)

        wait_for(ready, lambda: f"Celery workers {only} ready\n" + "\n".join(self.tail(n) for n in only),
                 timeout=timeout, interval=0.2)

    def tail(self, name: str, lines: int = 40) -> str:
        text = self.procs[name][1].read_text(errors="replace").splitlines()
        return f"--- {name} ---\n" + "\n".join(text[-lines:])

    def stop(self) -> None:
        for proc, _ in self.procs.values():
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
        deadline = time.monotonic() + 15
        for proc, _ in self.procs.values():
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=max(0.1, deadline - time.monotonic()))
        # The worker runs as a child of `dagster-celery worker start`: kill what is left of each session.
        for proc, _ in self.procs.values():
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)


def _small_csv(tmp_path: Path) -> Path:
    path = tmp_path / "papers.csv"
    pd.read_csv(DEMO / "papers.csv").head(PAPERS).to_csv(path, index=False)
    return path


def _seed(url: str, slug: str, papers: Path) -> DomainStore:
    store = DomainStore(url)
    store.ledger.set_pricing(MODEL, Decimal("2.50"), Decimal("10.00"))
    store.ledger.ensure_account("default")
    add_project(store, slug, (DEMO / "abstract.md").read_text())
    assert add_papers_file(store, slug, papers).added == PAPERS
    return store


def _summary(store: DomainStore, slug: str) -> dict:
    """What must not depend on where the steps ran: results, usage, ledger, statuses, exports."""
    keys = {p.id: p.paper_key for p in store.projects.list_papers(slug)}
    results = {keys[r.paper_id]: (r.payload, r.prompt_version, r.model, r.backend, r.cache_key)
               for r in store.results.results_for_project(slug)}
    usage = Counter((u.stage, keys.get(u.paper_id), u.model, u.input_tokens, u.output_tokens,
                     u.cached_input_tokens, Decimal(u.cost_usd), Decimal(u.credits), u.request_hash)
                    for u in store.ledger.usage(slug))
    ledger = Counter((e.kind, Decimal(e.amount)) for e in store.ledger.ledger("default"))
    statuses = {(s.stage, s.state): dict(s.paper_counts) for s in store.lifecycle.status(slug)}
    paper_states = {stage: {keys[pid]: state for pid, state in store.lifecycle.paper_states(slug, stage).items()}
                    for stage in {s.stage for s in store.lifecycle.status(slug)}}
    transitions: dict[tuple, list[str]] = {}
    for t in store.lifecycle.transitions(slug):
        transitions.setdefault((t.stage, keys.get(t.paper_id)), []).append(t.state)
    frame = scores_dataframe(store, slug)
    artifacts = {stage: (a.payload, a.prompt_version, a.model, a.backend)
                 for stage in ("intent", "queries") if (a := store.results.latest_artifact(slug, stage))}
    return {
        "results": results,
        "usage": usage,
        "ledger": ledger,
        "balance": store.ledger.balance("default"),
        "statuses": statuses,
        "paper_states": paper_states,
        "transitions": transitions,
        "artifacts": artifacts,
        "failures": len(store.lifecycle.failures(slug)),
        "open_reservations": store.ledger.open_reservations(),
        "exports": frame.to_dict(orient="records"),
    }


def _celery_observations(instance: DagsterInstance, run_id: str) -> dict:
    """What the run's event log says about where its steps ran and what they did."""
    logs = instance.all_logs(run_id)
    events = [e.dagster_event for e in logs if e.dagster_event]
    hosts = Counter(str(e.engine_event_data.metadata["Celery worker"].value) for e in events
                    if e.is_engine_event and "Celery worker" in (e.engine_event_data.metadata or {}))
    materialized = {e.asset_key.to_user_string() for e in events if e.is_step_materialization}
    scores = next(e.event_specific_data.materialization.metadata for e in events
                  if e.is_step_materialization and e.asset_key.to_user_string() == "paper_scores")
    return {"hosts": hosts, "materialized": materialized, "types": {e.event_type_value for e in events},
            "scores": {k: v.value for k, v in scores.items()}}


def test_celery_workers_match_in_process_run(
    tmp_path, monkeypatch, broker, schemas, pg_url_for_dagster, scripted_server  # noqa: F811
):
    """Production's path: the run is queued (QueuedRunCoordinator), the daemon launches it, the run process sends
    every step to the broker, and two Celery workers execute them. Meanwhile the same project runs in process
    against its own domain store; then the two stores must agree."""
    slug = "distributed-review"
    papers = _small_csv(tmp_path)
    celery_url, local_url = schemas
    # The chain is whatever the code location's Celery job selects (the same as the in-process job).
    chain = defs.resolve_job_def(CELERY_JOB).asset_layer.selected_asset_keys
    all_assets = {k.to_user_string() for k in chain}

    # Dagster's instance exactly as deployed: deploy/postgres/dagster.yaml, storage on PostgreSQL.
    dagster_home = tmp_path / "dagster-home"
    dagster_home.mkdir()
    shutil.copy(ROOT / "deploy" / "postgres" / "dagster.yaml", dagster_home / "dagster.yaml")
    monkeypatch.setenv("DAGSTER_HOME", str(dagster_home))
    monkeypatch.setenv("DAGSTER_PG_URL", pg_url_for_dagster)

    server = scripted_server(valid_responder)
    celery_store = _seed(celery_url, slug, papers)
    queue = f"agentr-test-{uuid.uuid4().hex[:8]}"  # private to this test: no other worker can take its steps
    run_config = {"execution": {"config": celery_executor_config(broker=broker, queue=queue)}}
    config_yaml = tmp_path / "celery.yaml"
    config_yaml.write_text(yaml.safe_dump(worker_config(broker=broker, queue=queue)))
    # The daemon (and the code server and run process it starts) and the workers are configured as in
    # production: by the environment.
    env = {
        **os.environ,
        # `dagster-celery worker start` runs `celery` from PATH: the one beside this interpreter.
        "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]),
        "DAGSTER_HOME": str(dagster_home),
        "DAGSTER_PG_URL": pg_url_for_dagster,
        "AGENTR_HOME": str(tmp_path / "celery-home"),
        "AGENTR_DATABASE_URL": celery_url,
        "AGENTR_LLM_BASE_URL": server.base_url,
        "AGENTR_LLM_API_KEY": "sk-test-not-a-real-key",
        "AGENTR_LLM_MODEL": MODEL,
        "AGENTR_LLM_CONCURRENCY": "4",
    }
    names = [f"w1-{queue}", f"w2-{queue}"]
    bin_dir = Path(sys.executable).parent
    procs = Processes(tmp_path)
    instance = DagsterInstance.from_config(str(dagster_home))
    try:
        for name in names:
            procs.start(name, worker_command(config_yaml, queue=queue, name=name), env)
        procs.start("daemon", [str(bin_dir / "dagster-daemon"), "run", "-m", "agentr_dagster.definitions",
                               "-a", "defs"], env)
        instance.add_dynamic_partitions("projects", [slug])
        procs.wait_ready(WORKER_READY_TIMEOUT_S, only=names)

        # --- the project, queued, through the daemon and two Celery workers ---------------------------------------
        run_id = str(uuid.uuid4())
        started = time.monotonic()
        launch = subprocess.run(
            [str(bin_dir / "dagster"), "job", "launch", "-m", "agentr_dagster.definitions", "-a", "defs",
             "-j", CELERY_JOB, "--run-id", run_id, "--tags", json.dumps({"dagster/partition": slug}),
             "--config-json", json.dumps(run_config)],
            env=env, cwd=ROOT, capture_output=True, text=True, timeout=120,
        )
        assert launch.returncode == 0, launch.stderr[-3000:]

        # --- meanwhile, the same project in process -----------------------------------------------------------
        local_server = scripted_server(valid_responder)
        local_store = _seed(local_url, slug, papers)
        monkeypatch.setenv("AGENTR_HOME", str(tmp_path / "local-home"))
        local_instance = DagsterInstance.ephemeral()
        local_instance.add_dynamic_partitions("projects", [slug])
        local_started = time.monotonic()
        local = materialize(
            list(defs.assets), selection=AssetSelection.assets(*chain), partition_key=slug, instance=local_instance,
            resources={"store": StoreResource(database_url=local_url),
                       "llm": LLMResource(base_url=local_server.base_url, api_key="sk-test-not-a-real-key",
                                          settings={"model": MODEL, "concurrency": 4}),
                       "sources": SourcesResource()},
        )
        local_elapsed = time.monotonic() - local_started
        assert local.success

        status = _wait_for_run(instance, run_id, RUN_TIMEOUT_S, procs)
        elapsed = time.monotonic() - started
        if status != DagsterRunStatus.SUCCESS:
            pytest.fail(f"the Celery run ended {status}:\n" + "\n".join(procs.tail(n) for n in procs.procs))
        run = _celery_observations(instance, run_id)
        # Queued by the coordinator; only the daemon launches a queued run, so its success means it was dequeued.
        assert {DagsterEventType.RUN_ENQUEUED.value, DagsterEventType.RUN_STARTING.value} <= run["types"]
        # Every step ran in a Celery worker, and both workers took part (RabbitMQ hands tasks out in turn).
        assert sum(run["hosts"].values()) == len(all_assets), run["hosts"]
        assert {h.split("@")[0] for h in run["hosts"]} == set(names), run["hosts"]
        assert run["materialized"] == all_assets
        assert run["scores"]["scored_now"] == PAPERS
        mats = instance.fetch_materializations(AssetKey("paper_scores"), limit=5).records
        assert [m.partition_key for m in mats] == [slug]
        # The `llm` pool was enforced through the shared instance and every slot was given back.
        pool = instance.event_log_storage.get_concurrency_info("llm")
        assert pool.slot_count == 4 and pool.claimed_slots == [] and pool.pending_steps == []
    finally:
        instance.dispose()
        procs.stop()
        _delete_queue(broker, queue)

    assert _priced_stage_calls(server) == Counter({"intent": 1, "queries": 1, "score": PAPERS})
    assert local_server.calls == server.calls
    assert (tmp_path / "celery-home" / "results" / slug / "scores.xlsx").stat().st_size > 0
    assert {u.run_id for u in celery_store.ledger.usage(slug)} == {run_id}

    # --- the same outcome, to the credit ---------------------------------------------------------------------------
    distributed, in_process = _summary(celery_store, slug), _summary(local_store, slug)
    for key in in_process:
        assert distributed[key] == in_process[key], key
    # The ledger is not trivial: the signup grant, then a reservation and its settlement for every call.
    spent = sum(Decimal(u.credits) for u in celery_store.ledger.usage(slug))
    assert spent > 0 and sum(distributed["usage"].values()) >= 2 + PAPERS  # failed calls are not charged
    assert celery_store.ledger.balance("default") == celery_store.ledger.default_credits_in_force() - spent
    assert distributed["open_reservations"] == []
    print(f"queued Celery run: {elapsed:.1f} s from launch for {PAPERS} papers over 2 workers "
          f"{dict(run['hosts'])}; in process: {local_elapsed:.1f} s")
    celery_store.close()
    local_store.close()


def _delete_queue(broker: str, queue: str) -> None:
    """Celery declares the test's queue (and its exchange) durable: remove them so runs leave nothing behind."""
    from kombu import Connection

    with contextlib.suppress(Exception), Connection(broker, connect_timeout=5) as conn:
        channel = conn.default_channel
        channel.queue_delete(queue)
        channel.exchange_delete(queue)


def _priced_stage_calls(server) -> Counter:
    """Requests for the intent, queries and scoring stages (whose valid answers are stored and never asked for
    again); later stages are compared through the stores."""
    counts: Counter = Counter()
    for body in server.requests:
        with contextlib.suppress(ValueError):  # a prompt this responder does not know
            stage = stage_of(body)
            if stage in ("intent", "queries", "score"):
                counts[stage] += 1
    return counts


def _wait_for_run(instance: DagsterInstance, run_id: str, timeout: float, procs: Processes) -> DagsterRunStatus:
    """The run's final status; fails at once when a worker or the daemon exits, and after ``timeout`` s."""

    def finished() -> DagsterRunStatus | None:
        run = instance.get_run_by_id(run_id)
        status = run.status if run else None
        for name, (proc, _) in procs.procs.items():
            if proc.poll() is not None:
                pytest.fail(f"{name} exited with {proc.returncode} while the run was {status}:\n{procs.tail(name)}")
        return status if status in (DagsterRunStatus.SUCCESS, DagsterRunStatus.FAILURE,
                                    DagsterRunStatus.CANCELED) else None

    return wait_for(finished, f"run {run_id} finished", timeout=timeout, interval=0.5)
