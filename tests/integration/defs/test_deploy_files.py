"""The deployment files stay correct: the Dagster instance configs validate against Dagster's own schema (and the
production one loads on the machine's PostgreSQL), the compose file against the Compose specification, its
commands against the installed command-line tools, and the Helm values against the official chart's keys; images,
commands, limits and environment agree across all of them. Plus the sizing arithmetic."""

from __future__ import annotations

import importlib
import json
import re
import shlex
from importlib.metadata import entry_points
from pathlib import Path

import click
import pytest
import yaml
from compose_spec import PyCompose
from dagster import DagsterInstance
from dagster._core.instance.config import dagster_instance_config
from dagster._core.workspace.config_schema import ensure_workspace_config

from agentr_dagster.defs.distributed import (
    CELERY_JOB,
    DEFAULT_QUEUE,
    celery_executor_config,
    worker_command,
)
from tests.support import REPO

ROOT = REPO
DEPLOY = ROOT / "deploy"
PROD_YAML = DEPLOY / "postgres" / "dagster.yaml"
AGENTR_SERVICES = {"code", "webserver", "daemon", "worker"}
CODE_POINTER = ["-m", "agentr_dagster.definitions", "-a", "defs"]

# Keys the official chart (dagster/dagster, helm/dagster/schema) accepts in the sections these values set.
HELM_TOP_LEVEL = {
    "dagsterWebserver", "dagster-user-deployments", "postgresql", "generatePostgresqlPasswordSecret",
    "generateCeleryConfigSecret", "rabbitmq", "redis", "flower", "ingress", "imagePullSecrets", "computeLogManager",
    "scheduler", "runLauncher", "pythonLogs", "dagsterDaemon", "busybox", "migrate", "telemetry", "serviceAccount",
    "global", "retention", "concurrency", "additionalInstanceConfig", "nameOverride", "fullnameOverride",
    "rbacEnabled",
}
HELM_GLOBAL = {"postgresqlSecretName", "dagsterHome", "serviceAccountName", "celeryConfigSecretName",
               "dagsterInstanceConfigMap"}
HELM_POSTGRESQL = {"image", "enabled", "postgresqlHost", "postgresqlUsername", "postgresqlPassword",
                   "postgresqlDatabase", "postgresqlParams", "postgresqlScheme", "service"}
HELM_USER_DEPLOYMENTS = {"enabled", "enableSubchart", "imagePullSecrets", "deployments"}
HELM_USER_DEPLOYMENT = {
    "name", "image", "dagsterApiGrpcArgs", "codeServerArgs", "includeConfigInLaunchedRuns", "port", "env",
    "envConfigMaps", "envSecrets", "annotations", "nodeSelector", "affinity", "tolerations", "podSecurityContext",
    "securityContext", "resources", "livenessProbe", "readinessProbe", "startupProbe", "labels", "volumeMounts",
    "volumes", "schedulerName",
}
HELM_RUN_LAUNCHER_TYPES = {"CeleryK8sRunLauncher", "K8sRunLauncher", "CustomRunLauncher"}
HELM_K8S_RUN_LAUNCHER = {
    "image", "imagePullPolicy", "jobNamespace", "loadInclusterConfig", "kubeconfigFile", "envConfigMaps",
    "envSecrets", "envVars", "volumeMounts", "volumes", "labels", "failPodOnRunFailure", "resources",
    "schedulerName", "securityContext", "runK8sConfig",
}
HELM_DAEMON = {
    "enabled", "image", "runCoordinator", "heartbeatTolerance", "env", "envConfigMaps", "envSecrets",
    "deploymentLabels", "labels", "nodeSelector", "affinity", "tolerations", "podSecurityContext", "securityContext",
    "resources", "livenessProbe", "readinessProbe", "startupProbe", "annotations", "runMonitoring", "runRetries",
    "sensors", "schedules", "schedulerName", "volumeMounts", "volumes",
}
HELM_QUEUED_COORDINATOR = {"maxConcurrentRuns", "tagConcurrencyLimits", "dequeueIntervalSeconds",
                           "dequeueNumWorkers", "dequeueUseThreads", "blockOpConcurrencyLimitedRuns"}
HELM_CONCURRENCY = {"enabled", "pools", "runs"}
HELM_POOLS = {"defaultLimit", "granularity", "opGranularityRunBuffer"}
HELM_RUNS = {"maxConcurrentRuns", "tagConcurrencyLimits"}
PULL_POLICIES = {"Always", "IfNotPresent", "Never"}

_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::?-([^}]*))?\}")


def _interpolate(value, env: dict[str, str]):
    """Compose's variable substitution (`${NAME}`, `${NAME:-default}`), applied after YAML parsing as compose does."""
    if isinstance(value, str):
        return _VAR.sub(lambda m: env.get(m.group(1)) or m.group(2) or "", value)
    if isinstance(value, dict):
        return {k: _interpolate(v, env) for k, v in value.items()}
    if isinstance(value, list):
        return [_interpolate(v, env) for v in value]
    return value


@pytest.fixture(scope="module")
def compose() -> dict:
    raw = yaml.safe_load((DEPLOY / "docker-compose.yml").read_text())  # PyYAML applies the `<<` merge keys
    resolved = _interpolate(raw, {})
    spec = PyCompose.from_json(json.dumps(resolved))  # raises ValueError on anything the specification rejects
    spec.validate()
    spec.to_spec()
    return resolved


@pytest.fixture(scope="module")
def helm() -> dict:
    return yaml.safe_load((DEPLOY / "helm" / "values.yaml").read_text())


@pytest.fixture(scope="module")
def prod() -> dict:
    return yaml.safe_load(PROD_YAML.read_text())


def _env(service: dict) -> dict[str, str]:
    env = service.get("environment") or {}
    return dict(env) if isinstance(env, dict) else dict(item.split("=", 1) for item in env)


def _image_files() -> dict[str, Path]:
    """Where the Dockerfile puts repository files in the image: container path -> repository path."""
    files: dict[str, Path] = {}
    for line in re.findall(r"^COPY (?!--from)(.+)$", (DEPLOY / "Dockerfile").read_text(), flags=re.M):
        *sources, dest = line.split()
        for source in sources:
            files[dest + Path(source).name if dest.endswith("/") else dest] = ROOT / source
    return files


def _click_parse(argv: list[str]) -> click.Context:
    """Parse a command line with the installed tool's own click definition: unknown options, missing required
    options, bad values and missing files fail here, as they would when the container starts. Paths inside the
    image are checked as the repository files the Dockerfile copies there."""
    in_image = _image_files()
    argv = [str(in_image[a]) if a in in_image else a for a in argv]
    scripts = {ep.name: ep for ep in entry_points(group="console_scripts")}
    assert argv[0] in scripts, f"{argv[0]} is not an installed command"
    command, name, args = scripts[argv[0]].load(), argv[0], list(argv[1:])
    if not isinstance(command, click.Command):  # a `main()` wrapper: its module holds the click group as `cli`
        command = importlib.import_module(command.__module__).cli
    while isinstance(command, click.Group):
        name, args = args[0], args[1:]
        sub = command.get_command(click.Context(command), name)
        assert sub is not None, f"{argv[0]}: no subcommand {name!r} in {shlex.join(argv)}"
        command = sub
    return command.make_context(name, args)


# --- Dagster instance configs -------------------------------------------------------------------------------------


EMBEDDED_YAML = ROOT / "agentr_dagster" / "data" / "dagster.yaml"


@pytest.mark.parametrize("path", [EMBEDDED_YAML, PROD_YAML], ids=["embedded", "postgres"])
def test_instance_yaml_validates_against_dagsters_schema(path, tmp_path, monkeypatch):
    monkeypatch.setenv("DAGSTER_PG_URL", "postgresql+psycopg2://postgres@127.0.0.1:5432/dagster")
    (tmp_path / "dagster.yaml").write_text(path.read_text())
    config, _ = dagster_instance_config(str(tmp_path))
    assert config["run_coordinator"]["class"] == "QueuedRunCoordinator"
    assert config["concurrency"]["runs"]["tag_concurrency_limits"][0] == {
        "key": "dagster/partition", "limit": 1, "value": {"applyLimitPerUniqueValue": True}}


def test_production_instance_loads_on_postgres(tmp_path, monkeypatch, pg_url_for_dagster):
    """deploy/postgres/dagster.yaml as a real instance on the machine's PostgreSQL: queued runs, run limits per
    project, the `llm` pool's limit, run retries and run monitoring all take effect."""
    from dagster._core.run_coordinator import QueuedRunCoordinator

    monkeypatch.setenv("DAGSTER_PG_URL", pg_url_for_dagster)
    (tmp_path / "dagster.yaml").write_text(PROD_YAML.read_text())
    instance = DagsterInstance.from_config(str(tmp_path))
    try:
        assert type(instance.run_storage).__name__ == "PostgresRunStorage"
        assert type(instance.event_log_storage).__name__ == "PostgresEventLogStorage"
        assert isinstance(instance.run_coordinator, QueuedRunCoordinator)
        config = instance.get_concurrency_config()
        queue = config.run_queue_config
        assert queue.max_concurrent_runs == 8
        limits = {(t["key"], json.dumps(t.get("value"), sort_keys=True)): t["limit"]
                  for t in queue.tag_concurrency_limits}
        assert limits[("dagster/partition", '{"applyLimitPerUniqueValue": true}')] == 1
        assert config.pool_config.default_pool_limit == 4
        assert config.pool_config.pool_granularity.value == "op"
        assert instance.run_retries_enabled and instance.run_retries_max_retries == 2
        # a failed step is never re-run by a run retry (it would ask again): only runs whose process died
        assert instance.run_retries_retry_on_asset_or_op_failure is False
        assert instance.run_monitoring_enabled
        # The pool the LLM assets declare gets the default limit on first use.
        instance.event_log_storage.initialize_concurrency_limit_to_default("llm")
        assert instance.event_log_storage.get_concurrency_info("llm").slot_count == 4
    finally:
        instance.dispose()


# --- the Celery job -----------------------------------------------------------------------------------------------


def test_celery_job_is_registered_with_the_broker_from_the_environment(monkeypatch):
    from agentr_dagster.definitions import defs

    job = defs.resolve_job_def(CELERY_JOB)
    assert job.executor_def.name == "celery"
    assert job.partitions_def.name == "projects"
    # The same chain as the in-process job, whatever stages it gains.
    chain = job.asset_layer.selected_asset_keys
    assert chain == defs.resolve_job_def("project_pipeline").asset_layer.selected_asset_keys
    assert {"research_intent", "search_queries", "candidate_papers", "paper_scores", "score_exports"} <= {
        k.to_user_string() for k in chain}
    monkeypatch.delenv("AGENTR_CELERY_BROKER_URL", raising=False)
    assert celery_executor_config()["broker"] == "amqp://guest:guest@127.0.0.1:5672//"
    monkeypatch.setenv("AGENTR_CELERY_BROKER_URL", "amqp://u:secret@broker:5672//")
    config = celery_executor_config()
    assert config["broker"] == {"env": "AGENTR_CELERY_BROKER_URL"}  # the password never enters run config
    assert "config_source" not in config
    assert celery_executor_config(queue="q1")["config_source"] == {"task_default_queue": "q1"}


def test_worker_config_file_validates_against_the_celery_executor_schema(monkeypatch):
    from dagster_celery.cli import get_validated_config

    monkeypatch.setenv("AGENTR_CELERY_BROKER_URL", "amqp://agentr:pw@rabbitmq:5672//")
    config = get_validated_config(str(DEPLOY / "compose" / "celery.yaml"))
    assert config["broker"] == "amqp://agentr:pw@rabbitmq:5672//"
    assert config["backend"] == "rpc://"


# --- docker compose -----------------------------------------------------------------------------------------------


def test_compose_has_every_service_and_one_image(compose):
    services = compose["services"]
    assert set(services) >= {"webserver", "daemon", "code", "postgres", "rabbitmq", "worker"}
    images = {services[s]["image"] for s in AGENTR_SERVICES}
    builds = {json.dumps(services[s]["build"], sort_keys=True) for s in AGENTR_SERVICES}
    assert images == {"agentr-dagster:latest"} and len(builds) == 1
    build = services["code"]["build"]
    assert (DEPLOY / build["context"] / build["dockerfile"]).resolve() == DEPLOY / "Dockerfile"
    assert services["worker"]["deploy"]["replicas"] >= 2
    for name, service in services.items():
        for dep, condition in (service.get("depends_on") or {}).items():
            assert dep in services, f"{name} depends on unknown service {dep}"
            if condition.get("condition") == "service_healthy":
                assert services[dep].get("healthcheck"), f"{dep} needs a healthcheck for {name}"


def test_compose_commands_parse_with_the_installed_tools(compose):
    services = compose["services"]
    for name in AGENTR_SERVICES:
        _click_parse(services[name]["command"])
    _click_parse(services["code"]["healthcheck"]["test"][1:])  # ["CMD", "dagster", "api", ...]
    with pytest.raises(click.UsageError):
        _click_parse(["dagster-webserver", "--no-such-option"])  # the check can fail


def test_compose_processes_agree(compose):
    services = compose["services"]
    code = services["code"]["command"]
    assert code[:3] == ["dagster", "code-server", "start"] and code[-4:] == CODE_POINTER
    port = code[code.index("-p") + 1]
    workspace = yaml.safe_load((DEPLOY / "compose" / "workspace.yaml").read_text())
    ensure_workspace_config(workspace, str(DEPLOY / "compose" / "workspace.yaml"))
    (location,) = workspace["load_from"]
    assert location["grpc_server"]["host"] == "code" and str(location["grpc_server"]["port"]) == port
    for name in ("webserver", "daemon"):
        cmd = services[name]["command"]
        assert cmd[cmd.index("-w") + 1] == "/opt/dagster/app/workspace.yaml"
    # Workers start exactly as distributed.worker_command() starts them (the Celery test runs that command).
    worker = services["worker"]["command"]
    expected = worker_command("/opt/dagster/app/celery.yaml", queue=DEFAULT_QUEUE)
    assert worker == ["dagster-celery", *expected[1:]]


def test_compose_environment_points_at_the_compose_services(compose):
    services = compose["services"]
    for name in AGENTR_SERVICES:
        pg = _env(services[name])["DAGSTER_PG_URL"]
        assert pg.startswith("postgresql+psycopg2://") and "@postgres:5432/dagster" in pg
    for name in ("code", "worker"):
        env = _env(services[name])
        assert env["AGENTR_DATABASE_URL"].startswith("postgresql+psycopg2://")
        assert env["AGENTR_DATABASE_URL"].endswith("@postgres:5432/agentr")
        assert env["AGENTR_CELERY_BROKER_URL"].startswith("amqp://") and "@rabbitmq:5672/" in env[
            "AGENTR_CELERY_BROKER_URL"]
        assert {"AGENTR_LLM_BASE_URL", "AGENTR_LLM_API_KEY", "AGENTR_LLM_MODEL", "AGENTR_LLM_CONCURRENCY"} <= set(env)
    assert _env(services["postgres"])["POSTGRES_DB"] == "dagster"
    assert "CREATE DATABASE agentr" in (DEPLOY / "compose" / "initdb.sql").read_text()
    init_mounts = [v for v in services["postgres"]["volumes"] if "docker-entrypoint-initdb.d" in v]
    assert init_mounts and (DEPLOY / init_mounts[0].split(":")[0]).resolve() == DEPLOY / "compose" / "initdb.sql"
    declared = set(compose["volumes"])
    for name, service in services.items():
        for volume in service.get("volumes", []):
            source = volume.split(":")[0]
            if not source.startswith((".", "/")):
                assert source in declared, f"{name} mounts undeclared volume {source}"


def test_dockerfile_matches_the_project(compose):
    text = (DEPLOY / "Dockerfile").read_text()
    for path in _image_files().values():
        assert path.exists(), f"Dockerfile copies missing {path}"
    project = (ROOT / "pyproject.toml").read_text()
    assert '".[distributed,postgres,redis]"' in text  # the image runs Celery workers on PostgreSQL with Redis limits
    assert all(f"{extra} = [" in project for extra in ("distributed", "postgres", "redis"))
    pins = dict(re.findall(r'"(dagster-[a-z]+)==([0-9.]+)"', (ROOT / "pyproject.toml").read_text()))
    assert f"dagster-k8s=={pins['dagster-postgres']}" in text  # integrations move in lockstep
    cmd = json.loads(re.search(r"^CMD (\[.*\])$", text, flags=re.M).group(1))
    assert cmd == compose["services"]["code"]["command"]
    env = dict(re.findall(r"(\w+)=(\S+)", text.split("\nENV PATH", 1)[1].split("\nCOPY", 1)[0]))
    storage = f"{env['DAGSTER_HOME']}/storage"
    for name in AGENTR_SERVICES:
        assert f"dagster-storage:{storage}" in compose["services"][name]["volumes"]


# --- Helm values --------------------------------------------------------------------------------------------------


def _subset(section: dict, allowed: set[str], where: str) -> None:
    unknown = set(section) - allowed
    assert not unknown, f"{where}: keys the official chart does not accept: {sorted(unknown)}"


def test_helm_values_use_only_the_charts_keys(helm):
    _subset(helm, HELM_TOP_LEVEL, "values")
    _subset(helm["global"], HELM_GLOBAL, "global")
    _subset(helm["postgresql"], HELM_POSTGRESQL, "postgresql")
    users = helm["dagster-user-deployments"]
    _subset(users, HELM_USER_DEPLOYMENTS, "dagster-user-deployments")
    for deployment in users["deployments"]:
        _subset(deployment, HELM_USER_DEPLOYMENT, f"deployment {deployment['name']}")
        assert deployment["image"]["pullPolicy"] in PULL_POLICIES
    launcher = helm["runLauncher"]
    assert launcher["type"] in HELM_RUN_LAUNCHER_TYPES
    _subset(launcher["config"], {"k8sRunLauncher"}, "runLauncher.config")
    _subset(launcher["config"]["k8sRunLauncher"], HELM_K8S_RUN_LAUNCHER, "k8sRunLauncher")
    daemon = helm["dagsterDaemon"]
    _subset(daemon, HELM_DAEMON, "dagsterDaemon")
    _subset(daemon["runCoordinator"]["config"]["queuedRunCoordinator"], HELM_QUEUED_COORDINATOR,
            "queuedRunCoordinator")
    _subset(helm["concurrency"], HELM_CONCURRENCY, "concurrency")
    _subset(helm["concurrency"]["pools"], HELM_POOLS, "concurrency.pools")
    _subset(helm["concurrency"]["runs"], HELM_RUNS, "concurrency.runs")


def test_helm_values_deploy_this_code_location_with_the_k8s_run_launcher(helm, compose):
    assert helm["runLauncher"]["type"] == "K8sRunLauncher"
    k8s = helm["runLauncher"]["config"]["k8sRunLauncher"]
    assert k8s["loadInclusterConfig"] is True and k8s["imagePullPolicy"] in PULL_POLICIES
    (deployment,) = helm["dagster-user-deployments"]["deployments"]
    image = f"{deployment['image']['repository']}:{deployment['image']['tag']}"
    assert image == compose["services"]["code"]["image"]
    assert deployment["dagsterApiGrpcArgs"] == CODE_POINTER
    assert deployment["includeConfigInLaunchedRuns"]["enabled"] is True
    mounts = {m["name"]: m["mountPath"] for m in k8s["volumeMounts"]}
    assert {v["name"] for v in k8s["volumes"]} == set(mounts)
    assert mounts["agentr-home"] == "/opt/agentr/home"
    pg = helm["postgresql"]
    assert pg["postgresqlScheme"] == "postgresql+psycopg2" and pg["postgresqlDatabase"] == "dagster"
    assert helm["global"]["postgresqlSecretName"] and helm["generatePostgresqlPasswordSecret"] is False


def test_helm_limits_equal_the_production_instance(helm, prod):
    runs, pools = helm["concurrency"]["runs"], helm["concurrency"]["pools"]
    assert helm["concurrency"]["enabled"] is True
    assert runs["maxConcurrentRuns"] == prod["concurrency"]["runs"]["max_concurrent_runs"]
    assert runs["tagConcurrencyLimits"] == prod["concurrency"]["runs"]["tag_concurrency_limits"]
    assert pools["defaultLimit"] == prod["concurrency"]["pools"]["default_limit"]
    assert pools["granularity"] == prod["concurrency"]["pools"]["granularity"]
    # With `concurrency` enabled, run limits must not be set on the coordinator too (Dagster refuses both).
    queued = helm["dagsterDaemon"]["runCoordinator"]["config"]["queuedRunCoordinator"] or {}
    assert not {"maxConcurrentRuns", "tagConcurrencyLimits"} & set(queued)
    assert helm["dagsterDaemon"]["runCoordinator"]["type"] == "QueuedRunCoordinator"
    assert helm["dagsterDaemon"]["runRetries"] == {
        "enabled": True, "maxRetries": prod["run_retries"]["max_retries"],
        "retryOnAssetOrOpFailure": prod["run_retries"]["retry_on_asset_or_op_failure"]}
    assert helm["dagsterDaemon"]["runMonitoring"]["enabled"] is prod["run_monitoring"]["enabled"] is True


# --- sizing -------------------------------------------------------------------------------------------------------
