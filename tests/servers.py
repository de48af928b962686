"""Shared pytest fixtures for real OpenAI-compatible servers.

Use from a test module (or a conftest) with::

    from tests.servers import llama_server, scripted_server  # noqa: F401  (fixtures)

or register the module as a plugin from the root conftest: ``pytest_plugins = ["tests.servers"]``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from agentr_dagster.testing.llama_server import LlamaCppServer
from agentr_dagster.testing.scripted_server import Fault, ScriptedOpenAIServer

__all__ = ["Fault", "llama_server", "scripted_server", "start_llama_server_or_fail"]


@pytest.fixture
def scripted_server() -> Iterator[Callable[..., ScriptedOpenAIServer]]:
    """Factory: ``scripted_server(responder=..., faults=..., latency=..., **kw)`` -> started server.

    Accepts every ``ScriptedOpenAIServer`` keyword; all servers it made are stopped at teardown.
    """
    servers: list[ScriptedOpenAIServer] = []

    def factory(responder: Callable[[dict], str] | None = None, **kwargs) -> ScriptedOpenAIServer:
        server = ScriptedOpenAIServer(responder, **kwargs).start()
        servers.append(server)
        return server

    yield factory
    for server in servers:
        server.stop()


def start_llama_server_or_fail(**kwargs) -> LlamaCppServer:
    """Start a LlamaCppServer; on any problem fail the test (never skip) with the reason and log tail."""
    try:
        return LlamaCppServer(**kwargs).start()
    except Exception as exc:  # missing package, missing model, crash or timeout during startup
        pytest.fail(f"could not start the llama.cpp server: {exc}", pytrace=False)


@pytest.fixture(scope="session")
def llama_server() -> Iterator[LlamaCppServer]:
    """One real llama.cpp OpenAI-compatible server (SmolLM2-135M-Instruct) for the whole session."""
    server = start_llama_server_or_fail()
    try:
        yield server
    finally:
        server.stop()
