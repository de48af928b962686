"""The offline backend: infrastructure (embedder, vocabulary neighbours) plus the three stages' mixins."""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

from agentr_dagster.domain import lexicon as lx
from agentr_dagster.domain.text import (
    is_near_duplicate,
)
from agentr_dagster.llm.offline.common import (
    _CONCEPT_KEYS,
    OFFLINE_LABEL,
    OFFLINE_MODEL,
    OFFLINE_NAME,
    EmbedderLike,
)
from agentr_dagster.llm.offline.intent import IntentMixin
from agentr_dagster.llm.offline.queries import QueriesMixin
from agentr_dagster.llm.offline.scoring import ScoringMixin

# ------------------------------------------------------------------------------------------------------------
# Backend
# ------------------------------------------------------------------------------------------------------------


class OfflineBackend(IntentMixin, QueriesMixin, ScoringMixin):
    """Deterministic lexical + static-embedding backend that fills the stage contracts without an LLM."""

    name = OFFLINE_NAME
    model = OFFLINE_MODEL
    label = OFFLINE_LABEL
    cost_usd = 0.0

    def __init__(self, embedder: EmbedderLike | None = None):
        self._embedder = embedder
        self._lock = threading.Lock()
        self._concept_vectors: np.ndarray | None = None

    # -- infrastructure -----------------------------------------------------------------------------------

    @property
    def embedder(self) -> EmbedderLike:
        if self._embedder is None:
            with self._lock:
                if self._embedder is None:
                    from agentr_dagster.domain.embeddings import get_embedder

                    self._embedder = get_embedder()
        return self._embedder

    def describe(self) -> dict[str, Any]:
        """Provenance to record on every artifact produced by this backend."""
        return {
            "backend": self.name,
            "model": self.model,
            "embedder": getattr(self.embedder, "name", type(self.embedder).__name__),
            "label": self.label,
            "deterministic": True,
            "cost_usd": 0.0,
        }

    def _encode(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, 1), dtype=np.float32)
        vecs = np.asarray(self.embedder.encode(list(texts)), dtype=np.float32)
        if vecs.ndim != 2 or vecs.shape[0] != len(texts):
            raise ValueError(f"embedder returned shape {vecs.shape} for {len(texts)} texts")
        norms = np.linalg.norm(vecs, axis=1, keepdims=True)
        return np.divide(vecs, norms, out=np.zeros_like(vecs), where=norms > 0)

    def _concepts(self) -> np.ndarray:
        if self._concept_vectors is None:
            vectors = self._encode(list(lx.CONCEPTS))
            with self._lock:
                self._concept_vectors = vectors
        return self._concept_vectors

    def _neighbours(self, queries: list[str], exclude_stems: set[str], k: int) -> list[tuple[str, float]]:
        """Vocabulary concepts nearest to the mean of ``queries`` and to each query, not already present."""
        if not queries or k <= 0:
            return []
        q = self._encode(queries)
        concepts = self._concepts()
        sims = concepts @ q.T  # (n_concepts, n_queries)
        centroid = q.mean(axis=0)
        norm = float(np.linalg.norm(centroid))
        central = concepts @ (centroid / norm) if norm > 0 else np.zeros(len(concepts))
        score = 0.35 * sims.max(axis=1) + 0.65 * central
        order = sorted(range(len(lx.CONCEPTS)), key=lambda i: (-round(float(score[i]), 6), lx.CONCEPTS[i]))
        out: list[tuple[str, float]] = []
        chosen: list[tuple[str, ...]] = []
        for i in order:
            key = _CONCEPT_KEYS[i]
            if not key or set(key) <= exclude_stems or is_near_duplicate(key, chosen):
                continue
            chosen.append(key)
            out.append((lx.CONCEPTS[i], float(score[i])))
            if len(out) >= k:
                break
        return out
