"""Fit the relevance prior curve (agentr_dagster.screening.calibration.DEFAULT_PRIOR) on labelled reviews and
measure calibration leave-one-review-out.

    python scripts/fit_relevance_calibration.py DIR [--cache DIR] [--labels K ...]

DIR holds review folders like ../shared/data/screening/<name>/ (review.json, papers.csv with label_included).
Each review is ranked as `agentr screen` ranks it (the default preset, zero-shot); the scores are cached as CSV
under --cache. Printed: the curve fitted on every review (paste it into DEFAULT_PRIOR); leave-one-review-out, for
each review the curve fitted on the others: pooled reliability per band of predicted probability (mean predicted
vs observed include rate, bands with at least 30 papers), per review the deciles of the list off by more than
0.05, and whether the count interval holds the true count; with --labels K, the same after a person labelled the
top K papers of the zero-shot order (the engine re-learnt from them, the curve refitted to them).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from agentr_dagster.bench.screening import discover_reviews, load_review
from agentr_dagster.screening.calibration import calibrate, estimate_included, fit_prior

# --no-transformer: the default preset without the transformer (a machine without `make models`)
PRESET: Any = "default"


def ranked(folder: Path, cache: Path) -> pd.DataFrame:
    out = cache / f"{folder.name}.csv"
    if out.is_file():
        return pd.read_csv(out, dtype={"record_id": str})
    from agentr_dagster.screening.screen import screen

    rv = load_review(folder)
    df = pd.DataFrame({"record_id": rv.record_ids, "title": rv.titles, "abstract": rv.abstracts})
    res = screen(rv.question, df, preset=PRESET)
    res["y"] = res["record_id"].map(dict(zip(rv.record_ids, rv.labels, strict=True)))
    cache.mkdir(parents=True, exist_ok=True)
    res.to_csv(out, index=False)
    return res


def relearnt(folder: Path, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(scores, labels given (-1 unlabelled), truth) after the top ``k`` of the zero-shot order are labelled."""
    from agentr_dagster.screening.screen import screen

    rv = load_review(folder)
    df = pd.DataFrame({"record_id": rv.record_ids, "title": rv.titles, "abstract": rv.abstracts})
    zero = screen(rv.question, df, dedupe=False, preset=PRESET)
    truth = dict(zip(rv.record_ids, rv.labels, strict=True))
    top = list(zero["record_id"][:k])
    res = screen(rv.question, df, {r: int(truth[r]) for r in top}, dedupe=False, preset=PRESET)
    given = np.array([truth[r] if r in set(top) else -1 for r in res["record_id"]])
    return res.attrs["model_score"], given, np.array([truth[r] for r in res["record_id"]])


def reliability(pred: np.ndarray, obs: np.ndarray, min_n: int = 30) -> list[dict]:
    band = np.minimum((pred * 10).astype(int), 9)
    rows = []
    for b in range(10):
        m = band == b
        if m.sum():
            rows.append({"band": f"{b / 10:.1f}-{(b + 1) / 10:.1f}", "n": int(m.sum()),
                         "predicted": round(float(pred[m].mean()), 3), "observed": round(float(obs[m].mean()), 3),
                         "ok": bool(abs(pred[m].mean() - obs[m].mean()) <= 0.05) if m.sum() >= min_n else None})
    return rows


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("root", type=Path)
    ap.add_argument("--cache", type=Path, default=Path(".bench/calibration"))
    ap.add_argument("--labels", type=int, nargs="*", default=[])
    ap.add_argument("--no-transformer", action="store_true")
    args = ap.parse_args()
    if args.no_transformer:
        from dataclasses import replace

        from agentr_dagster.screening.presets import DEFAULT

        global PRESET
        PRESET = replace(DEFAULT, uses_transformer=False)
    folders = discover_reviews(args.root)
    data = {f.name: ranked(f, args.cache) for f in folders}
    reviews = {n: (d["score"].to_numpy(float), d["y"].to_numpy(int)) for n, d in data.items()}
    prior = fit_prior(list(reviews.values()))
    print(f"DEFAULT_PRIOR = {prior!r}")
    report: dict = {"prior": {"rates": prior.rates, "count_ratio": prior.count_ratio, "shrink": prior.shrink},
                    "settings": {}}
    for k in [0, *args.labels]:
        preds, obs, per_review = [], [], []
        for folder in folders:
            name = folder.name
            held = fit_prior([r for n, r in reviews.items() if n != name])
            if k == 0:
                scores, truth = reviews[name]
                given = np.full(len(scores), -1)
            else:
                scores, given, truth = relearnt(folder, k)
            cal = calibrate(scores, given, held)
            count = estimate_included(scores, given, held)
            unl = given < 0
            p, y = cal.probability[unl], truth[unl]
            preds.append(p)
            obs.append(y)
            order = np.argsort(-p, kind="stable")
            deciles = np.array_split(order, 10)
            off = sum(abs(p[d].mean() - y[d].mean()) > 0.05 for d in deciles if len(d))
            true = int(truth.sum())
            per_review.append({"review": name, "n": len(truth), "true": true, "estimate": count.estimate,
                               "low": count.low, "high": count.high, "holds": count.low <= true <= count.high,
                               "deciles_off": int(off)})
        rel = reliability(np.concatenate(preds), np.concatenate(obs))
        held_count = sum(r["holds"] for r in per_review)
        report["settings"][str(k)] = {"reliability": rel, "reviews": per_review}
        print(f"\n== labels: top {k} of the zero-shot order ==" if k else "\n== zero-shot ==")
        for row in rel:
            print(f"  band {row['band']}: n={row['n']:>6} predicted {row['predicted']:.3f} observed "
                  f"{row['observed']:.3f} {'' if row['ok'] is None else ('ok' if row['ok'] else 'OFF')}")
        for r in per_review:
            print(f"  {r['review']:<40} true {r['true']:>4} estimate {r['estimate']:>7.1f} "
                  f"[{r['low']:.1f}, {r['high']:.1f}] {'holds' if r['holds'] else 'MISSES'}  "
                  f"deciles off >0.05: {r['deciles_off']}/10")
        print(f"  interval holds the true count on {held_count} of {len(per_review)} reviews")
    out = Path(".bench/calibration.json")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=1, default=str))
    print(f"json: {out}")


if __name__ == "__main__":
    main()
