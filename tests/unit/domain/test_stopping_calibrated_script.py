"""scripts/stopping_calibrated.py's score-calibrated count of the includes left (docs/stopping.md, round 6): a
ranker whose scores say nothing keeps it high, its bound widens with the confidence, and with scores that do
separate the includes it covers what is left."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from agentr_dagster.domain.recall_stopping import includes_allowed_left
from tests.support.scripts import load_script

_SCRIPT = Path(__file__).resolve().parents[3] / "scripts" / "stopping_calibrated.py"


@pytest.fixture(scope="module")
def calibrated():
    return load_script(_SCRIPT)


def _ranked(n: int, k: int, shift: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Labels and z-scored scores in ranked order; shift 0: scores that say nothing of the labels."""
    rng = np.random.default_rng(seed)
    scores = rng.normal(size=n)
    scores[:k] += shift
    labels = np.zeros(n, dtype=np.int64)
    labels[:k] = 1
    if shift == 0:
        labels = rng.permutation(labels)
    order = np.argsort(-scores, kind="stable")
    z = (scores[order] - scores.mean()) / scores.std()
    return labels[order], z


def test_scores_that_say_nothing_leave_the_flat_rate_for_every_unscreened_paper(calibrated):
    labels, z = _ranked(1000, 40, 0.0, seed=3)
    end = 500
    found = int(labels[:end].sum())
    upper = calibrated.calibrated_expected_left(z[:end], labels[:end], z[end:], (0.95,))[0]
    flat = found / end * (1000 - end)
    # the region reaches a flat (or rising) rate, so the bound is at least the screened papers' rate
    assert upper >= 0.9 * flat
    assert upper > includes_allowed_left(found, 0.95)  # keeps going


def test_the_bound_widens_with_the_confidence_and_covers_what_is_left(calibrated):
    labels, z = _ranked(3000, 150, 2.0, seed=5)
    end = 900
    left = int(labels[end:].sum())
    fit, at_80, at_95, at_99 = calibrated.calibrated_expected_left(z[:end], labels[:end], z[end:],
                                                                   (None, 0.8, 0.95, 0.99))
    assert fit <= at_80 <= at_95 <= at_99
    assert at_95 > fit + 1  # the fit's own uncertainty is counted
    assert at_99 >= left - 2 * np.sqrt(left)  # well specified here: the bound is not far below the truth


def test_no_include_screened_yet_means_every_unscreened_paper_may_be_one(calibrated):
    z = np.linspace(2, -2, 200)
    assert calibrated.calibrated_expected_left(z[:50], np.zeros(50), z[50:], (0.95,)) == [150.0]
