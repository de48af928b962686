"""Endpoint limits: concurrency, request and token budgets, Retry-After pauses; in-process and via Redis."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time
import uuid

import pytest

from agentr_dagster.limits import EndpointLimits, InProcessLimiter, _Bucket, make_limiter
from agentr_dagster.testing.responders import valid_responder

REDIS_URL = "redis://127.0.0.1:6379/15"


def test_token_bucket_arithmetic():
    bucket = _Bucket(capacity=60, per_second=1, level=60, stamp=0.0)
    assert bucket.wait_for(50, now=0.0) == 0 and bucket.level == 10
    assert bucket.wait_for(20, now=0.0) == 10  # 10 short at 1 token/s
    assert bucket.wait_for(20, now=10.0) == 0  # refilled
    assert bucket.wait_for(500, now=10.0) > 0  # capped at capacity, never infinite
    assert bucket.wait_for(500, now=200.0) == 0


def test_in_process_limit_bounds_concurrent_calls(sqlite_store, scripted_server):  # noqa: F811
    from agentr_dagster.domain.contracts import PaperRecord
    from agentr_dagster.imports import content_hash, paper_key
    from agentr_dagster.llm.backends import LLMStageBackend
    from agentr_dagster.llm.gateway import LLMSettings, OpenAICompatibleBackend
    from agentr_dagster.stages.intent import run_intent
    from agentr_dagster.stages.scoring import score_project

    server = scripted_server(valid_responder, latency=0.15)
    store = sqlite_store
    store.projects.create_project(
        "limited", "An abstract about limiting concurrent calls to a language model endpoint."
    )
    store.projects.add_papers("limited", [PaperRecord(title=f"Paper {i}") for i in range(12)], key_fn=paper_key,
                     hash_fn=content_hash, provenance={"format": "test"})
    settings = LLMSettings(base_url=server.base_url, model="m", max_concurrent=3)
    backend = LLMStageBackend(OpenAICompatibleBackend(settings, store))
    run_intent(store, backend, "limited")
    server.max_in_flight = 0
    summary = score_project(store, backend, "limited", concurrency=8)
    assert summary.complete and summary.scored == 12
    assert server.max_in_flight == 3


def test_retry_after_pauses_every_caller():
    limiter = InProcessLimiter(EndpointLimits(max_concurrent=4))
    limiter.pause(0.5)
    started = time.monotonic()
    with limiter.slot(10):
        pass
    assert time.monotonic() - started >= 0.45


def test_limiters_are_shared_per_endpoint():
    limits = EndpointLimits(max_concurrent=2)
    assert make_limiter(limits, "http://a/v1") is make_limiter(EndpointLimits(max_concurrent=2), "http://a/v1")
    assert make_limiter(limits, "http://a/v1") is not make_limiter(limits, "http://b/v1")


@pytest.mark.redis
def test_redis_limit_holds_across_processes(scripted_server):  # noqa: F811
    """Two processes with four threads each share a limit of 2 concurrent calls through Redis."""
    server = scripted_server(valid_responder, latency=0.2)
    endpoint = f"test-{uuid.uuid4().hex[:8]}"
    script = textwrap.dedent(f"""
        import threading, openai
        from agentr_dagster.limits import EndpointLimits, make_limiter
        limiter = make_limiter(EndpointLimits(max_concurrent=2, redis_url={REDIS_URL!r}), {endpoint!r})
        client = openai.OpenAI(base_url={server.base_url!r}, api_key="x", max_retries=0)
        def call():
            with limiter.slot(100):
                client.chat.completions.create(model="m", messages=[{{"role": "user", "content": "hi"}}])
        threads = [threading.Thread(target=call) for _ in range(4)]
        [t.start() for t in threads]; [t.join() for t in threads]
    """)
    procs = [subprocess.Popen([sys.executable, "-c", script]) for _ in range(2)]
    assert [p.wait(timeout=60) for p in procs] == [0, 0]
    assert server.calls == 8
    assert server.max_in_flight == 2


@pytest.mark.redis
def test_redis_token_budget_is_shared():
    endpoint = f"tpm-{uuid.uuid4().hex[:8]}"
    first = make_limiter(EndpointLimits(tokens_per_minute=600, redis_url=REDIS_URL), endpoint)
    with first.slot(600):  # the whole minute's budget
        pass
    started = time.monotonic()
    with first.slot(5):  # 600/min refills 10 tokens/s: 5 tokens need ~0.5 s
        pass
    assert 0.3 <= time.monotonic() - started < 30  # refilled, not the full minute a shared bucket would wait


def test_limits_reach_the_gateway_from_the_resource():
    from agentr_dagster.defs.resources import LLMResource

    resource = LLMResource(base_url="http://127.0.0.1:9/v1", settings={"max_concurrent": 5, "rpm": 60})
    settings = resource.llm_settings()
    assert settings.limits.max_concurrent == 5 and settings.limits.requests_per_minute == 60


def _score_with_one_429(store, server_factory, limit_settings: dict,
                        retry_after: float = 1.2) -> tuple[float, list[float]]:
    """Score 8 papers, 4 at a time, against a server whose first scoring request gets a 429 with Retry-After;
    returns when that 429 was answered and when every other scoring request arrived (monotonic seconds).

    The 429 is held until the other three workers' first requests have arrived: on a loaded machine a worker
    that passed the limiter before the pause may reach the server late, and that request is not the one the
    pause must hold back."""
    import threading

    from agentr_dagster.domain.contracts import PaperRecord
    from agentr_dagster.imports import content_hash, paper_key
    from agentr_dagster.llm.backends import LLMStageBackend
    from agentr_dagster.llm.gateway import LLMSettings, OpenAICompatibleBackend
    from agentr_dagster.stages.intent import run_intent
    from agentr_dagster.stages.scoring import score_project
    from agentr_dagster.testing.scripted_server import Fault
    from tests.support.recovery import stage_name

    arrivals: list[float] = []
    answered: list[float] = []
    others_arrived = threading.Event()
    lock = threading.Lock()

    def plan(index: int, body: dict):
        if stage_name(body) != "score":
            return None
        with lock:
            arrivals.append(time.monotonic())
            if len(arrivals) == 4:
                answered.append(time.monotonic())
                others_arrived.set()
            if len(arrivals) == 1:
                return Fault("status", status=429, retry_after=retry_after, hold=others_arrived)
        return Fault("latency", latency=0.3)

    server = server_factory(valid_responder, faults=plan)
    slug = f"paused-{uuid.uuid4().hex[:6]}"
    store.projects.create_project(
        slug, "An abstract about pausing every caller of a rate-limited language model endpoint.")
    store.projects.add_papers(slug, [PaperRecord(title=f"Paper {i}") for i in range(8)], key_fn=paper_key,
                     hash_fn=content_hash, provenance={"format": "test"})
    settings = LLMSettings(base_url=server.base_url, model="m", backoff_base_s=0.01, **limit_settings)
    backend = LLMStageBackend(OpenAICompatibleBackend(settings, store))
    run_intent(store, backend, slug)
    summary = score_project(store, backend, slug, concurrency=4)
    assert summary.complete and summary.scored == 8
    assert answered, "the other three workers' first requests never arrived"
    return answered[0], arrivals[1:]


def _inside_window(first: float, others: list[float], retry_after: float = 1.2) -> list[float]:
    # ``first`` is when the 429 was answered; allow 0.15 s for it to reach its caller and set the pause
    return [round(t - first, 3) for t in others if first + 0.15 < t < first + retry_after - 0.1]


def test_retry_after_pauses_every_caller_with_no_limits_configured(sqlite_store, scripted_server):  # noqa: F811
    first, others = _score_with_one_429(sqlite_store, scripted_server, {})
    assert len(others) == 8 and not _inside_window(first, others), _inside_window(first, others)


@pytest.mark.redis
def test_retry_after_pauses_every_caller_over_redis_with_only_a_concurrency_limit(
        sqlite_store, scripted_server):  # noqa: F811
    first, others = _score_with_one_429(sqlite_store, scripted_server, {"max_concurrent": 8, "redis_url": REDIS_URL})
    assert len(others) == 8 and not _inside_window(first, others), _inside_window(first, others)


def test_the_client_timeout_is_a_setting(monkeypatch):
    from agentr_dagster.defs.resources import resources_from_env

    monkeypatch.setenv("AGENTR_LLM_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("AGENTR_LLM_TIMEOUT", "7.5")
    assert resources_from_env(resolve=True)["llm"].llm_settings().timeout_s == 7.5
    monkeypatch.delenv("AGENTR_LLM_TIMEOUT")
    assert resources_from_env(resolve=True)["llm"].llm_settings().timeout_s == 120.0
