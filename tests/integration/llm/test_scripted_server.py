"""The scripted OpenAI-compatible server, exercised over real sockets with the official openai client."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor

import openai
import pytest

from agentr_dagster.testing.scripted_server import Fault, ScriptedOpenAIServer

MESSAGES = [{"role": "system", "content": "You are terse."}, {"role": "user", "content": "Say hi as JSON."}]


def _client(server: ScriptedOpenAIServer, **kw) -> openai.OpenAI:
    return openai.OpenAI(base_url=server.base_url, api_key="test-key", max_retries=0, timeout=10, **kw)


def _ask(client: openai.OpenAI, content: str = "hello"):
    return client.chat.completions.create(model="scripted-model", messages=[{"role": "user", "content": content}])


def test_normal_call_returns_content_and_usage():
    def responder(body: dict) -> str:
        return json.dumps({"echo": body["messages"][-1]["content"], "temperature": body.get("temperature")})

    with ScriptedOpenAIServer(responder, model="m-1") as server:
        assert server.base_url.startswith("http://127.0.0.1:") and server.base_url.endswith("/v1")
        client = _client(server)
        resp = client.chat.completions.create(
            model="m-1", messages=MESSAGES, temperature=0.3, response_format={"type": "json_object"}
        )
        content = resp.choices[0].message.content
        assert json.loads(content) == {"echo": "Say hi as JSON.", "temperature": 0.3}
        assert resp.model == "m-1"
        assert resp.object == "chat.completion"
        assert resp.id.startswith("chatcmpl-")
        assert resp.choices[0].message.role == "assistant"
        assert resp.choices[0].finish_reason == "stop"
        chars = len("You are terse.") + len("Say hi as JSON.")
        assert resp.usage.prompt_tokens == -(-chars // 4)
        assert resp.usage.completion_tokens == -(-len(content) // 4)
        assert resp.usage.total_tokens == resp.usage.prompt_tokens + resp.usage.completion_tokens
        assert server.calls == 1
        assert server.requests[0]["response_format"] == {"type": "json_object"}
        assert server.requests[0]["temperature"] == 0.3
        assert [m.id for m in client.models.list()] == ["m-1"]


def test_default_responder_and_custom_token_counts():
    with ScriptedOpenAIServer(prompt_tokens=lambda b: 111, completion_tokens=lambda b, c: 7) as server:
        resp = _ask(_client(server))
        assert resp.choices[0].message.content == "{}"
        assert (resp.usage.prompt_tokens, resp.usage.completion_tokens, resp.usage.total_tokens) == (
            111,
            7,
            118,
        )


def test_status_faults_map_to_openai_exceptions():
    faults = [
        Fault("status", status=401),
        Fault("status", status=404),
        Fault("status", status=429, retry_after=2),
        Fault("status", status=500),
        Fault("status", status=503, retry_after=0.5),
        Fault("status", status=500, body='{"error": {"message": "custom boom", "type": "server_error"}}'),
    ]
    with ScriptedOpenAIServer(faults=faults) as server:
        client = _client(server)
        with pytest.raises(openai.AuthenticationError) as e401:
            _ask(client)
        assert e401.value.status_code == 401
        with pytest.raises(openai.NotFoundError):
            _ask(client)
        with pytest.raises(openai.RateLimitError) as e429:
            _ask(client)
        assert e429.value.response.headers["retry-after"] == "2"
        with pytest.raises(openai.InternalServerError) as e500:
            _ask(client)
        assert "retry-after" not in e500.value.response.headers
        with pytest.raises(openai.InternalServerError) as e503:
            _ask(client)
        assert e503.value.status_code == 503
        assert e503.value.response.headers["retry-after"] == "0.5"
        with pytest.raises(openai.InternalServerError, match="custom boom"):
            _ask(client)
        # the list is consumed: afterwards every request is answered normally
        assert _ask(client).choices[0].message.content == "{}"
        assert server.calls == 7


def test_openai_client_retries_honour_retry_after():
    with ScriptedOpenAIServer(faults=[Fault("status", status=429, retry_after=0.2)]) as server:
        client = openai.OpenAI(base_url=server.base_url, api_key="k", max_retries=2, timeout=10)
        start = time.monotonic()
        assert _ask(client).choices[0].message.content == "{}"
        assert time.monotonic() - start >= 0.2
        assert server.calls == 2


def test_drop_raises_connection_error():
    with ScriptedOpenAIServer(faults=[Fault("drop")]) as server:
        client = _client(server)
        with pytest.raises(openai.APIConnectionError) as exc:
            _ask(client)
        assert not isinstance(exc.value, openai.APITimeoutError)
        assert "disconnected" in repr(exc.value.__cause__).lower()
        assert _ask(client).choices[0].message.content == "{}"  # the server keeps serving


def test_truncated_body_raises_connection_error():
    # httpx reads the whole body before openai parses it, so a short body surfaces as
    # APIConnectionError caused by httpx.RemoteProtocolError ("peer closed connection ...").
    with ScriptedOpenAIServer(faults=[Fault("truncate")]) as server:
        client = _client(server)
        with pytest.raises(openai.APIConnectionError) as exc:
            _ask(client)
        assert "peer closed connection" in repr(exc.value.__cause__)
        assert _ask(client).choices[0].message.content == "{}"


def test_content_faults_return_200_with_bad_content():
    faults = [Fault("invalid_json"), Fault("schema_violation")]
    with ScriptedOpenAIServer(lambda b: '{"fine": 1}', faults=faults) as server:
        client = _client(server)
        bad = _ask(client).choices[0].message.content
        assert bad == "not json {"
        with pytest.raises(json.JSONDecodeError):
            json.loads(bad)
        assert json.loads(_ask(client).choices[0].message.content) == {"unexpected": True}
        assert json.loads(_ask(client).choices[0].message.content) == {"fine": 1}


def test_latency_fault_and_client_timeout():
    with ScriptedOpenAIServer(faults=[Fault("latency", latency=0.3), Fault("latency", latency=2.0)]) as server:
        client = _client(server)
        start = time.monotonic()
        assert _ask(client).choices[0].message.content == "{}"
        assert time.monotonic() - start >= 0.3 and server.faults_applied[0].latency == 0.3  # not the 2 s one
        with pytest.raises(openai.APITimeoutError):
            client.with_options(timeout=0.5).chat.completions.create(model="m", messages=MESSAGES)


def test_callable_fault_plan_sees_index_and_body():
    seen: list[tuple[int, str]] = []

    def plan(index: int, body: dict) -> Fault | None:
        seen.append((index, body["messages"][-1]["content"]))
        return Fault("status", status=500) if "fail" in body["messages"][-1]["content"] else None

    with ScriptedOpenAIServer(faults=plan) as server:
        client = _client(server)
        assert _ask(client, "a").choices[0].message.content == "{}"
        with pytest.raises(openai.InternalServerError):
            _ask(client, "please fail")
        assert _ask(client, "b").choices[0].message.content == "{}"
    assert seen == [(0, "a"), (1, "please fail"), (2, "b")]
    assert [f.kind for f in server.faults_applied] == ["ok", "status", "ok"]


def test_responder_exception_becomes_500():
    def responder(body: dict) -> str:
        raise RuntimeError("responder bug")

    with (
        ScriptedOpenAIServer(responder) as server,
        pytest.raises(openai.InternalServerError, match="responder bug"),
    ):
        _ask(_client(server))


def test_concurrent_requests_overlap():
    with ScriptedOpenAIServer(lambda b: json.dumps({"n": b["messages"][0]["content"]}), latency=0.3) as server:
        client = _client(server)
        start = time.monotonic()
        with ThreadPoolExecutor(16) as pool:
            results = list(pool.map(lambda i: _ask(client, str(i)), range(16)))
        elapsed = time.monotonic() - start
        assert elapsed < 16 * 0.3, elapsed  # less than one after the other (and max_in_flight says how many)
        assert server.max_in_flight >= 8
        assert server.calls == 16 and len(server.requests) == 16
        assert sorted(json.loads(r.choices[0].message.content)["n"] for r in results) == sorted(map(str, range(16)))


def test_streaming_is_supported():
    with ScriptedOpenAIServer(lambda b: "streamed") as server:
        stream = _client(server).chat.completions.create(
            model="m", messages=MESSAGES, stream=True, stream_options={"include_usage": True}
        )
        chunks = list(stream)
        assert "".join(c.choices[0].delta.content or "" for c in chunks if c.choices) == "streamed"
        assert chunks[-1].usage is not None and chunks[-1].usage.completion_tokens == 2


def test_stop_closes_keepalive_connections():
    server = ScriptedOpenAIServer().start()
    client = _client(server)
    assert _ask(client).choices[0].message.content == "{}"
    server.stop()
    server.stop()  # idempotent
    with pytest.raises(openai.APIConnectionError):
        _ask(client)


def test_cli_serves_until_killed():
    with ScriptedOpenAIServer() as probe:  # find a free port, then release it
        port = probe.port
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "agentr_dagster.testing.scripted_server",
            "--port",
            str(port),
            "--latency",
            "0.05",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
    )
    try:
        line = proc.stdout.readline()
        assert f"http://127.0.0.1:{port}/v1" in line, line
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/models", timeout=5) as r:
            assert json.load(r)["data"][0]["id"] == "scripted-model"
        client = openai.OpenAI(base_url=f"http://127.0.0.1:{port}/v1", api_key="k", max_retries=0, timeout=10)
        assert _ask(client).choices[0].message.content == "{}"
    finally:
        proc.terminate()
        assert proc.wait(timeout=10) == 0


def test_scripted_server_fixture_factory(scripted_server):  # noqa: F811
    first = scripted_server(lambda b: '{"x": 1}', latency=0.01)
    second = scripted_server(faults=[Fault("status", status=503)])
    assert first.base_url != second.base_url
    assert json.loads(_ask(_client(first)).choices[0].message.content) == {"x": 1}
    with pytest.raises(openai.InternalServerError):
        _ask(_client(second))
