"""The active learner: beats zero-shot on a synthetic review, trusts the prior as far as it ranks the labels."""

from __future__ import annotations

import numpy as np

from agentr_dagster.screening.active import ActiveConfig, ActiveRanker
from agentr_dagster.screening.features import build_features
from agentr_dagster.screening.metrics import wss_at
from agentr_dagster.screening.rankers import zero_shot_scores
from agentr_dagster.screening.scores import order_from_scores
from agentr_dagster.screening.simulation import choose_priors, simulate_active
from agentr_dagster.testing.screening import HashEmbedder, synthetic_review


def test_active_learning_beats_zero_shot_onsynthetic_review():
    titles, abstracts, y = synthetic_review()
    feats = build_features(titles, abstracts, HashEmbedder())
    question = "ACE inhibitors such as enalapril for patients with hypertension (blood pressure treatment)"
    zs = zero_shot_scores(question, feats)
    zs_wss = wss_at(y[order_from_scores(zs)])
    ranker = ActiveRanker(feats, zs)
    order = simulate_active(ranker.scores, y, choose_priors(y, 0))
    al_wss = wss_at(y[order])
    assert sorted(order.tolist()) == list(range(len(y)))
    assert al_wss > zs_wss + 0.2
    assert al_wss > 0.6

def test_zero_shot_prefers_on_topic_records():
    titles = ["beta blockers heart failure trial"] * 5 + ["software testing survey"] * 45
    abstracts = ["carvedilol bisoprolol mortality"] * 5 + ["unit tests code coverage"] * 45
    feats = build_features(titles, abstracts, HashEmbedder())
    s = zero_shot_scores("beta blockers (carvedilol) in heart failure", feats)
    assert set(order_from_scores(s)[:5].tolist()) == set(range(5))

def test_active_prior_trust_follows_how_the_prior_ranks_the_labels():
    titles, abstracts, _ = synthetic_review(n=60, n_inc=10)
    feats = build_features(titles, abstracts, HashEmbedder())
    prior = np.arange(60, dtype=float)[::-1]  # record 0 best, record 59 worst
    ranker = ActiveRanker(feats, prior)
    good = np.array([0, 1, 2, 3, 50, 51, 52, 53])  # includes on top of the prior, excludes at the bottom
    y = np.array([1, 1, 1, 1, 0, 0, 0, 0])
    assert ranker.prior_trust(good, y) == 1.0
    assert ranker.prior_trust(good, 1 - y) == 0.0  # the prior ranks these labels upside down: ignore it
    assert 0.0 < ranker.prior_trust(good[[0, 4]], np.array([0, 1])) < 1.0  # one pair: shrunk, not switched off
    # the prior's weight decays with the includes found (half-life in includes)
    cfg = ActiveConfig()
    assert ranker.prior_weight(1) == cfg.prior_weight
    assert abs(ranker.prior_weight(1 + int(cfg.prior_half_life)) - cfg.prior_weight / 2) < 1e-9
    # with a trusted prior its order survives a weak classifier; with an inverted one the classifier takes over
    s_good = ranker.scores(good, y)
    s_bad = ranker.scores(good, 1 - y)
    assert np.corrcoef(s_good, prior)[0, 1] > np.corrcoef(s_bad, prior)[0, 1]


def test_label_weights_reach_the_classifier_and_unit_weights_change_nothing():
    titles = [f"screening citations {i}" if i % 3 == 0 else f"soil erosion {i}" for i in range(30)]
    feats = build_features(titles, [""] * 30, HashEmbedder())
    learner = ActiveRanker(feats, np.zeros(30))
    labeled, y = np.array([0, 3, 1, 2, 4]), np.array([1, 1, 0, 0, 0])
    plain = learner.scores(labeled, y)
    assert np.allclose(learner.scores(labeled, y, weights=np.ones(5)), plain)
    assert not np.allclose(learner.scores(labeled, y, weights=np.array([1, 0.2, 1, 1, 1])), plain)


def test_judged_prior_weight_follows_held_out_labels():
    """The "cv" judge keeps the prior when the classifier's held-out margins rank the labels worse than the prior
    does, and lets the classifier lead when they rank them better."""
    titles = [f"screening citations {i}" if i % 3 == 0 else f"soil erosion {i}" for i in range(60)]
    feats = build_features(titles, [""] * 60, HashEmbedder())
    includes = np.arange(0, 60, 3)
    labeled = np.r_[includes[:6], np.array([1, 2, 4, 5, 7, 8])]
    y = np.r_[np.ones(6, dtype=int), np.zeros(6, dtype=int)]
    cfg = ActiveConfig(prior_judge="cv", cv_grid=(0.0, 1.0, 1000.0))
    # a prior that ranks the labels upside down: the classifier (which reads the words) wins held out
    wrong = np.zeros(60)
    wrong[labeled[y == 0]] = 1.0
    learner = ActiveRanker(feats, wrong, cfg)
    w = np.ones(len(y))
    assert learner.judged_multiple(labeled, y, w) == 0.0
    # a prior that ranks them perfectly and a classifier that cannot tell (all records read alike): the prior stays
    same = build_features(["a study"] * 60, [""] * 60, HashEmbedder())
    right = np.zeros(60)
    right[includes] = 1.0
    assert ActiveRanker(same, right, cfg).judged_multiple(labeled, y, w) == 1000.0
    order = order_from_scores(ActiveRanker(same, right, cfg).scores(labeled, y))
    assert set(order[:20].tolist()) == set(includes.tolist())
