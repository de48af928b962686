"""End to end against llama.cpp's real OpenAI-compatible server running SmolLM2-135M-Instruct."""

from __future__ import annotations

import json
import time
import urllib.request
from collections.abc import Iterator

import openai
import pytest

from agentr_dagster.testing.llama_server import LlamaCppServer, find_smollm2_model
from tests.fixtures.servers import start_llama_server_or_fail

pytestmark = [pytest.mark.llama, pytest.mark.timeout(900)]


@pytest.fixture(scope="module")
def server() -> Iterator[LlamaCppServer]:
    srv = start_llama_server_or_fail()
    try:
        yield srv
    finally:
        srv.stop()


def test_model_file_is_bundled():
    path = find_smollm2_model()
    assert path.suffix == ".gguf"
    assert path.stat().st_size > 50_000_000


def test_models_endpoint_reports_the_model(server: LlamaCppServer):
    with urllib.request.urlopen(f"{server.base_url}/models", timeout=5) as resp:
        ids = [m["id"] for m in json.load(resp)["data"]]
    assert server.model in ids
    assert server.running


def test_json_object_chat_completion(server: LlamaCppServer):
    client = openai.OpenAI(base_url=server.base_url, api_key="not-needed", max_retries=0, timeout=120)
    start = time.monotonic()
    resp = client.chat.completions.create(
        model=server.model,
        messages=[
            {"role": "system", "content": "You reply with a single JSON object and nothing else."},
            {"role": "user", "content": 'Return a JSON object with one key "colour" naming a colour.'},
        ],
        response_format={"type": "json_object"},
        temperature=0.3,
        max_tokens=64,
    )
    elapsed = time.monotonic() - start
    content = resp.choices[0].message.content
    parsed = json.loads(content, strict=False)
    assert isinstance(parsed, dict), content
    assert resp.usage is not None
    assert resp.usage.prompt_tokens > 0
    assert resp.usage.completion_tokens > 0
    assert resp.usage.total_tokens == resp.usage.prompt_tokens + resp.usage.completion_tokens
    print(f"json completion in {elapsed:.2f} s: {content!r} usage={resp.usage}")


def test_startup_failure_reports_log_tail(tmp_path):
    bogus = tmp_path / "not-a-model.gguf"
    bogus.write_bytes(b"this is not a gguf file" * 100)
    srv = LlamaCppServer(bogus, startup_timeout=60)
    with pytest.raises(RuntimeError, match="exited with code") as exc:
        srv.start()
    assert "--- tail of" in str(exc.value)
    assert "Failed to load model" in str(exc.value)
    assert srv.log_path is not None and srv.log_path.exists()  # kept for post-mortem on failure
    srv.log_path.unlink()
