"""Fused-prior ranker: weighted z-score fusion of lexical and dense scores over two fields, then once more with
the BM25 query expanded from the top of the first list (not plain RRF: a weak lexical ranker drags RRF down)."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from agentr_dagster.screening.features import ScreeningFeatures
from agentr_dagster.screening.rankers.config import ZeroShotConfig
from agentr_dagster.screening.rankers.dense import dense_field_scores
from agentr_dagster.screening.rankers.design import design_prior
from agentr_dagster.screening.rankers.lexical import (
    expansion_term_weights,
    question_term_weights,
    weighted_bm25_scores,
)
from agentr_dagster.screening.scores import zscore

__all__ = ["fused_prior"]


def _fuse(
    q_weights: Mapping[str, float], dense: tuple[np.ndarray, np.ndarray], feats: ScreeningFeatures, cfg: ZeroShotConfig
) -> np.ndarray:
    w = cfg.lexical_weight if feats.embedder is not None else 1.0
    full = w * zscore(weighted_bm25_scores(q_weights, feats.tokens)) + (1 - w) * dense[0]
    title = w * zscore(weighted_bm25_scores(q_weights, feats.title_tokens)) + (1 - w) * dense[1]
    return full + cfg.title_weight * title


def fused_prior(question: str, feats: ScreeningFeatures, cfg: ZeroShotConfig = ZeroShotConfig()) -> np.ndarray:
    """Weighted z-score fusion of BM25 (weighted question terms) and dense cosine (whole question and its topic
    sentence) over the full-text and the title fields, then the same with the BM25 query expanded by the
    terms of the top of that first list (see :func:`.lexical.expansion_term_weights`)."""
    n = len(feats)
    if n == 0:
        return np.zeros(0)
    q_weights = question_term_weights(question, cfg)
    dense = dense_field_scores(question, feats, cfg)
    fused = _fuse(q_weights, dense, feats, cfg)
    if not cfg.expansion_weight or not np.any(fused):
        return fused
    top = np.argsort(-(zscore(fused) + design_prior(question, feats, cfg)), kind="stable")[: cfg.prf_top_k(n)]
    return _fuse(expansion_term_weights(q_weights, feats.tokens, top, cfg), dense, feats, cfg)
