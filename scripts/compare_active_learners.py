"""Compare active-learner configurations under the bench's feedback protocol, chosen leave-one-review-out.

    PYTHONPATH=$PWD .venv/bin/python scripts/compare_active_learners.py /work/shared/data/screening \
        --max-records 1300 --seeds 0 1 --json /tmp/al-compare.json --cache /tmp/al-zero-shot --top

``--cache`` keeps each review's zero-shot scores (computed once); ``--top`` adds the labels-from-the-top check
(recall@20 % of the unlabelled papers after 10/25/50 labels from the top of the zero-shot list, re-rank minus
zero-shot: worst and count below -0.05 per variant); ``--reviews`` limits the run to named reviews. Each run also
stores ``stages:<seed>:<variant>`` in the JSON: recall@10/20 % and the share of the list screened to 50 / 80 / 95 %
of the includes (where a variant gains or loses: early or in the tail).

Zero-shot uses the static encoder only (cheap enough to iterate) unless ``--transformer``: then the features carry
the cached ONNX transformer's vectors (``temb``) and zero-shot uses them, as the bench's feedback mode
(``review_feedback_order``) does; its zero-shot scores are cached as ``<review>.transformer.prior.npy``. Each
variant is an ``ActiveConfig`` override (``VARIANTS``); ``elas`` is ASReview's ELAS u4 (no prior, no
pseudo-excludes) on our cleaned texts: within 0.01 WSS@95 of the real ASReview 3.0.8 on the 7 smallest shared
reviews (identical on 4).
Reviews run smallest first; every (review, seed, variant) result is written to the JSON file as soon as it exists
and a re-run skips it. The summary: WSS@95 per review and variant (mean over the seeds), reviews ahead of
``elas``, means for the Cohen_2006 drug reviews and the others, and the variant chosen for each review on the
other reviews (leave-one-review-out, ``elas`` not a candidate, the drug and the other reviews weighted equally).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

import numpy as np

from agentr_dagster.bench.screening import discover_reviews, load_review
from agentr_dagster.domain.embeddings import get_embedder
from agentr_dagster.domain.transformer import get_cached_transformer
from agentr_dagster.screening.active import ActiveConfig, ActiveRanker
from agentr_dagster.screening.features import build_features
from agentr_dagster.screening.metrics import evaluate_order, wss_at
from agentr_dagster.screening.rankers import zero_shot_scores
from agentr_dagster.screening.simulation import after_top_labels, choose_priors, simulate_active

VARIANTS: dict[str, dict[str, Any]] = {
    "default": {},
    "before": {"neg_ratio": 3.0, "normalise_weights": False},  # the learner before ASReview's weight rescaling
    "prior2": {"prior_weight": 2.0},
    "no_pseudo": {"pseudo_excludes": 0},
    "elas": {"prior_weight": 0.0, "pseudo_excludes": 0, "C_pick_every": 0},
    # the default before round 6 (C fixed at 0.11; rounds 2-5's "default")
    "fixedC": {"C_pick_every": 0},
    "hl5": {"prior_half_life": 5.0},
    # round 5: the SVM's C (ASReview tuned 0.11 for ELAS alone, without prior and pseudo-excludes)
    "C05": {"C": 0.05, "C_pick_every": 0},
    "C03": {"C": 0.3, "C_pick_every": 0},
    "C1": {"C": 1.0, "C_pick_every": 0},
    # round 6's C that grows with the labels (Ci*/Cl*) and pooled picks (Cpick25s, Cpu25s) stand at commit
    # ba24a23 (branch h48b)
    # round 6: C picked every 25 labels among 0.11 / 0.3 / 1.0 by the out-of-fold pair AUC of the held-out
    # includes against the held-out excludes ("labels") or the unlabelled records (Cpu25: the default since)
    "Cpick25": {"C_pick_every": 25, "C_pick_judge": "labels"},
    "Cpu25": {"C_pick_every": 25, "C_pick_judge": "unlabelled"},
    "Cpick25g": {"C_pick_every": 25, "C_pick_judge": "labels", "C_pick_grid": (0.11, 0.3)},
    # round 5: the prior's trust asks for a higher AUC over the labels (and pseudo-excludes) before full weight
    "trust85": {"prior_auc_expected": 0.85},
    # round 7's dense second view (dsvm50, dsvm25, dlr50, dsvm50i10, dpick) stands at commit 2026a31 (branch h33d)
}


def make_learner(v: str, feats, prior):
    """The learner a variant names (an ``ActiveConfig`` override). Round 5's stacked and bandit pairs stand at
    commit c6c2c95 (``agentr_dagster/screening/stacking.py``)."""
    return ActiveRanker(feats, prior, ActiveConfig(**VARIANTS[v]))


def stages(y_in_order: np.ndarray) -> dict[str, float]:
    """Where a run gains or loses: records screened (share of the list) to 50 / 80 / 95 % of the includes, what
    WSS at that recall counts (n / N = recall - WSS)."""
    return {f"n{p}": round(p / 100 - wss_at(y_in_order, p / 100), 4) for p in (50, 80, 95)}


def run(data: Path, variants: list[str], seeds: list[int], max_records: int, out: Path, cache: Path | None,
        top: bool, only: list[str] | None = None, transformer: bool = False) -> dict:
    res: dict = json.loads(out.read_text()) if out.is_file() else {}
    embedder = get_embedder()
    encoder = get_cached_transformer() if transformer else None
    if transformer and encoder is None:
        raise SystemExit("the transformer encoder is not built: run `make models`")
    reviews = sorted((load_review(f) for f in discover_reviews(data)), key=lambda rv: len(rv.labels))
    for rv in (rv for rv in reviews if len(rv.labels) <= max_records and (not only or rv.name in only)):
        done = res.setdefault(rv.name, {})
        todo = [(s, v) for s in seeds for v in variants if f"{s}:{v}" not in done]
        todo_top = [v for v in variants if top and f"top:{v}" not in done]
        if not todo and not todo_top:
            continue
        feats = build_features(rv.titles, rv.abstracts, embedder, encoder)
        prior_file = cache / f"{rv.name}{'.transformer' if transformer else ''}.prior.npy" if cache else None
        if prior_file is not None and prior_file.is_file():
            prior = np.load(prior_file)
        else:
            prior = zero_shot_scores(rv.question, feats)
            if prior_file is not None:
                prior_file.parent.mkdir(parents=True, exist_ok=True)
                np.save(prior_file, prior)
        for seed, v in todo:
            ranker = make_learner(v, feats, prior)
            t0 = time.perf_counter()
            order = simulate_active(ranker.scores, rv.labels, choose_priors(rv.labels, seed))
            ev = evaluate_order(rv.labels[order])
            done[f"{seed}:{v}"] = round(float(ev["wss95"]), 4)
            done[f"stages:{seed}:{v}"] = {"r10": round(float(ev["recall10"]), 4),
                                          "r20": round(float(ev["recall20"]), 4), **stages(rv.labels[order])}
            out.write_text(json.dumps(res, indent=1))
            print(f"{rv.name} seed {seed} {v}: WSS@95 {done[f'{seed}:{v}']:.3f} ({time.perf_counter() - t0:.0f} s)",
                  flush=True)
        for v in todo_top:  # labels from the top of the zero-shot list: recall@20 % of the rest, re-rank - zero-shot
            at = after_top_labels(make_learner(v, feats, prior).scores, prior, rv.labels)
            done[f"top:{v}"] = {str(k): round(r["feedback"]["recall20"] - r["zero_shot"]["recall20"], 4)
                                for k, r in at.items()}
            out.write_text(json.dumps(res, indent=1))
    return res


def summarise_top(res: dict, variants: list[str]) -> str:
    """Per variant and k: the worst (re-rank - zero-shot) recall@20 % of the unlabelled papers over the reviews
    and how many reviews are below zero-shot by more than 0.05."""
    lines = ["labels from the top: recall@20 % of the rest, re-rank minus zero-shot (worst; reviews < -0.05)"]
    for v in variants:
        rows = [d[f"top:{v}"] for d in res.values() if f"top:{v}" in d]
        if not rows:
            continue
        parts = []
        for k in ("10", "25", "50"):
            x = np.array([r[k] for r in rows if k in r and r[k] == r[k]])
            if len(x):
                parts.append(f"k={k}: worst {x.min():+.3f}, mean {x.mean():+.3f}, below {int(np.sum(x < -0.05))}")
        lines.append(f"  {v} ({len(rows)} reviews): " + "; ".join(parts))
    return "\n".join(lines)


def summarise(res: dict, variants: list[str], seeds: list[int], candidates: list[list[str]] | None = None) -> str:
    names = [n for n, d in res.items() if all(f"{s}:{v}" in d for s in seeds for v in variants)]
    names.sort(key=lambda n: (not n.startswith("Cohen_2006"), n))
    table = np.array([[np.mean([res[n][f"{s}:{v}"] for s in seeds]) for v in variants] for n in names])
    w = max(len(n) for n in names) + 2
    lines = [f"WSS@95, feedback protocol, mean over seeds {seeds}",
             "review".ljust(w) + "".join(f"{v:>11}" for v in variants)]
    lines += [n.ljust(w) + "".join(f"{x:11.3f}" for x in row) for n, row in zip(names, table, strict=True)]
    lines.append("mean".ljust(w) + "".join(f"{x:11.3f}" for x in table.mean(axis=0)))
    drug = np.array([n.startswith("Cohen_2006") for n in names])
    for label, rows in (("drug (Cohen_2006)", drug), ("others", ~drug)):
        if rows.any():
            lines.append(f"{label} ({int(rows.sum())})".ljust(w) + "".join(f"{x:11.3f}" for x in table[rows].mean(0)))
    if "elas" in variants:
        e = table[:, variants.index("elas")]
        lines.append("ahead of elas".ljust(w) + "".join(f"{int(np.sum(table[:, j] > e + 1e-9)):>11}"
                                                          for j in range(len(variants))))
    lines.append("")
    e = table[:, variants.index("elas")] if "elas" in variants else None
    for cand_names in candidates or [[v for v in variants if v != "elas"]]:
        cands = [variants.index(v) for v in cand_names]
        picks, loo = [], np.zeros(len(names))
        for i in range(len(names)):
            rest, rest_drug = np.delete(table, i, axis=0), np.delete(drug, i)
            # drug and non-drug reviews weigh equally (the 12 Cohen drug reviews would otherwise decide)
            groups = [rest[g].mean(axis=0) for g in (rest_drug, ~rest_drug) if g.any()]
            means = np.mean(groups, axis=0)
            j = max(cands, key=lambda c: (means[c], -c))
            picks.append(variants[j])
            loo[i] = table[i, j]
        vs = "" if e is None else (f", ratio to elas {loo.mean() / e.mean():.3f}x (others "
                                   f"{loo[~drug].mean() / e[~drug].mean():.3f}x), ahead {int(np.sum(loo > e + 1e-9))}")
        lines.append(f"leave-one-review-out over {', '.join(cand_names)} (drug and other reviews weighted equally): "
                     + ", ".join(f"{v} chosen for {picks.count(v)}" for v in dict.fromkeys(picks))
                     + f"; held-out mean {loo.mean():.3f} (drug {loo[drug].mean():.3f}, others "
                     f"{loo[~drug].mean():.3f}){vs}")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("data", type=Path, help="folder of review folders (papers.csv + review.json)")
    ap.add_argument("--json", type=Path, default=Path("al-compare.json"), help="results, written as they come")
    ap.add_argument("--variants", nargs="+", default=list(VARIANTS), choices=list(VARIANTS))
    ap.add_argument("--seeds", type=int, nargs="+", default=[0])
    ap.add_argument("--max-records", type=int, default=1300, help="skip larger reviews")
    ap.add_argument("--summary-only", action="store_true", help="summarise the JSON file, simulate nothing")
    ap.add_argument("--cache", type=Path, default=None, help="folder for the zero-shot scores (computed once)")
    ap.add_argument("--top", action="store_true", help="also labels from the top of the zero-shot list (10/25/50)")
    ap.add_argument("--reviews", nargs="+", default=None, help="only these reviews")
    ap.add_argument("--transformer", action="store_true",
                    help="features and zero-shot with the cached ONNX transformer, as the bench's feedback mode")
    ap.add_argument("--candidates", nargs="+", action="append", default=None,
                    help="one leave-one-review-out candidate set (repeatable; default: every variant but elas)")
    args = ap.parse_args()
    res = json.loads(args.json.read_text()) if args.summary_only else run(
        args.data, args.variants, args.seeds, args.max_records, args.json, args.cache, args.top, args.reviews,
        args.transformer)
    print(summarise(res, args.variants, args.seeds, args.candidates))
    if args.top:
        print(summarise_top(res, args.variants))


if __name__ == "__main__":
    main()
