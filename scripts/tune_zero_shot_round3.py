"""Zero-shot fusion, round 3: the transformer knobs of ``ZeroShotConfig`` picked leave-one-review-out with the
drug and non-drug reviews weighted equally.

    AGENTR_HOME=/tmp/zs-home nice -n 10 .venv/bin/python scripts/tune_zero_shot_round3.py \
        /work/shared/data/screening --cache /tmp/zs-r3 [--penalty 0 0.01 0.02] [--verbose]

Per review, once (kept in ``--cache``, one ``.npz`` each): the features of ``agentr bench screening`` (the
transformer's vectors from its per-text cache), ``dense_onnx`` as the bench computes it, the transformer's field
cosine, and the zero-shot pipeline up to and including PRF (``zero_shot_scores`` with no blend and no tail) for
every (transformer share, lexical weight) the grid can ask for: the share is the rule's ``1 - unreadable / cut``
for each ``--cuts`` value, the lexical weight ``lexical_weight + share x (readable - lexical_weight)`` for each
``--readable`` value; and, at today's cut, with the transformer's vectors beside TF-IDF in the PRF round
(``prf_transformer_weight`` in ``--prf-weights``, as is or x the share). The grid then rebuilds the rest of
``zero_shot_scores`` on those scores exactly as the code does, with optional extra steps:

    s = z(prf) + blend x share ** pow x z(trans)               (prf_transformer_blend; pow 1 today)
    s = max(percentile(s), percentile(cos) - delta)            (a record high on the cosine kept high)
    s = percentile(s) + rank_w x percentile(cos)               (a rank fusion with the cosine, every question, or
                                                                only where the top 10 % of s and cos overlap < gate)
    s = rerank_tail(s, trans, frac, weight)                    (tail_transformer_frac / _weight)

``cos`` is the transformer's field cosine (``trans``) or ``dense_onnx``. Checked: at a few knob settings the grid's
WSS@95 equals ``zero_shot_scores`` with the same ``ZeroShotConfig`` to 4 decimals.

For each review the knobs are picked on the other 17 by the objective

    (mean WSS@95 of their drug reviews + mean WSS@95 of the others) / 2 - penalty x (how many are below dense_onnx)

and reported per review, for the Cohen_2006 drug reviews and the rest apart; each knob family is also picked alone
(the others at today's defaults), so a knob shows whether it earns its place held out.
"""

from __future__ import annotations

import argparse
import itertools
import math
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
from scipy.stats import rankdata

from agentr_dagster.bench.screening import discover_reviews, load_review
from agentr_dagster.domain.embeddings import get_embedder
from agentr_dagster.domain.transformer import get_cached_transformer
from agentr_dagster.screening.features import build_features
from agentr_dagster.screening.metrics import wss_at
from agentr_dagster.screening.rankers import ZeroShotConfig, zero_shot_scores
from agentr_dagster.screening.rankers.dense import transformer_field_scores
from agentr_dagster.screening.rankers.fused import unreadable_share
from agentr_dagster.screening.rankers.zero_shot import rerank_tail
from agentr_dagster.screening.scores import order_from_scores, zscore

BASE = ZeroShotConfig()
CUTS = (0.15, 0.2, 0.25, 0.3)
READABLE = (BASE.lexical_weight, 0.5, 0.4, 0.3, 0.2)
BLENDS = (0.0, 0.5, 1.0, 1.5, 2.0, 3.0)
RANK_WS = (0.0, 0.1, 0.2, 0.3, 0.5)
GATES = (math.inf, 0.3, 0.4, 0.5, 0.6)  # rank fusion only where the top 10 % of the two lists overlap less
BLEND_POWS = (2.0, 3.0)
DELTAS = (0.0, 0.1, 0.2, 0.3, 0.5)  # max(percentile(s), percentile(cos) - delta)
PRF_WS = (0.5, 1.0, 2.0, 4.0)  # weight of the transformer's vectors beside TF-IDF in the PRF round
COSINES = ("trans", "dense_onnx")
TAILS = ((0.0, 0.0), (0.2, 2.0), (0.3, 1.0), (0.3, 2.0), (0.3, 3.0), (0.4, 2.0), (0.5, 2.0))


def share_of(unreadable: float, cut: float) -> float:
    return float(np.clip(1.0 - unreadable / cut, 0.0, 1.0))


def _key(share: float, readable: float, prf_w: float = 0.0) -> str:
    # share 0: the lexical weight is the base one whatever the readable weight
    key = f"prf_{share:.4f}_{readable if share else BASE.lexical_weight:.2f}"
    return key + (f"_t{prf_w:.4f}" if prf_w else "")


def components(
    data: Path, cache: Path, cuts: list[float], readable: list[float], prf_ws: list[float]
) -> dict[str, dict[str, np.ndarray]]:
    cache.mkdir(parents=True, exist_ok=True)
    embedder, transformer = get_embedder(), get_cached_transformer()
    if transformer is None:
        raise SystemExit("the transformer encoder is not built: run `make models`")
    out: dict[str, dict[str, np.ndarray]] = {}
    for folder in discover_reviews(data):
        path = cache / f"{folder.name}.npz"
        have = dict(np.load(path)) if path.is_file() else {}
        rv = load_review(folder)
        u = unreadable_share(rv.question, transformer)
        todo = {_key(share_of(u, c), r): (share_of(u, c), r, 0.0) for c in cuts for r in readable}
        s0 = share_of(u, DEFAULT["cut"])
        for w in prf_ws:  # the transformer's vectors in the PRF round, at today's cut: x 1 and x the share
            for eff in (w, w * s0):
                todo[_key(s0, DEFAULT["readable"], eff)] = (s0, DEFAULT["readable"], eff)
        todo = {k: v for k, v in todo.items() if k not in have}
        if have and not todo:
            out[folder.name] = have
            continue
        t0 = time.perf_counter()
        feats = build_features(rv.titles, rv.abstracts, embedder, transformer)
        if not have:
            trans = transformer_field_scores(rv.question, feats)
            assert trans is not None and feats.temb is not None
            have = {
                "labels": rv.labels,
                "unreadable": np.array(u),
                "dense_onnx": feats.temb.astype(np.float64) @ transformer.encode([rv.question])[0].astype(np.float64),
                "trans": trans[0] + BASE.title_weight * trans[1],
            }
        for k, (s, r, prf_w) in todo.items():
            # cut 0 gives every question the full share, so transformer_weight = s is the share itself and
            # readable_lexical_weight the lexical weight itself
            cfg = ZeroShotConfig(
                transformer_weight=s,
                transformer_unreadable_cut=0.0,
                readable_lexical_weight=BASE.lexical_weight + s * (r - BASE.lexical_weight),
                prf_transformer_blend=0.0,
                tail_transformer_frac=0.0,
                prf_transformer_weight=prf_w,
            )
            have[k] = zero_shot_scores(rv.question, feats, cfg)
        np.savez(path, **have)
        print(f"{rv.name}: {len(todo)} pipelines, {time.perf_counter() - t0:.1f} s", flush=True)
        out[folder.name] = have
    return out


def final_scores(c: dict[str, np.ndarray], p: dict) -> np.ndarray:
    """The rest of ``zero_shot_scores`` (blend, tail) plus the optional rank fusion, at knobs ``p``."""
    share = share_of(float(c["unreadable"]), p["cut"])
    cos = c[p["cos"]]
    s = c[_key(share, p["readable"], p["prf_w"] * (share if p["prf_scaled"] else 1.0))]
    if p["blend"] * share:
        s = zscore(s) + p["blend"] * share ** p["blend_pow"] * zscore(c["trans"])
    if not math.isinf(p["delta"]):  # a record high on the cosine is kept high
        s = np.maximum(rankdata(s) / len(s), rankdata(cos) / len(cos) - p["delta"])
    if p["rank_w"] and overlap(s, cos) < p["gate"]:
        s = rankdata(s) / len(s) + p["rank_w"] * rankdata(cos) / len(cos)
    if p["frac"]:
        s = rerank_tail(s, c["trans"], p["frac"], p["tail_w"])
    return s


def overlap(a: np.ndarray, b: np.ndarray) -> float:
    """Label-free agreement of two lists: the share of the top 10 % (at least 10) of ``a`` in the top of ``b``."""
    k = max(10, len(a) // 10)
    return len(set(np.argsort(-a)[:k]) & set(np.argsort(-b)[:k])) / k


def wss(scores: np.ndarray, labels: np.ndarray) -> float:
    return wss_at(labels[order_from_scores(scores)], 0.95)


DEFAULT = {
    "cut": BASE.transformer_unreadable_cut,
    "readable": BASE.readable_lexical_weight if BASE.readable_lexical_weight is not None else BASE.lexical_weight,
    "blend": BASE.prf_transformer_blend,
    "blend_pow": 1.0,  # the blend x share ** blend_pow: more of the cosine only where the share is near 1
    "prf_w": BASE.prf_transformer_weight,
    "prf_scaled": False,
    "rank_w": 0.0,
    "delta": math.inf,
    "gate": math.inf,
    "cos": "trans",
    "frac": BASE.tail_transformer_frac,
    "tail_w": BASE.tail_transformer_weight,
}


def grid(cuts: list[float], readable: list[float], prf_ws: list[float]) -> Iterator[dict]:
    """Every (cut, readable, blend, tail) with no rank fusion; the rank fusion (weight, gate, which cosine) with
    every (readable, blend) at today's cut, with and without today's tail."""
    for cut, r, b, (f, tw) in itertools.product(cuts, readable, BLENDS, TAILS):
        yield {**DEFAULT, "cut": cut, "readable": r, "blend": b, "frac": f, "tail_w": tw}
    tails = [(0.0, 0.0), (DEFAULT["frac"], DEFAULT["tail_w"])]
    for r, b, w, g, cos, (f, tw) in itertools.product(readable, BLENDS, RANK_WS[1:], GATES, COSINES, tails):
        yield {**DEFAULT, "readable": r, "blend": b, "rank_w": w, "gate": g, "cos": cos, "frac": f, "tail_w": tw}
    for b, k in itertools.product(BLENDS, BLEND_POWS):
        yield {**DEFAULT, "blend": b, "blend_pow": k}
    for b, d, cos, (f, tw) in itertools.product(BLENDS, DELTAS, COSINES, tails):
        yield {**DEFAULT, "blend": b, "delta": d, "cos": cos, "frac": f, "tail_w": tw}
    for b, w, sc, (f, tw) in itertools.product(BLENDS, prf_ws, (False, True), tails):
        yield {**DEFAULT, "blend": b, "prf_w": w, "prf_scaled": sc, "frac": f, "tail_w": tw}


FAMILIES = {
    "readable": ("readable",),
    "blend": ("blend",),
    "blend+pow": ("blend", "blend_pow"),
    "cut": ("cut",),
    "rank": ("rank_w", "cos"),
    "rank+gate": ("rank_w", "gate", "cos"),
    "max": ("delta", "cos"),
    "max+blend": ("delta", "cos", "blend"),
    "prf": ("prf_w", "prf_scaled"),
    "prf+blend": ("prf_w", "prf_scaled", "blend"),
    "tail": ("frac", "tail_w"),
    "readable+blend": ("readable", "blend"),
    "readable+blend+cut": ("readable", "blend", "cut"),
    "readable+blend+rank": ("readable", "blend", "rank_w", "cos"),
    "all": tuple(DEFAULT),
}


def _kind(name: str) -> str:
    return "drug" if name.startswith("Cohen_2006") else "other"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("data", type=Path)
    ap.add_argument("--cache", type=Path, default=Path("/tmp/zs-r3"))
    ap.add_argument("--cuts", type=float, nargs="+", default=list(CUTS))
    ap.add_argument("--readable", type=float, nargs="+", default=list(READABLE))
    ap.add_argument("--prf-weights", type=float, nargs="+", default=list(PRF_WS))
    ap.add_argument("--penalty", type=float, nargs="+", default=[0.0, 0.01, 0.02])
    ap.add_argument("--verbose", action="store_true", help="per review figures of each family's pick")
    ap.add_argument("--no-grid", action="store_true", help="only build the cache")
    args = ap.parse_args()
    comps = components(args.data, args.cache, args.cuts, args.readable, args.prf_weights)
    names = sorted(comps, key=lambda n: (_kind(n) != "drug", n))
    drug = np.array([_kind(n) == "drug" for n in names])
    points = list(grid(args.cuts, args.readable, args.prf_weights))
    if args.no_grid:
        return
    t0 = time.perf_counter()
    table = np.array([[wss(final_scores(comps[n], p), comps[n]["labels"]) for p in points] for n in names])
    onnx = np.array([wss(comps[n]["dense_onnx"], comps[n]["labels"]) for n in names])
    print(f"{len(names)} reviews x {len(points)} grid points in {time.perf_counter() - t0:.0f} s")
    j0 = next(j for j, p in enumerate(points) if p == DEFAULT)

    def line(label: str, v: np.ndarray) -> str:
        below = v < onnx - 1e-9
        return (f"{label:38s} equal-weight {(v[drug].mean() + v[~drug].mean()) / 2:.3f}, mean {v.mean():.3f}, "
                f"below {int(below.sum()):2d} | drug {v[drug].mean():.3f} / {int(below[drug].sum())}, other "
                f"{v[~drug].mean():.3f} / {int(below[~drug].sum())}")

    print(line("dense_onnx", onnx))
    print(line("today's defaults", table[:, j0]))
    for lam in args.penalty:
        for fam, knobs in FAMILIES.items():
            cols = [j for j, p in enumerate(points) if all(p[k] == DEFAULT[k] for k in DEFAULT if k not in knobs)]
            held, picks = [], []
            for i in range(len(names)):
                keep = np.arange(len(names)) != i
                t, d = table[keep][:, cols], drug[keep]
                obj = (t[d].mean(axis=0) + t[~d].mean(axis=0)) / 2
                obj = obj - lam * (t < onnx[keep][:, None] - 1e-9).sum(axis=0)
                j = cols[int(np.argmax(obj))]  # ties: the first in grid order
                held.append(table[i, j])
                picks.append({k: points[j][k] for k in knobs})
            print(line(f"LOO {fam}, penalty {lam:g}", np.array(held)))
            if args.verbose:
                for i, n in enumerate(names):
                    print(f"    {n:40s} onnx {onnx[i]:.3f} today {table[i, j0]:.3f} held-out {held[i]:.3f} {picks[i]}")
    d = drug
    obj = (table[d].mean(axis=0) + table[~d].mean(axis=0)) / 2
    below = (table < onnx[:, None] - 1e-9).sum(axis=0)
    print("in-sample, best equal-weight objective:")
    for j in np.argsort(-obj)[:10]:
        print(f"    {points[j]}: {obj[j]:.3f}, mean {table[:, j].mean():.3f}, below {int(below[j])}")
    print("in-sample, fewest below then best objective:")
    for j in np.lexsort((-obj, below))[:10]:
        print(f"    {points[j]}: {obj[j]:.3f}, mean {table[:, j].mean():.3f}, below {int(below[j])}")


if __name__ == "__main__":
    main()
