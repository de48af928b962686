"""Rankers role: a question and the records' features -> one relevance score per record, no labels.

Contract (:class:`Ranker`): ``ranker(question, feats) -> np.ndarray`` of ``len(feats)`` floats, higher = read
sooner. Implementations, one module each:

* :mod:`.lexical` - BM25 of weighted question terms (and the plain ``bm25s`` baseline);
* :mod:`.dense` - cosine of question and record vectors per field (and the plain dense baseline);
* :mod:`.fused` - :func:`fused_prior`, z-score fusion of lexical and dense with RM3-style query expansion;
* :mod:`.design` - :func:`design_prior`, the study-design prior;
* :mod:`.zero_shot` - :func:`zero_shot_scores`, fused + design prior + one pseudo-relevance feedback round.

Knobs of all of them: :class:`ZeroShotConfig` (:mod:`.config`).
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

from agentr_dagster.screening.features import ScreeningFeatures
from agentr_dagster.screening.rankers.config import ZeroShotConfig
from agentr_dagster.screening.rankers.design import design_prior
from agentr_dagster.screening.rankers.fused import fused_prior
from agentr_dagster.screening.rankers.zero_shot import zero_shot_scores

__all__ = ["Ranker", "ZeroShotConfig", "design_prior", "fused_prior", "zero_shot_scores"]


class Ranker(Protocol):
    """Relevance scores of every record for a question, from features alone (no labels)."""

    def __call__(self, question: str, feats: ScreeningFeatures) -> np.ndarray: ...
