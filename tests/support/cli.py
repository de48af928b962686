"""Running the `agentr` command in-process, as a user types it, and the environment that points it at the
scripted OpenAI-compatible server (tests/fixtures' `scripted_server`)."""

from __future__ import annotations

from click.testing import CliRunner, Result

from agentr_dagster.cli import main


def agentr(*args: str, env: dict | None = None) -> Result:
    """`agentr ARGS...` (exceptions not caught: a traceback fails the test instead of hiding in the output)."""
    return CliRunner().invoke(main, list(args), env=env, catch_exceptions=False)


def scripted_llm_env(server) -> dict[str, str]:
    """The variables that configure the LLM backend for a scripted server (model `scripted-model`)."""
    return {"AGENTR_LLM_BASE_URL": server.base_url, "AGENTR_LLM_MODEL": "scripted-model",
            "AGENTR_LLM_API_KEY": "sk-test-fake"}
