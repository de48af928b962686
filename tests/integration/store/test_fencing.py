"""Leases, claims and the fence before every paid call (issue 25, point 7 and 8), on SQLite and PostgreSQL, with
the gateway calling the scripted server over real HTTP."""

from __future__ import annotations

import subprocess
import sys
import threading
from datetime import timedelta
from decimal import Decimal

import pytest
import sqlalchemy as sa

from agentr_dagster.domain.contracts import ResearchIntent
from agentr_dagster.domain.failures import StoppedError
from agentr_dagster.domain.prompts import load_prompt
from agentr_dagster.domain.stopping import clear_stop, request_stop
from agentr_dagster.llm.gateway import CallContext, LLMSettings, OpenAICompatibleBackend
from agentr_dagster.store import schema as t
from agentr_dagster.store.database import now_utc
from agentr_dagster.store.leases import HOST, Heartbeat, current_realm, holder_gone, lease_lost, new_holder
from agentr_dagster.testing.responders import valid_responder
from tests.support import dead_pid
from tests.support.polling import wait_for
from tests.support.recovery import MODEL, make_project, stage_name

INTENT_MESSAGES = load_prompt("intent").render(abstract="Fencing paid calls: one payment per request.")


def _gateway(server, store) -> OpenAICompatibleBackend:
    store.ledger.set_pricing(MODEL, Decimal("2.50"), Decimal("10.00"))
    return OpenAICompatibleBackend(LLMSettings(base_url=server.base_url, model=MODEL, backoff_base_s=0.01), store)


def test_a_live_process_on_this_host_is_never_gone_however_old_its_heartbeat():
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        now = now_utc()
        long_ago = now - timedelta(hours=1)
        here = current_realm()
        assert not holder_gone(HOST, sleeper.pid, "x", now, long_ago, now, ttl_s=1, realm=here)  # alive: kept
        assert holder_gone(HOST, dead_pid(), "x", long_ago, long_ago, now, ttl_s=3600, realm=here)  # exited: gone
        # a lease taken an hour ago, its pid now a process started since: the pid was reused, the holder is gone
        assert holder_gone(HOST, sleeper.pid, "x", long_ago, now, now, ttl_s=3600, realm=here)
        # another host: only the heartbeat can tell
        assert not holder_gone(HOST + "-b", 1, "x", long_ago, now, now, ttl_s=60, realm=here)
        assert holder_gone(HOST + "-b", 1, "x", long_ago, long_ago, now, ttl_s=60, realm=here)
    finally:
        sleeper.kill()
        sleeper.wait()


def test_the_same_request_from_two_workers_is_paid_once(store, tmp_path, scripted_server):
    """Two gateways (two projects' runs) ask the same request at once: the second waits for the first's claim and
    reads the answer it paid for; a claim left by a process that exited is taken over."""
    server = scripted_server(valid_responder, latency=1.0)
    make_project(store, tmp_path, "twin-a", 1)
    make_project(store, tmp_path, "twin-b", 1)
    first, second = _gateway(server, store), _gateway(server, store)
    answers: dict[str, ResearchIntent] = {}

    def ask(name: str, gateway, slug: str) -> None:
        answers[name] = gateway.complete("intent", INTENT_MESSAGES, ResearchIntent, CallContext(slug, "intent"))

    a = threading.Thread(target=ask, args=("a", first, "twin-a"))
    a.start()
    wait_for(lambda: server.calls, "the first call at the server", timeout=10)
    ask("b", second, "twin-b")
    a.join()
    assert server.calls == 1 and answers["a"] == answers["b"]
    assert [u.slug for u in store.ledger.usage()] == ["twin-a"]  # one charge, to whoever asked first

    with store.engine.begin() as conn:  # a claim left by a process that exited is taken over
        now = now_utc()
        conn.execute(sa.insert(t.request_claims).values(
            request_hash="k2", stage="intent", holder="dead", host=HOST, realm=current_realm(), pid=dead_pid(),
            claimed_at=now,
            heartbeat_at=now))
    me = new_holder("me")
    beat = Heartbeat(store, me)  # a holder of this process is live while it beats
    try:
        assert store.leases.try_claim_request("k2", me, "intent")
        assert not store.leases.try_claim_request("k2", new_holder("other"), "intent")  # mine, and I am alive
        assert store.leases.renew_request("k2", me) and not store.leases.renew_request("k2", "someone-else")
    finally:
        beat.stop()
    assert store.leases.try_claim_request("k2", new_holder("other"), "intent")  # stopped beating: gone


def test_a_holder_that_lost_its_lease_or_claim_makes_no_call(store, tmp_path, scripted_server):
    server = scripted_server(valid_responder)
    gateway = _gateway(server, store)
    make_project(store, tmp_path, "fenced", 2)
    paper = store.projects.list_papers("fenced")[0]
    me = new_holder("me")
    beat = Heartbeat(store, me, every_s=0.05)
    try:
        assert store.leases.try_acquire_project_lease("fenced", me)[0]
        beat.watch = "fenced"
        assert store.leases.claim_papers("fenced", me, [(paper.id, "ck")]) == {"ck"}
        assert store.leases.renew_claim(me, "ck")
        with store.engine.begin() as conn:  # another holder took the claim over
            conn.execute(sa.update(t.paper_claims).values(holder="other"))
        assert not store.leases.renew_claim(me, "ck")

        def fence() -> None:
            if not store.leases.renew_claim(me, "ck"):
                raise StoppedError("claim lost")

        ctx = CallContext(slug="fenced", stage="intent", paper_id=paper.id, fence=fence)
        with pytest.raises(StoppedError):
            gateway.complete("intent", INTENT_MESSAGES, ResearchIntent, ctx)
        assert server.calls == 0 and store.ledger.open_reservations() == []

        with store.engine.begin() as conn:  # the project's lease too: the next heartbeat notices
            conn.execute(sa.update(t.project_leases).values(holder="other"))
        wait_for(lambda: lease_lost("fenced"), "the heartbeat noticing the lost lease", timeout=10)
        with pytest.raises(StoppedError, match="took the lease"):
            gateway.complete("intent", INTENT_MESSAGES, ResearchIntent, CallContext(slug="fenced", stage="intent"))
        assert server.calls == 0
    finally:
        beat.stop()


def test_a_stop_request_makes_no_new_call(store, tmp_path, scripted_server):
    server = scripted_server(valid_responder)
    gateway = _gateway(server, store)
    make_project(store, tmp_path, "p", 1)
    request_stop("stopped by SIGTERM")
    try:
        with pytest.raises(StoppedError, match="SIGTERM"):
            gateway.complete("intent", INTENT_MESSAGES, ResearchIntent, CallContext(slug="p", stage="intent"))
    finally:
        clear_stop()
    assert server.calls == 0 and store.ledger.open_reservations() == []
    assert gateway.complete("intent", INTENT_MESSAGES, ResearchIntent, CallContext(slug="p", stage="intent"))
    assert [stage_name(b) for b in server.requests] == ["intent"]
    assert store.ledger.verify_ledger().ok
