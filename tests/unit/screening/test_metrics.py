"""Metrics of a screening order: WSS@95 and recall@k on known orders."""

from __future__ import annotations

import math

import numpy as np
import pytest

from agentr_dagster.screening.metrics import evaluate_order, recall_at, wss_at


def test_wss_and_recall_known_values():
    perfect = [1, 1, 0, 0, 0, 0, 0, 0, 0, 0]
    assert wss_at(perfect) == pytest.approx(0.8 - 0.05)
    assert recall_at(perfect, 0.10) == pytest.approx(0.5)
    assert recall_at(perfect, 0.20) == pytest.approx(1.0)
    worst = [0] * 8 + [1, 1]
    assert wss_at(worst) == pytest.approx(-0.05)
    assert recall_at(worst, 0.2) == 0.0
    # 20 includes in 100: the 19th (= ceil(0.95 * 20)) found at position 50 -> WSS = 50/100 - 0.05
    y = np.zeros(100, dtype=int)
    y[:18] = 1
    y[49] = 1
    y[99] = 1
    assert wss_at(y) == pytest.approx(0.45)
    assert recall_at(y, 0.10) == pytest.approx(10 / 20)
    assert recall_at(y, 0.20) == pytest.approx(18 / 20)
    m = evaluate_order(y)
    assert set(m) == {"wss95", "recall10", "recall20"}
    # WSS@100 needs every include
    assert wss_at(y, recall=1.0) == pytest.approx(0.0)
    assert math.isnan(wss_at([0, 0, 0]))
    assert math.isnan(recall_at([], 0.1))

def test_random_order_wss_is_near_zero():
    rng = np.random.default_rng(1)
    y = np.zeros(2000, dtype=int)
    y[:100] = 1
    vals = [wss_at(rng.permutation(y)) for _ in range(20)]
    assert abs(float(np.mean(vals))) < 0.05
