"""scripts/e2e_found_by.py: how many searches found a paper, fused with the export's order, and the weight picked
leave-one-review-out."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from tests.support.scripts import load_script

_SCRIPT = Path(__file__).resolve().parents[3] / "scripts" / "e2e_found_by.py"


def test_counts_are_distinct_strings_or_every_sighting():
    script = load_script(_SCRIPT)
    cells = ["openalex:boolean; pubmed:boolean; pubmed:string-01; openalex:string-01; pubmed:string-07", "", "x"]
    assert list(script.counts(cells, "strings")) == [2, 0, 0]
    assert list(script.counts(cells, "sightings")) == [5, 0, 0]


def test_weight_zero_keeps_the_export_order_and_a_large_weight_follows_the_count():
    script = load_script(_SCRIPT)
    count = np.array([0.0, 0.0, 3.0, 1.0])
    assert list(script.fused_order(count, 0.0)) == [0, 1, 2, 3]
    assert list(script.fused_order(count, 10.0)) == [2, 3, 0, 1]


def test_the_held_out_weight_is_the_one_best_on_the_other_reviews():
    script = load_script(_SCRIPT)
    table = {"a": [0.5, 0.2], "b": [0.6, 0.3], "c": [0.1, None]}  # None: never reaches 90 %, counted as 1.5
    held = script.leave_one_out(table, (0.0, 0.3))
    assert held["c"] == (0.3, None)  # a and b both prefer 0.3
    assert held["a"] == (0.0, 0.5)  # without a: b (0.6 vs 0.3) and c (0.1 vs 1.5) -> mean 0.35 vs 0.9
