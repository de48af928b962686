"""Active-learner role: re-score every record from the include/exclude labels given so far.

Contract (:class:`Learner`): ``learner.scores(labeled_idx, labels_of_labeled) -> np.ndarray`` of one float per
record (higher = read sooner); it is what :func:`agentr_dagster.screening.simulation.simulate_active` and
:func:`agentr_dagster.screening.screen.screen` call. A *learner factory* ``(feats, prior) -> Learner`` builds
one per candidate set (see :mod:`agentr_dagster.screening.presets`).

Implementation: :class:`ActiveRanker`, a linear SVM over TF-IDF uni+bigrams with ASReview's balanced sample
weights (ELAS u4: ratio 9.8, rescaled to sum to the training size; its C re-picked every 25 labels among 0.11 /
0.3 / 1.0 by how well out-of-fold models rank the held-out includes above the unlabelled records) combined
with the zero-shot prior at a high starting weight (4x the classifier) that halves every 10 includes found: the
question carries the early ranking, the labels the later one. Records from the bottom of the prior's list train the
classifier as pseudo-excludes beside the labels, so that labels taken from the top of the list (all on topic) do
not teach it to lift off-topic records.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

import numpy as np
from scipy import sparse

from agentr_dagster.screening.features import ScreeningFeatures
from agentr_dagster.screening.scores import zscore

__all__ = ["ActiveConfig", "ActiveRanker", "Learner", "LearnerFactory", "pair_auc"]


class Learner(Protocol):
    def scores(self, labeled: np.ndarray, y: np.ndarray) -> np.ndarray: ...


LearnerFactory = Callable[[ScreeningFeatures, np.ndarray], Learner]


@dataclass(frozen=True)
class ActiveConfig:
    C: float = 0.11  # linear SVM regularisation (ASReview's tuned ELAS u4 value)
    # "balanced" sample weights as ASReview's Balanced balancer: each exclude weighs n_incl / (ratio * n_excl) of an
    # include, then all are rescaled to sum to the training size. The rescaling matters: with C fixed it sets how
    # hard the SVM fits (without it, 20 includes among 500 labels fit as if C were ~20x smaller). With it and
    # ASReview's ratio 9.8 the learner gained on 10 of 11 shared reviews' held-out choice (docs/screening.md;
    # before: ratio 3, no rescaling).
    neg_ratio: float = 9.8
    normalise_weights: bool = True
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
    # Pseudo-excludes: this many unlabelled records from the bottom half of the prior's list (evenly spaced) join
    # the classifier's training as excludes, each weighing ``pseudo_exclude_weight`` of a labelled exclude. Labels
    # taken from the top of the list are all on topic; without these the classifier never sees an off-topic
    # record and lifts them over the on-topic rest.
    pseudo_excludes: int = 100
    pseudo_exclude_weight: float = 1.0
    # The pseudo-excludes also count as excludes in the prior's trust: labels from the top of the prior's list
    # are all on topic, and the prior's AUC over them alone is near chance (it switched the prior off:
    # Kitchenham_2010, 10 labels from the top, recall@20 % of the rest 0.732 against zero-shot's 0.902; with
    # pseudo-excludes in training 0.829, in the trust too 0.878). A prior whose includes sit in its own bottom half
    # (a misleading question) still loses the trust.
    trust_pseudo: bool = True
    # C picked on the labels themselves (0 = off, ``C`` fixed): every ``C_pick_every`` labels, the C of
    # ``C_pick_grid`` whose SVM (labels + pseudo-excludes, 3 folds stratified over the labels) orders the held-out
    # includes best (mean pair AUC over the folds, ties to the earlier C); ``C`` until 3 includes and 3 excludes
    # are labelled. A looser SVM wins some reviews and loses others at any fixed C; picked this way, seeds 0-2 on
    # the 18 shared reviews, held out 0.523 -> 0.528 WSS@95 (1.082x -> 1.093x ELAS; drug 0.505 -> 0.510, others
    # 0.558 -> 0.563; docs/screening.md round 6). It costs 9 extra fits every 25 labels.
    C_pick_every: int = 25
    C_pick_grid: tuple[float, ...] = (0.11, 0.3, 1.0)
    # what the held-out includes are ordered against: "labels" (the held-out excludes) or "unlabelled" (every
    # unlabelled record but the pseudo-excludes, nearly all excludes: how the tail is ranked; the held-out
    # excludes once none is left) (round 6: "labels" gave the held-out mean 0.486 against "unlabelled"'s 0.490
    # at seed 0 on 16 reviews and lost NSAIDS -0.03 and Kitchenham -0.03; a C that grows with the labels and AUCs
    # pooled over the picks were measured there and taken out)
    C_pick_judge: str = "unlabelled"


def pair_auc(pos: np.ndarray, neg: np.ndarray) -> float:
    """Share of (positive, negative) pairs the scores order correctly, ties half; 0.5 without pairs."""
    if not len(pos) or not len(neg):
        return 0.5
    d = np.asarray(pos, dtype=np.float64)[:, None] - np.asarray(neg, dtype=np.float64)[None, :]
    return float((np.sum(d > 0) + 0.5 * np.sum(d == 0)) / d.size)


class ActiveRanker:
    """Re-ranks records from include/exclude labels, keeping the zero-shot prior as a decaying component.

    Model: LinearSVC (squared hinge) over TF-IDF word uni+bigrams (sublinear tf) of title + abstract, with
    ASReview's balanced sample weights (rescaled to sum to the training size); score = z(margin) + prior_weight
    * 0.5 ** ((n_incl - 1) / half_life)
    * trust * z(zero-shot prior), where trust (0..1) says how well the prior ranks the labels so far (and the
    pseudo-excludes below the includes); the SVM trains on the labels and ``pseudo_excludes`` records of the
    prior's bottom half (:meth:`pseudo_excludes`).
    With includes only, the pseudo-excludes stand in for the excludes (:meth:`_includes_only`); with excludes only,
    the prior alone is used (and with includes on a list too short for pseudo-excludes, the prior plus the
    similarity to the includes).
    ``last_prior_weight`` keeps the prior's weight in the last scores (what ``screen`` reports beside its order).
    """

    def __init__(self, feats: ScreeningFeatures, prior: np.ndarray, cfg: ActiveConfig = ActiveConfig()):
        self.cfg = cfg
        self.prior = zscore(np.asarray(prior, dtype=np.float64))
        blocks = [feats.tfidf_words]
        dense = feats.temb if cfg.emb_from_transformer and feats.temb is not None else feats.emb
        if cfg.emb_weight > 0 and dense.shape[0]:
            blocks.append(sparse.csr_matrix(dense.astype(np.float32) * cfg.emb_weight))
        self.X = sparse.hstack(blocks).tocsr() if len(blocks) > 1 else blocks[0].tocsr()
        # The weight the last :meth:`scores` gave the z-scored prior beside its other part's 1 (the classifier's
        # z-scored margin; with includes only, the similarity to them): decay x trust. None before the
        # first call, and when the scores were the prior alone (no include labelled).
        self.last_prior_weight: float | None = None
        # C picked on the labels (``C_pick_every``) and the label count it was picked at
        self._c_pick: tuple[int, float] | None = None

    def prior_weight(self, n_included: int) -> float:
        return self.cfg.prior_weight * 0.5 ** (max(n_included - 1, 0) / max(self.cfg.prior_half_life, 1e-9))

    def picked_c(self, labeled: np.ndarray, y: np.ndarray, pseudo: np.ndarray) -> float:
        """``C_pick_every``: the grid's C whose out-of-fold order of the labels is best, re-picked every
        ``C_pick_every`` labels (the pseudo-excludes train every fold and are never held out)."""
        cfg, n = self.cfg, len(labeled)
        if self._c_pick is not None and self._c_pick[0] <= n < self._c_pick[0] + cfg.C_pick_every:
            return self._c_pick[1]
        if min(int(y.sum()), int(len(y) - y.sum())) < 3:
            return cfg.C
        rng = np.random.default_rng(0)
        fold = np.zeros(n, dtype=np.int64)
        for cls in (0, 1):  # stratified: each fold holds a third of the includes and of the excludes
            idx = np.flatnonzero(y == cls)
            fold[rng.permutation(idx)] = np.arange(len(idx)) % 3
        unlabelled = np.setdiff1d(np.arange(self.X.shape[0]), np.r_[labeled, pseudo])
        aucs = []
        for c in cfg.C_pick_grid:
            per_fold = []
            for f in range(3):
                tr, te = fold != f, fold == f
                yt = y[tr]
                n_pos, n_neg = int(yt.sum()), int(len(yt) - yt.sum())
                w_neg = n_pos / (cfg.neg_ratio * n_neg)
                w = np.where(yt == 1, 1.0, w_neg)
                clf = self._fit(np.r_[labeled[tr], pseudo], np.r_[yt, np.zeros(len(pseudo), dtype=np.int64)],
                                np.r_[w, np.full(len(pseudo), w_neg * cfg.pseudo_exclude_weight)], c)
                d = clf.decision_function(self.X[labeled[te]])
                if cfg.C_pick_judge == "unlabelled" and len(unlabelled):
                    per_fold.append(pair_auc(d[y[te] == 1], clf.decision_function(self.X[unlabelled])))
                else:
                    per_fold.append(pair_auc(d[y[te] == 1], d[y[te] == 0]))
            aucs.append(float(np.mean(per_fold)))
        best = cfg.C_pick_grid[int(np.argmax(aucs))]
        self._c_pick = (n, best)
        return best

    def prior_trust(self, labeled: np.ndarray, y: np.ndarray, pseudo: np.ndarray | None = None) -> float:
        """0..1: how far the prior's shrunk AUC over the labelled (include, exclude) pairs is above chance; with
        ``pseudo`` (pseudo-excludes) those count as excludes too."""
        pos = self.prior[labeled[y == 1]]
        neg = self.prior[np.r_[labeled[y == 0], pseudo if pseudo is not None and self.cfg.trust_pseudo else []]
                         .astype(np.int64)]
        a0, k = self.cfg.prior_auc_expected, self.cfg.prior_auc_pseudo_pairs
        if a0 <= 0.5:
            return 1.0
        n_pairs = len(pos) * len(neg)
        auc = (pair_auc(pos, neg) * n_pairs + k * a0) / (n_pairs + k) if n_pairs + k > 0 else a0
        return float(np.clip((auc - 0.5) / (a0 - 0.5), 0.0, 1.0))

    def scores(self, labeled: np.ndarray, y: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
        """Scores for every record given labelled indices and their 0/1 labels. ``weights`` (one per label,
        default 1) scale the labels' sample weights: weak labels (an LLM's judgement) count less than a
        person's."""
        labeled = np.asarray(labeled, dtype=np.int64)
        y = np.asarray(y, dtype=np.int64)
        n_pos = int(y.sum())
        n_neg = int(len(y) - n_pos)
        if n_pos and n_neg == 0 and len(self.pseudo_excludes(labeled)):
            return self._includes_only(labeled, y, weights)
        if n_pos == 0 or n_neg == 0:
            if n_pos and len(labeled):  # only includes, no pseudo-excludes: add similarity to their centroid
                c = np.asarray(self.X[labeled].mean(axis=0)).ravel()
                self.last_prior_weight = 1.0
                return self.prior + zscore(self.X @ c)
            self.last_prior_weight = None
            return self.prior.copy()
        w = np.where(y == 1, 1.0, n_pos / (self.cfg.neg_ratio * n_neg))
        if weights is not None:
            w = w * np.asarray(weights, dtype=np.float64)
        pseudo = self.pseudo_excludes(labeled)
        w_neg = n_pos / (self.cfg.neg_ratio * n_neg) * self.cfg.pseudo_exclude_weight
        C = self.picked_c(labeled, y, pseudo) if self.cfg.C_pick_every > 0 else self.cfg.C
        if len(pseudo) and w_neg > 0:
            margin = zscore(self._fit(np.r_[labeled, pseudo], np.r_[y, np.zeros(len(pseudo), dtype=np.int64)],
                                      np.r_[w, np.full(len(pseudo), w_neg)], C).decision_function(self.X))
        else:
            margin = zscore(self._fit(labeled, y, w, C).decision_function(self.X))
        self.last_prior_weight = self.prior_weight(n_pos) * self.prior_trust(labeled, y, pseudo)
        return margin + self.last_prior_weight * self.prior

    def _includes_only(self, labeled: np.ndarray, y: np.ndarray, weights: np.ndarray | None) -> np.ndarray:
        """Includes and no exclude (seed studies, or a person who labelled includes only): the pseudo-excludes
        stand in for the excludes, weighed as excludes are (balanced against the includes), and the prior keeps the
        weight it has beside labelled excludes (decay x trust). Before, the prior plus the similarity to the
        includes' TF-IDF centroid at equal weight: five seeds unlike the other includes pulled the order towards
        themselves (docs/seed-queries.md, 2026-12-04: Opiods' effort to 90 % 0.321 -> 0.581; with this 0.335)."""
        pseudo = self.pseudo_excludes(labeled)
        n_pos = len(labeled)
        w = np.ones(n_pos) if weights is None else np.asarray(weights, dtype=np.float64)
        w_neg = n_pos / (self.cfg.neg_ratio * len(pseudo)) * self.cfg.pseudo_exclude_weight
        margin = zscore(self._fit(np.r_[labeled, pseudo], np.r_[y, np.zeros(len(pseudo), dtype=np.int64)],
                                  np.r_[w, np.full(len(pseudo), w_neg)]).decision_function(self.X))
        self.last_prior_weight = self.prior_weight(n_pos) * self.prior_trust(labeled, y, pseudo)
        return margin + self.last_prior_weight * self.prior

    def pseudo_excludes(self, labeled: np.ndarray) -> np.ndarray:
        """Unlabelled records spread evenly over the bottom half of the prior's list (``cfg.pseudo_excludes``)."""
        n = len(self.prior)
        if self.cfg.pseudo_excludes <= 0 or n < 4:
            return np.zeros(0, dtype=np.int64)
        bottom = np.argsort(-self.prior, kind="stable")[n // 2 :]
        bottom = bottom[~np.isin(bottom, labeled)]
        take = min(self.cfg.pseudo_excludes, len(bottom))
        return bottom[np.linspace(0, len(bottom) - 1, take).astype(np.int64)] if take else bottom[:0]

    def _fit(self, labeled: np.ndarray, y: np.ndarray, w: np.ndarray, C: float | None = None):
        from sklearn.svm import LinearSVC

        if self.cfg.normalise_weights and w.sum() > 0:
            w = w * (len(w) / w.sum())
        clf = LinearSVC(C=self.cfg.C if C is None else C, loss="squared_hinge", max_iter=5000, random_state=0)
        return clf.fit(self.X[labeled], y, sample_weight=w)
