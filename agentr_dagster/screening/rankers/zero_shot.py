"""The zero-shot hybrid ranker: fused prior + design prior, then one round of pseudo-relevance feedback.

Uses no labels. Labels from evaluation data are never an input to it.
"""

from __future__ import annotations

import numpy as np
from scipy import sparse

from agentr_dagster.screening.features import ScreeningFeatures
from agentr_dagster.screening.rankers.config import ZeroShotConfig
from agentr_dagster.screening.rankers.dense import transformer_field_scores
from agentr_dagster.screening.rankers.design import design_prior
from agentr_dagster.screening.rankers.fused import fused_prior, transformer_share
from agentr_dagster.screening.scores import zscore

__all__ = ["pseudo_relevance_feedback", "zero_shot_scores"]


def pseudo_relevance_feedback(prior: np.ndarray, feats: ScreeningFeatures, cfg: ZeroShotConfig) -> np.ndarray:
    """A logistic regression over TF-IDF learns the top of ``prior``'s list (pseudo-includes) against its bottom
    half (pseudo-excludes); its z-scored margin is blended back with the prior. ``prior`` unchanged when the
    round is off, the set is too small or there is no vocabulary."""
    n = len(prior)
    if not cfg.prf or n < cfg.prf_min_records:
        return prior
    order = np.argsort(-prior, kind="stable")
    pos = order[: cfg.prf_top_k(n)]
    neg = order[int(n * (1 - cfg.prf_bottom_frac)) :]
    X = feats.tfidf
    if X.shape[1] <= 1:
        return prior
    from sklearn.linear_model import LogisticRegression

    if cfg.prf_transformer_weight and feats.temb is not None:
        X = sparse.hstack([X, sparse.csr_matrix(feats.temb * cfg.prf_transformer_weight)]).tocsr()

    idx = np.r_[pos, neg]
    y = np.r_[np.ones(len(pos)), np.zeros(len(neg))]
    clf = LogisticRegression(C=1.0, class_weight="balanced", max_iter=1000)
    clf.fit(X[idx], y)
    return zscore(clf.decision_function(X)) + cfg.prf_prior_weight * zscore(prior)


def zero_shot_scores(question: str, feats: ScreeningFeatures, cfg: ZeroShotConfig = ZeroShotConfig()) -> np.ndarray:
    """Zero-shot relevance scores (higher = more likely to be included). Uses no labels.

    z(fused relevance) + study-design prior, then :func:`pseudo_relevance_feedback`."""
    prior = fused_prior(question, feats, cfg)
    if not len(prior) or not np.any(prior):
        return prior
    prior = zscore(prior) + design_prior(question, feats, cfg)
    scores = pseudo_relevance_feedback(prior, feats, cfg)
    blend = cfg.prf_transformer_blend * transformer_share(question, feats, cfg) if cfg.prf_transformer_blend else 0.0
    trans = transformer_field_scores(question, feats, cfg) if blend else None
    if trans is not None:
        scores = zscore(scores) + blend * zscore(trans[0] + cfg.title_weight * trans[1])
    return scores
