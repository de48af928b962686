"""The engine's scores as a probability of inclusion: the zero-shot prior curve, its reading once papers are
labelled (the place among the papers still unlabelled, shifted by the includes the labels found against the
curve's expectation), and the count of includes with an interval."""

from __future__ import annotations

import numpy as np

from agentr_dagster.screening.calibration import (
    DEFAULT_PRIOR,
    GRID,
    PriorCurve,
    calibrate,
    estimate_included,
    fit_prior,
    labelled_count_ratio,
    labels_multiplier,
    labels_shift,
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


def test_labelled_papers_read_as_their_label_and_the_rest_the_prior_at_their_place_among_the_unlabelled():
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
    # the unlabelled papers read as a list of their own: the best of them gets the head of the curve, not the
    # value at rank 101 of the whole list
    assert np.allclose(fitted.probability[rest], calibrate(scores[rest], None, prior).probability)
    best = np.flatnonzero(rest)[np.argmax(scores[rest])]
    # (the head of the curve rises gently with the list's length: 900 unlabelled against 1,000 in all)
    assert np.isclose(fitted.probability[best], zero.max(), rtol=0.01) and fitted.probability[best] > zero[best]
    assert np.all(fitted.probability[rest] >= zero[rest] - 1e-12)
    # the labels say this review is richer than the prior's: the multiplier (a diagnostic) reads above 1
    assert labels_multiplier(scores, labels, prior) > 1.5


def test_where_the_learner_puts_labelled_papers_does_not_move_the_unlabelled_probabilities():
    """A learner lifts its own labelled includes to the head (in-sample): that must not push the unlabelled papers
    down the curve."""
    rng = np.random.default_rng(4)
    scores, y = _review(500, 0.1, 1.5, rng)
    labels = np.full(len(y), -1)
    chosen = rng.choice(len(y), 60, replace=False)
    labels[chosen] = y[chosen]
    lifted = scores.copy()
    lifted[chosen] = np.where(y[chosen] == 1, 100.0, -100.0)
    a, b = calibrate(scores, labels).probability, calibrate(lifted, labels).probability
    assert np.allclose(a, b)
    assert np.array_equal(a[chosen], y[chosen].astype(float))


def test_every_paper_labelled_leaves_only_labels_and_an_exact_count():
    y = np.array([1, 0, 0, 1, 0])
    cal = calibrate(np.arange(5.0), y)
    assert np.array_equal(cal.probability, y.astype(float))
    e = estimate_included(np.arange(5.0), y)
    assert (e.estimate, e.low, e.high, e.found) == (2.0, 2.0, 2.0, 2)


def _flat(rate: float, count_ratio=(0.5, 2.0), labelled=None) -> PriorCurve:
    return PriorCurve(tuple([rate] * len(GRID)), count_ratio, labelled_count_ratio=labelled)


def test_the_count_counts_labelled_includes_exactly_and_the_rest_with_the_labelled_spread():
    rng = np.random.default_rng(3)
    scores, y = _review(600, 0.05, 2.0, rng)
    labels = np.full(len(y), -1)
    top = np.argsort(-scores)[:60]
    labels[top] = y[top]
    prior = _flat(0.1, (0.5, 2.0), labelled=(0.2, 5.0))
    e = estimate_included(scores, labels, prior)
    rest = 540 * 0.1
    assert e.found == int(y[top].sum()) and e.method == "labels"
    assert np.isclose(e.estimate, e.found + rest, atol=0.1)
    assert np.isclose(e.low, e.found + rest * 0.2, atol=0.1)
    assert np.isclose(e.high, e.found + rest * 5.0, atol=0.1)
    # zero-shot, the same curve's zero-shot spread
    z = estimate_included(scores, None, prior)
    assert np.isclose(z.low, 600 * 0.1 * 0.5, atol=0.1) and np.isclose(z.high, 600 * 0.1 * 2.0, atol=0.1)
    # a curve without a labelled spread keeps the zero-shot one after labels
    plain = estimate_included(scores, labels, _flat(0.1, (0.5, 2.0)))
    assert np.isclose(plain.low, e.found + rest * 0.5, atol=0.1)
    assert DEFAULT_PRIOR.labelled_count_ratio is not None
    assert DEFAULT_PRIOR.labelled_count_ratio[0] < 1 < DEFAULT_PRIOR.labelled_count_ratio[1]


def test_labelled_count_ratio_is_the_spread_of_true_over_estimated_includes_left_unlabelled():
    rng = np.random.default_rng(5)
    sessions, priors = [], []
    for truth_left in (5, 10, 20, 40):  # 100 unlabelled papers at 0.1 each: 10 estimated
        scores = rng.normal(size=120)
        given = np.full(120, -1)
        given[:20] = 1  # labelled includes: counted exactly, not in the ratio
        truth = np.zeros(120, dtype=int)
        truth[:20] = 1
        truth[20:20 + truth_left] = 1
        sessions.append((scores, given, truth))
        priors.append(_flat(0.1))
    low, high = labelled_count_ratio(sessions, priors)
    assert np.isclose(low, np.quantile([0.5, 1.0, 2.0, 4.0], 0.1), atol=1e-3)
    assert np.isclose(high, np.quantile([0.5, 1.0, 2.0, 4.0], 0.9), atol=1e-3)
    # nothing left to estimate: no ratio
    all_given = (np.zeros(3), np.array([1, 0, 1]), np.array([1, 0, 1]))
    assert labelled_count_ratio([all_given], [_flat(0.1)]) == (1.0, 1.0)


def _tilted(rate: float, tilt=(0.5, 80.0)) -> PriorCurve:
    return PriorCurve(tuple([rate] * len(GRID)), (0.5, 2.0), labelled_tilt=tilt)


def test_labels_shift_is_the_tempered_log_ratio_of_found_to_expected_includes():
    prior = _tilted(0.1)
    # 200 labelled of 6,000 at 0.1 each: 20 expected
    assert np.isclose(labels_shift(6000, 200, 20, prior), 0.0)
    assert np.isclose(labels_shift(6000, 200, 60, prior), 0.5 * np.log((60 + 80) / (20 + 80)))
    assert labels_shift(6000, 200, 60, prior) > 0 > labels_shift(6000, 200, 2, prior)
    # the pseudo-count: a few labels move little, many labels with the same found share move more
    assert abs(labels_shift(6000, 10, 0, prior)) < 0.01 < abs(labels_shift(6000, 200, 0, prior))
    # no labels, or no tilt: no shift
    assert labels_shift(6000, 0, 0, prior) == 0.0
    assert labels_shift(6000, 200, 60, _tilted(0.1, (0.0, 1.0))) == 0.0
    assert 0 < DEFAULT_PRIOR.labelled_tilt[0] < 1 and DEFAULT_PRIOR.labelled_tilt[1] > 0


def test_unlabelled_papers_read_higher_when_the_labels_found_more_includes_than_the_curve_expects():
    rng = np.random.default_rng(6)
    prior = fit_prior([_review(1000, 0.05, 2.0, rng) for _ in range(5)])
    tilted = PriorCurve(prior.rates, prior.count_ratio, prior.shrink, labelled_tilt=(0.5, 80.0))
    scores = rng.normal(size=2000)
    top = np.argsort(-scores)[:200]
    rest = np.ones(len(scores), dtype=bool)
    rest[top] = False
    plain = calibrate(scores[rest], None, prior).probability  # the unlabelled papers as a list of their own
    rich, poor = np.full(len(scores), -1), np.full(len(scores), -1)
    rich[top], poor[top] = 1, 0  # every labelled paper an include / an exclude
    p_rich, p_poor = calibrate(scores, rich, tilted).probability, calibrate(scores, poor, tilted).probability
    above_floor = plain > 2e-4  # no unlabelled paper falls below the floor (P_FLOOR): none is certainly out
    assert np.all(p_rich[rest] > plain) and np.all(p_poor[rest][above_floor] < plain[above_floor])
    assert np.all(p_poor[rest] >= 1e-4)
    shift = labels_shift(len(scores), 200, 200, tilted)
    logit = np.log(plain / (1 - plain))
    assert np.allclose(p_rich[rest], 1 / (1 + np.exp(-(logit + shift))))
    # the labels stay labels, and the order of the unlabelled papers is the engine's
    assert np.array_equal(p_rich[top], np.ones(200)) and np.array_equal(p_poor[top], np.zeros(200))
    order = np.argsort(-scores[rest])
    assert np.all(np.diff(p_rich[rest][order]) <= 1e-12) and np.all(np.diff(p_poor[rest][order]) <= 1e-12)
    # the count follows: labelled includes exactly, the rest from the shifted probabilities
    e = estimate_included(scores, rich, tilted)
    assert e.found == 200 and np.isclose(e.estimate, 200 + p_rich[rest].sum(), atol=0.1)
    # zero-shot is not shifted
    assert np.allclose(calibrate(scores, None, tilted).probability, calibrate(scores, None, prior).probability)
