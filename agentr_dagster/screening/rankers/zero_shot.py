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

__all__ = ["pseudo_relevance_feedback", "rerank_tail", "zero_shot_scores"]


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


def rerank_tail(scores: np.ndarray, other: np.ndarray, frac: float, weight: float) -> np.ndarray:
    """The bottom ``frac`` of ``scores``' list (fewer where ties straddle its edge) re-ordered by z(scores) +
    ``weight`` x z(``other``) taken over that tail alone; the rest of the list, and the tail's set of score values
    (handed out again in the new order), stay as they were, so the tail stays below the head and a learner taking
    the scores as its prior sees the same distribution."""
    k = int(frac * len(scores))
    if k < 2:
        return scores
    # the records strictly below the k-th lowest score: a tie is never split between the head and the tail
    tail = np.flatnonzero(scores < np.sort(scores)[k])
    if len(tail) < 2:
        return scores
    inner = zscore(scores[tail]) + weight * zscore(other[tail])
    out = scores.astype(np.float64, copy=True)
    out[tail[np.argsort(inner, kind="stable")]] = np.sort(scores[tail])
    return out


def zero_shot_scores(question: str, feats: ScreeningFeatures, cfg: ZeroShotConfig = ZeroShotConfig()) -> np.ndarray:
    """Zero-shot relevance scores (higher = more likely to be included). Uses no labels.

    z(fused relevance) + study-design prior, then :func:`pseudo_relevance_feedback`, the transformer's cosine
    blended in (x its per-question share) and the bottom of the list re-ordered with that cosine
    (:func:`rerank_tail`, every question)."""
    prior = fused_prior(question, feats, cfg)
    if not len(prior) or not np.any(prior):
        return prior
    prior = zscore(prior) + design_prior(question, feats, cfg)
    scores = pseudo_relevance_feedback(prior, feats, cfg)
    blend = cfg.prf_transformer_blend * transformer_share(question, feats, cfg) if cfg.prf_transformer_blend else 0.0
    trans = transformer_field_scores(question, feats, cfg) if blend or cfg.tail_transformer_frac else None
    if trans is not None and blend:
        scores = zscore(scores) + blend * zscore(trans[0] + cfg.title_weight * trans[1])
    if trans is not None and cfg.tail_transformer_frac:
        scores = rerank_tail(scores, trans[0] + cfg.title_weight * trans[1], cfg.tail_transformer_frac,
                             cfg.tail_transformer_weight)
    return scores
