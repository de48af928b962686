"""Tune the active learner's transformer block (``ActiveConfig.emb_weight``) leave-one-review-out.

    AGENTR_HOME=/tmp/al-home .venv/bin/python scripts/tune_active_transformer.py /work/shared/data/screening \
        --json /tmp/al-tune.json

Each review's features are built once (with the ONNX transformer, through its per-text vector cache), then the
``feedback`` protocol of ``agentr bench screening`` (priors: 1 include + 1 exclude from ``default_rng(seed)``, then
the best-scored unlabelled record revealed and the model re-trained) is simulated for every weight of the grid.
Reviews run smallest first; each (review, seed, weight) result is written to the JSON file as soon as it exists
and a re-run skips the ones already there. The summary gives WSS@95 per review and weight, then the weight chosen
for each review on the other reviews (mean WSS@95; ties go to the smaller weight), per review and by kind of
question (the Cohen_2006 drug reviews vs the others).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from agentr_dagster.bench.screening import discover_reviews, load_review
from agentr_dagster.domain.embeddings import get_embedder
from agentr_dagster.domain.transformer import get_cached_transformer
from agentr_dagster.screening.active import ActiveConfig, ActiveRanker
from agentr_dagster.screening.features import build_features
from agentr_dagster.screening.metrics import evaluate_order
from agentr_dagster.screening.rankers import zero_shot_scores
from agentr_dagster.screening.simulation import choose_priors, simulate_active

DEFAULT_WEIGHTS = (0.0, 0.1, 0.25, 0.5, 1.0)


def _key(seed: int, weight: float) -> str:
    return f"seed={seed} w={weight:g}"


def run_grid(data: Path, weights: list[float], seeds: list[int], out: Path) -> dict:
    results: dict = json.loads(out.read_text()) if out.is_file() else {"reviews": {}}
    embedder, transformer = get_embedder(), get_cached_transformer()
    if transformer is None:
        raise SystemExit("the transformer encoder is not built: run `make models`")
    reviews = sorted((load_review(f) for f in discover_reviews(data)), key=lambda rv: len(rv.labels))
    for rv in reviews:
        done = results["reviews"].setdefault(
            rv.name, {"n_records": len(rv.labels), "n_included": int(rv.labels.sum()), "wss95": {}}
        )
        todo = [(s, w) for s in seeds for w in weights if _key(s, w) not in done["wss95"]]
        if not todo:
            continue
        t0 = time.perf_counter()
        feats = build_features(rv.titles, rv.abstracts, embedder, transformer)
        prior = zero_shot_scores(rv.question, feats)
        print(f"{rv.name}: {len(rv.labels)} records, features {time.perf_counter() - t0:.1f} s", flush=True)
        for seed, weight in todo:
            t0 = time.perf_counter()
            ranker = ActiveRanker(feats, prior, ActiveConfig(emb_weight=weight))
            order = simulate_active(ranker.scores, rv.labels, choose_priors(rv.labels, seed))
            wss = float(evaluate_order(rv.labels[order])["wss95"])
            done["wss95"][_key(seed, weight)] = round(wss, 4)
            out.write_text(json.dumps(results, indent=1))
            print(f"  {_key(seed, weight)}: WSS@95 {wss:.3f} ({time.perf_counter() - t0:.1f} s)", flush=True)
    return results


def summarise(results: dict, weights: list[float], seeds: list[int]) -> str:
    names = [n for n, r in results["reviews"].items() if all(_key(s, w) in r["wss95"] for s in seeds for w in weights)]
    names.sort(key=lambda n: (not n.startswith("Cohen_2006"), n))
    # WSS@95 per review and weight, averaged over the seeds
    table = np.array(
        [[np.mean([results["reviews"][n]["wss95"][_key(s, w)] for s in seeds]) for w in weights] for n in names]
    )
    w_col = max(len(n) for n in names) + 2
    lines = [f"WSS@95, feedback protocol, seeds {seeds}", "review".ljust(w_col) + "".join(f"{w:>8g}" for w in weights)]
    lines += [n.ljust(w_col) + "".join(f"{v:8.3f}" for v in row) for n, row in zip(names, table, strict=True)]
    lines.append("mean (in-sample)".ljust(w_col) + "".join(f"{v:8.3f}" for v in table.mean(axis=0)))

    def pick(rows: np.ndarray) -> int:  # the best mean; ties to the smaller weight (the first column)
        means = table[rows].mean(axis=0)
        return int(np.flatnonzero(np.isclose(means, means.max()))[0])

    base = weights.index(0.0) if 0.0 in weights else 0
    lines += ["", "leave-one-review-out (weight chosen on the other reviews)"]
    lines.append("review".ljust(w_col) + f"{'weight':>8}{'LOO':>8}{'w=0':>8}{'diff':>8}")
    loo = np.zeros(len(names))
    for i, n in enumerate(names):
        j = pick(np.array([k for k in range(len(names)) if k != i]))
        loo[i] = table[i, j]
        d = loo[i] - table[i, base]
        lines.append(n.ljust(w_col) + f"{weights[j]:8g}{loo[i]:8.3f}{table[i, base]:8.3f}{d:+8.3f}")
    diff = loo - table[:, base]
    lines.append(
        "mean".ljust(w_col) + f"{'':8}{loo.mean():8.3f}{table[:, base].mean():8.3f}{diff.mean():+8.3f}"
        f"   better on {int(np.sum(diff > 1e-9))}, worse on {int(np.sum(diff < -1e-9))}, of {len(names)}"
    )
    cohen = np.array([n.startswith("Cohen_2006") for n in names])
    lines += ["", "by kind of question (mean WSS@95 per weight; LOO mean vs w=0)"]
    for label, rows in (("Cohen_2006 (drugs)", cohen), ("others", ~cohen)):
        if not rows.any():
            continue
        means = "  ".join(f"{w:g}: {v:.3f}" for w, v in zip(weights, table[rows].mean(axis=0), strict=True))
        lines.append(
            f"{label} ({int(rows.sum())}): {means}; LOO {loo[rows].mean():.3f} vs {table[rows, base].mean():.3f} "
            f"(better {int(np.sum(diff[rows] > 1e-9))}, worse {int(np.sum(diff[rows] < -1e-9))})"
        )
    if cohen.any() and (~cohen).any():
        for label, train, test in (("Cohen -> others", cohen, ~cohen), ("others -> Cohen", ~cohen, cohen)):
            j = pick(np.flatnonzero(train))
            lines.append(
                f"{label}: weight {weights[j]:g} chosen, held-out mean {table[test, j].mean():.3f} "
                f"vs w=0 {table[test, base].mean():.3f}"
            )
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("data", type=Path, help="folder of review folders (papers.csv + review.json)")
    ap.add_argument("--json", type=Path, default=Path("al-transformer-tune.json"), help="results, written as they come")
    ap.add_argument("--weights", type=float, nargs="+", default=list(DEFAULT_WEIGHTS))
    ap.add_argument("--seeds", type=int, nargs="+", default=[0])
    ap.add_argument("--summary-only", action="store_true", help="summarise the JSON file, simulate nothing")
    args = ap.parse_args()
    if args.summary_only:
        results = json.loads(args.json.read_text())
    else:
        results = run_grid(args.data, args.weights, args.seeds, args.json)
    print(summarise(results, args.weights, args.seeds))


if __name__ == "__main__":
    main()
