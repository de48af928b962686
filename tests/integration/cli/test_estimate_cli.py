"""`agentr estimate` before any price is set: the account line says there is no price row (it printed
`price row None`), and the notes name the related-work rewrites among the calls it does not count (a run of the
40-paper example made 14 of them beside 42 counted calls, and the estimate did not say so)."""

from __future__ import annotations

from pathlib import Path

import agentr_dagster.data
from tests.support.cli import agentr

DEMO = Path(agentr_dagster.data.__file__).parent / "demo"



def test_estimate_without_a_price_says_so_and_names_what_it_leaves_out():
    assert agentr("project", "add", "est", "--abstract", str(DEMO / "abstract.md")).exit_code == 0
    assert agentr("papers", "add", "est", str(DEMO / "papers.csv")).exit_code == 0
    result = agentr("estimate", "est")
    assert result.exit_code == 0, result.output
    assert "price row None" not in result.output
    assert "; no price row, multiplier row " in result.output
    assert "note: not included: the related-work draft's rewrite calls" in result.output
