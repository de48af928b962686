"""A real, scriptable OpenAI-compatible HTTP server for tests and benchmarks.

It speaks enough of the OpenAI REST API for the official ``openai`` client (``GET /v1/models``,
``POST /v1/chat/completions``), answers from a Python ``responder`` callable, and can inject faults
(HTTP errors with ``Retry-After``, dropped connections, truncated bodies, non-JSON or off-schema content,
extra latency) so retry/timeout/validation paths are exercised over a real socket. One thread per
connection, so concurrent requests really overlap (``max_in_flight`` records how many did).

Usage::

    with ScriptedOpenAIServer(lambda body: '{"ok": true}', latency=0.1) as server:
        client = openai.OpenAI(base_url=server.base_url, api_key="x", max_retries=0)
        ...

CLI (serves the default responder until killed)::

    python -m agentr_dagster.testing.scripted_server --port 8099 --latency 0.5
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import signal
import socket
import sys
import threading
import time
import traceback
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = ["FAULT_KINDS", "Fault", "ScriptedOpenAIServer", "count_message_chars", "main"]

FAULT_KINDS = ("ok", "status", "drop", "truncate", "invalid_json", "schema_violation", "latency")

INVALID_JSON_CONTENT = "not json {"
SCHEMA_VIOLATION_CONTENT = '{"unexpected": true}'

_ERROR_TYPES = {
    400: ("invalid_request_error", "bad_request"),
    401: ("invalid_request_error", "invalid_api_key"),
    403: ("permission_error", "forbidden"),
    404: ("invalid_request_error", "model_not_found"),
    409: ("conflict_error", "conflict"),
    422: ("invalid_request_error", "unprocessable_entity"),
    429: ("rate_limit_error", "rate_limit_exceeded"),
    500: ("server_error", "internal_error"),
    502: ("server_error", "bad_gateway"),
    503: ("server_error", "service_unavailable"),
}


@dataclass
class Fault:
    """What the server does with one chat-completion request.

    kind: "ok" | "status" | "drop" | "truncate" | "invalid_json" | "schema_violation" | "latency"
    """

    kind: str
    status: int = 500  # for kind="status" (e.g. 401, 404, 429, 500, 503)
    retry_after: float | None = None  # Retry-After header seconds (for 429/503)
    latency: float | None = None  # extra delay for this request (any kind)
    body: str | None = None  # for "status": optional error JSON body
    hold: threading.Event | None = None  # answer only once this is set (at most 30 s): orders a test's requests

    def __post_init__(self) -> None:
        if self.kind not in FAULT_KINDS:
            raise ValueError(f"unknown fault kind {self.kind!r}; expected one of {FAULT_KINDS}")


Responder = Callable[[dict], str]
FaultPlan = list[Fault] | Callable[[int, dict], Fault | None]


def _default_responder(body: dict) -> str:
    return "{}"


def count_message_chars(body: dict) -> int:
    """Characters of text in all messages of a chat-completion request (str or list-of-parts content)."""
    total = 0
    for message in body.get("messages") or []:
        if not isinstance(message, dict):
            continue
        content = message.get("content")
        if isinstance(content, str):
            total += len(content)
        elif isinstance(content, list):
            for part in content:
                if isinstance(part, dict) and isinstance(part.get("text"), str):
                    total += len(part["text"])
                elif isinstance(part, str):
                    total += len(part)
    return total


def _default_prompt_tokens(body: dict) -> int:
    return math.ceil(count_message_chars(body) / 4)


def _default_completion_tokens(body: dict, content: str) -> int:
    return math.ceil(len(content) / 4)


def _format_retry_after(seconds: float) -> str:
    return str(int(seconds)) if float(seconds).is_integer() else f"{seconds:g}"


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 256
    owner: ScriptedOpenAIServer

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that gave up (timeout, cancelled task) is normal in fault tests: stay quiet about it.
        if isinstance(sys.exc_info()[1], ConnectionError | TimeoutError):
            return
        super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as the openai client's connection pool expects
    # headers and body go out in separate writes: without TCP_NODELAY each answer stalls ~40 ms (delayed ACK)
    disable_nagle_algorithm = True
    server: _Server
    server_version = "ScriptedOpenAI/1.0"

    # -- plumbing ---------------------------------------------------------------------------------
    def setup(self) -> None:
        super().setup()
        self.server.owner._register_connection(self.connection)

    def finish(self) -> None:
        try:
            super().finish()
        except OSError:
            pass
        finally:
            self.server.owner._unregister_connection(self.connection)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        pass

    def _send_json(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
        data = payload.encode() if isinstance(payload, str) else json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()

    def _error(self, status: int, message: str, headers: dict[str, str] | None = None) -> None:
        err_type, code = _ERROR_TYPES.get(
            status, ("server_error" if status >= 500 else "invalid_request_error", str(status))
        )
        body = {"error": {"message": message, "type": err_type, "param": None, "code": code}}
        self._send_json(status, body, headers)

    def _read_body(self) -> bytes:
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length > 0 else b""

    def _path(self) -> str:
        path = self.path.split("?", 1)[0].rstrip("/")
        if path.startswith("/v1/"):
            path = path[3:]
        return path

    # -- endpoints --------------------------------------------------------------------------------
    def do_GET(self) -> None:  # noqa: N802 - stdlib naming
        owner = self.server.owner
        path = self._path()
        model_entry = {"id": owner.model, "object": "model", "created": 0, "owned_by": "scripted"}
        if path == "/models":
            self._send_json(200, {"object": "list", "data": [model_entry]})
        elif path == f"/models/{owner.model}":
            self._send_json(200, model_entry)
        elif path in ("/health", ""):
            self._send_json(200, {"status": "ok"})
        elif path == "/stats":  # for a client in another process (benchmarks): counters, then reset the peak
            self._send_json(200, {"calls": owner.calls, "max_in_flight": owner.max_in_flight})
            owner.max_in_flight = 0
        else:
            self._error(404, f"no route GET {self.path}")

    def do_POST(self) -> None:  # noqa: N802 - stdlib naming
        raw = self._read_body()
        if self._path() != "/chat/completions":
            self._error(404, f"no route POST {self.path}")
            return
        try:
            body = json.loads(raw or b"{}")
            if not isinstance(body, dict):
                raise ValueError("request body must be a JSON object")
        except ValueError as exc:
            self._error(400, f"invalid JSON request body: {exc}")
            return
        owner = self.server.owner
        index, fault = owner._begin(body, dict(self.headers.items()))
        try:
            self._chat_completion(owner, index, body, fault)
        finally:
            owner._end()

    def _chat_completion(self, owner: ScriptedOpenAIServer, index: int, body: dict, fault: Fault) -> None:
        if fault.hold is not None:
            fault.hold.wait(timeout=30)
        delay = owner.latency + (fault.latency or 0.0)
        if delay > 0:
            time.sleep(delay)

        if fault.kind == "drop":
            self.close_connection = True
            with contextlib.suppress(OSError):
                self.connection.shutdown(socket.SHUT_RDWR)
            return

        if fault.kind == "status":
            headers = {}
            if fault.retry_after is not None:
                headers["Retry-After"] = _format_retry_after(fault.retry_after)
            if fault.body is not None:
                self._send_json(fault.status, fault.body, headers)
            else:
                self._error(fault.status, f"scripted fault: HTTP {fault.status}", headers)
            return

        if fault.kind == "invalid_json":
            content = INVALID_JSON_CONTENT
        elif fault.kind == "schema_violation":
            content = SCHEMA_VIOLATION_CONTENT
        else:
            try:
                content = owner.responder(body)
            except Exception as exc:  # surface responder bugs to the client instead of hanging it
                self._error(500, f"responder raised {type(exc).__name__}: {exc}\n{traceback.format_exc()}")
                return
            if not isinstance(content, str):
                content = json.dumps(content)

        prompt_tokens = int(owner.prompt_tokens(body))
        completion_tokens = int(owner.completion_tokens(body, content))
        usage = {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        }
        completion_id = f"chatcmpl-scripted-{index}-{uuid.uuid4().hex[:8]}"
        created = int(time.time())

        if body.get("stream"):
            self._stream(owner, completion_id, created, content, usage, body)
            return

        payload = {
            "id": completion_id,
            "object": "chat.completion",
            "created": created,
            "model": owner.model,
            "system_fingerprint": "scripted",
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": content},
                    "logprobs": None,
                    "finish_reason": "stop",
                }
            ],
            "usage": usage,
        }
        if fault.kind == "truncate":
            data = json.dumps(payload).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data[: len(data) // 2])
            self.wfile.flush()
            self.close_connection = True
            with contextlib.suppress(OSError):
                self.connection.shutdown(socket.SHUT_RDWR)
            return
        self._send_json(200, payload)

    def _stream(
        self,
        owner: ScriptedOpenAIServer,
        completion_id: str,
        created: int,
        content: str,
        usage: dict,
        body: dict,
    ) -> None:
        """Minimal SSE streaming: one content chunk, a finish chunk, optional usage chunk, [DONE]."""

        def chunk(delta: dict, finish: str | None, with_usage: dict | None = None) -> bytes:
            obj: dict[str, Any] = {
                "id": completion_id,
                "object": "chat.completion.chunk",
                "created": created,
                "model": owner.model,
                "choices": [] if with_usage else [{"index": 0, "delta": delta, "finish_reason": finish}],
            }
            if with_usage:
                obj["usage"] = with_usage
            return f"data: {json.dumps(obj)}\n\n".encode()

        self.close_connection = True
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(chunk({"role": "assistant", "content": content}, None))
        self.wfile.write(chunk({}, "stop"))
        if (body.get("stream_options") or {}).get("include_usage"):
            self.wfile.write(chunk({}, None, usage))
        self.wfile.write(b"data: [DONE]\n\n")
        self.wfile.flush()


class ScriptedOpenAIServer:
    """An OpenAI-compatible chat-completions server on a loopback port, driven by Python callables."""

    def __init__(
        self,
        responder: Responder | None = None,
        *,
        latency: float = 0.0,
        faults: FaultPlan | None = None,
        model: str = "scripted-model",
        prompt_tokens: Callable[[dict], int] | None = None,
        completion_tokens: Callable[[dict, str], int] | None = None,
        host: str = "127.0.0.1",
        port: int = 0,
    ) -> None:
        self.responder: Responder = responder or _default_responder
        self.latency = float(latency)
        self.faults = list(faults) if isinstance(faults, list | tuple) else faults
        self.model = model
        self.prompt_tokens = prompt_tokens or _default_prompt_tokens
        self.completion_tokens = completion_tokens or _default_completion_tokens
        self.host = host
        self.port = port

        self.requests: list[dict] = []  # parsed chat-completion request bodies, in arrival order
        self.request_headers: list[dict[str, str]] = []  # their HTTP headers, same order
        self.calls = 0
        self.in_flight = 0
        self.max_in_flight = 0
        self.faults_applied: list[Fault] = []  # the fault used for each request, same order

        self._lock = threading.Lock()
        self._connections: set[socket.socket] = set()
        self._httpd: _Server | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle --------------------------------------------------------------------------------
    @property
    def base_url(self) -> str:
        if self._httpd is None:
            raise RuntimeError("server not started")
        return f"http://{self.host}:{self.port}/v1"

    @property
    def url(self) -> str:
        """Root URL without the /v1 suffix."""
        return self.base_url[: -len("/v1")]

    def start(self) -> ScriptedOpenAIServer:
        if self._httpd is not None:
            return self
        httpd = _Server((self.host, self.port), _Handler)
        httpd.owner = self
        self.port = httpd.server_address[1]
        self._httpd = httpd
        self._thread = threading.Thread(
            target=httpd.serve_forever,
            kwargs={"poll_interval": 0.05},
            name=f"scripted-openai-{self.port}",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        httpd, self._httpd = self._httpd, None
        if httpd is None:
            return
        httpd.shutdown()
        httpd.server_close()
        with self._lock:
            connections = list(self._connections)
            self._connections.clear()
        for conn in connections:  # close idle keep-alive connections so no stale handler answers later
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> ScriptedOpenAIServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def __repr__(self) -> str:
        where = self.base_url if self._httpd else "stopped"
        return f"<ScriptedOpenAIServer {where} calls={self.calls} max_in_flight={self.max_in_flight}>"

    def reset(self) -> None:
        """Forget recorded requests and counters (the fault list position restarts too)."""
        with self._lock:
            self.requests.clear()
            self.request_headers.clear()
            self.faults_applied.clear()
            self.calls = 0
            self.max_in_flight = self.in_flight

    # -- bookkeeping used by the handler ----------------------------------------------------------
    def _register_connection(self, conn: socket.socket) -> None:
        with self._lock:
            self._connections.add(conn)

    def _unregister_connection(self, conn: socket.socket) -> None:
        with self._lock:
            self._connections.discard(conn)

    def _begin(self, body: dict, headers: dict[str, str]) -> tuple[int, Fault]:
        with self._lock:
            index = self.calls
            self.calls += 1
            self.requests.append(body)
            self.request_headers.append(headers)
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
            fault = self._fault_for(index, body)
            self.faults_applied.append(fault)
        return index, fault

    def _end(self) -> None:
        with self._lock:
            self.in_flight -= 1

    def _fault_for(self, index: int, body: dict) -> Fault:
        plan = self.faults
        fault: Fault | None = None
        if callable(plan):
            fault = plan(index, body)
        elif plan and index < len(plan):
            fault = plan[index]
        return fault or Fault("ok")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Scripted OpenAI-compatible server (default responder: '{}').")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--latency", type=float, default=0.0, help="seconds to sleep before every answer")
    parser.add_argument("--model", default="scripted-model")
    parser.add_argument("--valid-responses", action="store_true",
                        help="answer every pipeline stage with a schema-valid answer (testing.responders)")
    args = parser.parse_args(argv)

    responder: Responder | None = None
    if args.valid_responses:
        from agentr_dagster.testing.responders import valid_responder

        responder = valid_responder
    server = ScriptedOpenAIServer(responder, latency=args.latency, model=args.model, host=args.host,
                                  port=args.port)
    server.start()
    print(f"scripted OpenAI server listening on {server.base_url}", flush=True)
    done = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: done.set())
    try:
        while not done.wait(0.5):
            pass
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()


if __name__ == "__main__":
    main()
