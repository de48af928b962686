"""Measure the relevance asset's probabilities and its count of includes leave-one-review-out on labelled reviews:
the expected-includes interval's coverage and width, the probability bands, and ties at the head of the list.
Drug reviews (Cohen 2006) and the others are reported apart. No network.

    python scripts/fit_relevance_calibration.py DIR --no-transformer --cache CACHE   # ranks and caches the reviews
    python scripts/measure_relevance_interval.py CACHE [--labels 0 10 25 50] [--flat] [--json FILE]

CACHE holds one ``<review>.<t|nt>.npz`` per review (zero-shot scores, truth, and per K the re-learnt scores after
the top K of the zero-shot order were labelled), as ``fit_relevance_calibration.py`` writes them. Each review is
estimated by the curve fitted on the other reviews (its labelled spread too, from their sessions), exactly as that
script does. ``--flat`` measures the curve as it was before the strict ordering (plateaus kept), for comparison.

Printed per K: per review the true count, the estimate and its interval, whether it holds, and the interval's
width (high / low, and (high - low) / true); per group (drug, non-drug, all) the coverage (nominal 80 %) and the
median widths; the pooled bands of predicted probability (>= 100 papers, 0.05 target); the largest tie among the
top 50 probabilities at 4 and 3 decimals.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import replace
from pathlib import Path

import numpy as np

from agentr_dagster.screening import calibration as cal


def load(cache: Path) -> dict[str, dict[str, np.ndarray]]:
    files = sorted(cache.glob("*.npz"))
    if not files:
        raise SystemExit(f"no cached rankings in {cache}: run scripts/fit_relevance_calibration.py first")
    return {f.name.split(".")[0]: dict(np.load(f)) for f in files}


def given_labels(data: dict[str, np.ndarray], k: int) -> np.ndarray:
    given = np.full(len(data["truth"]), -1, dtype=np.int64)
    if k:
        given[data[f"l{k}"]] = data["truth"][data[f"l{k}"]]
    return given


def group_of(name: str) -> str:
    return "drug" if name.startswith("Cohen_2006") else "non-drug"


def largest_tie(values: np.ndarray, decimals: int) -> int:
    return int(np.unique(np.round(values, decimals), return_counts=True)[1].max()) if len(values) else 0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("cache", type=Path)
    ap.add_argument("--labels", type=int, nargs="*", default=[0, 10, 25, 50])
    ap.add_argument("--flat", action="store_true", help="the curve with its plateaus (before the strict order)")
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args()
    if args.flat:  # the curve as it was: knots as fitted, flat above the first
        cal.strictly_decreasing = lambda rates: np.asarray(rates, dtype=np.float64)
        cal.HEAD_SLOPE = 0.0
    data = load(args.cache)
    names = list(data)
    ks = [k for k in args.labels if k == 0 or all(f"s{k}" in d for d in data.values())]
    zero = {n: (d["zero"], d["truth"]) for n, d in data.items()}
    tilt = cal.DEFAULT_PRIOR.labelled_tilt
    held = {n: replace(cal.fit_prior([zero[m] for m in names if m != n]), labelled_tilt=tilt) for n in names}
    labelled_ks = [k for k in ks if k]
    sessions = {(n, k): (data[n][f"s{k}"], given_labels(data[n], k), data[n]["truth"])
                for n in names for k in labelled_ks}
    report: dict = {"flat": args.flat, "settings": {}}
    for k in ks:
        rows, preds, obs = [], [], []
        for n in names:
            if k == 0:
                scores, truth = zero[n]
                given = np.full(len(truth), -1, dtype=np.int64)
                curve = held[n]
            else:
                scores, given, truth = sessions[(n, k)]
                others = [m for m in names if m != n]
                curve = replace(held[n], labelled_count_ratio=cal.labelled_count_ratio(
                    [sessions[(m, kk)] for m in others for kk in labelled_ks],
                    [held[m] for m in others for kk in labelled_ks]))
            probability = cal.calibrate(scores, given, curve).probability
            count = cal.estimate_included(scores, given, curve)
            unlabelled = given < 0
            preds.append(probability[unlabelled])
            obs.append(truth[unlabelled])
            order = np.argsort(-scores, kind="stable")
            head = probability[order][unlabelled[order]][:50]
            true = int(truth.sum())
            rows.append({
                "review": n, "group": group_of(n), "n": len(truth), "true": true, "found": count.found,
                "estimate": count.estimate, "low": count.low, "high": count.high,
                "holds": bool(count.low <= true <= count.high),
                "ratio_high_low": round(count.high / max(count.low, 1e-9), 2),
                "width_over_true": round((count.high - count.low) / max(true, 1), 2),
                "tie50_4dp": largest_tie(head, 4), "tie50_3dp": largest_tie(head, 3),
            })
        pred, ob = np.concatenate(preds), np.concatenate(obs)
        band = np.minimum((pred * 10).astype(int), 9)
        bands = []
        for b in range(10):
            m = band == b
            if m.sum() >= 100:
                bands.append({"band": f"{b / 10:.1f}-{(b + 1) / 10:.1f}", "n": int(m.sum()),
                              "predicted": round(float(pred[m].mean()), 3), "observed": round(float(ob[m].mean()), 3),
                              "ok": bool(abs(pred[m].mean() - ob[m].mean()) <= 0.05)})
        groups = {}
        for g in ("drug", "non-drug", "all"):
            sel = [r for r in rows if g == "all" or r["group"] == g]
            groups[g] = {"reviews": len(sel), "holds": sum(r["holds"] for r in sel),
                         "median_ratio_high_low": float(np.median([r["ratio_high_low"] for r in sel])),
                         "median_width_over_true": float(np.median([r["width_over_true"] for r in sel])),
                         "max_tie50_4dp": max(r["tie50_4dp"] for r in sel),
                         "max_tie50_3dp": max(r["tie50_3dp"] for r in sel)}
        report["settings"][str(k)] = {"reviews": rows, "groups": groups, "bands": bands}
        print(f"\n== {'zero-shot' if k == 0 else f'the top {k} of the zero-shot order labelled'}"
              f"{' (flat curve)' if args.flat else ''} ==")
        for r in rows:
            print(f"  {r['review']:<38} {r['group']:<8} true {r['true']:>4} estimate {r['estimate']:>7.1f} "
                  f"[{r['low']:>6.1f}, {r['high']:>7.1f}] {'holds ' if r['holds'] else 'MISSES'} "
                  f"high/low {r['ratio_high_low']:>5.1f} width/true {r['width_over_true']:>5.2f} "
                  f"top-50 ties {r['tie50_4dp']}/{r['tie50_3dp']}")
        for g, s in groups.items():
            print(f"  {g:<9} interval holds {s['holds']}/{s['reviews']}; median high/low "
                  f"{s['median_ratio_high_low']:.1f}, median (high-low)/true {s['median_width_over_true']:.2f}; "
                  "largest top-50 tie "
                  f"{s['max_tie50_4dp']} (4 dp), {s['max_tie50_3dp']} (3 dp)")
        for b in bands:
            print(f"  band {b['band']} n={b['n']:>6} predicted {b['predicted']:.3f} observed {b['observed']:.3f} "
                  f"{'ok' if b['ok'] else 'OFF'}")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(report, indent=1))
        print(f"json: {args.json}")


if __name__ == "__main__":
    main()
