"""Helpers the tests share (not tests themselves): paths, samples, recovery accounting."""

from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "agentr_dagster" / "data" / "demo"
HOSTILE = REPO / "tests" / "hostile"
ABSTRACT = (DEMO / "abstract.md").read_text()
