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



def test_pseudo_excludes_come_from_the_bottom_of_the_prior_and_keep_off_topic_records_down():
    """Labels from the top of the prior's list are all on topic: with pseudo-excludes from its bottom half the
    classifier learns that off-topic records are excluded (a wider gap than the labels alone give, here where the
    off-topic records share a word, "trial", with the includes)."""
    on = [f"heart failure trial {'cohort ' if i in (1, 3, 4) else ''}{i}" for i in range(30)]
    off = [f"soil erosion trial {i}" for i in range(30)]
    feats = build_features(on + off, [""] * 60, HashEmbedder())
    prior = np.r_[np.linspace(2, 1, 30), np.linspace(0, -1, 30)]  # on-topic records first
    learner = ActiveRanker(feats, prior)
    pseudo = learner.pseudo_excludes(np.array([45]))
    assert len(pseudo) == 29 and set(pseudo.tolist()) == set(range(30, 60)) - {45}
    assert len(ActiveRanker(feats, prior, ActiveConfig(pseudo_excludes=5)).pseudo_excludes(np.array([0]))) == 5
    labeled, y = np.arange(6), np.array([1, 0, 1, 0, 0, 1])  # the top six: on topic, half of them included
    flat = np.zeros(60)  # no prior to lean on: the classifier alone decides
    with_pseudo = ActiveRanker(feats, flat, ActiveConfig(pseudo_excludes=30)).scores(labeled, y)
    assert with_pseudo[6:30].min() > with_pseudo[30:].max()
    without = ActiveRanker(feats, flat, ActiveConfig(pseudo_excludes=0)).scores(labeled, y)
    assert with_pseudo[6:30].min() - with_pseudo[30:].max() > without[6:30].min() - without[30:].max()


def test_pair_auc_counts_ordered_pairs_and_ties_half():
    from agentr_dagster.screening.active import pair_auc

    assert pair_auc(np.array([3.0, 2.0]), np.array([1.0, 0.0])) == 1.0
    assert pair_auc(np.array([0.0]), np.array([1.0, 2.0])) == 0.0
    assert pair_auc(np.array([1.0, 3.0]), np.array([1.0, 2.0])) == 0.625  # (0.5 + 0 + 1 + 1) / 4
    assert pair_auc(np.array([]), np.array([1.0])) == 0.5


def test_includes_only_train_against_the_pseudo_excludes_with_the_prior_at_its_two_class_weight():
    """Seed studies (or a person's includes and no exclude): the pseudo-excludes stand in for excludes, so the
    classifier separates the includes' topic from the prior's bottom, and the prior keeps the weight it has beside
    labelled excludes (decayed by the includes, times its trust) instead of the similarity's equal weight."""
    on = [f"heart failure trial {'beta blocker ' if i < 10 else ''}{i}" for i in range(30)]
    off = [f"soil erosion survey {i}" for i in range(30)]
    feats = build_features(on + off, [""] * 60, HashEmbedder())
    prior = np.r_[np.linspace(2, 1, 30), np.linspace(0, -1, 30)]
    learner = ActiveRanker(feats, prior)
    labeled, y = np.array([2, 5]), np.array([1, 1])  # two includes, both naming beta blockers
    scores = learner.scores(labeled, y)
    pseudo = learner.pseudo_excludes(labeled)
    assert learner.last_prior_weight == learner.prior_weight(2) * learner.prior_trust(labeled, y, pseudo)
    assert learner.last_prior_weight > 1.0  # the question is trusted more than a first pair of includes
    assert scores[:30].min() > scores[30:].max()  # off-topic records stay below
    flat = ActiveRanker(feats, np.zeros(60))  # no question: the includes' topic leads
    lifted = flat.scores(labeled, y)
    assert lifted[:10].mean() > lifted[10:30].mean() > lifted[30:].mean()
    # too short a list for pseudo-excludes: the prior beside the similarity to the includes, as before
    short = ActiveRanker(build_features(on[:3], [""] * 3, HashEmbedder()), np.array([1.0, 0.0, -1.0]))
    short.scores(np.array([0]), np.array([1]))
    assert short.last_prior_weight == 1.0


def test_with_the_pick_off_c_is_asreviews_and_a_looser_c_changes_the_scores():
    """``C_pick_every=0``: C fixed at ASReview's 0.11 (the ``classic`` preset); another C changes the scores."""
    titles = [f"screening citations {i}" if i % 3 == 0 else f"soil erosion {i % 7}" for i in range(60)]
    feats = build_features(titles, [""] * 60, HashEmbedder())
    prior = np.linspace(1, -1, 60)
    labeled = np.arange(40)
    y = (labeled % 3 == 0).astype(np.int64)
    y[[1, 2]] = 1  # two includes the TF-IDF words do not separate: how hard the SVM fits them depends on C
    tight = ActiveRanker(feats, prior, ActiveConfig(C_pick_every=0)).scores(labeled, y)
    loose = ActiveRanker(feats, prior, ActiveConfig(C_pick_every=0, C=1.0)).scores(labeled, y)
    assert not np.allclose(tight, loose)


def test_the_c_picked_on_the_labels_comes_from_the_grid_and_holds_for_the_given_number_of_labels():
    """``C_pick_every``: cfg.C until three includes and three excludes are labelled; then a C of the grid, kept
    until ``C_pick_every`` more labels, re-picked after (with either judge)."""
    titles = [f"beta blocker heart trial {i}" if i % 4 == 0 else f"soil erosion survey {i % 9}" for i in range(80)]
    feats = build_features(titles, [""] * 80, HashEmbedder())
    prior = np.linspace(1, -1, 80)
    y_all = (np.arange(80) % 4 == 0).astype(np.int64)
    for judge in ("labels", "unlabelled"):
        cfg = ActiveConfig(C_pick_every=10, C_pick_grid=(0.05, 2.0), C_pick_judge=judge)
        r = ActiveRanker(feats, prior, cfg)
        few = np.arange(5)  # two includes (0, 4): too few to pick on
        assert r.picked_c(few, y_all[few], r.pseudo_excludes(few)) == cfg.C
        labeled = np.arange(24)
        c = r.picked_c(labeled, y_all[labeled], r.pseudo_excludes(labeled))
        assert c in cfg.C_pick_grid and r._c_pick == (24, c)
        more = np.arange(30)  # fewer than 10 labels later: kept without a new look
        assert r.picked_c(more, y_all[more], r.pseudo_excludes(more)) == c and r._c_pick == (24, c)
        later = np.arange(34)
        r.picked_c(later, y_all[later], r.pseudo_excludes(later))
        assert r._c_pick is not None and r._c_pick[0] == 34
        assert len(r.scores(later, y_all[later])) == 80


def test_by_default_c_is_picked_every_25_labels_by_the_held_out_includes_against_the_unlabelled():
    """The default since round 6: the pick on (every 25 labels, 0.11 / 0.3 / 1.0, judged against the unlabelled
    records); the C it picks is the one the SVM is fitted with, so the scores equal those at that fixed C."""
    cfg = ActiveConfig()
    assert (cfg.C_pick_every, cfg.C_pick_grid, cfg.C_pick_judge, cfg.C) == (25, (0.11, 0.3, 1.0), "unlabelled", 0.11)
    titles = [f"beta blocker heart trial {i}" if i % 4 == 0 else f"heart survey {i % 9}" for i in range(80)]
    feats = build_features(titles, [""] * 80, HashEmbedder())
    prior = np.linspace(1, -1, 80)
    labeled = np.arange(30)
    y = (labeled % 4 == 0).astype(np.int64)
    y[[2, 7]] = 1  # includes the words do not tell apart
    picking = ActiveRanker(feats, prior)
    s = picking.scores(labeled, y)
    assert picking._c_pick is not None and picking._c_pick[0] == 30
    c = picking._c_pick[1]
    fixed = ActiveRanker(feats, prior, ActiveConfig(C=c, C_pick_every=0)).scores(labeled, y)
    assert np.allclose(s, fixed)
