"""Stopping-rule role: when a (simulated) screener may stop asking the model for the next records.

Contract (:class:`StoppingRule`): ``rule(seen_labels, all_labels) -> bool``, where ``seen_labels`` are the 0/1
labels of the records screened so far, in screening order, and ``all_labels`` every record's label (a
simulation knows them; a rule for live screening reads ``seen_labels`` only). When a rule says stop, the
simulation appends the records left in the last model's order.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

import numpy as np

__all__ = ["StoppingRule", "all_includes_found", "consecutive_excludes"]


class StoppingRule(Protocol):
    def __call__(self, seen_labels: np.ndarray, all_labels: np.ndarray) -> bool: ...


def all_includes_found(seen_labels: np.ndarray, all_labels: np.ndarray) -> bool:
    """The oracle rule of ASReview's simulation: stop once every include has been shown (this changes nothing
    in WSS or recall, it only saves re-training)."""
    return int(np.sum(seen_labels)) >= int(np.sum(all_labels))


def consecutive_excludes(n: int) -> Callable[[np.ndarray, np.ndarray], bool]:
    """A live-screening heuristic: stop after ``n`` excludes in a row (reads ``seen_labels`` only)."""
    if n < 1:
        raise ValueError("n must be at least 1")

    def rule(seen_labels: np.ndarray, all_labels: np.ndarray) -> bool:
        tail = np.asarray(seen_labels)[-n:]
        return len(tail) == n and not np.any(tail)

    return rule
