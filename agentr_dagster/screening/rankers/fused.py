"""Fused-prior ranker: weighted z-score fusion of lexical and dense scores over two fields, then once more with
the BM25 query expanded from the top of the first list (not plain RRF: a weak lexical ranker drags RRF down)."""

from __future__ import annotations

import re
from collections.abc import Mapping

import numpy as np

from agentr_dagster.screening.features import ScreeningFeatures
from agentr_dagster.screening.question import question_sentences
from agentr_dagster.screening.rankers.config import ZeroShotConfig
from agentr_dagster.screening.rankers.dense import dense_field_scores, transformer_field_scores
from agentr_dagster.screening.rankers.design import design_prior
from agentr_dagster.screening.rankers.lexical import (
    expansion_term_weights,
    question_term_weights,
    weighted_bm25_scores,
)
from agentr_dagster.screening.scores import zscore

__all__ = ["dense_scores", "fused_prior", "transformer_share", "unreadable_share"]


def _fuse(
    q_weights: Mapping[str, float],
    dense: tuple[np.ndarray, np.ndarray],
    feats: ScreeningFeatures,
    cfg: ZeroShotConfig,
    lexical_weight: float,
) -> np.ndarray:
    w = lexical_weight if feats.embedder is not None else 1.0
    full = w * zscore(weighted_bm25_scores(q_weights, feats.tokens)) + (1 - w) * dense[0]
    title = w * zscore(weighted_bm25_scores(q_weights, feats.title_tokens)) + (1 - w) * dense[1]
    return full + cfg.title_weight * title


_WORD = re.compile(r"[a-z][a-z-]{3,}")


def unreadable_share(question: str, encoder) -> float:
    """Share of the words (4+ letters) of the question's topic sentence that ``encoder``'s vocabulary splits into
    3 or more word pieces: the names a transformer reads as fragments. 0 for an encoder without a vocabulary."""
    counts = getattr(encoder, "piece_counts", None)
    sents = question_sentences(question)
    words = _WORD.findall(sents[0].lower()) if sents else []
    if counts is None or not words:
        return 0.0
    return float(np.mean([c >= 3 for c in counts(words)]))


def transformer_share(question: str, feats: ScreeningFeatures, cfg: ZeroShotConfig = ZeroShotConfig()) -> float:
    """0..1: how much of ``cfg.transformer_weight`` this question gets (see ``transformer_unreadable_cut``)."""
    if not cfg.transformer_weight or feats.transformer is None or feats.temb is None:
        return 0.0
    cut = cfg.transformer_unreadable_cut
    if cut <= 0:
        return 1.0
    return float(np.clip(1.0 - unreadable_share(question, feats.transformer) / cut, 0.0, 1.0))


def dense_scores(
    question: str, feats: ScreeningFeatures, cfg: ZeroShotConfig = ZeroShotConfig(), share: float | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """The dense half of the fusion per field: the static encoder's z-scored cosines, mixed with the
    transformer's at ``cfg.transformer_weight`` x :func:`transformer_share`."""
    static = dense_field_scores(question, feats, cfg)
    tw = cfg.transformer_weight * (transformer_share(question, feats, cfg) if share is None else share)
    trans = transformer_field_scores(question, feats, cfg) if tw else None
    if trans is None:
        return static
    return (
        zscore((1 - tw) * static[0] + tw * trans[0]),
        zscore((1 - tw) * static[1] + tw * trans[1]),
    )


def fused_prior(question: str, feats: ScreeningFeatures, cfg: ZeroShotConfig = ZeroShotConfig()) -> np.ndarray:
    """Weighted z-score fusion of BM25 (weighted question terms) and dense cosine (whole question and its topic
    sentence) over the full-text and the title fields, then the same with the BM25 query expanded by the
    terms of the top of that first list (see :func:`.lexical.expansion_term_weights`)."""
    n = len(feats)
    if n == 0:
        return np.zeros(0)
    q_weights = question_term_weights(question, cfg, getattr(feats.transformer, "piece_counts", None))
    share = transformer_share(question, feats, cfg)
    dense = dense_scores(question, feats, cfg, share)
    lex_w = cfg.lexical_weight
    if cfg.readable_lexical_weight is not None:
        lex_w += share * (cfg.readable_lexical_weight - cfg.lexical_weight)
    fused = _fuse(q_weights, dense, feats, cfg, lex_w)
    if not cfg.expansion_weight or not np.any(fused):
        return fused
    top = np.argsort(-(zscore(fused) + design_prior(question, feats, cfg)), kind="stable")[: cfg.prf_top_k(n)]
    return _fuse(expansion_term_weights(q_weights, feats.tokens, top, cfg), dense, feats, cfg, lex_w)
