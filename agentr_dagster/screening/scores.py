"""Score arithmetic every role shares: z-scores (how rankers are fused) and scores -> screening order."""

from __future__ import annotations

import numpy as np

__all__ = ["order_from_scores", "zscore"]


def zscore(values: np.ndarray) -> np.ndarray:
    """(v - mean) / sd as float64; non-finite values count as 0; all zeros when the values do not vary."""
    v = np.asarray(values, dtype=np.float64)
    if v.size == 0:
        return v
    v = np.where(np.isfinite(v), v, 0.0)
    sd = v.std()
    if sd <= 1e-12:
        return np.zeros_like(v)
    return (v - v.mean()) / sd


def order_from_scores(scores: np.ndarray) -> np.ndarray:
    """Indices best first; ties keep input order (stable)."""
    return np.argsort(-np.asarray(scores, dtype=np.float64), kind="stable")
