"""The simulation protocol: priors, the order it produces, batch growth, stopping rules."""

from __future__ import annotations

import numpy as np
import pytest

from agentr_dagster.screening.metrics import wss_at
from agentr_dagster.screening.scores import order_from_scores
from agentr_dagster.screening.simulation import after_top_labels, choose_priors, simulate_active
from agentr_dagster.screening.stopping import all_includes_found, consecutive_excludes


def test_choose_priors_and_order():
    y = np.array([0, 1, 0, 0, 1, 0])
    a = choose_priors(y, seed=3)
    assert a == choose_priors(y, seed=3)
    assert y[a[0]] == 1 and y[a[1]] == 0
    with pytest.raises(ValueError):
        choose_priors(np.zeros(5), 0)
    assert list(order_from_scores(np.array([0.1, 0.5, 0.5, -1]))) == [1, 2, 0, 3]

def test_simulate_active_oracle_and_permutation():
    rng = np.random.default_rng(0)
    y = (rng.random(300) < 0.1).astype(int)
    priors = choose_priors(y, 0)
    calls = []

    def oracle(idx, yl):
        calls.append(len(idx))
        return y.astype(float)

    order = simulate_active(oracle, y, priors)
    assert list(order[:2]) == list(priors)
    assert sorted(order.tolist()) == list(range(300))
    assert y[order][: y.sum() + 1].sum() == y.sum()  # all includes right after the exclude prior
    assert wss_at(y[order]) > 0.8
    # growing batches: far fewer re-trainings than labels when run to the end
    calls.clear()
    simulate_active(lambda i, yl: rng.random(300), y, priors, stop=None)
    assert len(calls) < 300


def test_stopping_rules():
    y = np.array([1, 0, 1, 0, 0, 0])
    assert all_includes_found(np.array([1, 1]), y) and not all_includes_found(np.array([1, 0]), y)
    three = consecutive_excludes(3)
    assert not three(np.array([1, 0, 0]), y) and three(np.array([1, 0, 0, 0]), y)
    with pytest.raises(ValueError):
        consecutive_excludes(0)
    rng = np.random.default_rng(2)
    labels = (rng.random(200) < 0.1).astype(int)
    calls = []

    def scores(idx, yl):
        calls.append(len(idx))
        return rng.random(200)

    order = simulate_active(scores, labels, choose_priors(labels, 0), stop=consecutive_excludes(5))
    assert sorted(order.tolist()) == list(range(200))  # the rest appended in the last model's order
    assert len(calls) < 100


def test_after_top_labels_orders_only_the_unlabelled_papers():
    y = np.array([1, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0])
    prior = -np.arange(12, dtype=float)  # the prior's order is 0, 1, 2, ...
    seen = []

    def learner(labeled, yl):
        seen.append((labeled.tolist(), yl.tolist()))
        return np.where(y == 1, 1.0, 0.0)  # an oracle: every include first

    out = after_top_labels(learner, prior, y, ks=(2, 20), fractions=(0.2, 1.0))
    assert seen == [([0, 1], [1, 0])]  # k=20 is more than the 12 records: skipped
    # the 10 unlabelled records 2..11 hold the includes 5 and 7; the first ceil(0.2 * 10) = 2 of them count
    assert out[2]["zero_shot"] == {"recall20": 0.0, "recall100": 1.0}  # records 2, 3
    assert out[2]["feedback"] == {"recall20": 1.0, "recall100": 1.0}  # records 5, 7
