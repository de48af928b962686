"""The simulation protocol: a labelled review screened as a reviewer would, answering the model's queries.

Priors (:func:`choose_priors`: one include and one exclude, seeded) are revealed first; then the learner is
re-trained and the best-scored unlabelled records are revealed, ``schedule(n_labeled)`` at a time
(:func:`default_schedule`), until the stopping rule (:mod:`agentr_dagster.screening.stopping`) says stop.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import numpy as np

from agentr_dagster.screening.scores import order_from_scores
from agentr_dagster.screening.stopping import StoppingRule, all_includes_found

__all__ = ["choose_priors", "default_schedule", "simulate_active"]


def choose_priors(labels: np.ndarray, seed: int = 0) -> tuple[int, int]:
    """One included and one excluded record index, drawn with a fixed seed (``numpy.random.default_rng``)."""
    y = np.asarray(labels).astype(int)
    inc = np.flatnonzero(y == 1)
    exc = np.flatnonzero(y == 0)
    if len(inc) == 0 or len(exc) == 0:
        raise ValueError("need at least one included and one excluded record")
    rng = np.random.default_rng(seed)
    return int(rng.choice(inc)), int(rng.choice(exc))


def default_schedule(n_labeled: int) -> int:
    """Labels to reveal before the next re-training: 1 until 100 labels, then 1 % of the labelled count."""
    return 1 if n_labeled < 100 else max(1, n_labeled // 100)


def simulate_active(
    score_fn: Callable[[np.ndarray, np.ndarray], np.ndarray],
    labels: np.ndarray,
    priors: Iterable[int],
    *,
    schedule: Callable[[int], int] = default_schedule,
    stop: StoppingRule | None = all_includes_found,
) -> np.ndarray:
    """Simulate screening: reveal ``priors`` first, then repeatedly ask for the best-scored unlabelled records.

    ``score_fn(labeled_idx, labels_of_labeled) -> scores for all records`` (a learner's ``scores``) is re-run
    after every batch (batch size from ``schedule(n_labeled)``). Returns the full screening order (every index
    once). Once ``stop`` says so (default: every include shown, as ASReview's simulation does; ``None`` = never)
    the records left are appended in the last model's order.
    """
    y = np.asarray(labels).astype(np.int64)
    n = len(y)
    order: list[int] = []
    seen = np.zeros(n, dtype=bool)
    for p in priors:
        if not seen[p]:
            order.append(int(p))
            seen[p] = True
    while len(order) < n:
        idx = np.asarray(order, dtype=np.int64)
        s = np.asarray(score_fn(idx, y[idx]), dtype=np.float64)
        cand = order_from_scores(np.where(seen, -np.inf, s))
        cand = cand[~seen[cand]]
        if stop is not None and stop(y[idx], y):
            order.extend(int(i) for i in cand)
            break
        k = max(1, int(schedule(len(order))))
        for i in cand[:k]:
            order.append(int(i))
            seen[i] = True
    return np.asarray(order, dtype=np.int64)


def after_top_labels(
    score_fn: Callable[[np.ndarray, np.ndarray], np.ndarray],
    prior: np.ndarray,
    labels: np.ndarray,
    ks: Iterable[int] = (10, 25, 50),
    fractions: Iterable[float] = (0.10, 0.20),
) -> dict[int, dict[str, dict[str, float]]]:
    """What labelling the top of the zero-shot list does to the order of the rest.

    For each ``k`` the ``k`` best records of ``prior`` are labelled (their true ``labels``), the learner re-scores
    every record from them, and the unlabelled records are ordered twice: by the learner and by ``prior``. Returns
    ``{k: {"zero_shot": {"recall10": ..}, "feedback": {"recall10": ..}}}``: the share of the unlabelled includes in
    the first ``fraction`` of the unlabelled records (NaN when none is left; keys ``recall<percent>``)."""
    from agentr_dagster.screening.metrics import recall_at

    y = np.asarray(labels).astype(np.int64)
    prior_order = order_from_scores(prior)
    out: dict[int, dict[str, dict[str, float]]] = {}
    for k in ks:
        if k >= len(y):
            continue
        labeled = prior_order[:k]
        rest = prior_order[k:]
        learned = np.asarray(score_fn(labeled, y[labeled]), dtype=np.float64)
        by_learner = rest[order_from_scores(learned[rest])]
        out[k] = {
            name: {f"recall{round(f * 100)}": recall_at(y[order], f) for f in fractions}
            for name, order in (("zero_shot", rest), ("feedback", by_learner))
        }
    return out
