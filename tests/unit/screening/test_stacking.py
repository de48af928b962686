"""The stacking role: the lead learner alone until enough labels, then the mix the labels rank best out of fold."""

from __future__ import annotations

import numpy as np

from agentr_dagster.screening.scores import zscore
from agentr_dagster.screening.stacking import StackConfig, StackedLearner, fold_ids


class Fixed:
    """A learner whose scores ignore the labels (so its out-of-fold scores are its scores)."""

    def __init__(self, s: np.ndarray):
        self.s = np.asarray(s, dtype=np.float64)
        self.calls = 0
        self.last_prior_weight = 2.0

    def scores(self, labeled: np.ndarray, y: np.ndarray) -> np.ndarray:
        self.calls += 1
        return self.s.copy()


def _labels(n_lab: int, n: int = 200):
    """Records 0..n-1; the includes are the multiples of 4; the first ``n_lab`` records are labelled."""
    truth = (np.arange(n) % 4 == 0).astype(np.int64)
    labeled = np.arange(n_lab)
    return truth, labeled, truth[labeled]


def test_fold_ids_spread_each_class_over_every_fold():
    y = np.array([1, 0, 0, 1, 0, 1, 0, 0, 1, 1, 0, 0])
    f = fold_ids(y, 3)
    for k in range(3):
        assert set(y[f == k].tolist()) == {0, 1}


def test_below_the_label_threshold_the_lead_scores_are_returned_untouched():
    truth, labeled, y = _labels(40)
    lead, alt = Fixed(np.linspace(1, 0, 200)), Fixed(truth.astype(float))
    st = StackedLearner(lead, alt, StackConfig(min_labels=50))
    assert np.array_equal(st.scores(labeled, y), lead.s)
    assert alt.calls == 0 and st.last_prior_weight == 2.0


def test_the_labels_pick_the_learner_that_ranks_them_and_the_mix_follows_it():
    truth, labeled, y = _labels(120)
    noise = np.random.default_rng(0).normal(size=(2, 200))
    good, bad = truth + 0.5 * noise[0], -truth + 0.5 * noise[1]  # good ranks the includes first, bad last
    st = StackedLearner(Fixed(bad), Fixed(good), StackConfig(min_labels=100))
    s = st.scores(labeled, y)
    assert st.share == 1.0 and np.allclose(s, zscore(good))
    assert st.last_prior_weight == 0.0  # the lead's prior no longer steers
    # the other way round: the lead is kept alone (share 0), its own scores returned
    st2 = StackedLearner(Fixed(good), Fixed(bad), StackConfig(min_labels=100))
    assert np.array_equal(st2.scores(labeled, y), good) and st2.share == 0.0


def test_a_partial_mix_wins_when_each_learner_sees_half_of_the_includes():
    """Each learner misses half of the includes (scores them as excludes): only the mix ranks them all up."""
    truth, labeled, y = _labels(160)
    half = (np.arange(200) % 8 == 0).astype(float)  # every second include
    a, b = half, truth - half  # a finds the includes at multiples of 8, b the others
    st = StackedLearner(Fixed(a), Fixed(b), StackConfig(min_labels=100, grid=(0.0, 0.5, 1.0)))
    st.scores(labeled, y)
    assert st.share == 0.5


def test_the_share_is_judged_again_only_every_so_many_labels():
    truth, labeled, y = _labels(130)
    lead, alt = Fixed(-truth.astype(float)), Fixed(truth.astype(float))
    st = StackedLearner(lead, alt, StackConfig(min_labels=100, every=20, folds=5))
    st.scores(labeled[:110], y[:110])
    calls = alt.calls
    assert calls == 5 + 1  # five folds to judge, one to score
    st.scores(labeled[:120], y[:120])  # 10 labels later: no new judgement
    assert alt.calls == calls + 1
    st.scores(labeled, y)  # 20 labels later: judged again
    assert alt.calls == calls + 1 + 6
