"""P(include) is strictly ordered: no plateau ties papers (34 papers of a 1,704-record review once shared
P = 0.221464, from the flat top two knots of the fitted curve)."""

from __future__ import annotations

import numpy as np
import pytest

from agentr_dagster.screening.calibration import (
    DEFAULT_PRIOR,
    GRID,
    PriorCurve,
    calibrate,
    estimate_included,
    strictly_decreasing,
)


def _largest_tie(values: np.ndarray, decimals: int) -> int:
    return int(np.unique(np.round(values, decimals), return_counts=True)[1].max())


@pytest.mark.parametrize("n", [40, 300, 1704, 6000, 20000])
def test_no_two_places_share_a_probability_and_the_top_50_read_apart_at_4_decimals(n):
    scores = np.random.default_rng(n).standard_normal(n)
    p = calibrate(scores).probability
    order = np.argsort(-scores, kind="stable")
    assert np.all(np.diff(p[order]) < 0)  # strictly down the engine's order
    assert _largest_tie(p[order][:50], 4) <= 1  # as the relevance asset and the exports show them
    assert _largest_tie(p[order][:50], 3) <= 3 or n >= 6000  # even at 3 decimals in lists up to ~2,000


def test_flat_runs_of_knots_tilt_around_their_level_and_keep_the_order_between_runs():
    assert DEFAULT_PRIOR.rates[0] == DEFAULT_PRIOR.rates[1]  # the plateau the fit gives
    strict = strictly_decreasing(DEFAULT_PRIOR.rates)
    assert np.all(np.diff(strict) < 0)
    # each flat run's mean stays within a quarter of the gap to its neighbours
    rates = np.asarray(DEFAULT_PRIOR.rates)
    assert abs(strict[:2].mean() - rates[0]) < 0.25 * (rates[1] - rates[2]) + 0.05 * rates[0]
    assert np.isclose(strict[5:7].mean(), rates[5], atol=0.25 * (rates[4] - rates[7]))
    # knots that were already strictly decreasing keep their rates
    assert np.isclose(strict[3], rates[3]) and np.isclose(strict[-1], rates[-1])


def test_with_labels_the_unlabelled_papers_are_strictly_ordered_too():
    rng = np.random.default_rng(7)
    scores = rng.standard_normal(2000)
    labels = np.full(2000, -1)
    head = np.argsort(-scores)[:50]
    labels[head] = rng.integers(0, 2, 50)
    p = calibrate(scores, labels).probability
    rest = np.flatnonzero(labels < 0)
    ordered = p[rest][np.argsort(-scores[rest], kind="stable")]
    assert np.all(np.diff(ordered) < 0)


def test_a_one_level_curve_stays_flat_and_the_count_is_unchanged_by_the_tilt():
    flat = PriorCurve(rates=(0.1,) * len(GRID), count_ratio=(0.5, 2.0))
    assert np.allclose(flat(np.linspace(0.001, 1, 50)), 0.1)
    scores = np.random.default_rng(3).standard_normal(1704)
    count = estimate_included(scores)
    assert 80 < count.estimate < 95  # the 1,704-record review read 88 before the tilt
