"""Weighted reciprocal rank fusion of a lexical and a dense ranking (pure numpy).

fused(d) = w_dense / (k + rank_dense(d)) + w_lexical / (k + rank_lexical(d)), ranks from 1, over the top
``depth`` of each list; a document missing from a list gets nothing from it. Plain RRF (equal weights) lets the
weaker ranker drag the fusion below the stronger one alone. Which one is weaker depends on the rankers: with
the lake's analyzer (stop words, plural stemming) and the static model2vec embedding, BM25 is the stronger one
on the shared screening reviews (``scripts/bench_lake.py --quality``: mean WSS@95 with the review question as
query, BM25 0.30, dense 0.20, plain RRF 0.28, dense weighted 0.3 -> 0.30; with the short review title as query
0.16 / 0.09 / 0.16 / 0.17), so the dense list is the down-weighted one by default.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class FusionWeights:
    dense: float = 0.3
    lexical: float = 1.0
    k: float = 60.0
    depth: int = 1000  # how far down each list ranks count

    def __post_init__(self) -> None:
        if self.dense < 0 or self.lexical < 0 or self.dense + self.lexical <= 0:
            raise ValueError("fusion weights must be non-negative and not both zero")
        if self.k <= 0 or self.depth < 1:
            raise ValueError("RRF k must be positive and depth at least 1")


def top_ids(scores: np.ndarray, n: int, valid: np.ndarray | None = None) -> np.ndarray:
    """Indices of the ``n`` best valid scores, best first (ties: lower index first)."""
    scores = np.asarray(scores)
    ids = np.flatnonzero(valid) if valid is not None else np.arange(len(scores))
    if len(ids) == 0 or n <= 0:
        return np.zeros(0, dtype=np.int64)
    values = scores[ids]
    if len(ids) > n:
        part = np.argpartition(-values, n - 1)[:n]
        ids, values = ids[part], values[part]
    order = np.lexsort((ids, -values))
    return ids[order].astype(np.int64)


def fuse(
    lexical: np.ndarray,
    dense: np.ndarray,
    k: int,
    *,
    weights: FusionWeights = FusionWeights(),
    mask: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Top ``k`` documents by weighted RRF: (ids, fused scores, their lexical ranks, their dense ranks), ranks
    from 1 and 0 where a document is not in that list's top ``depth``.

    Only documents with a positive lexical score enter the lexical list; ``mask`` (bool per document) limits
    both lists. Ties in the fused score go to the better dense rank, then the lower id.
    """
    lexical = np.asarray(lexical, dtype=np.float32)
    dense = np.asarray(dense, dtype=np.float32)
    if lexical.shape != dense.shape:
        raise ValueError("lexical and dense scores differ in length")
    n = len(dense)
    valid = np.ones(n, dtype=bool) if mask is None else np.asarray(mask, dtype=bool)
    none = np.zeros(0, dtype=np.int64)
    lex_ids = top_ids(lexical, weights.depth, valid & (lexical > 0)) if weights.lexical > 0 else none
    dense_ids = top_ids(dense, weights.depth, valid) if weights.dense > 0 else none
    candidates = np.union1d(lex_ids, dense_ids).astype(np.int64)
    if len(candidates) == 0 or k <= 0:
        return none, np.zeros(0, np.float64), none, none
    # ranks as sparse lookups over the candidates only (no per-document arrays of the whole lake)
    lr = np.zeros(len(candidates), dtype=np.int64)
    dr = np.zeros(len(candidates), dtype=np.int64)
    lr[np.searchsorted(candidates, lex_ids)] = np.arange(1, len(lex_ids) + 1)
    dr[np.searchsorted(candidates, dense_ids)] = np.arange(1, len(dense_ids) + 1)
    fused = np.where(lr > 0, weights.lexical / (weights.k + lr), 0.0)
    fused = fused + np.where(dr > 0, weights.dense / (weights.k + dr), 0.0)
    tie = np.where(dr > 0, dr, weights.depth + 1)
    order = np.lexsort((candidates, tie, -fused))[:k]
    return candidates[order], fused[order], lr[order], dr[order]
