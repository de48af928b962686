"""Other zero-shot fusions against today's rule, leave-one-review-out, on the component scores that
``scripts/fit_zero_shot_fusion.py`` stored (its ``--cache``, one ``.npz`` per review; run that first).

    nice -n 10 .venv/bin/python scripts/compare_zero_shot_fusions.py --cache /tmp/zs-fusion [--verbose]

Each family adds the MiniLM cosine (``dense_onnx``, the yardstick of the zero-shot targets) or the transformer's
field cosine (``trans``) to the rule's scores (``rule``, today's ``zero_shot_scores``):

* ``z``: z(rule) + beta z(component)
* ``rank``: percentile(rule) + beta percentile(component)
* ``max``: max(percentile(rule), percentile(component) - delta) - a record either ranks high is kept high
* ``rrf``: 1 / (k + rank(rule)) + beta / (k + rank(component))
* ``tail``: the bottom ``frac`` of the rule's list re-ordered by z(rule) + beta z(component) within it
  (:func:`agentr_dagster.screening.rankers.zero_shot.rerank_tail`; beta = inf: by the component alone); the head
  of the list is the rule's
* ``gate``: the component added (z, beta; beta = inf: the component alone) only on questions where a label-free
  signal lies on one side of a threshold: the agreement of the rule with the cosine (Spearman, overlap of their
  top 10 %), how far each list's top 10 % stands out (mean z), the cosine's skew and top-10 % mean, the question's
  unreadable share.

For each review the parameters (family and its knobs) are picked on the other reviews by mean WSS@95, optionally
minus ``--penalty`` x the number of those reviews below ``dense_onnx``. Reported: mean WSS@95 and reviews below
``dense_onnx``, all / Cohen drug / other, for the rule and for each family's held-out pick.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable
from pathlib import Path

import numpy as np
from scipy.stats import rankdata, skew, spearmanr

from agentr_dagster.screening.metrics import wss_at
from agentr_dagster.screening.rankers.zero_shot import rerank_tail
from agentr_dagster.screening.scores import order_from_scores, zscore

Comps = dict[str, np.ndarray]
Fusion = Callable[[Comps, dict[str, float]], np.ndarray]


def wss(scores: np.ndarray, labels: np.ndarray) -> float:
    return wss_at(labels[order_from_scores(scores)], 0.95)


def percentile(x: np.ndarray) -> np.ndarray:
    """1 at the top of the list, 1/n at the bottom."""
    return rankdata(x) / len(x)


def _top(x: np.ndarray) -> int:
    return max(10, len(x) // 10)


def signals(c: Comps) -> dict[str, float]:
    """Label-free per-question signals from the component scores."""
    d, r = c["dense_onnx"], c["rule"]
    k = _top(d)

    def top_z(x: np.ndarray) -> float:
        return float(np.sort(zscore(x))[::-1][:k].mean())

    return {
        "spearman": float(spearmanr(d, r)[0]),
        "overlap": len(set(np.argsort(-d)[:k]) & set(np.argsort(-r)[:k])) / k,
        "top_z_cos": top_z(d),
        "top_z_rule": top_z(r),
        "skew_cos": float(skew(d)),
        "top_cos": float(np.sort(d)[::-1][:k].mean()),
        "unreadable": float(c["unreadable"]),
    }


def families(signal_values: dict[str, list[float]]) -> list[tuple[str, tuple, Fusion]]:
    """(family, knobs, fusion) for every grid point."""
    grid: list[tuple[str, tuple, Fusion]] = []
    for comp in ("dense_onnx", "trans"):
        for b in (0.1, 0.25, 0.5, 1.0):
            grid.append(("z", (comp, b), lambda c, s, comp=comp, b=b: zscore(c["rule"]) + b * zscore(c[comp])))
            grid.append(("rank", (comp, b), lambda c, s, comp=comp, b=b: percentile(c["rule"])
                         + b * percentile(c[comp])))
        for delta in (0.0, 0.1, 0.2, 0.3, 0.5):
            grid.append(("max", (comp, delta), lambda c, s, comp=comp, d=delta: np.maximum(
                percentile(c["rule"]), percentile(c[comp]) - d)))
        for k in (10, 60):
            for b in (0.25, 0.5, 1.0):
                grid.append(("rrf", (comp, k, b), lambda c, s, comp=comp, k=k, b=b: _rrf(c["rule"], k)
                             + b * _rrf(c[comp], k)))
        for frac in (0.1, 0.2, 0.3, 0.4, 0.5, 0.7):
            for b in (0.5, 1.0, 2.0, math.inf):
                grid.append(("tail", (comp, frac, b), lambda c, s, comp=comp, f=frac, b=b: _tail(
                    c["rule"], c[comp], f, b)))
        for key, vals in signal_values.items():
            for t in np.quantile(vals, [0.2, 0.35, 0.5, 0.65, 0.8]):
                for side in (1, -1):
                    for b in (0.5, 1.0, math.inf):
                        grid.append(("gate", (comp, key, side, round(float(t), 3), b), _gated(comp, key, side, t, b)))
    return grid


def _tail(rule: np.ndarray, other: np.ndarray, frac: float, b: float) -> np.ndarray:
    if math.isinf(b):  # the component alone: the rule's weight made negligible
        return rerank_tail(rule, other, frac, 1e6)
    return rerank_tail(rule, other, frac, b)


def _rrf(x: np.ndarray, k: int) -> np.ndarray:
    """1 / (k + rank), rank 0 at the top."""
    return 1 / (k + len(x) * (1 - percentile(x)))


def _gated(comp: str, key: str, side: int, t: float, b: float) -> Fusion:
    def fuse(c: Comps, s: dict[str, float]) -> np.ndarray:
        if side * (s[key] - t) <= 0:
            return c["rule"]
        return c[comp] if math.isinf(b) else zscore(c["rule"]) + b * zscore(c[comp])

    return fuse


def _kind(name: str) -> str:
    return "drug" if name.startswith("Cohen_2006") else "other"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cache", type=Path, default=Path("/tmp/zs-fusion"))
    ap.add_argument("--penalty", type=float, nargs="+", default=[0.0, 0.02, 0.05])
    ap.add_argument("--verbose", action="store_true", help="per review: dense_onnx, rule, each family's pick")
    args = ap.parse_args()
    comps = {p.stem: dict(np.load(p)) for p in sorted(args.cache.glob("*.npz"))}
    if not comps:
        raise SystemExit(f"no component scores in {args.cache}: run scripts/fit_zero_shot_fusion.py first")
    names = sorted(comps, key=lambda n: (_kind(n) != "drug", n))
    sig = {n: signals(comps[n]) for n in names}
    grid = families({k: [sig[n][k] for n in names] for k in sig[names[0]]})
    table = np.array([[wss(f(comps[n], sig[n]), comps[n]["labels"]) for _, _, f in grid] for n in names])
    onnx = np.array([wss(comps[n]["dense_onnx"], comps[n]["labels"]) for n in names])
    rule = np.array([wss(comps[n]["rule"], comps[n]["labels"]) for n in names])
    drug = np.array([_kind(n) == "drug" for n in names])

    def line(label: str, v: np.ndarray) -> str:
        below = v < onnx - 1e-9
        return (f"{label:34s} mean {v.mean():.3f}, below dense_onnx on {int(below.sum()):2d} | drug "
                f"{v[drug].mean():.3f} / {int(below[drug].sum())}, other {v[~drug].mean():.3f} / "
                f"{int(below[~drug].sum())}")

    print(f"{len(names)} reviews, {len(grid)} grid points")
    print(line("dense_onnx", onnx))
    print(line("rule (today)", rule))
    for lam in args.penalty:
        for fam in ("z", "rank", "max", "rrf", "tail", "gate", None):
            cols = [j for j, (f, _, _) in enumerate(grid) if fam is None or f == fam]
            held, picks = [], []
            for i in range(len(names)):
                others = np.delete(table[:, cols], i, axis=0)
                below = (others < np.delete(onnx, i)[:, None] - 1e-9).sum(axis=0)
                j = cols[int(np.argmax(others.mean(axis=0) - lam * below))]
                held.append(table[i, j])
                picks.append(grid[j][:2])
            print(line(f"LOO {fam or 'any family'}, penalty {lam:g}", np.array(held)))
            if args.verbose:
                for i, n in enumerate(names):
                    print(f"    {n:40s} onnx {onnx[i]:.3f} rule {rule[i]:.3f} held-out {held[i]:.3f}  {picks[i]}")
    means, below = table.mean(axis=0), (table < onnx[:, None] - 1e-9).sum(axis=0)
    print("in-sample, fewest below dense_onnx then best mean:")
    for j in np.lexsort((-means, below))[:6]:
        print(f"    {grid[j][0]} {grid[j][1]}: mean {means[j]:.3f}, below on {int(below[j])}")


if __name__ == "__main__":
    main()
