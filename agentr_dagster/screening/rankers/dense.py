"""Dense rankers: cosine of the question's vector with the records' vectors."""

from __future__ import annotations

import numpy as np

from agentr_dagster.screening.features import ScreeningFeatures, TextEncoder
from agentr_dagster.screening.question import question_sentences
from agentr_dagster.screening.rankers.config import ZeroShotConfig
from agentr_dagster.screening.scores import zscore

__all__ = ["dense_baseline_scores", "dense_field_scores"]


def dense_baseline_scores(question: str, texts: list[str], embedder: TextEncoder) -> np.ndarray:
    """Plain dense cosine similarity of the question with each text."""
    if not texts:
        return np.zeros(0)
    q = embedder.encode([question])[0]
    return embedder.encode(texts).astype(np.float64) @ q.astype(np.float64)


def dense_field_scores(
    question: str, feats: ScreeningFeatures, cfg: ZeroShotConfig = ZeroShotConfig()
) -> tuple[np.ndarray, np.ndarray]:
    """z-scored dense cosine of the question with the full-text and title fields; the question's first
    sentence (the topic) is scored too and mixed in at ``cfg.topic_dense_weight``: the criteria sentences
    after it pull the whole question vector towards boilerplate that every record of a design shares."""
    n = len(feats)
    if feats.embedder is None:
        return np.zeros(n), np.zeros(n)
    sents = question_sentences(question)
    qv = feats.embedder.encode([" ".join(sents), sents[0] if sents else ""]).astype(np.float64)
    if not np.any(qv[0]):
        return np.zeros(n), np.zeros(n)
    full = zscore(feats.emb.astype(np.float64) @ qv[0])
    title = zscore(feats.emb_title.astype(np.float64) @ qv[0])
    if cfg.topic_dense_weight and len(sents) > 1 and np.any(qv[1]):
        full = zscore(full + cfg.topic_dense_weight * zscore(feats.emb.astype(np.float64) @ qv[1]))
        title = zscore(title + cfg.topic_dense_weight * zscore(feats.emb_title.astype(np.float64) @ qv[1]))
    return full, title
