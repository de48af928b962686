"""Stacking role: two learners' scores mixed, the mix judged on the labels seen so far.

Contract: :class:`StackedLearner` is a :class:`~agentr_dagster.screening.active.Learner` built from two learners
(``lead``, e.g. the prior-led :class:`~agentr_dagster.screening.active.ActiveRanker`, and ``alt``, e.g. ASReview's
label-only ELAS u4). Below ``min_labels`` labels (or with fewer than ``folds`` includes or excludes) it returns
``lead``'s scores unchanged. From there on it returns ``(1 - a) * z(lead) + a * z(alt)``, where ``a`` (from
``grid``) is the share whose out-of-fold scores rank the labelled includes above the labelled excludes best (pair
AUC; ties go to the smaller share). Each learner is re-fitted on the labels outside each fold (stratified,
round-robin); the share is re-judged every ``every`` labels.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from agentr_dagster.screening.active import Learner, pair_auc
from agentr_dagster.screening.scores import zscore

__all__ = ["BanditConfig", "BanditLearner", "StackConfig", "StackedLearner", "fold_ids"]


@dataclass(frozen=True)
class StackConfig:
    # Labels needed before the mix is judged: the prior's stand-ins (100 pseudo-excludes) are outnumbered by then,
    # and 10 labels from the top of the zero-shot list ("never worse") never reach it.
    min_labels: int = 100
    folds: int = 5
    grid: tuple[float, ...] = (0.0, 0.25, 0.5, 0.75, 1.0)
    every: int = 20


def fold_ids(y: np.ndarray, k: int) -> np.ndarray:
    """Fold of each label: round-robin within each class, so every fold holds includes and excludes."""
    y = np.asarray(y)
    out = np.zeros(len(y), dtype=np.int64)
    for cls in (0, 1):
        idx = np.flatnonzero(y == cls)
        out[idx] = np.arange(len(idx)) % k
    return out


class StackedLearner:
    """``lead`` until the labels can judge a mix with ``alt``; then the mix they rank best out of fold."""

    def __init__(self, lead: Learner, alt: Learner, cfg: StackConfig = StackConfig()):
        self.lead, self.alt, self.cfg = lead, alt, cfg
        self.share = 0.0  # the last judged share of ``alt``
        self._judged_at = -(10**9)
        self.last_prior_weight: float | None = None

    def scores(self, labeled: np.ndarray, y: np.ndarray) -> np.ndarray:
        labeled = np.asarray(labeled, dtype=np.int64)
        y = np.asarray(y, dtype=np.int64)
        lead = np.asarray(self.lead.scores(labeled, y), dtype=np.float64)
        w = getattr(self.lead, "last_prior_weight", None)
        n_pos = int(y.sum())
        if len(y) < self.cfg.min_labels or min(n_pos, len(y) - n_pos) < self.cfg.folds:
            self.last_prior_weight = w
            return lead
        if len(y) - self._judged_at >= self.cfg.every:
            self.share = self.judge(labeled, y)
            self._judged_at = len(y)
        self.last_prior_weight = None if w is None else (1.0 - self.share) * w
        if self.share <= 0.0:
            return lead
        alt = np.asarray(self.alt.scores(labeled, y), dtype=np.float64)
        return (1.0 - self.share) * zscore(lead) + self.share * zscore(alt)

    def judge(self, labeled: np.ndarray, y: np.ndarray) -> float:
        """The grid share whose out-of-fold mix orders the labelled (include, exclude) pairs best."""
        oof = np.zeros((2, len(y)))
        fold = fold_ids(y, self.cfg.folds)
        for f in range(self.cfg.folds):
            tr, te = fold != f, fold == f
            for j, learner in enumerate((self.lead, self.alt)):
                s = zscore(np.asarray(learner.scores(labeled[tr], y[tr]), dtype=np.float64))
                oof[j, te] = s[labeled[te]]
        best, best_auc = 0.0, -1.0
        for a in sorted(self.cfg.grid):
            mix = (1.0 - a) * oof[0] + a * oof[1]
            auc = pair_auc(mix[y == 1], mix[y == 0])
            if auc > best_auc + 1e-12:
                best, best_auc = a, auc
        return best


@dataclass(frozen=True)
class BanditConfig:
    # Each learner's hit rate is a Beta(1 + hits, 1 + misses) posterior over the records it put first; each step
    # one learner is drawn by Thompson sampling (seeded) and leads the next batch. ``discount`` < 1 forgets old
    # credit (a learner good early and lost late, as ELAS on some reviews, loses its share).
    discount: float = 1.0
    seed: int = 0
    remember: int = 50  # how many of each learner's top unlabelled records are kept to credit the next labels


class BanditLearner:
    """Two learners on the same labels, each step led by the one whose own first picks were included more often.

    Sequential use only: credit comes from the labels added since the previous call (``labeled`` must extend the
    previous call's; otherwise the credit is reset). With no credit yet (a first call, or labels given at once as
    ``agentr screen`` does) ``lead``'s scores are returned unchanged.
    """

    def __init__(self, lead: Learner, alt: Learner, cfg: BanditConfig = BanditConfig()):
        self.arms, self.cfg = (lead, alt), cfg
        self.hits = np.zeros(2)
        self.tries = np.zeros(2)
        self._rng = np.random.default_rng(cfg.seed)
        self._prev = np.zeros(0, dtype=np.int64)
        self._tops: list[np.ndarray] = []
        self.last_arm = 0
        self.last_prior_weight: float | None = None

    def scores(self, labeled: np.ndarray, y: np.ndarray) -> np.ndarray:
        labeled = np.asarray(labeled, dtype=np.int64)
        y = np.asarray(y, dtype=np.int64)
        self._credit(labeled, y)
        s = [np.asarray(a.scores(labeled, y), dtype=np.float64) for a in self.arms]
        free = np.ones(len(s[0]), dtype=bool)
        free[labeled] = False
        self._tops = [np.flatnonzero(free)[np.argsort(-x[free], kind="stable")[: self.cfg.remember]] for x in s]
        self._prev = labeled.copy()
        if self.tries.sum() == 0:
            arm = 0
        else:
            draws = self._rng.beta(1.0 + self.hits, 1.0 + self.tries - self.hits)
            arm = int(np.argmax(draws))
        self.last_arm = arm
        w = getattr(self.arms[0], "last_prior_weight", None)
        self.last_prior_weight = w if arm == 0 else 0.0
        return s[arm]

    def _credit(self, labeled: np.ndarray, y: np.ndarray) -> None:
        n = len(self._prev)
        if not self._tops or len(labeled) < n or not np.array_equal(labeled[:n], self._prev):
            self.hits[:], self.tries[:] = 0.0, 0.0
            return
        new, y_new = labeled[n:], y[n:]
        for j, top in enumerate(self._tops):
            picked = np.isin(new, top[: max(len(new), 1)])
            for lab in y_new[picked]:
                self.hits[j] = self.cfg.discount * self.hits[j] + lab
                self.tries[j] = self.cfg.discount * self.tries[j] + 1.0
