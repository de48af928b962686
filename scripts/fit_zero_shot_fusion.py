"""Learn the zero-shot fusion's transformer weights leave-one-review-out (instead of the per-question rule).

    AGENTR_HOME=/tmp/zs-home nice -n 10 .venv/bin/python scripts/fit_zero_shot_fusion.py \
        /work/shared/data/screening --cache /tmp/zs-fusion

Per review, once (and kept in ``--cache`` as one ``.npz`` each, so a re-run only re-grids): the features of
``agentr bench screening`` (static model + the ONNX transformer through its per-text vector cache), the
zero-shot scores of today's default (``rule``: the transformer's share per question from its unreadable words),
the ``dense_onnx`` baseline exactly as the bench computes it, the transformer's field cosine, and the zero-shot
pipeline (BM25 + dense fusion, design prior, query expansion, PRF) with the transformer's share of the dense half
fixed at each ``--shares`` value and no blend after PRF. The grid then scores every

    z(pipeline at share s) + beta * z(transformer cosine)      (beta = inf: the transformer cosine alone)

and, for each review, picks (s, beta) best on the other reviews by mean WSS@95 (ties: the first in grid order).
Reported per review and for the Cohen_2006 drug reviews vs the rest: WSS@95 of the rule, of ``dense_onnx`` and of
the held-out choice, and how many reviews fall below ``dense_onnx``.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import time
from pathlib import Path

import numpy as np

from agentr_dagster.bench.screening import discover_reviews, load_review
from agentr_dagster.domain.embeddings import get_embedder
from agentr_dagster.domain.transformer import get_cached_transformer
from agentr_dagster.screening.features import build_features
from agentr_dagster.screening.metrics import wss_at
from agentr_dagster.screening.rankers import ZeroShotConfig, zero_shot_scores
from agentr_dagster.screening.rankers.dense import transformer_field_scores
from agentr_dagster.screening.rankers.fused import transformer_share, unreadable_share
from agentr_dagster.screening.scores import order_from_scores, zscore

DEFAULT_SHARES = (0.0, 0.25, 0.5, 0.75, 1.0)
DEFAULT_BETAS = (0.0, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0, math.inf)
DEFAULT_CUTS = (math.inf, 0.05, 0.1, 0.15, 0.2, 0.3)  # inf first: on a tie the same weights for every question


def _share_key(s: float) -> str:
    return f"pipe_{s:g}"


def components(data: Path, cache: Path, shares: list[float]) -> dict[str, dict[str, np.ndarray]]:
    """Every review's component scores (computed once, then read from ``cache``)."""
    cache.mkdir(parents=True, exist_ok=True)
    embedder, transformer = get_embedder(), get_cached_transformer()
    if transformer is None:
        raise SystemExit("the transformer encoder is not built: run `make models`")
    out: dict[str, dict[str, np.ndarray]] = {}
    for folder in discover_reviews(data):
        path = cache / f"{folder.name}.npz"
        have = dict(np.load(path)) if path.is_file() else {}
        todo = [s for s in shares if _share_key(s) not in have]
        if have and not todo and "unreadable" in have:
            out[folder.name] = have
            continue
        rv = load_review(folder)
        if have and not todo:  # an older cache file: only the question's unreadable share is missing
            have["unreadable"] = np.array(unreadable_share(rv.question, transformer))
            np.savez(path, **have)
            out[folder.name] = have
            continue
        t0 = time.perf_counter()
        feats = build_features(rv.titles, rv.abstracts, embedder, transformer)
        t_feat = time.perf_counter() - t0
        if not have:
            q = transformer.encode([rv.question])[0].astype(np.float64)
            trans = transformer_field_scores(rv.question, feats)
            assert trans is not None
            have = {
                "labels": rv.labels,
                "rule": zero_shot_scores(rv.question, feats),
                "rule_share": np.array(transformer_share(rv.question, feats)),
                "unreadable": np.array(unreadable_share(rv.question, transformer)),
                "dense_onnx": feats.temb.astype(np.float64) @ q,
                "trans": trans[0] + ZeroShotConfig().title_weight * trans[1],
            }
        for s in todo:
            cfg = ZeroShotConfig(transformer_weight=s, transformer_unreadable_cut=0.0, prf_transformer_blend=0.0)
            have[_share_key(s)] = zero_shot_scores(rv.question, feats, cfg)
        np.savez(path, **have)
        print(
            f"{rv.name}: {len(rv.labels)} records, features {t_feat:.1f} s, all {time.perf_counter() - t0:.1f} s",
            flush=True,
        )
        out[folder.name] = have
    return out


def wss(scores: np.ndarray, labels: np.ndarray) -> float:
    return wss_at(labels[order_from_scores(scores)], 0.95)


def gate(c: dict[str, np.ndarray], cut: float) -> float:
    """0..1, the question's share of the transformer weights: 1 - (unreadable share / cut), clipped (inf: 1)."""
    return 1.0 if math.isinf(cut) else float(np.clip(1.0 - float(c["unreadable"]) / cut, 0.0, 1.0))


def fused(c: dict[str, np.ndarray], point: tuple[float, float, float], shares: list[float]) -> np.ndarray:
    """The scores at grid point (cut, share, beta): share and beta scaled by :func:`gate`."""
    cut, share, beta = point
    if math.isinf(beta):
        return c["trans"]
    g = gate(c, cut)
    s = min(shares, key=lambda v: abs(v - g * share))  # the computed share nearest to the gated one
    return zscore(c[_share_key(s)]) + g * beta * zscore(c["trans"])


def _kind(name: str) -> str:
    return "drug" if name.startswith("Cohen_2006") else "other"


def fit(comps: dict[str, dict[str, np.ndarray]], shares: list[float], betas: list[float], cuts: list[float]) -> dict:
    names = sorted(comps, key=lambda n: (_kind(n) != "drug", n))
    grid = [
        (c, s, b)
        for c, s, b in itertools.product(cuts, shares, betas)
        if not (math.isinf(b) and (s != shares[0] or not math.isinf(c)))
    ]
    table = np.array([[wss(fused(comps[n], p, shares), comps[n]["labels"]) for p in grid] for n in names])
    rule = np.array([wss(comps[n]["rule"], comps[n]["labels"]) for n in names])
    onnx = np.array([wss(comps[n]["dense_onnx"], comps[n]["labels"]) for n in names])
    held: list[float] = []
    picks: list[tuple[float, float, float]] = []
    for i in range(len(names)):
        others = np.delete(table, i, axis=0).mean(axis=0)
        j = int(np.argmax(others))
        picks.append(grid[j])
        held.append(float(table[i, j]))
    best_all = int(np.argmax(table.mean(axis=0)))
    return {
        "names": names,
        "grid": grid,
        "table": table,
        "rule": rule,
        "dense_onnx": onnx,
        "rule_share": np.array([float(comps[n]["rule_share"]) for n in names]),
        "loo": np.array(held),
        "picks": picks,
        "in_sample": (grid[best_all], float(table[:, best_all].mean())),
    }


def report(r: dict) -> str:
    names = r["names"]
    w = max(len(n) for n in names) + 2
    lines = [
        "WSS@95 per review: dense_onnx, the rule (its share), the held-out choice (s, beta)",
        "review".ljust(w) + f"{'onnx':>7}{'rule':>7}{'share':>7}{'LOO':>7}  pick",
    ]
    for i, n in enumerate(names):
        c, s, b = r["picks"][i]
        lines.append(
            n.ljust(w) + f"{r['dense_onnx'][i]:7.3f}{r['rule'][i]:7.3f}{r['rule_share'][i]:7.2f}{r['loo'][i]:7.3f}"
            f"  cut={c:g} s={s:g} beta={b:g}"
        )
    kinds = np.array([_kind(n) for n in names])
    for label, mask in (("all", np.ones(len(names), bool)), ("drug", kinds == "drug"), ("other", kinds == "other")):
        below_rule = int((r["rule"][mask] < r["dense_onnx"][mask] - 1e-9).sum())
        below_loo = int((r["loo"][mask] < r["dense_onnx"][mask] - 1e-9).sum())
        lines.append(
            f"{label} ({int(mask.sum())}): mean dense_onnx {r['dense_onnx'][mask].mean():.3f}, rule "
            f"{r['rule'][mask].mean():.3f} (below dense_onnx on {below_rule}), learned LOO {r['loo'][mask].mean():.3f} "
            f"(below dense_onnx on {below_loo})"
        )
    (c, s, b), m = r["in_sample"]
    lines.append(f"in-sample best on all reviews: cut={c:g} s={s:g} beta={b:g}, mean {m:.3f}")
    means = r["table"].mean(axis=0)
    top = np.argsort(-means)[:8]
    lines.append(
        "top of the grid (in-sample mean): "
        + ", ".join("/".join(f"{v:g}" for v in r["grid"][j]) + f" {means[j]:.3f}" for j in top)
    )
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("data", type=Path)
    ap.add_argument("--cache", type=Path, default=Path("/tmp/zs-fusion"), help="component scores, one .npz/review")
    ap.add_argument("--shares", type=float, nargs="+", default=list(DEFAULT_SHARES))
    ap.add_argument("--betas", type=float, nargs="+", default=list(DEFAULT_BETAS))
    ap.add_argument(
        "--cuts",
        type=float,
        nargs="+",
        default=list(DEFAULT_CUTS),
        help="gates: a question's weights x (1 - its unreadable share / cut); inf = the same for all",
    )
    ap.add_argument("--json", type=Path, help="write the per-review figures here")
    args = ap.parse_args()
    comps = components(args.data, args.cache, args.shares)
    r = fit(comps, args.shares, args.betas, args.cuts)
    print(report(r))
    if args.json:
        args.json.write_text(
            json.dumps(
                {
                    "grid": [[str(v) for v in p] for p in r["grid"]],
                    "reviews": {
                        n: {
                            "dense_onnx": r["dense_onnx"][i],
                            "rule": r["rule"][i],
                            "loo": r["loo"][i],
                            "pick": [str(v) for v in r["picks"][i]],
                            "wss95": [float(v) for v in r["table"][i]],
                        }
                        for i, n in enumerate(r["names"])
                    },
                },
                indent=1,
            )
        )


if __name__ == "__main__":
    main()
