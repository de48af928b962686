"""Helpers the tests share (not tests themselves): paths, samples, recovery accounting."""

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "agentr_dagster" / "data" / "demo"
HOSTILE = REPO / "tests" / "hostile"
ABSTRACT = (DEMO / "abstract.md").read_text()


def dead_pid() -> int:
    """The pid of a process that has exited (and been reaped)."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid
