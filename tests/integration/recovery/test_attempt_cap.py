"""The one cap on paid attempts (domain/attempts.py), across every retry layer: the gateway's own attempts, the
assets' RetryPolicy under `materialize`, `agentr run`, and a second run. Real HTTP against the scripted server
(the requests it received are counted), the real store on SQLite and PostgreSQL."""

from __future__ import annotations

import time
from collections import Counter
from decimal import Decimal

import pytest
from click.testing import CliRunner
from dagster import DagsterInstance

from agentr_dagster.cli import main
from agentr_dagster.domain.attempts import MAX_ANSWERS, MAX_UNANSWERED
from agentr_dagster.domain.failures import missing_project_message
from agentr_dagster.store import DomainStore
from agentr_dagster.testing.scripted_server import Fault
from tests.support.recovery import (
    assert_ledger_reconciles,
    chain_responder,
    llm,
    llm_env,
    make_project,
    requests_per_title,
    run_chain,
    stage_name,
    step_retries,
    title_of,
)

N = 3


def _score_faults(fault_for):
    """A fault plan for score calls only (intent and queries answer validly): ``fault_for(attempt_of_this_paper)``."""
    seen: Counter = Counter()

    def plan(index: int, body: dict):
        if stage_name(body) != "score":
            return None
        seen[title_of(body)] += 1
        return fault_for(seen[title_of(body)])

    return plan


def _score_calls(server, since: int = 0) -> int:
    return sum(1 for body in server.requests[since:] if stage_name(body) == "score")


def _papers_asked(server) -> Counter:
    return requests_per_title(server)


def test_always_invalid_answers_cost_two_calls_per_paper_once(store, tmp_path, scripted_server):  # noqa: F811
    """Always-invalid answers under `materialize` with the assets' retry policy: the answer and one repair per
    paper in the first run, no step retry, no call at all in a second run; --retry-invalid's mark allows one more
    round, and `ledger verify` holds every request within the cap."""
    server = scripted_server(chain_responder, faults=_score_faults(lambda attempt: Fault("schema_violation")))
    store.ledger.set_pricing("scripted-model", Decimal("2.50"), Decimal("10.00"))
    slug = "invalid"
    make_project(store, tmp_path, slug, N)
    instance = DagsterInstance.ephemeral()

    first = run_chain(store, slug, llm(server), instance)

    assert not first.success and step_retries(first) == 0
    asked = _papers_asked(server)
    assert len(asked) == N and set(asked.values()) == {MAX_ANSWERS}  # 2 score calls per paper
    failures = [f for f in store.lifecycle.failures(slug) if f.stage == "score"]
    assert {f.failure_class for f in failures} == {"invalid_output"} and len(failures) == N
    assert "--retry-invalid" in failures[0].message
    report = store.ledger.verify_ledger()
    assert report.ok and "paid_within_attempt_cap" in report.checks, report.violations

    calls = server.calls
    second = run_chain(store, slug, llm(server), instance)
    assert not second.success and step_retries(second) == 0
    assert _score_calls(server, calls) == 0  # not re-asked: nothing changed
    assert store.lifecycle.failures(slug)[-1].failure_class == "invalid_output"

    store.attempts.mark_retry_invalid(slug)  # what `agentr run --retry-invalid` records
    calls = server.calls
    third = run_chain(store, slug, llm(server), instance)
    assert not third.success and _score_calls(server, calls) == MAX_ANSWERS * N
    assert store.ledger.verify_ledger().ok  # each round within the cap, counted from its mark
    assert_ledger_reconciles(store)


def test_verify_names_a_request_paid_more_often_than_the_cap(store):  # noqa: F811
    from agentr_dagster.store import UsageIn

    store.ledger.set_pricing("m", Decimal("1"), Decimal("1"))
    for i in range(MAX_ANSWERS + 1):  # three sequential paid answers for one request: one too many
        reservation = store.ledger.reserve("default", Decimal("1"), idempotency_key=f"req:{i}")
        store.ledger.settle(reservation, usage=UsageIn(model="m", input_tokens=1, output_tokens=1,
                                                       request_hash="req"))
    report = store.ledger.verify_ledger()
    assert report.failed_checks() == ["paid_within_attempt_cap"], report.violations
    assert len(report.violations[0].rows) == MAX_ANSWERS + 1


@pytest.mark.parametrize("status", [401, 400])
def test_permanent_errors_call_each_paper_at_most_once_and_never_retry(status, store, tmp_path,  # noqa: F811
                                                                       scripted_server):
    server = scripted_server(chain_responder, faults=_score_faults(lambda attempt: Fault("status", status=status)))
    slug = f"permanent-{status}"
    make_project(store, tmp_path, slug, N)

    started = time.monotonic()
    result = run_chain(store, slug, llm(server, concurrency=1), DagsterInstance.ephemeral())

    assert not result.success and step_retries(result) == 0
    asked = _papers_asked(server)
    assert max(asked.values()) == 1  # one call per paper at most
    if status == 400:  # a bad request is the request's: every paper is asked once
        assert len(asked) == N
    else:  # a refused key is the endpoint's: no call after the first refusal
        assert sum(asked.values()) == 1
    assert {f.failure_class for f in store.lifecycle.failures(slug) if f.stage == "score"} == {"permanent"}
    failure = next(e for e in result.all_events if e.is_step_failure)
    assert failure.step_failure_data.user_failure_data.metadata["failure_class"].value == "permanent"
    assert time.monotonic() - started < 60
    assert_ledger_reconciles(store)


def test_a_500_then_ok_is_retried_in_process_once(store, tmp_path, scripted_server):  # noqa: F811
    server = scripted_server(chain_responder, faults=_score_faults(
        lambda attempt: Fault("status", status=500) if attempt == 1 else None))
    slug = "five-hundred"
    make_project(store, tmp_path, slug, N)

    result = run_chain(store, slug, llm(server), DagsterInstance.ephemeral())

    assert result.success and step_retries(result) == 0
    assert set(_papers_asked(server).values()) == {2}  # the 500, then the answer
    assert len(store.results.results_for_project(slug)) == N
    assert store.ledger.verify_ledger().ok
    [scores] = [m for m in result.get_asset_materialization_events()
                if m.asset_key.to_user_string() == "paper_scores"]
    materialization = scores.step_materialization_data.materialization
    assert materialization.metadata["dagster/row_count"].value == N
    assert materialization.tags.get("dagster/data_version")  # downstream staleness follows the stored scores


def test_a_429_storm_is_bounded_by_the_cap_across_runs(store, tmp_path, scripted_server):  # noqa: F811
    server = scripted_server(chain_responder, faults=_score_faults(
        lambda attempt: Fault("status", status=429, retry_after=0.05)))
    slug = "storm"
    make_project(store, tmp_path, slug, N)
    instance = DagsterInstance.ephemeral()

    first = run_chain(store, slug, llm(server), instance)

    assert not first.success
    assert step_retries(first) == 0  # every paper reached the cap: a step retry could only wait for nothing
    assert set(_papers_asked(server).values()) == {MAX_UNANSWERED}
    calls = server.calls
    second = run_chain(store, slug, llm(server), instance)
    assert not second.success and _score_calls(server, calls) == 0  # inside the window: no call at all
    assert store.ledger.open_reservations() == [] and store.ledger.usage(slug)  # intent and queries only
    assert all(u.stage != "score" for u in store.ledger.usage(slug))


@pytest.mark.usefixtures("fast_home")
def test_agentr_run_twice_with_always_invalid_answers_on_postgres(pg_store, tmp_path, scripted_server,  # noqa: F811
                                                                   monkeypatch):
    """The issue's scenario (96 score calls for 3 papers before): `agentr run`, twice, as a user runs it."""
    server = scripted_server(chain_responder, faults=_score_faults(lambda attempt: Fault("schema_violation")))
    slug = "invalid-cli"
    make_project(pg_store, tmp_path, slug, N)
    env = llm_env(monkeypatch, server, pg_store)
    runner = CliRunner()

    first = runner.invoke(main, ["run", slug, "--no-progress"], env=env)
    assert first.exit_code == 1 and _score_calls(server) == MAX_ANSWERS * N, first.output
    calls = server.calls
    second = runner.invoke(main, ["run", slug, "--no-progress"], env=env)
    assert second.exit_code == 1 and _score_calls(server, calls) == 0
    assert "invalid_output" in second.output
    # the classified failure in one line, no stack trace and no Dagster log noise (those stay under --verbose)
    assert "Traceback" not in second.output and "Stack Trace" not in second.output, second.output
    assert "Not executing" not in second.output and "step paper_scores failed: " in second.output
    failures = runner.invoke(main, ["failures", slug], env=env)
    assert "invalid_output:" in failures.output and "--retry-invalid" in failures.output
    verify = runner.invoke(main, ["ledger", "verify"], env=env)
    assert verify.exit_code == 0, verify.output
    retried = runner.invoke(main, ["run", slug, "--no-progress", "--retry-invalid"], env=env)
    assert retried.exit_code == 1 and _score_calls(server, calls) == MAX_ANSWERS * N


def test_a_run_for_a_partition_without_a_project_fails_at_once(store, scripted_server, monkeypatch):  # noqa: F811
    """What the UI launches for a partition added by hand: the job, for a key with no project. One line, no step
    retry, within seconds."""
    from agentr_dagster.definitions import defs
    from agentr_dagster.defs.partitions import PIPELINE_JOB

    server = scripted_server(chain_responder)
    llm_env(monkeypatch, server, store)
    instance = DagsterInstance.ephemeral()
    instance.add_dynamic_partitions("projects", ["nosuch"])
    started = time.monotonic()

    result = defs.resolve_job_def(PIPELINE_JOB).execute_in_process(
        partition_key="nosuch", instance=instance, raise_on_error=False)

    assert time.monotonic() - started < 30
    assert not result.success and step_retries(result) == 0 and server.calls == 0
    [failure] = [e for e in result.all_events if e.is_step_failure]
    description = failure.step_failure_data.user_failure_data.description
    assert description.endswith(missing_project_message("nosuch")) and "\n" not in description
    assert "agentr project add nosuch" in description and "nosuch.md" in description


@pytest.mark.parametrize("command", [["status"], ["failures"], ["export"], ["run"], ["usage"], ["estimate"],
                                     ["report"], ["resume"], ["budget", "set"]])
def test_every_command_given_an_unknown_project_says_one_line(command, store_url, monkeypatch):
    monkeypatch.setenv("AGENTR_DATABASE_URL", store_url)
    DomainStore(store_url).close()
    args = [*command, "nosuch", *(["5"] if command == ["budget", "set"] else [])]
    result = CliRunner().invoke(main, args)
    assert result.exit_code != 0
    assert result.exception is None or isinstance(result.exception, SystemExit)  # no traceback
    assert result.output.strip() == f"error: {missing_project_message('nosuch')}"


@pytest.mark.usefixtures("fast_home")
def test_the_production_instance_neither_retries_the_run_nor_re_pays_on_resume(pg_store, tmp_path, scripted_server,  # noqa: F811
                                                                               monkeypatch, pg_url_for_dagster):
    """deploy/postgres/dagster.yaml keeps run retries: its daemon would not re-launch a run that failed on a step
    (always-invalid answers), and re-executing it from failure anyway (what a retry or `agentr resume` launches)
    asks no paper again."""
    from dagster._daemon.auto_run_reexecution.auto_run_reexecution import should_retry

    from agentr_dagster.defs.recovery import resume
    from tests.integration.defs.test_deploy_files import PROD_YAML

    monkeypatch.setenv("DAGSTER_PG_URL", pg_url_for_dagster)
    home = tmp_path / "dagster-home"
    home.mkdir()
    (home / "dagster.yaml").write_text(PROD_YAML.read_text())
    server = scripted_server(chain_responder, faults=_score_faults(lambda attempt: Fault("schema_violation")))
    slug = "invalid-prod"
    make_project(pg_store, tmp_path, slug, N)
    llm_env(monkeypatch, server, pg_store)
    instance = DagsterInstance.from_config(str(home))
    try:
        assert instance.run_retries_enabled
        result = run_chain(pg_store, slug, llm(server), instance)
        assert not result.success and _score_calls(server) == MAX_ANSWERS * N
        assert not should_retry(instance.get_run_by_id(result.run_id), instance)

        calls = server.calls
        [outcome] = resume(pg_store, instance, [slug])
        assert outcome.action == "reexecuted", outcome  # the failed run, re-executed from its failed step
        assert not outcome.success and _score_calls(server, calls) == 0
        assert pg_store.ledger.verify_ledger().ok
    finally:
        instance.dispose()
