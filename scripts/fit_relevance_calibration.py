"""Fit the relevance prior curve (agentr_dagster.screening.calibration.DEFAULT_PRIOR) on labelled reviews and
measure its calibration leave-one-review-out, zero-shot and with labels. No network.

    python scripts/fit_relevance_calibration.py DIR [--cache DIR] [--labels K ...] [--no-transformer]
        [--min-band N] [--json FILE]

DIR holds review folders like ../shared/data/screening/<name>/ (review.json, papers.csv with label_included).
Each review is ranked as `agentr screen` ranks a project's papers (the default preset, ``dedupe=False``): the
zero-shot order, and for each K of ``--labels`` (default 10 25 50) the engine's re-learnt order after a person
labelled the top K of the zero-shot order (the learner `agentr screen` runs with those labels, on the same
features). The scores are cached under --cache (one .npz per review and preset).

Printed, leave-one-review-out (each review's probabilities from the curve fitted on the other reviews):

* per band of predicted probability (0.0-0.1, ... 0.9-1.0), pooled over the reviews: the papers, mean predicted
  vs observed include rate, and ok/OFF against the 0.05 target for bands with >= --min-band papers (default 100);
  with labels, over the unlabelled papers only (a labelled paper's probability is its label);
* the same for the ten equal-count deciles of the pooled predictions;
* per review: the true include count, ``estimated_relevant`` and its interval, and whether the interval holds;
  with labels the interval's spread (labelled_count_ratio) is fitted on the other reviews' sessions;
* the curve fitted on every review and the labelled spread to paste into DEFAULT_PRIOR.

Every curve carries ``--tilt G A`` (PriorCurve.labelled_tilt, default DEFAULT_PRIOR's; ``--tilt 0 1`` measures the
unshifted reading).

A JSON copy goes to --json (default .bench/calibration.json).
"""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

from agentr_dagster.bench.screening import discover_reviews, load_review
from agentr_dagster.screening.calibration import (
    DEFAULT_PRIOR,
    calibrate,
    estimate_included,
    fit_prior,
    labelled_count_ratio,
)

TARGET = 0.05


def ranked(folder: Path, cache: Path, ks: list[int], transformer: bool) -> dict[str, np.ndarray]:
    """{zero, truth, s<K>, l<K>}: zero-shot scores, 0/1 truth, and per K the re-learnt scores and the labelled
    indices (the top K of the zero-shot order)."""
    out = cache / f"{folder.name}.{'t' if transformer else 'nt'}.npz"
    if out.is_file():
        saved = dict(np.load(out))
        if all(f"s{k}" in saved for k in ks):
            return saved
    from agentr_dagster.domain.embeddings import get_embedder
    from agentr_dagster.domain.text import clean_cell
    from agentr_dagster.screening.features import build_features
    from agentr_dagster.screening.presets import DEFAULT

    encoder = None
    if transformer:
        from agentr_dagster.domain.transformer import get_cached_transformer

        encoder = get_cached_transformer()
    started = time.time()
    rv = load_review(folder)
    feats = build_features([clean_cell(t) for t in rv.titles], [clean_cell(a) for a in rv.abstracts],
                           get_embedder(), encoder)
    zero = DEFAULT.ranker(clean_cell(rv.question), feats)
    res: dict[str, np.ndarray] = {"zero": zero, "truth": np.asarray(rv.labels, dtype=np.int64)}
    head = np.argsort(-zero, kind="stable")
    learner = DEFAULT.learner(feats, zero)
    for k in ks:
        top = head[:k]
        res[f"s{k}"] = learner.scores(top, res["truth"][top])
        res[f"l{k}"] = top
    cache.mkdir(parents=True, exist_ok=True)
    np.savez(out, **res)
    print(f"  ranked {folder.name} ({len(zero)} papers) in {time.time() - started:.0f} s", flush=True)
    return res


def given_labels(data: dict[str, np.ndarray], k: int) -> np.ndarray:
    given = np.full(len(data["truth"]), -1, dtype=np.int64)
    if k:
        given[data[f"l{k}"]] = data["truth"][data[f"l{k}"]]
    return given


def bands(pred: np.ndarray, obs: np.ndarray, min_n: int) -> list[dict]:
    band = np.minimum((pred * 10).astype(int), 9)
    rows = []
    for b in range(10):
        m = band == b
        if m.sum():
            rows.append(_row(f"{b / 10:.1f}-{(b + 1) / 10:.1f}", pred[m], obs[m], min_n))
    return rows


def deciles(pred: np.ndarray, obs: np.ndarray, min_n: int) -> list[dict]:
    order = np.argsort(pred, kind="stable")
    return [_row(f"decile {i + 1}", pred[d], obs[d], min_n) for i, d in enumerate(np.array_split(order, 10))]


def _row(name: str, pred: np.ndarray, obs: np.ndarray, min_n: int) -> dict:
    gap = float(pred.mean() - obs.mean())
    return {"band": name, "n": len(pred), "predicted": round(float(pred.mean()), 3),
            "observed": round(float(obs.mean()), 3),
            "ok": (abs(gap) <= TARGET) if len(pred) >= min_n else None}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("root", type=Path)
    ap.add_argument("--cache", type=Path, default=Path(".bench/calibration"))
    ap.add_argument("--labels", type=int, nargs="*", default=[10, 25, 50])
    ap.add_argument("--no-transformer", action="store_true")
    ap.add_argument("--min-band", type=int, default=100)
    ap.add_argument("--json", type=Path, default=Path(".bench/calibration.json"))
    ap.add_argument("--tilt", type=float, nargs=2, default=list(DEFAULT_PRIOR.labelled_tilt), metavar=("G", "A"),
                    help="PriorCurve.labelled_tilt of every curve (default: DEFAULT_PRIOR's; 0 1 = no shift)")
    args = ap.parse_args()
    tilt = (float(args.tilt[0]), float(args.tilt[1]))
    ks = sorted(set(args.labels))
    transformer = not args.no_transformer
    if transformer:
        from agentr_dagster.domain.transformer import get_transformer

        if get_transformer() is None:
            raise SystemExit("the transformer is not built (make models): run with --no-transformer")
    folders = discover_reviews(args.root)
    print(f"preset: default, {'with' if transformer else 'without'} the transformer; {len(folders)} reviews; "
          f"labels: the top {ks} of the zero-shot order", flush=True)
    data = {f.name: ranked(f, args.cache, ks, transformer) for f in folders}
    names = list(data)
    zero = {n: (d["zero"], d["truth"]) for n, d in data.items()}
    # each review's out-of-review curve
    held = {n: replace(fit_prior([zero[m] for m in names if m != n]), labelled_tilt=tilt) for n in names}
    sessions = {(n, k): (data[n][f"s{k}"], given_labels(data[n], k), data[n]["truth"]) for n in names for k in ks}

    prior = fit_prior(list(zero.values()))
    spread = labelled_count_ratio([sessions[(n, k)] for n in names for k in ks],
                                  [held[n] for n in names for k in ks])
    prior = replace(prior, labelled_count_ratio=spread, labelled_tilt=tilt)
    print(f"\nfitted on all {len(names)} reviews: {prior!r}")
    report: dict = {"prior": repr(prior), "settings": {}}
    for k in [0, *ks]:
        preds, obs, per_review = [], [], []
        for n in names:
            if k == 0:
                scores, truth = zero[n]
                given = np.full(len(truth), -1, dtype=np.int64)
                curve = held[n]
            else:
                scores, given, truth = sessions[(n, k)]
                others = [m for m in names if m != n]
                curve = replace(held[n], labelled_count_ratio=labelled_count_ratio(
                    [sessions[(m, kk)] for m in others for kk in ks], [held[m] for m in others for kk in ks]))
            started = time.perf_counter()
            cal = calibrate(scores, given, curve)
            count = estimate_included(scores, given, curve)
            elapsed = time.perf_counter() - started
            unlabelled = given < 0
            preds.append(cal.probability[unlabelled])
            obs.append(truth[unlabelled])
            true = int(truth.sum())
            per_review.append({"review": n, "n": len(truth), "true": true, "found": count.found,
                               "estimate": count.estimate, "low": count.low, "high": count.high,
                               "holds": bool(count.low <= true <= count.high), "ms": round(elapsed * 1000, 1)})
        pred, ob = np.concatenate(preds), np.concatenate(obs)
        rel, dec = bands(pred, ob, args.min_band), deciles(pred, ob, args.min_band)
        holds = sum(r["holds"] for r in per_review)
        report["settings"][str(k)] = {"bands": rel, "deciles": dec, "reviews": per_review}
        print(f"\n== with labels: the top {k} of the zero-shot order labelled; unlabelled papers ==" if k
              else "\n== zero-shot ==")
        for row in [*rel, *dec]:
            verdict = "" if row["ok"] is None else ("ok" if row["ok"] else "OFF")
            print(f"  {row['band']:<10} n={row['n']:>6} predicted {row['predicted']:.3f} observed "
                  f"{row['observed']:.3f} {verdict}")
        for r in per_review:
            print(f"  {r['review']:<40} true {r['true']:>4} (labelled {r['found']:>3}) estimate {r['estimate']:>7.1f} "
                  f"[{r['low']:.1f}, {r['high']:.1f}] {'holds' if r['holds'] else 'MISSES'}  {r['ms']} ms")
        bad = [row["band"] for row in rel if row["ok"] is False]
        print(f"  bands with >= {args.min_band} papers off by more than {TARGET}: {bad or 'none'}; "
              f"the interval holds the true count on {holds} of {len(per_review)} reviews")
    out = args.json
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=1, default=str))
    print(f"json: {out}")


if __name__ == "__main__":
    main()
