"""The point-process stopping rule: its recall bound grows as a gain curve flattens, and it stops a simulated
screening with most includes found and much of the list unread; the default bound is the stricter 99 % one."""

from __future__ import annotations

import numpy as np
import pytest

from agentr_dagster.screening.stopping import DEFAULT_CONFIDENCE, PointProcessStop, recall_lower_bound


def _gain(n_total: int, n_incl: int, decay: float, seed: int = 0) -> np.ndarray:
    """Labels in a screening order where includes arrive at an exponentially decaying rate."""
    rng = np.random.default_rng(seed)
    ranks = np.minimum((rng.exponential(decay, n_incl)).astype(int), n_total - 1)
    y = np.zeros(n_total, dtype=np.int64)
    for r in ranks:  # collisions move down to the next free rank
        while y[r]:
            r = (r + 1) % n_total
        y[r] = 1
    return y


def test_bound_is_zero_without_evidence_and_one_when_all_is_screened():
    assert recall_lower_bound(np.array([0, 0, 1]), 100) == 0.0
    assert recall_lower_bound(np.ones(5, dtype=int), 5) == 1.0


def test_bound_is_low_while_includes_keep_coming_and_high_once_the_curve_is_flat():
    y = _gain(2000, 40, decay=150)
    early, late = recall_lower_bound(y[:100], len(y)), recall_lower_bound(y[:1200], len(y))
    assert early < 0.9 <= late
    steady = np.tile([1, 0, 0, 0], 100)  # an include every fourth record, no sign of slowing down
    assert recall_lower_bound(steady, 4000) < 0.5


def test_rule_stops_with_high_recall_and_work_saved():
    y = _gain(3000, 60, decay=200, seed=3)
    rule = PointProcessStop(target_recall=0.95)
    stop = next(s for s in range(20, len(y) + 1, 20) if rule(y[:s], y))
    assert y[:stop].sum() / y.sum() >= 0.95 and stop < 0.6 * len(y)
    assert not PointProcessStop(target_recall=0.99)(y[:stop // 2], y)


@pytest.mark.parametrize("target, confidence", [(0, 0.95), (1.5, 0.95), (0.9, 1.0)])
def test_bad_parameters_are_refused(target, confidence):
    with pytest.raises(ValueError):
        PointProcessStop(target, confidence)


def _first_stop(rule: PointProcessStop, y: np.ndarray, batch: int) -> int:
    return next(s for s in range(batch, len(y) + batch, batch) if rule(y[:s], y))


def test_the_default_bound_is_the_99_percent_one_and_never_stops_before_the_95_percent_one():
    # re-tested after every small batch, a 95 % bound passes early by chance too often: the default is 99 %
    assert PointProcessStop().confidence == DEFAULT_CONFIDENCE == 0.99
    y = _gain(2000, 40, decay=150, seed=1)
    for stop in (200, 400, 800):
        assert recall_lower_bound(y[:stop], len(y)) <= recall_lower_bound(y[:stop], len(y), confidence=0.95)
    for seed in range(4):
        y = _gain(2000, 40, decay=150, seed=seed)
        strict, loose = _first_stop(PointProcessStop(), y, 20), _first_stop(PointProcessStop(confidence=0.95), y, 20)
        assert strict >= loose
        assert y[:strict].sum() / y.sum() >= 0.95 and strict < 0.6 * len(y)



def test_the_rule_reads_its_own_confidence():
    # the same screening so far: the loose bound already passes where the strict one does not
    y = _gain(2000, 40, decay=150, seed=1)
    stop = _first_stop(PointProcessStop(confidence=0.5), y, 20)
    assert PointProcessStop(confidence=0.5)(y[:stop], y)
    assert not PointProcessStop(confidence=0.99)(y[:stop], y)
    assert recall_lower_bound(y[:stop], len(y), 0.5) > recall_lower_bound(y[:stop], len(y), 0.99)


def test_a_target_of_full_recall_is_allowed_and_stops_only_with_nothing_left_to_expect():
    rule = PointProcessStop(target_recall=1.0)
    y = _gain(2000, 40, decay=150, seed=1)
    assert rule(y, y)  # everything screened: recall is 1 for certain
    assert not rule(y[:1000], y)  # the 99 % bound is below 1 (0.975 here) while includes may be left
