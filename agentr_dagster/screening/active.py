"""Active-learner role: re-score every record from the include/exclude labels given so far.

Contract (:class:`Learner`): ``learner.scores(labeled_idx, labels_of_labeled) -> np.ndarray`` of one float per
record (higher = read sooner); it is what :func:`agentr_dagster.screening.simulation.simulate_active` and
:func:`agentr_dagster.screening.screen.screen` call. A *learner factory* ``(feats, prior) -> Learner`` builds
one per candidate set (see :mod:`agentr_dagster.screening.presets`).

Implementation: :class:`ActiveRanker`, a linear SVM over TF-IDF uni+bigrams (ASReview's strongest classic
setting) combined with the zero-shot prior at a high starting weight (4x the classifier) that halves every 10
includes found: the question carries the early ranking, the labels the later one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

import numpy as np
from scipy import sparse

from agentr_dagster.screening.features import ScreeningFeatures
from agentr_dagster.screening.scores import zscore

__all__ = ["ActiveConfig", "ActiveRanker", "Learner", "LearnerFactory"]


class Learner(Protocol):
    def scores(self, labeled: np.ndarray, y: np.ndarray) -> np.ndarray: ...


LearnerFactory = Callable[[ScreeningFeatures, np.ndarray], Learner]


@dataclass(frozen=True)
class ActiveConfig:
    C: float = 0.11  # linear SVM regularisation (ASReview's tuned ELAS u4 value)
    # "balanced" sample weights: each exclude weighs n_incl / (ratio * n_excl). ASReview uses 9.8; 3 suits the
    # strong prior better (the prior already pushes excludes down; leave-one-review-out on 13 reviews).
    neg_ratio: float = 3.0
    # Optional dense block next to the l2-normalised TF-IDF block, scaled by this (its rows are unit vectors too;
    # 0 = off), taken from the transformer's vectors when the features carry them (else the static model's).
    # Measured off: `scripts/tune_active_transformer.py /work/shared/data/screening` (feedback protocol, 18 shared
    # reviews, 2026-12-01), mean WSS@95 at 0 / 0.1 / 0.25 / 0.5 / 1.0 = 0.518 / 0.520 / 0.519 / 0.508 / 0.487
    # (seed 0); the weight chosen leave-one-review-out gives 0.504 against 0.518 at 0 (better on 8, worse on 9;
    # Kitchenham -0.10, SocialNorms -0.07). Seeds 0-2 over 0 / 0.1 / 0.25: 0.511 against 0.513 (worse on 8); there
    # 0.25 helps the 12 Cohen_2006 drug reviews (0.496 against 0.487) but not the other 6 (0.562 against 0.564;
    # 4 of them worse held out).
    emb_weight: float = 0.0
    emb_from_transformer: bool = True
    # Weight of the z-scored zero-shot prior beside the z-scored SVM margin, and the includes found after which
    # it halves. A strong, fast-decaying prior: a margin from a handful of includes is noisy (it buries the
    # includes unlike the first ones), but after some tens of includes the classifier knows better.
    prior_weight: float = 4.0
    prior_half_life: float = 10.0
    # The prior's weight is also scaled by how well it separates the labels so far (its AUC over labelled
    # include/exclude pairs, shrunk towards ``prior_auc_expected`` by ``prior_auc_pseudo_pairs`` pseudo-pairs):
    # full weight at the expected AUC or better, none at chance. A misleading question then stops steering.
    prior_auc_expected: float = 0.75
    prior_auc_pseudo_pairs: float = 4.0
    # How the prior's weight is judged from the labels: "auc" (the decaying weight x trust above) or "cv": the
    # weight, among ``cv_grid`` multiples of the decaying weight, under which the blend of the classifier's
    # out-of-fold margins and the prior ranks the labels best (ties to the larger weight: the prior stays unless
    # the labels show the classifier does better). Held-out margins compare the two fairly on any labels, also
    # on labels taken from the top of the prior's own list, where the prior's AUC alone is near chance.
    prior_judge: str = "auc"
    cv_folds: int = 3
    cv_max_labels: int = 300  # beyond this many labels the decaying weight stands (the prior has faded by then)
    cv_grid: tuple[float, ...] = (0.0, 0.25, 0.5, 1.0, 2.0, 4.0, 16.0, 1000.0)
    classifier: str = "svm"  # "svm" (LinearSVC, squared hinge) or "logistic"


class ActiveRanker:
    """Re-ranks records from include/exclude labels, keeping the zero-shot prior as a decaying component.

    Model: LinearSVC (squared hinge) over TF-IDF word uni+bigrams (sublinear tf) of title + abstract, with
    ASReview-style balanced sample weights; score = z(margin) + prior_weight * 0.5 ** ((n_incl - 1) / half_life)
    * trust * z(zero-shot prior), where trust (0..1) says how well the prior ranks the labels so far. With
    labels of one class only, the prior (plus, for includes, similarity to them) is used.
    """

    def __init__(self, feats: ScreeningFeatures, prior: np.ndarray, cfg: ActiveConfig = ActiveConfig()):
        self.cfg = cfg
        self.prior = zscore(np.asarray(prior, dtype=np.float64))
        blocks = [feats.tfidf_words]
        dense = feats.temb if cfg.emb_from_transformer and feats.temb is not None else feats.emb
        if cfg.emb_weight > 0 and dense.shape[0]:
            blocks.append(sparse.csr_matrix(dense.astype(np.float32) * cfg.emb_weight))
        self.X = sparse.hstack(blocks).tocsr() if len(blocks) > 1 else blocks[0].tocsr()

    def prior_weight(self, n_included: int) -> float:
        return self.cfg.prior_weight * 0.5 ** (max(n_included - 1, 0) / max(self.cfg.prior_half_life, 1e-9))

    def prior_trust(self, labeled: np.ndarray, y: np.ndarray) -> float:
        """0..1: how far the prior's shrunk AUC over the labelled (include, exclude) pairs is above chance."""
        pos = self.prior[labeled[y == 1]]
        neg = self.prior[labeled[y == 0]]
        a0, k = self.cfg.prior_auc_expected, self.cfg.prior_auc_pseudo_pairs
        if a0 <= 0.5:
            return 1.0
        d = pos[:, None] - neg[None, :]
        wins = float(np.sum(d > 0) + 0.5 * np.sum(d == 0))
        auc = (wins + k * a0) / (d.size + k) if d.size + k > 0 else a0
        return float(np.clip((auc - 0.5) / (a0 - 0.5), 0.0, 1.0))

    def scores(self, labeled: np.ndarray, y: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
        """Scores for every record given labelled indices and their 0/1 labels. ``weights`` (one per label,
        default 1) scale the labels' sample weights: weak labels (an LLM's judgement) count less than a
        person's."""
        labeled = np.asarray(labeled, dtype=np.int64)
        y = np.asarray(y, dtype=np.int64)
        n_pos = int(y.sum())
        n_neg = int(len(y) - n_pos)
        if n_pos == 0 or n_neg == 0:
            if n_pos and len(labeled):  # only includes: add similarity to their centroid
                c = np.asarray(self.X[labeled].mean(axis=0)).ravel()
                return self.prior + zscore(self.X @ c)
            return self.prior.copy()
        w = np.where(y == 1, 1.0, n_pos / (self.cfg.neg_ratio * n_neg))
        if weights is not None:
            w = w * np.asarray(weights, dtype=np.float64)
        margin = zscore(self._fit(labeled, y, w).decision_function(self.X))
        base = self.prior_weight(n_pos)
        if self.cfg.prior_judge == "cv":
            return margin + base * self.judged_multiple(labeled, y, w) * self.prior
        return margin + base * self.prior_trust(labeled, y) * self.prior

    def _fit(self, labeled: np.ndarray, y: np.ndarray, w: np.ndarray):
        if self.cfg.classifier == "logistic":
            from sklearn.linear_model import LogisticRegression

            clf = LogisticRegression(C=1.0, max_iter=2000)  # ASReview's logistic default
        else:
            from sklearn.svm import LinearSVC

            clf = LinearSVC(C=self.cfg.C, loss="squared_hinge", max_iter=5000, random_state=0)
        return clf.fit(self.X[labeled], y, sample_weight=w)

    def judged_multiple(self, labeled: np.ndarray, y: np.ndarray, w: np.ndarray) -> float:
        """The multiple of the decaying prior weight (from ``cv_grid``) whose blend with the classifier's
        out-of-fold margins ranks the labelled records best (pairwise AUC); the largest multiple when the
        labels cannot tell (too few of a class for folds, or a tie)."""
        grid = sorted(self.cfg.cv_grid)
        n_pos = int(y.sum())
        k = min(self.cfg.cv_folds, n_pos, len(y) - n_pos)
        if k < 2 or len(y) > self.cfg.cv_max_labels:  # nothing to hold out, or no longer worth it
            return 1.0
        rng = np.random.default_rng(0)
        fold = np.empty(len(y), dtype=np.int64)
        for cls in (0, 1):  # stratified folds, fixed seed
            members = np.flatnonzero(y == cls)
            fold[members] = rng.permutation(len(members)) % k
        held = np.empty(len(y), dtype=np.float64)
        for f in range(k):
            train, test = fold != f, fold == f
            clf = self._fit(labeled[train], y[train], w[train])
            full = clf.decision_function(self.X)  # z-scored over every record, as the final margin is
            sd = full.std() or 1.0
            held[test] = (clf.decision_function(self.X[labeled[test]]) - full.mean()) / sd
        base = self.prior_weight(n_pos)
        prior = self.prior[labeled]
        best, best_auc = grid[-1], -1.0
        for m in reversed(grid):  # larger multiples first: they win ties
            auc = _pairwise_auc(held + base * m * prior, y)
            if auc > best_auc + 1e-12:
                best, best_auc = m, auc
        return float(best)


def _pairwise_auc(scores: np.ndarray, y: np.ndarray) -> float:
    """Share of (include, exclude) pairs the scores order right (ties count half)."""
    from scipy.stats import rankdata

    n_pos = int(y.sum())
    n_neg = len(y) - n_pos
    if n_pos == 0 or n_neg == 0:
        return 0.5
    ranks = rankdata(scores)
    return float((ranks[y == 1].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))
