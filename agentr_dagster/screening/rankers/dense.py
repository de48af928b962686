"""Dense rankers: cosine of the question's vector with the records' vectors."""

from __future__ import annotations

import numpy as np

from agentr_dagster.screening.features import ScreeningFeatures, TextEncoder
from agentr_dagster.screening.question import question_sentences, topic_sentences
from agentr_dagster.screening.rankers.config import ZeroShotConfig
from agentr_dagster.screening.scores import zscore

__all__ = ["dense_baseline_scores", "dense_field_scores", "transformer_field_scores"]


def dense_baseline_scores(question: str, texts: list[str], embedder: TextEncoder) -> np.ndarray:
    """Plain dense cosine similarity of the question with each text."""
    if not texts:
        return np.zeros(0)
    q = embedder.encode([question])[0]
    return embedder.encode(texts).astype(np.float64) @ q.astype(np.float64)


def _field_cosines(
    question: str, encoder, emb: np.ndarray, emb_title: np.ndarray, cfg: ZeroShotConfig
) -> tuple[np.ndarray, np.ndarray]:
    n = len(emb)
    sents = question_sentences(question)
    qv = encoder.encode([" ".join(sents), " ".join(topic_sentences(question))]).astype(np.float64)
    if not np.any(qv[0]):
        return np.zeros(n), np.zeros(n)
    full = zscore(emb.astype(np.float64) @ qv[0])
    title = zscore(emb_title.astype(np.float64) @ qv[0])
    if cfg.topic_dense_weight and len(sents) > 1 and np.any(qv[1]):
        full = zscore(full + cfg.topic_dense_weight * zscore(emb.astype(np.float64) @ qv[1]))
        title = zscore(title + cfg.topic_dense_weight * zscore(emb_title.astype(np.float64) @ qv[1]))
    return full, title


def dense_field_scores(
    question: str, feats: ScreeningFeatures, cfg: ZeroShotConfig = ZeroShotConfig()
) -> tuple[np.ndarray, np.ndarray]:
    """z-scored dense cosine (static encoder) of the question with the full-text and title fields; the question's
    first sentence (the topic) is scored too and mixed in at ``cfg.topic_dense_weight``: the criteria sentences
    after it pull the whole question vector towards boilerplate that every record of a design shares."""
    if feats.embedder is None:
        return np.zeros(len(feats)), np.zeros(len(feats))
    return _field_cosines(question, feats.embedder, feats.emb, feats.emb_title, cfg)


def transformer_field_scores(
    question: str, feats: ScreeningFeatures, cfg: ZeroShotConfig = ZeroShotConfig()
) -> tuple[np.ndarray, np.ndarray] | None:
    """As :func:`dense_field_scores` with the transformer's vectors; None when the features have none."""
    if feats.transformer is None or feats.temb is None or feats.temb_title is None:  # set together
        return None
    return _field_cosines(question, feats.transformer, feats.temb, feats.temb_title, cfg)
