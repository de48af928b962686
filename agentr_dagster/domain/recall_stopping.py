"""When scoring in ranked order may stop: a hypergeometric test that the recall reached is at least the target.

The statistical stopping rule of Callaghan & Müller-Hansen (Systematic Reviews 9:273, 2020, "ranked
quasi-sampling"): the last ``n`` papers screened are treated as a sample drawn from the urn they were taken
from, those ``n`` plus every paper not yet screened. A ranker that puts likely includes first makes that sample
*richer* in includes than the rest of the urn, so treating it as a random draw overstates what is left: the test
is conservative for any ranker at least as good as chance, and exact for a random order. For every candidate
number ``R`` of includes left unscreened, the hypothesis "at least ``R`` are left" is rejected when, for some
window, drawing as few includes as the window holds would have probability below ``1 - confidence``; the
largest ``R`` not rejected bounds recall from below: ``found / (found + R)``. Scoring stops once that bound
reaches the target. The test is asked after every batch, so each ask spends only a share of the error
(:data:`LOOK_SPLIT`): the confidence is the run's, over all its looks.

No constant is tuned on a review: the target and the confidence are the user's, the look split was set on
simulated random orders; everything else is counting. The bound widens by itself when the ranker has found
little: with fewer than ``target / (1 - target)`` includes found (19 at 0.95), recall >= target means *none* is
left, which a sample can only show by covering about the per-look confidence of the unscreened papers; a weak
ranker (as many includes late as early) never makes a window look poorer than the rest, so it keeps going until
nearly everything is screened, and :func:`assess_recall` says so.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

__all__ = ["DEFAULT_CONFIDENCE", "LOOK_SPLIT", "RecallAssessment", "assess_recall", "includes_allowed_left"]

# The conventional one-sided 95 %: the promise is "recall >= target, wrong at most 1 time in 20" for a random
# order, and less often for any ranker better than chance (the test is conservative then).
DEFAULT_CONFIDENCE = 0.95
# The promise covers the whole run, not one look: the scoring stage asks after every batch (up to ~100 times, 1 %
# batches) and each ask takes the best of every window, so each is a chance to stop short. Each ask therefore tests
# at ``1 - (1 - confidence) / LOOK_SPLIT`` (99 % for the default 95 %). Set on simulated random orders (where the
# test is exact; any better ranker makes it conservative), target 0.95, the stage's batches, never on a review:
# asked at 95 % every time, 3,000 papers / 150 includes fell short 9.8 % of 400 runs (1,000 / 200: 4.8 %); at
# 97.5 % 5.2 % and 3.5 %, at 98.3 % 4.7 %, at 99 % 1.8-2.0 % and 1.5 % (docs/stopping.md, "the promise in
# simulation").
LOOK_SPLIT = 5.0


@dataclass(frozen=True)
class RecallAssessment:
    """What the screening so far says about recall, at ``confidence``.

    ``recall_lower``: the recall reached is at least this, at ``confidence`` (the interval is
    ``[recall_lower, 1]``: a sample can show few includes are left, never that some are). ``recall_estimate``: the
    point estimate, from the window's rate of includes applied to the papers left. ``left_upper``: at most this
    many includes are left unscreened, at ``confidence``."""

    target: float
    confidence: float
    screened: int
    total: int
    found: int
    left_upper: int
    recall_lower: float
    recall_estimate: float
    window: int  # papers in the window that gave the bound (the last ones screened); 0 when none did
    window_found: int
    stop: bool
    reason: str
    look_split: float = LOOK_SPLIT

    def describe(self) -> dict:
        """For asset metadata, the queue artifact and the run's summary."""
        return {"target_recall": self.target, "confidence": self.confidence, "screened": self.screened,
                "papers": self.total, "includes_found": self.found, "includes_left_upper": self.left_upper,
                "recall_lower": round(self.recall_lower, 4), "recall_interval": [round(self.recall_lower, 4), 1.0],
                "recall_estimate": round(self.recall_estimate, 4), "window": self.window,
                "window_includes": self.window_found, "per_look_confidence": round(1 - (1 - self.confidence)
                                                                                   / self.look_split, 4),
                "stop": self.stop, "reason": self.reason}


def includes_allowed_left(found: int, target: float) -> int:
    """The most includes that may be left unscreened with recall still >= ``target``: the largest ``R`` with
    ``found / (found + R) >= target``. (Exact for the usual targets: 0.95 with 19 found allows 1, not 0.)"""
    if not 0 < target <= 1:
        raise ValueError(f"target must be in (0, 1], not {target}")
    if target == 1:
        return 0
    allowed = found * (1 - target) / target
    return int(math.floor(allowed + 1e-9))


def _rejected(window_sizes: np.ndarray, window_found: np.ndarray, urns: np.ndarray, left: int,
              alpha: float) -> tuple[bool, int]:
    """Whether "at least ``left`` includes are unscreened" is rejected by some window, and the window that does
    it best (index into the arrays; -1 when none)."""
    from scipy.stats import hypergeom

    # each window's urn would hold its own includes plus at least ``left`` more
    p = hypergeom.cdf(window_found, urns, window_found + left, window_sizes)
    best = int(np.argmin(p))
    return bool(p[best] < alpha), best


def assess_recall(seen_labels, total: int, target: float, confidence: float = DEFAULT_CONFIDENCE, *,
                  look_split: float = LOOK_SPLIT) -> RecallAssessment:
    """Test recall >= ``target`` from ``seen_labels`` (0/1 judgements in the order the papers were screened,
    best-ranked first) out of ``total`` papers. See the module's docstring for the test. ``look_split``: the
    share of the error each ask spends (:data:`LOOK_SPLIT`; 1 is one test at ``confidence``, as before the split,
    for comparisons)."""
    if not 0 < target <= 1:
        raise ValueError(f"target must be in (0, 1], not {target}")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), not {confidence}")
    if look_split < 1:
        raise ValueError(f"look_split must be at least 1, not {look_split}")
    seen = np.asarray(seen_labels, dtype=np.int64)
    screened, found = len(seen), int(seen.sum())
    if screened > total:
        raise ValueError(f"{screened} papers screened out of {total}")
    unscreened = total - screened
    allowed = includes_allowed_left(found, target)

    def result(left_upper: int, window: int, window_found: int, reason: str) -> RecallAssessment:
        lower = found / (found + left_upper) if found + left_upper else (1.0 if unscreened == 0 else 0.0)
        rate = window_found / window if window else 0.0
        left_estimate = rate * unscreened
        estimate = found / (found + left_estimate) if found + left_estimate else lower
        stop = found > 0 and left_upper <= allowed or unscreened == 0
        return RecallAssessment(target, confidence, screened, total, found, left_upper, lower,
                                max(estimate, lower), window, window_found, stop, reason, look_split)

    if unscreened == 0:
        return result(0, screened, found, "every paper is screened")
    if found == 0:
        return result(unscreened, 0, 0, f"no include found in {screened} papers: nothing to measure recall "
                                        f"against yet; keeps going")
    # Windows: the last n papers screened, each one's urn itself plus the unscreened. Adding a paper without an
    # include to a window only strengthens its evidence, so for each count k of includes in it only the longest
    # window holding k needs testing: the one that starts just after the (k+1)-th include from the end.
    starts = np.append(np.flatnonzero(seen)[::-1] + 1, 0)  # k = 0 .. found
    window_sizes = screened - starts
    window_found = np.arange(found + 1)
    urns = window_sizes + unscreened
    alpha = (1 - confidence) / look_split  # each ask's share of the run's error (LOOK_SPLIT)
    # the largest number left that no window rejects: rejection is monotone in it, so bisect
    low, high = 0, unscreened  # "at least 0 left" is never rejected; look for the first rejected count
    if not _rejected(window_sizes, window_found, urns, unscreened, alpha)[0]:
        left_upper = unscreened
    else:
        while high - low > 1:
            mid = (low + high) // 2
            if _rejected(window_sizes, window_found, urns, mid, alpha)[0]:
                high = mid
            else:
                low = mid
        left_upper = low
    best = _rejected(window_sizes, window_found, urns, left_upper + 1, alpha)[1] if left_upper < unscreened else -1
    window, in_window = (int(window_sizes[best]), int(window_found[best])) if best >= 0 else (0, 0)
    if left_upper <= allowed:
        reason = (f"the last {window} papers screened held {in_window} includes, so at most {left_upper} of the "
                  f"{unscreened} unscreened are includes; target {target:g} reached: stop")
    elif allowed == 0:
        reason = (f"only {found} includes found in {screened} papers: recall >= {target:g} then means none is "
                  f"left, and the {unscreened} unscreened may still hold {left_upper}; keeps going until a run "
                  f"without an include covers about {round(100 * (1 - alpha))} % of what is left")
    else:
        reason = (f"the {unscreened} unscreened may still hold {left_upper} includes ({allowed} may be left for "
                  f"{target:g}); keeps going")
    return result(left_upper, window, in_window, reason)
