"""Money under faults: a settle lost to a database cut, reservations left by ended runs, and what `ledger verify`
says about them. Real PostgreSQL behind a TCP relay that can drop every connection, the scripted server."""

from __future__ import annotations

import contextlib
import json
import os
import threading
import time
from decimal import Decimal

import sqlalchemy as sa
from sqlalchemy.engine import make_url

from agentr_dagster.domain.failures import TransientError
from agentr_dagster.llm.backends import LLMStageBackend
from agentr_dagster.llm.gateway import LLMSettings, OpenAICompatibleBackend
from agentr_dagster.stages.intent import run_intent
from agentr_dagster.stages.lifecycle import database_failures_recorded
from agentr_dagster.stages.queries import run_queries
from agentr_dagster.stages.scoring import ResultWriter, score_project, summary_text
from agentr_dagster.store import DomainStore
from agentr_dagster.store import schema as t
from tests.support import dead_pid
from tests.support.polling import wait_for
from tests.support.recovery import (
    API_KEY,
    MODEL,
    assert_ledger_reconciles,
    chain_responder,
    make_project,
    stage_name,
)
from tests.support.relay import Relay


def _backend(server, store, **tuning) -> LLMStageBackend:
    settings = LLMSettings(base_url=server.base_url, api_key=API_KEY, model=MODEL, backoff_base_s=0.01,
                           settle_backoff_s=0.3, **tuning)
    return LLMStageBackend(OpenAICompatibleBackend(settings, store))


def test_a_settle_cut_off_by_the_database_is_retried_and_leaves_nothing_open(
        pg_url, pg_store, tmp_path, scripted_server):  # noqa: F811
    slug, n = "cut", 4
    pg_store.ledger.set_pricing(MODEL, Decimal("2.50"), Decimal("10.00"))
    make_project(pg_store, tmp_path, slug, n)
    relay = Relay(make_url(pg_url).port or 5432)
    relay.start()
    server = scripted_server(chain_responder, latency=1.0)
    store = DomainStore(make_url(pg_url).set(port=relay.port).render_as_string(hide_password=False))
    backend = _backend(server, store)
    try:
        run_intent(store, backend, slug, run_id="run-cut")
        run_queries(store, backend, slug, run_id="run-cut")
        calls_before = server.calls

        def cut() -> None:  # every scoring call is in flight: the database goes away until after they answer
            wait_for(lambda: server.calls - calls_before >= n, "every scoring call in flight")
            relay.stop()
            time.sleep(1.6)
            relay.start()

        cutter = threading.Thread(target=cut)
        cutter.start()
        summary = score_project(store, backend, slug, concurrency=n, run_id="run-cut")
        cutter.join()
    finally:
        relay.close()
    assert summary.complete and summary.scored == n, summary_text(summary)
    assert server.calls - calls_before == n  # nobody was asked twice
    score_usage = [u for u in pg_store.ledger.usage(slug) if u.stage == "score"]
    assert len(score_usage) == n and {u.run_id for u in score_usage} == {"run-cut"}
    assert_ledger_reconciles(pg_store)
    assert pg_store.ledger.verify_ledger().ok
    store.close()


def test_answers_that_land_while_the_database_is_away_are_stored_once_it_is_back(pg_url, pg_store, tmp_path):
    """The writer meets the cut, not the settlement (the call answered before the database went): it waits the
    outage out instead of failing the stage with every answer already paid for."""
    make_project(pg_store, tmp_path, "late", 2)
    papers = pg_store.projects.list_papers("late")
    relay = Relay(make_url(pg_url).port or 5432)
    relay.start()
    store = DomainStore(make_url(pg_url).set(port=relay.port).render_as_string(hide_password=False))
    stored: list[int] = []
    try:
        store.projects.get_project("late")  # a pooled connection, dropped by the cut
        relay.stop()
        writer = ResultWriter(store, "late", version="v", model=MODEL, backend="llm", run_id="run-late",
                              on_stored=stored.append, on_orphan=lambda paper, exc: None, write_backoff_s=0.2)
        for paper in papers:
            writer.put(paper, f"key-{paper.id}", {"score": paper.id})
        threading.Timer(1.0, relay.start).start()
        writer.close()
    finally:
        relay.close()
        store.close()
    assert sum(stored) == 2
    keys = {p.id: f"key-{p.id}" for p in papers}
    assert {r.paper_id for r in pg_store.results.results_for_project("late", cache_keys=keys)} == set(keys)


def test_the_run_releases_its_leaked_reservations_and_verify_names_them(store, tmp_path, scripted_server):  # noqa: F811
    slug = "leak"
    make_project(store, tmp_path, slug, 2)
    server = scripted_server(chain_responder)
    backend = _backend(server, store)
    run_intent(store, backend, slug, run_id="run-a")
    run_queries(store, backend, slug, run_id="run-a")
    # a reservation of run-a's scoring that nothing closed (its settle was lost)
    leaked = store.ledger.reserve("default", Decimal("1"), idempotency_key="leaked", slug=slug, stage="score",
                           run_id="run-a")
    store.lifecycle.set_status(slug, "score", "completed", run_id="run-a")  # ... and the run's scoring ended
    report = store.ledger.verify_ledger()
    assert not report.ok and "no_open_reservation_after_run" in report.failed_checks()
    assert any(f"reservations#{leaked}" in v.rows for v in report.violations)
    # scoring again in run-a: the stage releases what its run left open before it reports its outcome
    summary = score_project(store, backend, slug, concurrency=2, run_id="run-a")
    assert summary.complete
    assert store.ledger.open_reservations() == []
    assert store.ledger.verify_ledger().ok
    assert_ledger_reconciles(store)


def test_verify_flags_a_request_charged_twice_by_overlapping_calls(store):  # noqa: F811
    from agentr_dagster.store import UsageIn

    store.ledger.set_pricing("m", Decimal("1"), Decimal("1"))
    usage = UsageIn(model="m", input_tokens=10, output_tokens=10, request_hash="same-request")
    # two workers reserve for the same request before either has settled: the double charge of issue 18
    first = store.ledger.reserve("default", Decimal("1"), idempotency_key="w1")
    second = store.ledger.reserve("default", Decimal("1"), idempotency_key="w2")
    store.ledger.settle(first, usage=usage, response=("same-request", "{}"))
    store.ledger.settle(second, usage=usage, response=("same-request", "{}"))
    report = store.ledger.verify_ledger()
    assert report.failed_checks() == ["no_duplicate_charges"], report.violations
    # a repair round is sequential (settled before the next reservation) and stays clean
    other = UsageIn(model="m", input_tokens=10, output_tokens=10, request_hash="repaired")
    store.ledger.settle(store.ledger.reserve("default", Decimal("1"), idempotency_key="r1"), usage=other)
    store.ledger.settle(store.ledger.reserve("default", Decimal("1"), idempotency_key="r2"), usage=other,
                 response=("repaired", "{}"))
    assert store.ledger.verify_ledger().failed_checks() == ["no_duplicate_charges"]
    assert len([v for v in store.ledger.verify_ledger().violations if "same request" in v.message]) == 1


def test_zero_default_credits_write_no_grant_and_balances_print_as_decimals(store_url, monkeypatch):  # noqa: F811
    from click.testing import CliRunner

    from agentr_dagster.cli import main

    monkeypatch.setenv("AGENTR_DATABASE_URL", store_url)
    runner = CliRunner()
    assert runner.invoke(main, ["credits", "set-default", "0"]).exit_code == 0
    shown = runner.invoke(main, ["credits", "balance", "--account", "newcomer"])
    assert shown.exit_code == 0 and "newcomer: balance 0.00000000 credits" in shown.output, shown.output
    assert "E-" not in shown.output
    verify = runner.invoke(main, ["ledger", "verify"])
    assert verify.exit_code == 0, verify.output
    with DomainStore(store_url) as store:
        assert [e for e in store.ledger.ledger() if e.kind == "grant" and e.amount <= 0] == []


def test_the_last_credits_are_spent_before_scoring_stops(store, tmp_path, scripted_server):  # noqa: F811
    from agentr_dagster.stages.intake import add_papers_file, add_project

    store.ledger.set_pricing(MODEL, Decimal("2.50"), Decimal("10.00"))
    server = scripted_server(chain_responder, latency=0.2)
    n = 8
    # what one scoring call holds (its bound) and costs, measured on a first project
    make_project(store, tmp_path, "probe", n)
    probe = _backend(server, store)
    run_intent(store, probe, "probe")
    assert score_project(store, probe, "probe", concurrency=4).complete
    held = max(r.amount for r in store.ledger.reservations("probe") if r.stage == "score")
    cost = max(u.credits for u in store.ledger.usage("probe") if u.stage == "score")
    # a second project (another abstract: no cached answers), scored from an account that can pay for every
    # paper but not for four calls' bounds at once
    add_project(store, "tight", "Auditable automation of evidence synthesis with language models, measured.")
    assert add_papers_file(store, "tight", tmp_path / "probe.csv").added == n
    run_intent(store, probe, "tight")
    budget = (cost * n * Decimal("1.3") + held * Decimal("1.1")).quantize(Decimal("0.00000001"))
    assert 4 * held > budget  # four bounds at once do not fit: the old code stopped at the first refusal
    store.ledger.set_default_credits(0)
    store.ledger.ensure_account("tight-account")
    store.ledger.grant("tight-account", budget, note="just enough")
    settings = probe.gateway.settings.model_copy(update={"account": "tight-account"})
    backend = LLMStageBackend(OpenAICompatibleBackend(settings, store))

    summary = score_project(store, backend, "tight", concurrency=4)

    assert summary.complete and summary.scored == n, summary_text(summary)
    assert store.ledger.open_reservations() == []
    assert store.ledger.balance("tight-account") == budget - sum(u.credits for u in store.ledger.usage("tight")
                                                          if u.stage == "score")
    assert_ledger_reconciles(store, "tight-account")
    assert store.ledger.verify_ledger().ok

    # out of credits for real (three calls' worth left, less than one bound): the last credits are still spent
    # (the account's last call holds what is left), then it stops and says the balance after every settle
    add_project(store, "broke", "A third abstract, about running out of credits near the end of a balance.")
    assert add_papers_file(store, "broke", tmp_path / "probe.csv").added == n
    run_intent(store, probe, "broke")
    store.ledger.adjust("tight-account", cost * 3 - store.ledger.balance("tight-account"), note="test: 3 calls")
    assert held > cost * 3
    stopped = score_project(store, backend, "broke", concurrency=4)
    assert not stopped.complete and stopped.failed
    assert stopped.scored >= 2, summary_text(stopped)
    left = store.ledger.balance("tight-account")
    assert any(f"{left:f} credits now" in m for m in stopped.messages), stopped.messages
    assert store.ledger.open_reservations() == []
    assert store.ledger.verify_ledger().ok


def test_a_lost_database_is_recorded_as_a_transient_failure_once_it_is_back(
        pg_url, pg_store, tmp_path, scripted_server):  # noqa: F811
    slug, n = "lost-db", 6
    make_project(pg_store, tmp_path, slug, n)
    relay = Relay(make_url(pg_url).port or 5432)
    relay.start()
    server = scripted_server(chain_responder, latency=0.6)
    store = DomainStore(make_url(pg_url).set(port=relay.port).render_as_string(hide_password=False))
    backend = _backend(server, store, settle_attempts=1)  # the settle gives up at once: the outage outlasts the stage

    def cut() -> None:
        # Cut once a scoring call has reached the endpoint (its answer comes 0.6 s later, into the outage), so
        # an answered-but-unsettled call is there to be kept and settled later, whatever the machine's load.
        wait_for(lambda: any(stage_name(body) == "score" for body in list(server.requests)), "a scoring call")
        relay.stop()
        time.sleep(2.0)
        relay.start()

    try:
        run_intent(store, backend, slug, run_id="run-lost")
        cutter = threading.Thread(target=cut)
        cutter.start()
        try:
            with database_failures_recorded(store, slug, "score", "run-lost", backend, wait_s=20):
                score_project(store, backend, slug, concurrency=2, run_id="run-lost")
        except TransientError as exc:
            raised = exc
        else:
            raised = None
        cutter.join()
    finally:
        relay.close()
    assert raised is not None and "domain database" in raised.message
    failures = [f for f in pg_store.lifecycle.failures(slug) if f.stage == "score" and f.paper_id is None]
    assert failures and failures[-1].failure_class == "transient" and failures[-1].run_id == "run-lost"
    assert [r.state for r in pg_store.lifecycle.status(slug) if r.stage == "score"] == ["failed_transient"]
    # the answered calls the outage kept from settling were settled once the database was back: charged once
    assert backend.gateway.unsettled == []
    score_usage = [u for u in pg_store.ledger.usage(slug) if u.stage == "score"]
    assert len(score_usage) == len({u.reservation_id for u in score_usage}) >= 1
    assert pg_store.ledger.open_reservations() == []  # what the outage kept from being released was released then
    report = pg_store.ledger.verify_ledger()
    assert report.ok, report.violations
    store.close()


def _kept_by_a_dying_process(pg_url, pg_store, tmp_path, server, slug: str, n: int) -> tuple[LLMSettings, int]:
    """Score ``n`` papers while the database is cut with every call in flight, then 'die' (the backend dropped
    without closing the stage): the answers are kept on disk with their fences, their claims left in the store,
    and the process is made gone (its claims and its kept fences name a pid that has exited)."""
    make_project(pg_store, tmp_path, slug, n)
    relay = Relay(make_url(pg_url).port or 5432)
    relay.start()
    store = DomainStore(make_url(pg_url).set(port=relay.port).render_as_string(hide_password=False))
    spool = tmp_path / "unsettled"
    settings = LLMSettings(base_url=server.base_url, api_key=API_KEY, model=MODEL, backoff_base_s=0.01,
                           settle_attempts=1, unsettled_dir=str(spool))
    dying = LLMStageBackend(OpenAICompatibleBackend(settings, store))
    run_intent(pg_store, dying, slug, run_id="run-dies")
    calls_before = server.calls

    def cut() -> None:
        wait_for(lambda: server.calls - calls_before >= n, "every scoring call in flight")
        relay.stop()

    cutter = threading.Thread(target=cut)
    cutter.start()
    with contextlib.suppress(Exception):  # the database is gone: the stage fails however it fails
        score_project(store, dying, slug, concurrency=n, run_id="run-dies")
    cutter.join()
    relay.close()
    store.close()
    kept = sorted(spool.glob("reservation-*.json"))
    assert len(kept) == n and len(pg_store.ledger.open_reservations()) == n  # answered, unsettled, on disk
    gone = dead_pid()
    with pg_store.engine.begin() as conn:
        conn.execute(sa.update(t.paper_claims).values(pid=gone))
    for path in kept:
        body = json.loads(path.read_text())
        assert body["fence"]["table"] == "paper" and body["fence"]["pid"] == os.getpid()
        path.write_text(json.dumps({**body, "fence": {**body["fence"], "pid": gone}}))
    return settings, calls_before


def test_an_answered_call_a_dead_process_could_not_settle_is_charged_by_the_next_run(pg_url, pg_store, tmp_path,
                                                                                     scripted_server):  # noqa: F811
    """The database is cut while the calls are in flight and the process 'dies': the answers it kept on disk are
    settled by the next run under their fences (the claims still name the dead holder: nobody took them over),
    which charges them once and asks nothing again."""
    slug, n = "kept", 3
    server = scripted_server(chain_responder, latency=0.6)
    settings, calls_before = _kept_by_a_dying_process(pg_url, pg_store, tmp_path, server, slug, n)
    nxt = LLMStageBackend(OpenAICompatibleBackend(settings, pg_store))
    summary = score_project(pg_store, nxt, slug, concurrency=n, run_id="run-next")
    assert summary.complete and server.calls - calls_before == n  # not asked again: the kept answers are used
    assert list((tmp_path / "unsettled").glob("*.json")) == []
    assert len([u for u in pg_store.ledger.usage(slug) if u.stage == "score"]) == n
    assert pg_store.ledger.waste(slug) == []
    assert_ledger_reconciles(pg_store)
    assert pg_store.ledger.verify_ledger().ok


def test_answers_kept_by_a_dead_process_whose_claims_were_revoked_are_waste_not_charged(
        pg_url, pg_store, tmp_path, scripted_server):  # noqa: F811
    """As above, but the dead holder's claims are revoked before its kept answers are settled (a lease takeover,
    `agentr resume`): the kept settlements are refused by their fences (operator waste), the next run asks again
    and each paper is charged once."""
    slug, n = "revoked", 3
    server = scripted_server(chain_responder, latency=0.6)
    settings, calls_before = _kept_by_a_dying_process(pg_url, pg_store, tmp_path, server, slug, n)
    assert pg_store.leases.revoke_gone(slug) == n
    nxt = LLMStageBackend(OpenAICompatibleBackend(settings, pg_store))
    summary = score_project(pg_store, nxt, slug, concurrency=n, run_id="run-next")
    assert summary.complete and server.calls - calls_before == 2 * n  # the refused answers were asked again
    assert list((tmp_path / "unsettled").glob("*.json")) == []
    score_usage = [u for u in pg_store.ledger.usage(slug) if u.stage == "score"]
    assert len(score_usage) == n and {u.run_id for u in score_usage} == {"run-next"}
    assert [w.cause for w in pg_store.ledger.waste(slug)] == ["fenced_late_answer"] * n
    assert_ledger_reconciles(pg_store)
    report = pg_store.ledger.verify_ledger()
    assert report.ok, report.violations
