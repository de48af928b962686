"""`dg check defs` and `dg list defs` (dagster-dg-cli) load the code location from pyproject.toml's [tool.dg]."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.support import REPO

VENV_BIN = Path(sys.executable).parent


def _dg(*args: str, home: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PATH": f"{VENV_BIN}{os.pathsep}{os.environ['PATH']}", "DAGSTER_HOME": str(home),
           "PYTHONPATH": str(REPO)}
    home.mkdir(parents=True, exist_ok=True)
    return subprocess.run([str(VENV_BIN / "dg"), *args], cwd=REPO, env=env, capture_output=True, text=True,
                          timeout=240)


def test_dg_check_and_list_defs_see_the_whole_code_location(tmp_path):
    checked = _dg("check", "defs", home=tmp_path / "dagster")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "All definitions loaded successfully" in checked.stdout + checked.stderr
    listed = _dg("list", "defs", "--json", home=tmp_path / "dagster")
    assert listed.returncode == 0, listed.stderr
    defs = json.loads(listed.stdout)
    assets = {a["asset_key"] for a in defs["assets"]}
    assert {"research_intent", "paper_scores", "score_exports"} <= assets
    assert {s["name"] for s in defs["sensors"]} == {"inbox_sensor", "labels_sensor"}
    assert {s["name"] for s in defs["schedules"]} == {"living_review", "repair_schedule"}
