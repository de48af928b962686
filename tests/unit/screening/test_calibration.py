"""The engine's scores as a probability of inclusion: the zero-shot prior curve, its refit to labels, and the
count of includes with an interval."""

from __future__ import annotations

import numpy as np

from agentr_dagster.screening.calibration import (
    DEFAULT_PRIOR,
    GRID,
    calibrate,
    estimate_included,
    fit_prior,
    labels_multiplier,
    top_fraction,
)


def _review(n: int, prevalence: float, separation: float, rng: np.random.Generator):
    """Scores of n papers of which a share ``prevalence`` are includes, shifted up by ``separation``."""
    y = (rng.random(n) < prevalence).astype(int)
    return rng.normal(size=n) + separation * y, y


def test_the_default_prior_falls_down_the_list_and_stays_a_probability():
    p = DEFAULT_PRIOR(np.array(GRID))
    assert np.all(np.diff(p) <= 1e-12) and np.all((p > 0) & (p < 1))
    assert len(DEFAULT_PRIOR.rates) == len(GRID)
    low, high = DEFAULT_PRIOR.count_ratio
    assert low < 1 < high


def test_zero_shot_probability_reads_only_the_order():
    rng = np.random.default_rng(0)
    s = rng.normal(size=300)
    a = calibrate(s).probability
    b = calibrate(10 * s + 3).probability  # another scale: the same probabilities
    assert np.allclose(a, b)
    order = np.argsort(-s)
    assert np.all(np.diff(a[order]) <= 1e-12)  # the best-scored paper is the likeliest include
    assert np.isclose(top_fraction([3.0, 1.0, 2.0])[0], 0.5 / 3)


def test_fit_prior_recovers_the_pooled_include_rate_down_the_list():
    rng = np.random.default_rng(1)
    reviews = [_review(800, 0.05, 2.5, rng) for _ in range(6)]
    prior = fit_prior(reviews)
    assert prior.reviews == 6 and all(np.diff(prior.rates) <= 1e-12)
    # the whole list's expected includes: near the true count, and the ratio interval around 1
    scores, y = _review(800, 0.05, 2.5, rng)
    estimate = estimate_included(scores, None, prior)
    assert abs(estimate.estimate - y.sum()) < 0.5 * y.sum()
    assert estimate.low <= estimate.estimate <= estimate.high and estimate.method == "prior"


def test_labelled_papers_read_as_their_label_and_the_rest_keep_the_prior():
    rng = np.random.default_rng(2)
    prior = fit_prior([_review(1000, 0.05, 2.0, rng) for _ in range(5)])
    scores, y = _review(1000, 0.30, 2.0, rng)  # six times the prevalence the prior has seen
    labels = np.full(len(y), -1)
    top = np.argsort(-scores)[:100]
    labels[top] = y[top]
    zero = calibrate(scores, None, prior).probability
    fitted = calibrate(scores, labels, prior)
    assert fitted.method == "labels"
    assert np.array_equal(fitted.probability[top], y[top].astype(float))
    rest = labels < 0
    assert np.allclose(fitted.probability[rest], zero[rest])
    # the labels say this review is richer than the prior's: the multiplier (a diagnostic) reads above 1
    assert labels_multiplier(scores, labels, prior) > 1.5


def test_the_count_counts_labelled_includes_exactly_and_the_rest_with_the_prior_interval():
    rng = np.random.default_rng(3)
    prior = fit_prior([_review(1000, 0.05, 2.0, rng) for _ in range(15)])
    scores, y = _review(600, 0.05, 2.0, rng)
    labels = np.full(len(y), -1)
    top = np.argsort(-scores)[:60]
    labels[top] = y[top]
    e = estimate_included(scores, labels, prior)
    rest = calibrate(scores, labels, prior).probability[labels < 0].sum()
    assert e.found == int(y[top].sum()) and e.method == "labels"
    assert np.isclose(e.estimate, e.found + rest, atol=0.1)
    assert np.isclose(e.low, e.found + rest * prior.count_ratio[0], atol=0.1)
    assert np.isclose(e.high, e.found + rest * prior.count_ratio[1], atol=0.1)
    assert e.low >= e.found
