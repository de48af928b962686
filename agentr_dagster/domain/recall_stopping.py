"""When scoring in ranked order may stop: a hypergeometric test that the recall reached is at least the target,
and a model of the ranked order that may stop sooner, above a floor the test shows without it.

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

That promise costs most of the papers left once the includes are found (a run of excludes must cover about
``1 - alpha^(1/(a+1))`` of them, ``a`` the includes that may be left), however good the ranker. The second test
uses what a ranker is for: includes thin out along its order. :func:`decaying_rate_left_upper` fits an
exponentially decaying rate of includes to the ranks screened since the first half of the includes was found
(:data:`MODEL_TAIL_SHARE`) and bounds what is left with the fit's own uncertainty (the decay at the far end of its
profile-likelihood interval and the count, both at ``confidence``). It stops scoring when that bound reaches the
target, but only once the sample test alone shows ``target - MODEL_FLOOR_GAP``: the recall the run can promise
without the model. ``model=False`` (setting ``AGENTR_STOP_MODEL=0``) keeps the sample test alone.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

__all__ = ["DEFAULT_CONFIDENCE", "LOOK_SPLIT", "MODEL_FLOOR_CONFIDENCE", "MODEL_FLOOR_GAP", "MODEL_TAIL_SHARE",
           "RecallAssessment", "assess_recall", "decaying_rate_expected_left", "decaying_rate_left_upper",
           "includes_allowed_left", "model_fit_start"]

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
# The decaying-rate model may stop scoring before the sample test does, but never before the sample alone shows
# recall >= target - MODEL_FLOOR_GAP at MODEL_FLOOR_CONFIDENCE (0.85 at 80 % for a 0.95 target): a ranker whose
# includes thin out more slowly than exponentially (simulated binormal scores) made the model stop at recall
# 0.67 once in 60 runs without it, 0.87 at worst with it (docs/stopping.md, round 3). Set on simulated orders.
MODEL_FLOOR_GAP = 0.10
MODEL_FLOOR_CONFIDENCE = 0.80
# The model is fitted to the ranks after the first half of the includes found, not to the whole order: along a
# ranked list the includes thin out fast at the head and more slowly after it, and a rate fitted to the whole order
# carries the head's steep fall into the tail. Simulated binormal scores (shift 2, target 0.95, with the floor):
# fitted to the whole order the model stopped short of 0.95 in 43 % of runs on 3,000 papers / 150 includes and
# 10 % on 1,000 / 40; fitted after half the includes, 17 % and 0 % (docs/stopping.md, round 4). Set on simulated
# orders, not on a review.
MODEL_TAIL_SHARE = 0.5


@dataclass(frozen=True)
class RecallAssessment:
    """What the screening so far says about recall, at ``confidence``.

    ``recall_lower``: the recall reached is at least this, at ``confidence`` (the interval is
    ``[recall_lower, 1]``: a sample can show few includes are left, never that some are), on ``basis``: "sample"
    (the window test, no assumption) or "model" (the decaying rate; ``sample_lower`` is then the sample's own,
    lower, bound). ``recall_estimate``: the point estimate, from the window's rate of includes applied to the
    papers left. ``left_upper``: at most this many includes are left unscreened, at ``confidence``."""

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
    basis: str = "sample"  # what the bound rests on: "sample" (nothing assumed) or "model" (the decaying rate)
    sample_lower: float | None = None  # the sample test's bound, which assumes nothing (= recall_lower on "sample")

    @property
    def recall_lower_without_model(self) -> float:
        """The bound the sample test gives, which assumes nothing of the ranker."""
        return self.recall_lower if self.sample_lower is None else self.sample_lower

    def describe(self) -> dict:
        """For asset metadata, the queue artifact and the run's summary."""
        return {"target_recall": self.target, "confidence": self.confidence, "screened": self.screened,
                "papers": self.total, "includes_found": self.found, "includes_left_upper": self.left_upper,
                "recall_lower": round(self.recall_lower, 4), "recall_interval": [round(self.recall_lower, 4), 1.0],
                "recall_estimate": round(self.recall_estimate, 4), "window": self.window,
                "window_includes": self.window_found, "per_look_confidence": round(1 - (1 - self.confidence)
                                                                                   / self.look_split, 4),
                "stop": self.stop, "reason": self.reason, "basis": self.basis,
                "sample_recall_lower": round(self.recall_lower_without_model, 4)}


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



def _sample_left_upper(seen: np.ndarray, unscreened: int, alpha: float) -> tuple[int, int, int]:
    """The most includes that may be left unscreened, at error ``alpha``, by the window test, with the window that
    gave it (papers, includes in it; 0, 0 when none rejects anything)."""
    screened, found = len(seen), int(seen.sum())
    # Windows: the last n papers screened, each one's urn itself plus the unscreened. Adding a paper without an
    # include to a window only strengthens its evidence, so for each count k of includes in it only the longest
    # window holding k needs testing: the one that starts just after the (k+1)-th include from the end.
    starts = np.append(np.flatnonzero(seen)[::-1] + 1, 0)  # k = 0 .. found
    window_sizes = screened - starts
    window_found = np.arange(found + 1)
    urns = window_sizes + unscreened
    # the largest number left that no window rejects: rejection is monotone in it, so bisect
    low, high = 0, unscreened  # "at least 0 left" is never rejected; look for the first rejected count
    if not _rejected(window_sizes, window_found, urns, unscreened, alpha)[0]:
        return unscreened, 0, 0
    while high - low > 1:
        mid = (low + high) // 2
        if _rejected(window_sizes, window_found, urns, mid, alpha)[0]:
            high = mid
        else:
            low = mid
    best = _rejected(window_sizes, window_found, urns, low + 1, alpha)[1]
    return low, int(window_sizes[best]), int(window_found[best])


def _decay_profile(k: int, rank_sum: float, screened: int):
    """The profile log-likelihood of the decay ``b`` of a rate ``a exp(-b x)`` of includes over the ranks
    ``[0, screened)``, ``a`` at its maximum for each ``b`` (``k`` includes at ranks summing to ``rank_sum``)."""
    def log_likelihood(b: float) -> float:
        a = k / screened if abs(b) < 1e-12 else k * b / -math.expm1(-b * screened)
        return k * math.log(a) - b * rank_sum - k
    return log_likelihood


def _expected_left(b: float, k: int, screened: int, total: int) -> float:
    """Includes expected among the ranks ``[screened, total)`` under the fitted rate with decay ``b``."""
    if abs(b) < 1e-12:
        return k * (total - screened) / screened
    try:
        left = k * (math.exp(-b * screened) - math.exp(-b * total)) / -math.expm1(-b * screened)
    except OverflowError:  # a rate that grows fast (b < 0): as many as there are papers
        return float(total - screened)
    return min(float(total - screened), left)


def decaying_rate_expected_left(seen_labels, total: int, decay_confidence: float | None = None) -> float:
    """Includes expected among the papers not yet screened, under a rate of includes that decays exponentially
    with the rank, ``a exp(-b x)``, fitted by maximum likelihood to the ranks screened (the point process of
    Stevenson & Bin-Hezam, ACM TOIS 42(3), 2024). With ``decay_confidence`` the decay is taken at the end of its
    profile-likelihood interval at that confidence that is most favourable to late includes (the fit's own
    uncertainty); None: at the fit's maximum."""
    from scipy.optimize import brentq, minimize_scalar
    from scipy.stats import chi2

    seen = np.asarray(seen_labels, dtype=np.int64)
    screened, found = len(seen), int(seen.sum())
    if screened >= total:
        return 0.0
    if found == 0:
        return float(total - screened)
    ranks = np.flatnonzero(seen) + 0.5
    log_likelihood = _decay_profile(found, float(ranks.sum()), screened)
    lowest, highest = -5.0 / screened, 50.0 / screened  # from a rate 150x higher at the end to one 1e21x lower
    fit = minimize_scalar(lambda b: -log_likelihood(b), bounds=(lowest, highest), method="bounded")
    decay, peak = float(fit.x), -float(fit.fun)
    if decay_confidence is not None:
        drop = chi2.ppf(decay_confidence, 1) / 2  # the likelihood-ratio interval's depth
        if peak - log_likelihood(lowest) <= drop:
            decay = lowest  # even the slowest decay allowed fits: the interval is open at that end
        else:
            decay = brentq(lambda b: peak - log_likelihood(b) - drop, lowest, decay)
    return _expected_left(decay, found, screened, total)


def model_fit_start(seen_labels, tail_share: float = MODEL_TAIL_SHARE) -> int:
    """Where the decaying-rate model's fit starts: just after the include that closes the first ``tail_share`` of
    the includes found (0, the whole order, while that share is less than one include)."""
    positions = np.flatnonzero(np.asarray(seen_labels))
    head = int(math.floor(len(positions) * tail_share))
    return int(positions[head - 1]) + 1 if head > 0 else 0


def decaying_rate_left_upper(seen_labels, total: int, decay_confidence: float, count_confidence: float,
                             tail_share: float = MODEL_TAIL_SHARE) -> int:
    """An upper bound on the includes left unscreened under the decaying-rate model
    (:func:`decaying_rate_expected_left`), fitted to the ranks after the first ``tail_share`` of the includes found
    (:data:`MODEL_TAIL_SHARE`; 0: the whole order), with the model's own uncertainty counted twice: the decay at the
    end of its interval (``decay_confidence``) most favourable to late includes, and the count left at the
    ``count_confidence`` quantile of the Poisson with that mean. Few includes give a wide interval that reaches a
    flat or rising rate, so a weak start keeps the bound high by itself (2 includes in 16 papers of 271: all 255
    may be left)."""
    from scipy.stats import poisson

    seen = np.asarray(seen_labels, dtype=np.int64)
    left = total - len(seen)
    start = model_fit_start(seen, tail_share)
    expected = decaying_rate_expected_left(seen[start:], total - start, decay_confidence)
    return min(left, int(poisson.ppf(count_confidence, expected))) if left > 0 else 0


def assess_recall(seen_labels, total: int, target: float, confidence: float = DEFAULT_CONFIDENCE, *,
                  look_split: float = LOOK_SPLIT, model: bool = True) -> RecallAssessment:
    """Test recall >= ``target`` from ``seen_labels`` (0/1 judgements in the order the papers were screened,
    best-ranked first) out of ``total`` papers. See the module's docstring for the two tests. ``look_split``: the
    share of the error each ask spends (:data:`LOOK_SPLIT`; 1 is one test at ``confidence``, as before the split,
    for comparisons). ``model``: also stop on the decaying-rate bound (the default); False: the sample test alone,
    which assumes nothing of the ranker."""
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

    def bound(left: int) -> float:
        return found / (found + left) if found + left else (1.0 if unscreened == 0 else 0.0)

    def result(left_upper: int, window: int, window_found: int, reason: str, basis: str = "sample",
               sample_left: int | None = None) -> RecallAssessment:
        rate = window_found / window if window else 0.0
        left_estimate = rate * unscreened
        lower = bound(left_upper)
        estimate = found / (found + left_estimate) if found + left_estimate else lower
        stop = found > 0 and left_upper <= allowed or unscreened == 0
        sample_lower = bound(left_upper if sample_left is None else sample_left)
        return RecallAssessment(target, confidence, screened, total, found, left_upper, lower,
                                max(estimate, lower), window, window_found, stop, reason, look_split,
                                basis, sample_lower)

    if unscreened == 0:
        return result(0, screened, found, "every paper is screened")
    if found == 0:
        return result(unscreened, 0, 0, f"no include found in {screened} papers: nothing to measure recall "
                                        f"against yet; keeps going")
    alpha = (1 - confidence) / look_split  # each ask's share of the run's error (LOOK_SPLIT)
    left_upper, window, in_window = _sample_left_upper(seen, unscreened, alpha)
    if left_upper <= allowed:
        return result(left_upper, window, in_window,
                      f"the last {window} papers screened held {in_window} includes, so at most {left_upper} of the "
                      f"{unscreened} unscreened are includes; target {target:g} reached: stop")
    if allowed == 0:
        reason = (f"only {found} includes found in {screened} papers: recall >= {target:g} then means none is "
                  f"left, and the {unscreened} unscreened may still hold {left_upper}; keeps going until a run "
                  f"without an include covers about {round(100 * (1 - alpha))} % of what is left")
    else:
        reason = (f"the {unscreened} unscreened may still hold {left_upper} includes ({allowed} may be left for "
                  f"{target:g}); keeps going")
    if not model:
        return result(left_upper, window, in_window, reason)
    # The model may stop sooner, never below the floor the sample shows without it.
    floor = max(target - MODEL_FLOOR_GAP, 0.5)
    floor_left = _sample_left_upper(seen, unscreened, 1 - MODEL_FLOOR_CONFIDENCE)[0]
    if floor_left > includes_allowed_left(found, floor):
        return result(left_upper, window, in_window, reason + f"; the decaying-rate model waits until the sample "
                      f"alone shows recall >= {floor:g} at {round(100 * MODEL_FLOOR_CONFIDENCE)} %")
    # the decay's interval at the run's confidence, not the per-look one: fitted to the tail, the model is already
    # the conservative one (MODEL_TAIL_SHARE; docs/stopping.md, round 4)
    model_left = decaying_rate_left_upper(seen, total, confidence, confidence)
    if model_left > allowed:
        return result(left_upper, window, in_window, reason + f"; under the decaying-rate model the unscreened "
                      f"may hold {model_left}")
    return result(model_left, window, in_window,
                  f"the rate of includes has decayed so that at most {model_left} of the {unscreened} unscreened "
                  f"are includes under the decaying-rate model; the sample alone shows recall >= "
                  f"{bound(floor_left):.3f} at {round(100 * MODEL_FLOOR_CONFIDENCE)} % (the floor {floor:g}), "
                  f"{bound(left_upper):.3f} at {round(100 * confidence)} %; target {target:g} reached: stop",
                  basis="model", sample_left=left_upper)
