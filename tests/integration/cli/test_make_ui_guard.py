"""`make ui` itself: HOST=0.0.0.0 is refused before `dagster dev` starts, unless ALLOW_REMOTE=1, which still
warns. The real Makefile recipe runs under GNU make with a venv whose install stamps are current (so no install
runs) and whose python is the project's; its `dagster` is a recorder that prints the arguments it was started with
instead of serving a UI (the test is about what the recipe lets through, not about Dagster)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]


@pytest.fixture
def venv(tmp_path: Path) -> Path:
    """A venv directory for the Makefile: current stamps, the project's python, a `dagster` that records."""
    root = tmp_path / "venv"
    (root / "bin").mkdir(parents=True)
    python = root / "bin" / "python"
    python.write_text(f'#!/bin/sh\nPYTHONPATH="{REPO}" exec "{sys.executable}" "$@"\n')
    dagster = root / "bin" / "dagster"
    dagster.write_text('#!/bin/sh\necho "dagster started with: $*"\n')
    for script in (python, dagster):
        script.chmod(0o755)
    for stamp in (".installed", ".model-built"):  # newer than pyproject.toml: make installs nothing
        (root / stamp).touch()
    return root


def make_ui(venv: Path, home: Path, **variables: str) -> subprocess.CompletedProcess:
    if shutil.which("make") is None:
        pytest.fail("GNU make is needed (it runs `make ui`)")
    env = {k: v for k, v in os.environ.items() if k != "ALLOW_REMOTE"}
    args = ["make", "-s", "-C", str(REPO), "ui", f"VENV={venv}", f"AGENTR_HOME={home}",
            *(f"{k}={v}" for k, v in variables.items())]
    return subprocess.run(args, env=env, capture_output=True, text=True, timeout=120)


def test_make_ui_refuses_a_public_address_without_the_opt_in(venv, tmp_path):
    refused = make_ui(venv, tmp_path / "home", HOST="0.0.0.0")

    assert refused.returncode != 0
    assert "NO authentication" in refused.stderr and "ALLOW_REMOTE=1" in refused.stderr
    assert "dagster started" not in refused.stdout  # stopped before the UI


def test_make_ui_with_the_opt_in_warns_then_listens_where_asked(venv, tmp_path):
    allowed = make_ui(venv, tmp_path / "home", HOST="0.0.0.0", ALLOW_REMOTE="1")

    assert allowed.returncode == 0, allowed.stderr
    assert "NO authentication" in allowed.stderr and "refused" not in allowed.stderr
    assert "dagster started with: dev -w workspace.yaml --host 0.0.0.0 --port 3000" in allowed.stdout


def test_make_ui_on_loopback_says_nothing(venv, tmp_path):
    local = make_ui(venv, tmp_path / "home")

    assert local.returncode == 0, local.stderr
    assert "WARNING" not in local.stderr
    assert "--host 127.0.0.1 --port 3000" in local.stdout
