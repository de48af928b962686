"""scripts/stopping_variants.py replays the stopping rule from parts computed once per ask; these check that its
parts are the domain's: the fast window test gives the domain's count, and the default variant stops where
:func:`assess_recall` does."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from agentr_dagster.domain.recall_stopping import _sample_left_upper, assess_recall
from tests.support.scripts import load_script

_SCRIPT = Path(__file__).resolve().parents[3] / "scripts" / "stopping_variants.py"


@pytest.fixture(scope="module")
def variants_script():
    return load_script(_SCRIPT)


def _ranked(n: int, k: int, shift: float, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    scores = rng.normal(size=n)
    scores[:k] += shift
    labels = np.zeros(n, dtype=np.int64)
    labels[:k] = 1
    return labels[np.argsort(-scores, kind="stable")]


@pytest.mark.parametrize("shift", [0.0, 1.0, 2.5])
def test_the_fast_window_test_counts_what_the_domains_does(variants_script, shift):
    y = _ranked(600, 30, shift, seed=3)
    for end in range(40, 600, 70):
        for alpha in (0.01, 0.2, 0.5):
            assert variants_script.fast_sample_left_upper(y[:end], 600 - end, alpha) == \
                _sample_left_upper(y[:end], 600 - end, alpha)[0]


def test_the_default_variant_stops_where_the_rule_does(variants_script):
    y = _ranked(800, 40, 2.0, seed=5)
    boundaries = list(range(16, 800, 16)) + [800]
    parts = variants_script.sequence_parts(y, boundaries)
    default = variants_script.variants()[variants_script.DEFAULT]
    replayed = variants_script.first_stop(parts, len(y), default)
    rule = next((end for end in boundaries[:-1] if assess_recall(y[:end], len(y), 0.95).stop), len(y))
    assert replayed == rule < len(y)


def test_a_power_law_leaves_more_than_an_exponential_on_the_same_tail(variants_script):
    """The power law's tail is the heavier one: on the same order it expects more includes left."""
    from agentr_dagster.domain.recall_stopping import decaying_rate_expected_left

    y = _ranked(1000, 40, 2.0, seed=7)[:400]
    assert variants_script.power_law_expected_left(y, 1000, None) > decaying_rate_expected_left(y, 1000)
