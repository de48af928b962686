"""The engine's scores as a probability of inclusion, and the number of includes a list holds, with an interval.

The engine's scores are only an order (z-scores of a fused ranker, or a learner's margins): their scale says
nothing about how likely a paper is to be included. A probability comes from one prior curve
(:data:`DEFAULT_PRIOR`, fitted by ``scripts/fit_relevance_calibration.py`` on labelled reviews and measured there
leave-one-review-out): from a paper's place in the list still to be read (the share of it ranked above the paper)
to the share of such papers that reviews include.

* zero-shot (no labels): the list is every paper, in the zero-shot order. The curve is calibrated over reviews
  like those it was fitted on, not for each review: a review whose prevalence is far from theirs reads too high or
  too low.
* with labels: a labelled paper's probability is its label; an unlabelled one gets the curve at its place among
  the *unlabelled* papers in the engine's re-learnt order (the labelled ones, read already, are out of the list),
  shifted in log-odds by :func:`labels_shift`: 0.5 log((found + 80) / (expected + 80)), found = the labelled
  includes, expected = the curve's includes over as many places at the head of the list (the same shift for every
  unlabelled paper: the order is the engine's). Measured leave-one-review-out on the 18 shared reviews (default
  preset; ``scripts/fit_relevance_calibration.py``) after the top 10/25/50 of the zero-shot order were labelled
  (with and without the transformer), 100 (with and without) and 200 (without the transformer only), this keeps
  every band of predicted probability with >= 100 papers within 0.05 of the observed rate and the count's
  interval on 12-14 of 18 reviews. Without the shift (``labelled_tilt`` g = 0) the 0.2-0.3 band at 200 labels read
  0.238 vs 0.145; with it 0.230 vs 0.244 (without the transformer). The shift is small (a = 80 includes of
  pseudo-count: it grows with the labels); it moves a review's probabilities the way its labels point, not to its
  own rate: a review much poorer than the curve's reviews still reads high (the largest, 0.8 % prevalence: its
  unlabelled head 0.24 vs 0.06 observed at 200 labels). Reading the place in the whole list (labelled papers
  included) did not hold (0.239 vs 0.184 at 50 labels, without the transformer), nor did a refit of the curve to
  the labels (see :func:`calibrate`).

The count of includes (:func:`estimate_included`) is the labelled includes plus the unlabelled papers'
probabilities; its interval applies to the unlabelled papers' sum the spread of true / estimated counts over the
labelled reviews (the labelled includes are counted exactly): zero-shot :attr:`PriorCurve.count_ratio`, with labels
:attr:`PriorCurve.labelled_count_ratio` (the same spread measured after labels, where what remains can be few).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

__all__ = ["DEFAULT_PRIOR", "CountEstimate", "PriorCurve", "calibrate", "estimate_included", "fit_prior",
           "labelled_count_ratio", "labels_shift", "probability_of_inclusion", "strictly_decreasing", "top_fraction"]

# The share of the list above a paper at which the prior curve has a knot (log-spaced at the top, where the
# includes are).
GRID = (0.01, 0.02, 0.03, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.65, 0.8, 1.0)
P_FLOOR = 1e-4  # no paper is certainly out (nor in) before a person has read it
COUNT_QUANTILES = (0.1, 0.9)  # the interval's quantiles of the count (an 80 % interval)


@dataclass(frozen=True)
class PriorCurve:
    """P(include) at the knots of :data:`GRID` (the top fraction of the list ending at each knot), and the
    (low, high) quantiles of true / estimated include counts over the reviews it was fitted on."""

    rates: tuple[float, ...]
    count_ratio: tuple[float, float]
    shrink: tuple[float, float] = (0.0, 1.0)  # (a, b): P = sigmoid(a + b logit(rate)), fitted out of review
    reviews: int = 0
    # (low, high) quantiles of true / estimated includes among the unlabelled papers once some are labelled
    # (:func:`labelled_count_ratio`); None = :attr:`count_ratio`
    labelled_count_ratio: tuple[float, float] | None = None
    # (g, a): once papers are labelled, the unlabelled papers' odds times ((found + a) / (expected + a)) ** g, found =
    # the labelled includes, expected = the curve's includes over the head of the list as long as the labelled
    # papers (:func:`labels_shift`); g = 0: no shift
    labelled_tilt: tuple[float, float] = (0.0, 1.0)

    def count_spread(self, labelled: bool) -> tuple[float, float]:
        """The interval's (low, high) multipliers of the unlabelled papers' estimated count."""
        return self.labelled_count_ratio if labelled and self.labelled_count_ratio else self.count_ratio

    def __call__(self, fraction: np.ndarray) -> np.ndarray:
        """The prior probability at each top fraction (0 = the head of the list, 1 = its tail), interpolated
        between the knots in log fraction, then shrunk as an unseen review needs. Strictly decreasing down the
        list (:func:`strictly_decreasing`), so no two places share a probability."""
        knots = np.log(GRID)
        rates = strictly_decreasing(self.rates)
        x = np.log(np.clip(np.asarray(fraction, dtype=np.float64), 1e-6, 1.0))
        rate = np.interp(np.maximum(x, knots[0]), knots, rates)
        # above the first knot (the top 1 %, which the fit cannot resolve) a gentle rise, linear in log fraction:
        # an order more than a claim (HEAD_SLOPE of the first knot's rate per e-fold; +0.04 at the top of 6,000)
        slope = min((rates[0] - rates[1]) / (knots[1] - knots[0]), HEAD_SLOPE * rates[0])
        rate = rate + slope * np.maximum(knots[0] - x, 0.0)
        a, b = self.shrink
        return np.clip(_sigmoid(a + b * _logit(rate)), P_FLOOR, 1 - P_FLOOR)


# Fitted on the 18 reviews of ../shared/data/screening with the default preset's scores, transformer included (what
# `agentr screen` runs once `make models` has built it): python scripts/fit_relevance_calibration.py DIR (2026-12-02;
# docs/results.md's 'Exports' section has the leave-one-review-out figures). labelled_count_ratio: each review's
# sessions (the top 10/25/50 of the zero-shot order labelled, the engine re-learnt) estimated by the curve fitted
# without that review, with labelled_tilt. labelled_tilt (g, a) = (0.5, 80): chosen on a grid (g 0-1, a 20-200)
# by the worst band gap over K = 10/25/50/100/200 without the transformer; g 0.4-0.6 with a 80-120 all held, while
# g 0.5 with a 30 or 50, g 0.7 with a 80 and g 1 with a 20-50 did not. Chosen instead on the other 17 reviews for
# each held-out review (nested; picks from (0.2, 120) to (1.0, 200)), the pooled bands also stayed within 0.05 at
# every K.
DEFAULT_PRIOR = PriorCurve(
    rates=(0.28799, 0.28799, 0.22695, 0.18828, 0.13277, 0.11531, 0.11531, 0.09632, 0.06369, 0.04676, 0.03643, 0.02834,
           0.02103, 0.01098),
    count_ratio=(0.2489, 4.4258), shrink=(-0.4521, 0.8894), reviews=18, labelled_count_ratio=(0.1199, 4.3778),
    labelled_tilt=(0.5, 80.0),
)


HEAD_RISE = 0.05  # a flat run at an end of the list is tilted this far (relative) above/below its rate
HEAD_SLOPE = 0.03  # above the first knot: the rate rises by this share of the first knot's rate per e-fold
FLAT_TILT = 0.25  # a flat run of knots is tilted this far towards its neighbours' rates


def strictly_decreasing(rates: Sequence[float]) -> np.ndarray:
    """The knots' rates with every flat run (pooled by the monotone fit: PAVA makes plateaus) tilted into a
    strict descent around its level: from a quarter of the way to the rate before it down to a quarter of the way
    to the rate after it (HEAD_RISE above/below at the ends of the list). A plateau tied 34 papers of a 1,704-record
    review at one probability; the tilt keeps each band's mean near its fitted rate (measured in docs/synthesis.md)
    and gives every place in the list its own probability."""
    r = np.asarray(rates, dtype=np.float64)
    out = r.copy()
    if np.all(r == r[0]):  # one level: the curve says nothing about order (a test's constant prior); left flat
        return out
    i, n = 0, len(r)
    while i < n:
        j = i
        while j + 1 < n and r[j + 1] >= r[i]:
            j += 1
        if j > i:
            high = r[i] + FLAT_TILT * (r[i - 1] - r[i]) if i > 0 else r[i] * (1 + HEAD_RISE)
            low = r[i] - FLAT_TILT * (r[i] - r[j + 1]) if j + 1 < n else r[i] * (1 - HEAD_RISE)
            out[i:j + 1] = np.linspace(high, low, j - i + 1)
        i = j + 1
    return np.clip(out, P_FLOOR, 1 - P_FLOOR)


def top_fraction(scores: Sequence[float] | np.ndarray) -> np.ndarray:
    """Each paper's position as the share of the list from the head to its middle ((rank - 0.5) / n, ties at
    their mean rank), best = highest score."""
    s = np.asarray(scores, dtype=np.float64)
    n = len(s)
    if n == 0:
        return s
    from scipy.stats import rankdata

    rank = rankdata(-s, method="average")  # 1 = best
    return (rank - 0.5) / n


def _pava(values: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Non-increasing least-squares fit (pool adjacent violators)."""
    blocks: list[list[float]] = []  # [value, weight, count]
    for v, w in zip(values, weights, strict=True):
        blocks.append([float(v), float(w), 1])
        while len(blocks) > 1 and blocks[-2][0] < blocks[-1][0]:
            v2, w2, c2 = blocks.pop()
            v1, w1, c1 = blocks.pop()
            total = w1 + w2
            blocks.append([(v1 * w1 + v2 * w2) / total if total else 0.0, total, c1 + c2])
    return np.concatenate([np.full(c, v) for v, _, c in blocks]) if blocks else np.zeros(0)


def _binned_rates(reviews: Sequence[tuple[np.ndarray, np.ndarray]]) -> tuple[np.ndarray, np.ndarray]:
    edges = np.array((0.0, *GRID))
    hits = np.zeros(len(GRID))
    counts = np.zeros(len(GRID))
    for scores, labels in reviews:
        q = top_fraction(scores)
        band = np.clip(np.searchsorted(edges, q, side="left") - 1, 0, len(GRID) - 1)
        np.add.at(hits, band, np.asarray(labels, dtype=np.float64))
        np.add.at(counts, band, 1.0)
    return hits, counts


def fit_prior(reviews: Sequence[tuple[np.ndarray, np.ndarray]]) -> PriorCurve:
    """The prior curve from labelled reviews ((scores, 0/1 labels) each): the pooled include rate of each band of
    top fraction, made non-increasing down the list, and the quantiles of true / estimated counts (each review's
    count estimated by a curve fitted without it)."""
    rates = _rates(reviews)
    shrink = (0.0, 1.0)
    ratios = []
    if len(reviews) > 2:
        # each review predicted by the curve of the others: how far a curve's rates carry to an unseen review
        held_out = []
        for i, (scores, labels) in enumerate(reviews):
            others = PriorCurve(tuple(_rates([r for j, r in enumerate(reviews) if j != i])), (1.0, 1.0))
            held_out.append((_logit(others(top_fraction(scores))), np.asarray(labels, dtype=np.float64)))
        x = np.concatenate([h[0] for h in held_out])
        theta, _ = _map_fit(x, np.concatenate([h[1] for h in held_out]))
        shrink = (float(theta[0]), float(theta[1]))
        for (xi, labels) in held_out:
            estimate = float(_sigmoid(shrink[0] + shrink[1] * xi).sum())
            ratios.append(max(float(np.sum(labels)), 0.5) / max(estimate, 1e-9))
    low, high = (np.quantile(ratios, COUNT_QUANTILES) if ratios else (1.0, 1.0))
    return PriorCurve(tuple(round(float(r), 5) for r in rates), (round(float(low), 4), round(float(high), 4)),
                      (round(shrink[0], 4), round(shrink[1], 4)), reviews=len(reviews))


def _rates(reviews: Sequence[tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
    hits, counts = _binned_rates(reviews)
    raw = np.where(counts > 0, hits / np.maximum(counts, 1), 0.0)
    return np.clip(_pava(raw, counts), P_FLOOR, 1 - P_FLOOR)


def _logit(p: np.ndarray) -> np.ndarray:
    p = np.clip(p, P_FLOOR, 1 - P_FLOOR)
    return np.log(p / (1 - p))


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-x))


def _map_fit(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """MAP (intercept, slope) of P(y=1) = sigmoid(a + b x) with a weak Gaussian prior around (0, 1), by Newton's
    method; and the posterior covariance (Laplace). Fits the prior curve's out-of-review shrink."""
    mean = np.array([0.0, 1.0])
    precision = np.diag(1.0 / np.square((3.0, 3.0)))
    design = np.column_stack([np.ones_like(x), x])
    theta = mean.copy()
    for _ in range(50):
        p = _sigmoid(design @ theta)
        grad = design.T @ (y - p) - precision @ (theta - mean)
        hess = design.T @ (design * (p * (1 - p))[:, None]) + precision
        step = np.linalg.solve(hess, grad)
        theta = theta + step
        if float(np.max(np.abs(step))) < 1e-8:
            break
    p = _sigmoid(design @ theta)
    hess = design.T @ (design * (p * (1 - p))[:, None]) + precision
    return theta, np.linalg.inv(hess)


# The review's multiplier of the prior (its prevalence against the reviews the curve was fitted on): a grid in log
# space, a log-normal prior as wide as the reviews' spread of true / estimated counts.
MULTIPLIERS = np.exp(np.linspace(-4.0, 4.0, 801))
MULTIPLIER_SD = 1.0  # log scale: the 18 reviews' log(true / estimated count) has sd 0.94


def _multiplier_posterior(p0: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Posterior weights over :data:`MULTIPLIERS` given labelled papers' prior probabilities and labels."""
    log_post = -0.5 * np.square(np.log(MULTIPLIERS) / MULTIPLIER_SD)
    for lo in range(0, len(p0), 2048):  # chunks keep the (grid x papers) matrix small
        p = np.clip(MULTIPLIERS[:, None] * p0[None, lo:lo + 2048], P_FLOOR, 1 - P_FLOOR)
        yy = y[None, lo:lo + 2048]
        log_post += (yy * np.log(p) + (1 - yy) * np.log1p(-p)).sum(axis=1)
    w = np.exp(log_post - log_post.max())
    return w / w.sum()


@dataclass(frozen=True)
class Calibration:
    """Each paper's P(include) (labelled ones: their label), how it was obtained (prior | labels), and draws of
    the unlabelled papers' probabilities (empty: kept for a refit that passes the measurement)."""

    probability: np.ndarray
    method: str  # prior (zero-shot) | labels
    draws: np.ndarray  # (draws, unlabelled papers) or empty


def calibrate(scores: Sequence[float] | np.ndarray, labels: Sequence[int] | np.ndarray | None = None,
              prior: PriorCurve = DEFAULT_PRIOR) -> Calibration:
    """P(include) per paper from the engine's ``scores`` (any scale: only their order is read) and ``labels``
    (1 include / 0 exclude / -1 unlabelled; None = none): the prior curve at each paper's place in the order of the
    papers not labelled yet (zero-shot: all of them); a labelled paper's probability is its label.

    Measured leave-one-review-out on the 18 shared reviews after the top 10, 25 and 50 of the zero-shot order were
    labelled (``scripts/fit_relevance_calibration.py DIR --no-transformer``), two other readings failed the 0.05
    target: the curve at the place in the whole list (labelled papers included) read 0.239 against 0.184 observed
    in the 0.2-0.3 band at 50 labels (the learner lifts its labelled includes to the head, which pushes every
    unlabelled paper further down the curve than its place in the list still to read); and a refit of the curve
    to the labels (the review's multiplier of the prior, :func:`labels_multiplier`) over-estimated (the labelled
    head is richer than the rest of the list: 0.140 vs 0.076 in the 0.1-0.2 band at 25 labels) and, capped at 1,
    under-estimated at 100 labels (0.226 vs 0.337 in the 0.2-0.3 band).

    The unlabelled papers' shift (:func:`labels_shift`, :attr:`PriorCurve.labelled_tilt`) fixes the long sessions:
    measured the same way at 200 labels (without the transformer) the 0.2-0.3 band read 0.238 vs 0.145 unshifted and
    0.230 vs 0.244 shifted. Other corrections measured and rejected there: the remaining prevalence as the curve's
    whole-list count minus its expected count over the labelled head (the 0.2-0.3 band at 200 labels 0.232 vs 0.058),
    a pooled factor per number of labels fitted on the other reviews' sessions (0.215 vs 0.051), a logistic refit of
    the curve on those sessions (with or without the found/expected ratio as a feature: bands off at 10 labels).
    Cost: one rank of the unlabelled papers and a sum over the labelled head (2.6 ms on 6,000 papers with 200
    labels, calibrate + estimate_included, on a loaded machine)."""
    s = np.asarray(scores, dtype=np.float64)
    lab = np.full(len(s), -1, dtype=np.int64) if labels is None else np.asarray(labels, dtype=np.int64)
    known = lab >= 0
    if not known.any():
        return Calibration(prior(top_fraction(s)), "prior", np.zeros((0, len(s))))
    probability = lab.astype(np.float64)
    unlabelled = ~known
    rest = prior(top_fraction(s[unlabelled]))
    shift = labels_shift(len(s), int(known.sum()), int(np.sum(lab == 1)), prior)
    if shift:
        rest = np.clip(_sigmoid(_logit(rest) + shift), P_FLOOR, 1 - P_FLOOR)
    probability[unlabelled] = rest
    return Calibration(probability, "labels", np.zeros((0, len(s))))


def labels_shift(papers: int, labelled: int, found: int, prior: PriorCurve = DEFAULT_PRIOR) -> float:
    """The log-odds shift of the unlabelled papers' probabilities once ``labelled`` of ``papers`` are labelled,
    ``found`` of them includes: g log((found + a) / (expected + a)) with (g, a) = :attr:`PriorCurve.labelled_tilt`
    and expected = the curve's includes over the top ``labelled`` places of a list of ``papers`` (a person labels
    from the head of the list). Found more includes than the curve expects there: the review is richer than the
    curve's reviews, and its unlabelled papers read higher; fewer: lower. The pseudo-count a keeps a few labels
    from moving much, and g < 1 tempers the step (the labelled head says less about the rest than about itself)."""
    g, a = prior.labelled_tilt
    if not g or labelled <= 0:
        return 0.0
    expected = float(prior((np.arange(labelled) + 0.5) / max(papers, labelled)).sum())
    return float(g * np.log((found + a) / (expected + a)))


def labelled_count_ratio(sessions: Sequence[tuple[np.ndarray, np.ndarray, np.ndarray]],
                         priors: Sequence[PriorCurve]) -> tuple[float, float]:
    """The :data:`COUNT_QUANTILES` of true / estimated includes among the unlabelled papers over labelled
    ``sessions`` ((engine scores, labels given with -1 unlabelled, 0/1 truth) each), each estimated by its own
    curve in ``priors`` (fitted without its review): :attr:`PriorCurve.labelled_count_ratio`."""
    ratios = []
    for (scores, given, truth), prior in zip(sessions, priors, strict=True):
        given = np.asarray(given, dtype=np.int64)
        unlabelled = given < 0
        if not unlabelled.any():
            continue
        rest = float(calibrate(scores, given, prior).probability[unlabelled].sum())
        ratios.append(max(float(np.sum(np.asarray(truth)[unlabelled])), 0.5) / max(rest, 1e-9))
    if not ratios:
        return (1.0, 1.0)
    low, high = np.quantile(ratios, COUNT_QUANTILES)
    return (round(float(low), 4), round(float(high), 4))


def labels_multiplier(scores, labels, prior: PriorCurve = DEFAULT_PRIOR) -> float:
    """The posterior mean of the review's multiplier ``m`` of the prior (P = min(m * prior, 1)) given the labels
    (a diagnostic: not used for the probabilities, see :func:`calibrate`)."""
    s = np.asarray(scores, dtype=np.float64)
    lab = np.asarray(labels, dtype=np.int64)
    base = prior(top_fraction(s))
    known = lab >= 0
    if not known.any():
        return 1.0
    weights = _multiplier_posterior(base[known], lab[known].astype(np.float64))
    return float(weights @ MULTIPLIERS)


def probability_of_inclusion(scores, labels=None, prior: PriorCurve = DEFAULT_PRIOR) -> np.ndarray:
    """:func:`calibrate`'s probabilities alone."""
    return calibrate(scores, labels, prior).probability


@dataclass(frozen=True)
class CountEstimate:
    """How many includes the list holds: a point estimate and an interval (``low``..``high``, the
    :data:`COUNT_QUANTILES`), ``found`` of them labelled include already."""

    estimate: float
    low: float
    high: float
    found: int
    method: str  # prior | labels

    def text(self) -> str:
        return f"{self.estimate:.0f} (likely {self.low:.0f}-{self.high:.0f})"


def estimate_included(scores, labels=None, prior: PriorCurve = DEFAULT_PRIOR) -> CountEstimate:
    """The number of includes among the papers (see the module's docstring)."""
    s = np.asarray(scores, dtype=np.float64)
    lab = np.full(len(s), -1, dtype=np.int64) if labels is None else np.asarray(labels, dtype=np.int64)
    cal = calibrate(s, lab, prior)
    found = int(np.sum(lab == 1))
    rest = float(cal.probability[lab < 0].sum())
    estimate = found + rest
    # the unlabelled papers' count: the prior's estimate times the spread of true / estimated over the reviews
    spread = prior.count_spread(bool(np.any(lab >= 0)))
    low, high = rest * spread[0], rest * spread[1]
    return CountEstimate(round(estimate, 1), round(found + float(low), 1), round(found + float(high), 1), found,
                         cal.method)
