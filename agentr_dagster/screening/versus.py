"""How far a re-rank moved from the question's own order: the order learned from labels against the zero-shot
order, on the papers nobody has labelled yet (what the person screens next).

:func:`~agentr_dagster.screening.screen.screen` computes it whenever it learns from labels (``attrs
["versus_zero_shot"]``); the relevance asset's metadata and ``agentr rerank`` show its :attr:`VersusZeroShot.sentence`
(``agentr screen --llm-top K`` says it describes the engine's order, before the LLM re-ordered the top K).
A re-rank that leaves most of the question's top on a handful of includes may be right, or may have buried the
includes unlike the first ones (issue 33: 10 labels from the top left 20 of 43 remaining includes in the unlabelled
top 200, where the zero-shot order held 29); the person should see which it could be, not be told nothing.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from agentr_dagster.screening.scores import order_from_scores

__all__ = ["CAUTION_INCLUDES", "CAUTION_OVERLAP", "VersusZeroShot", "compare_with_zero_shot", "spearman",
           "top_size"]

# "The top" of the unlabelled list: 20 % of it, at most 200 papers (what a person screens in a sitting), at least 10.
TOP_SHARE = 0.2
TOP_MAX = 200
TOP_MIN = 10
# The caution: the re-rank keeps less than half of the zero-shot top while fewer than 5 includes are labelled. A
# classifier's margin from under 5 includes is noisy (the learner's prior weight is kept high for that reason,
# screening/active.py), so moving most of the question's top away on that evidence is worth a word.
CAUTION_OVERLAP = 0.5
CAUTION_INCLUDES = 5


def top_size(n_unlabelled: int) -> int:
    """K of "the top K": min(200, 20 % of the unlabelled), at least 10, never more than there are."""
    return min(n_unlabelled, max(TOP_MIN, min(TOP_MAX, round(TOP_SHARE * n_unlabelled))))


def spearman(a: np.ndarray, b: np.ndarray) -> float | None:
    """Spearman's rank correlation of two score vectors (ties share their mean rank); None when fewer than 2
    values or either does not vary."""
    from scipy.stats import rankdata  # here: the module stays cheap for the stages that only read a stored result

    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if len(a) < 2:
        return None
    ra, rb = rankdata(a), rankdata(b)
    if ra.std() <= 0 or rb.std() <= 0:
        return None
    return float(np.corrcoef(ra, rb)[0, 1])


@dataclass(frozen=True)
class VersusZeroShot:
    """The learned order against the zero-shot order on the unlabelled papers."""

    labels: int  # the labels learnt from
    includes: int  # of them, includes
    unlabelled: int  # the papers compared
    top_k: int  # the size of "the top" (:func:`top_size`)
    overlap: int  # papers in both the learned and the zero-shot top K
    spearman: float | None  # rank correlation of the two orders over every unlabelled paper
    prior_weight: float | None  # the learner's weight on the z-scored prior beside its classifier's 1 (None: unknown)

    @property
    def overlap_share(self) -> float:
        return self.overlap / self.top_k if self.top_k else 1.0

    @property
    def caution(self) -> bool:
        """Far from the question's order on little evidence (:data:`CAUTION_OVERLAP`, :data:`CAUTION_INCLUDES`)."""
        return self.overlap_share < CAUTION_OVERLAP and self.includes < CAUTION_INCLUDES

    @property
    def sentence(self) -> str:
        """One plain sentence for the UI and the CLI."""
        return self.describe()

    def describe(self, llm_top: int = 0) -> str:
        """The sentence; with ``llm_top`` > 0 (``agentr screen --llm-top K``) it names the order it describes: the
        engine's, before the LLM re-ordered its top K (the comparison is of the engine's scores, not the LLM's)."""
        order = (f"the engine's re-rank (before the LLM re-ordered its top {llm_top:,})" if llm_top > 0
                 else "the re-rank")
        s = (f"after {self.labels:,} label{'s' if self.labels != 1 else ''} ({self.includes:,} "
             f"include{'s' if self.includes != 1 else ''}) {order} keeps {self.overlap:,} of the zero-shot top "
             f"{self.top_k:,} of the {self.unlabelled:,} unlabelled papers ({self.overlap_share:.0%})")
        if self.spearman is not None:
            s += f"; rank correlation with the zero-shot order {self.spearman:.2f}"
        if self.prior_weight is not None:
            s += f"; prior weight {self.prior_weight:.2f} (the classifier's 1)"
        if self.caution:
            s += (f". Caution: on only {self.includes} include{'s' if self.includes != 1 else ''} the learner has "
                  "moved far from the question's order; label a few more papers before trusting the new order")
        return s

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, payload: dict[str, Any]) -> VersusZeroShot:
        return cls(**{k: payload[k] for k in cls.__dataclass_fields__})


def compare_with_zero_shot(learned: np.ndarray, zero_shot: np.ndarray, labels: np.ndarray,
                           prior_weight: float | None = None) -> VersusZeroShot:
    """Compare two score vectors over the same records on the unlabelled ones (``labels`` < 0; 1 include, 0
    exclude): the overlap of their top :func:`top_size` (ties broken by input order) and their Spearman
    correlation."""
    learned = np.asarray(learned, dtype=np.float64)
    zero_shot = np.asarray(zero_shot, dtype=np.float64)
    labels = np.asarray(labels)
    free = labels < 0
    a, b = learned[free], zero_shot[free]
    k = top_size(len(a))
    overlap = len(set(order_from_scores(a)[:k].tolist()) & set(order_from_scores(b)[:k].tolist()))
    return VersusZeroShot(labels=int(np.sum(~free)), includes=int(np.sum(labels == 1)), unlabelled=len(a),
                          top_k=k, overlap=overlap, spearman=spearman(a, b),
                          prior_weight=None if prior_weight is None else float(prior_weight))
