"""Where `--stop-at-recall`'s calls go, and what variants of the rule would spend, on the 18 shared reviews' scoring
orders (``scripts/stopping_sequences.py``) and on simulated binormal rankers. At every ask (before each batch after
the first, as the stage asks) it records the parts of :func:`~agentr_dagster.domain.recall_stopping.assess_recall`
at several settings (the sample test, the floor at several confidences, the decaying-rate model at several decay
and count levels and fit starts, a power-law rate model); every variant is then a combination of those parts, so
the replay is done once per order.

    python scripts/stopping_variants.py reviews /tmp/seqs --out /tmp/parts-reviews.json
    python scripts/stopping_variants.py simulate --runs 40 [--row I ...] --out /tmp/parts-sim.json
    python scripts/stopping_variants.py table /tmp/parts-reviews.json /tmp/parts-sim*.json [--show VARIANT ...]

The variants are named ``floorGAP@CONF+MODEL/COUNT`` (:func:`variants`): the floor's gap below the target and its
confidence; the model, ``expSHARE@DECAY`` (the shipped exponential rate fitted after the first SHARE of the
includes, its decay at the DECAY end of its interval; 0.5 is the fit itself) or ``pow[SHARE]@DECAY`` (a power-law
rate, on the whole order or after SHARE); COUNT the Poisson quantile of the count left. The shipped rule is
:data:`DEFAULT`. ``table`` picks leave-one-review-out among the variants the simulation allows."""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

import numpy as np

from agentr_dagster.domain.recall_stopping import (
    LOOK_SPLIT,
    decaying_rate_expected_left,
    includes_allowed_left,
    model_fit_start,
)
from agentr_dagster.stages.scoring.plan import batch_size_for

TARGET, CONFIDENCE = 0.95, 0.95
FLOOR_CONFS = (0.5, 0.6, 0.7, 0.8)
DECAY_CONFS = (0.5, 0.8, 0.9, 0.95)
COUNT_CONFS = (0.8, 0.9, 0.95)
TAIL_SHARES = (0.0, 1 / 3, 0.5)
SIM_ROWS = ((3000, 150, 0.0), (1000, 40, 0.0), (3000, 150, 1.0), (3000, 150, 2.0), (1000, 40, 2.0),
            (2000, 15, 2.0), (500, 40, 2.0), (3000, 150, 3.0), (2000, 15, 3.0), (1626, 9, 2.0))


def power_law_expected_left(seen: np.ndarray, total: int, decay_confidence: float | None, start: int = 0) -> float:
    """Includes expected among the unscreened under a rate ``a (1 + x)^-b`` fitted by maximum likelihood to the
    ranks screened (the power-law rate of Sneyd & Stevenson's Poisson-process stopping, EMNLP 2021), with ``b`` at
    the slow end of its profile-likelihood interval at ``decay_confidence`` (None: at its maximum). ``start``: fitted
    to the ranks from there on only (the rate is still in the absolute rank)."""
    from scipy.optimize import brentq, minimize_scalar
    from scipy.stats import chi2

    screened, found = len(seen), int(seen.sum())
    if screened >= total:
        return 0.0
    found = int(seen[start:].sum())
    if found == 0:
        return float(total - screened)
    log_ranks = float(np.log1p(np.flatnonzero(seen[start:]) + start + 0.5).sum())

    def integral(b: float, lo: float, hi: float) -> float:  # of (1 + x)^-b over [lo, hi]
        if abs(b - 1) < 1e-9:
            return math.log1p(hi) - math.log1p(lo)
        return ((1 + hi) ** (1 - b) - (1 + lo) ** (1 - b)) / (1 - b)

    def log_likelihood(b: float) -> float:
        return found * math.log(found / integral(b, start, screened)) - b * log_ranks - found

    lowest, highest = -1.0, 4.0
    fit = minimize_scalar(lambda b: -log_likelihood(b), bounds=(lowest, highest), method="bounded")
    decay, peak = float(fit.x), -float(fit.fun)
    if decay_confidence is not None:
        drop = chi2.ppf(decay_confidence, 1) / 2
        if peak - log_likelihood(lowest) <= drop:
            decay = lowest
        else:
            decay = brentq(lambda b: peak - log_likelihood(b) - drop, lowest, decay)
    left = found * integral(decay, screened, total) / integral(decay, start, screened)
    return min(float(total - screened), left)


_LOG_FACTORIAL = np.concatenate([[0.0], np.cumsum(np.log(np.arange(1, 200_001)))])


def _log_choose(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    ok = (b >= 0) & (b <= a)
    a, b = np.where(ok, a, 0), np.where(ok, b, 0)
    return np.where(ok, _LOG_FACTORIAL[a] - _LOG_FACTORIAL[b] - _LOG_FACTORIAL[a - b], -np.inf)


def fast_sample_left_upper(seen: np.ndarray, unscreened: int, alpha: float) -> int:
    """:func:`~agentr_dagster.domain.recall_stopping._sample_left_upper`'s count, with every window's
    hypergeometric tail summed in one array (scipy's per-call cost made the simulation 10x slower); checked equal
    to the domain's on the reviews (``check``)."""
    screened, found = len(seen), int(seen.sum())
    starts = np.append(np.flatnonzero(seen)[::-1] + 1, 0)
    sizes = (screened - starts)[None, :]  # windows along axis 1, k = 0 .. found
    ks = np.arange(found + 1)[None, :]
    js = np.arange(found + 1)[:, None]  # includes drawn, j <= k
    urns = sizes + unscreened

    def rejected(left: int) -> bool:
        big = ks + left
        logp = _log_choose(big, js) + _log_choose(urns - big, sizes - js) - _log_choose(urns, sizes)
        logp = np.where(js <= ks, logp, -np.inf)
        top = logp.max(axis=0)
        return bool(np.min(top + np.log(np.exp(logp - top).sum(axis=0))) < math.log(alpha))

    if not rejected(unscreened):
        return unscreened
    low, high = 0, unscreened
    while high - low > 1:
        mid = (low + high) // 2
        if rejected(mid):
            high = mid
        else:
            low = mid
    return low


def parts_at(seen: np.ndarray, total: int) -> dict:
    """Every part of the rule and its variants at one ask."""
    found, unscreened = int(seen.sum()), total - len(seen)
    out: dict = {"screened": len(seen), "found": found}
    if found == 0 or unscreened == 0:
        return out
    out["sample"] = fast_sample_left_upper(seen, unscreened, (1 - CONFIDENCE) / LOOK_SPLIT)
    for c in FLOOR_CONFS:
        out[f"floor{c}"] = fast_sample_left_upper(seen, unscreened, 1 - c)
    for share in TAIL_SHARES:
        start = model_fit_start(seen, share)
        for d in DECAY_CONFS:
            out[f"exp{share:.2f}@{d}"] = decaying_rate_expected_left(seen[start:], total - start, d)
    for d in (0.8, 0.95):
        out[f"pow@{d}"] = power_law_expected_left(seen, total, d)
    out.update(tail_power_parts(seen, total))
    return out


def tail_power_parts(seen: np.ndarray, total: int) -> dict:
    """The power-law rate fitted to the ranks after the first share of the includes (as the exponential is)."""
    out = {}
    for share in (1 / 3, 0.5):
        start = model_fit_start(seen, share)
        for d in (0.5, 0.8, 0.95):
            out[f"pow{share:.2f}@{d}"] = power_law_expected_left(seen, total, d, start)
    return out


def augment(items: list[dict]) -> None:
    """Adds the tail-fitted power-law parts to parts computed before they existed."""
    for item in items:
        y = np.asarray(item["labels"], dtype=np.int64)
        for part in item["parts"]:
            if "sample" in part:
                part.update(tail_power_parts(y[:part["screened"]], len(y)))


def sequence_parts(labels: np.ndarray, boundaries: list[int]) -> list[dict]:
    """The parts at each ask, until the default rule and the cheapest variant have both stopped (the ask after
    the default's stop is the last one any variant needs, for it is the most permissive one asked there)."""
    rows = []
    for end in boundaries[:-1]:
        part = parts_at(labels[:end], len(labels))
        rows.append(part)
        if "sample" in part and part["sample"] <= includes_allowed_left(part["found"], TARGET):
            break  # the sample test stops every variant here
    return rows


def variants() -> dict[str, dict]:
    """Each variant's settings; ``floor_gap`` None: no floor; ``floor_max_found``: the floor applies only while
    fewer includes are found."""
    out: dict[str, dict] = {}
    for gap in (0.10, 0.15, 0.20):
        for fc in FLOOR_CONFS:
            for share in TAIL_SHARES:
                for d in DECAY_CONFS:
                    for cc in COUNT_CONFS:
                        out[f"floor{gap:.2f}@{fc}+exp{share:.2f}@{d}/{cc}"] = {
                            "floor_gap": gap, "floor_conf": fc, "model": f"exp{share:.2f}@{d}", "count": cc}
            for model in ("pow@0.8", "pow@0.95") + tuple(f"pow{sh}@{d}" for sh in ("0.33", "0.50")
                                                          for d in (0.5, 0.8, 0.95)):
                for cc in COUNT_CONFS:
                    out[f"floor{gap:.2f}@{fc}+{model}/{cc}"] = {"floor_gap": gap, "floor_conf": fc,
                                                                "model": model, "count": cc}
    out["sample only"] = {"floor_gap": None, "model": None}
    out["no floor+exp0.50@0.95/0.95"] = {"floor_gap": None, "model": "exp0.50@0.95", "count": 0.95}
    return out


def stops(part: dict, total: int, v: dict) -> bool:
    from scipy.special import pdtr

    if "sample" not in part:
        return False
    found = part["found"]
    allowed = includes_allowed_left(found, TARGET)
    if part["sample"] <= allowed:
        return True
    if v["model"] is None:
        return False
    if v.get("floor_gap") is not None:
        floor = max(TARGET - v["floor_gap"], 0.5)
        if part[f"floor{v['floor_conf']}"] > includes_allowed_left(found, floor):
            return False
    # the Poisson quantile at ``count`` is <= allowed exactly when P(X <= allowed) >= count
    return total - part["screened"] <= allowed or float(pdtr(allowed, part[v["model"]])) >= v["count"]


def first_stop(parts: list[dict], total: int, v: dict) -> int:
    for part in parts:
        if stops(part, total, v):
            return part["screened"]
    return total


def simulate(runs: int, seed: int, rows: list[int] | None = None) -> list[dict]:
    out = []
    for index, (n, k, shift) in enumerate(SIM_ROWS):
        if rows and index not in rows:
            continue
        rng = np.random.default_rng([seed, index])
        size = batch_size_for(n, 4)
        boundaries = list(range(size, n, size)) + [n]
        for run in range(runs):
            scores = rng.normal(size=n)
            scores[:k] += shift
            labels = np.zeros(n, dtype=np.int64)
            labels[:k] = 1
            order = np.argsort(-scores, kind="stable") if shift else rng.permutation(n)
            y = labels[order]
            out.append({"row": f"{n} / {k}, " + (f"s = {shift:g}" if shift else "random"), "run": run,
                        "n": n, "includes": k, "labels": y.tolist(), "parts": sequence_parts(y, boundaries)})
        print(f"{n} / {k} s={shift}: {runs} runs", flush=True)
    return out


DEFAULT = "floor0.10@0.8+exp0.50@0.95/0.95"  # the rule shipped in round 4


def review_outcomes(reviews: list[dict], v: dict) -> list[tuple[float, float]]:
    """(recall at stop, share of the papers called) per review."""
    out = []
    for r in reviews:
        y = np.asarray(r["labels"])
        calls = first_stop(r["parts"], r["n"], v)
        out.append((float(y[:calls].sum() / y.sum()), calls / r["n"]))
    return out


def sim_rows(runs: list[dict], v: dict) -> dict[str, tuple[float, float, float, float]]:
    """Per simulated row: share of runs short of 0.95, share below 0.85, 5th percentile recall, mean calls."""
    by_row: dict[str, list[tuple[float, float]]] = {}
    for run in runs:
        y = np.asarray(run["labels"])
        calls = first_stop(run["parts"], run["n"], v)
        by_row.setdefault(run["row"], []).append((float(y[:calls].sum() / y.sum()), calls / run["n"]))
    return {row: (float(np.mean([r < TARGET - 1e-9 for r, _ in o])), float(np.mean([r < 0.85 - 1e-9 for r, _ in o])),
                  float(np.percentile([r for r, _ in o], 5)), float(np.mean([c for _, c in o])))
            for row, o in by_row.items()}


def sim_ok(rows: dict, base: dict, slack: float) -> bool:
    """No row short of 0.95 more than ``slack`` above today's, nor below 0.85 more than ``slack`` above today's,
    and no row below 0.85 where today has none."""
    return all(rows[k][0] <= base[k][0] + slack + 1e-9 and rows[k][1] <= base[k][1] + slack + 1e-9
               and (base[k][1] > 0 or rows[k][1] == 0) for k in base)


def reviews_ok(outcomes: list[tuple[float, float]], allow_short: int = 1) -> bool:
    recalls = [r for r, _ in outcomes]
    return sum(r < TARGET - 1e-9 for r in recalls) <= allow_short and min(recalls) >= 0.85 - 1e-9


def _recall_and_calls(rec: list[float], calls: list[float], drug: list[bool]) -> str:
    """Reviews at the target, the worst recall and the mean calls, drug and non-drug apart."""
    def mean_of(group: bool) -> float:
        return 100 * float(np.mean([c for c, d in zip(calls, drug, strict=True) if d == group]))
    return (f"{sum(x >= TARGET - 1e-9 for x in rec)}/{len(rec)} min {min(rec):.3f} calls "
            f"{100 * np.mean(calls):.1f} % (drug {mean_of(True):.1f}, non-drug {mean_of(False):.1f})")


def table(reviews: list[dict], runs: list[dict], slack: float, show: list[str]) -> None:
    vs = variants()
    drug = np.array([r["name"].startswith("Cohen_") for r in reviews])
    base_sim = sim_rows(runs, vs[DEFAULT])
    print("== where the calls go (target 0.95): clairvoyant / floor first passes / model alone (no floor) / "
          "sample alone / the default")
    floor_only = {"floor_gap": 0.10, "floor_conf": 0.8, "model": "exp0.50@0.95", "count": 0.0}
    cols = {"clairvoyant": None, "floor passes": floor_only, "model, no floor": vs["no floor+exp0.50@0.95/0.95"],
            "sample only": vs["sample only"], "default": vs[DEFAULT]}
    outs = {k: (None if v is None else review_outcomes(reviews, v)) for k, v in cols.items()}
    for i, r in enumerate(reviews):
        cells = [f"{100 * r['clairvoyant'] / r['n']:.1f} %" if k == "clairvoyant" else
                 f"{o[i][0]:.3f} / {100 * o[i][1]:.1f} %" for k, o in outs.items() for _ in [0]
                 if k == "clairvoyant" or o is not None]
        print(f"| {r['name']} | {r['n']} | {r['includes']} | " + " | ".join(cells) + " |")
    for label, mask in (("non-drug", ~drug), ("drug", drug), ("all", np.ones_like(drug))):
        cells = []
        for _k, o in outs.items():
            if o is None:
                shares = [r["clairvoyant"] / r["n"] for r, m in zip(reviews, mask, strict=True) if m]
                cells.append(f"{100 * np.mean(shares):.1f} %")
            else:
                sel = [x for x, m in zip(o, mask, strict=True) if m]
                cells.append(f"min {min(x[0] for x in sel):.3f} / {100 * np.mean([x[1] for x in sel]):.1f} %")
        print(f"| **{label}** | | | " + " | ".join(cells) + " |")

    print(f"\n== variants (sim slack {slack:.2f}); today: "
          + "; ".join(f"{k}: {v[0]:.2f}/{v[1]:.2f}/{v[2]:.3f}/{100 * v[3]:.1f}%" for k, v in base_sim.items()))
    results = []
    for name, v in vs.items():
        o = review_outcomes(reviews, v)
        rows = sim_rows(runs, v)
        results.append((name, o, rows, sim_ok(rows, base_sim, slack)))
    results.sort(key=lambda x: np.mean([c for _, c in x[1]]))
    for name, o, rows, ok in results:
        if not ok and name not in show:
            continue
        rec = [x[0] for x in o]
        calls = [x[1] for x in o]
        print(f"{name:42} sim {'ok ' if ok else 'BAD'} reviews {_recall_and_calls(rec, calls, drug)}")
        if name in show:
            for row, val in rows.items():
                print(f"     {row:22} short {100 * val[0]:.0f} % below0.85 {100 * val[1]:.0f} % p5 {val[2]:.3f} "
                      f"calls {100 * val[3]:.1f} % (today {100 * base_sim[row][0]:.0f} / {100 * base_sim[row][1]:.0f}"
                      f" / {100 * base_sim[row][3]:.1f} %)")
            for r, x in zip(reviews, o, strict=True):
                print(f"     {r['name']:40} {x[0]:.3f} / {100 * x[1]:.1f} %")

    # leave one review out: among the variants the simulation allows, the fewest calls on the 17 held in with
    # at most one of them short of 0.95 and none below 0.85
    allowed = [(name, o) for name, o, _, ok in results if ok]
    picks, held_out = held_out_picks(allowed, len(reviews), lambda held_in: reviews_ok(held_in, 0))
    rec = [x[0] for x in held_out]
    calls = [x[1] for x in held_out]
    print(f"\n== leave one review out (held in: all >= 0.95): held-out recall >= 0.95 on "
          f"{_recall_and_calls(rec, calls, drug)}")
    print_picks(reviews, picks, held_out)


def held_out_picks(allowed: list, n_reviews: int, held_in_ok) -> tuple[list[str], list[tuple[float, float]]]:
    """Leave one review out: for each review, the allowed variant with the fewest mean calls on the others among
    those whose held-in outcomes pass ``held_in_ok``; its name and the held-out review's (recall, calls)."""
    picks, held_out = [], []
    for i in range(n_reviews):
        fine = [(name, o) for name, o in allowed if held_in_ok([x for j, x in enumerate(o) if j != i])]
        best = min(fine, key=lambda t: float(np.mean([x[1] for j, x in enumerate(t[1]) if j != i])))
        picks.append(best[0])
        held_out.append(best[1][i])
    return picks, held_out


def print_picks(reviews: list[dict], picks: list[str], held_out: list[tuple[float, float]]) -> None:
    for r, pick, x in zip(reviews, picks, held_out, strict=True):
        print(f"     {r['name']:40} {pick:44} {x[0]:.3f} / {100 * x[1]:.1f} %")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("reviews")
    r.add_argument("sequences", type=Path)
    r.add_argument("--out", type=Path, required=True)
    s = sub.add_parser("simulate")
    s.add_argument("--runs", type=int, default=30)
    s.add_argument("--seed", type=int, default=20261206)
    s.add_argument("--row", type=int, action="append", default=None, help="indices into SIM_ROWS (default all)")
    s.add_argument("--out", type=Path, required=True)
    a = sub.add_parser("augment")
    a.add_argument("parts", type=Path, nargs="+")
    t = sub.add_parser("table")
    t.add_argument("reviews", type=Path)
    t.add_argument("sim", type=Path, nargs="+")
    t.add_argument("--slack", type=float, default=0.05)
    t.add_argument("--show", action="append", default=[])
    args = parser.parse_args()
    if args.cmd == "reviews":
        out = []
        for path in sorted(args.sequences.glob("*.json")):
            seq = json.loads(path.read_text(encoding="utf-8"))
            y = np.asarray(seq["labels"], dtype=np.int64)
            reached = np.cumsum(y) >= TARGET * y.sum() - 1e-9
            clair = next((e for e in seq["boundaries"] if reached[e - 1]), len(y))
            out.append({"name": seq["name"], "n": len(y), "includes": int(y.sum()), "labels": y.tolist(),
                        "clairvoyant": clair, "parts": sequence_parts(y, seq["boundaries"])})
            print(seq["name"], flush=True)
        args.out.write_text(json.dumps(out), encoding="utf-8")
    elif args.cmd == "simulate":
        args.out.write_text(json.dumps(simulate(args.runs, args.seed, args.row)), encoding="utf-8")
    elif args.cmd == "augment":
        for path in args.parts:
            items = json.loads(path.read_text(encoding="utf-8"))
            augment(items)
            path.write_text(json.dumps(items), encoding="utf-8")
    else:
        runs = [run for path in args.sim for run in json.loads(path.read_text(encoding="utf-8"))]
        table(json.loads(args.reviews.read_text(encoding="utf-8")), runs, args.slack, [DEFAULT] + args.show)


if __name__ == "__main__":
    main()
