"""Metrics of a screening order: work saved over sampling (WSS@r) and recall after a share of the list."""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np

__all__ = ["evaluate_order", "recall_at", "wss_at"]


def _labels_in_order(labels_in_order: Iterable[int]) -> np.ndarray:
    return np.asarray(list(labels_in_order), dtype=np.int64)


def wss_at(labels_in_order: Iterable[int], recall: float = 0.95) -> float:
    """Work saved over sampling at ``recall`` (Cohen et al. 2006).

    With N records of which R are included, screened in the given order, let n be the number screened when
    ``ceil(recall * R)`` includes have been found. WSS = (N - n) / N - (1 - recall). NaN if R == 0.
    """
    y = _labels_in_order(labels_in_order)
    n_total = len(y)
    r = int(y.sum())
    if n_total == 0 or r == 0:
        return float("nan")
    target = max(1, math.ceil(recall * r - 1e-9))
    n_screened = int(np.searchsorted(np.cumsum(y), target) + 1)
    return (n_total - n_screened) / n_total - (1.0 - recall)


def recall_at(labels_in_order: Iterable[int], fraction: float) -> float:
    """Share of includes found after screening ``ceil(fraction * N)`` records. NaN if there are none."""
    y = _labels_in_order(labels_in_order)
    r = int(y.sum())
    if len(y) == 0 or r == 0:
        return float("nan")
    k = math.ceil(fraction * len(y) - 1e-9)
    return float(y[:k].sum()) / r


def evaluate_order(labels_in_order: Iterable[int]) -> dict[str, float]:
    """WSS@95, recall at 10 % and 20 % of the list."""
    y = _labels_in_order(labels_in_order)
    return {"wss95": wss_at(y, 0.95), "recall10": recall_at(y, 0.10), "recall20": recall_at(y, 0.20)}
