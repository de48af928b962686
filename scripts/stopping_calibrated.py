"""A score-calibrated count of the includes left, as a candidate `--stop-at-recall` rule (issue 33, round 6 of
docs/stopping.md), replayed on the 18 shared reviews' scoring orders and on simulated binormal rankers.

The queue orders the papers by the ranker's scores. Each screened paper had a score when it was picked (from the
ranking before its batch, which had not seen its label): a logistic fit of its label on that score calibrates the
scores, and the unscreened papers' current scores then give an expected number of includes left. Its upper bound:
the largest expected count any (intercept, slope) within the fit's profile-likelihood region allows (at
``CONF``), then the ``COUNT`` quantile of the Poisson with that mean (a Poisson-binomial count is never more
spread than that Poisson). The rule stops when ``found / (found + bound) >= target``. A ranker whose scores say
little (a slope near 0 within the region) gives the flat rate of the screened papers for every unscreened one: it
keeps going.

    nice -n 10 python scripts/stopping_sequences.py /work/shared/data/screening --out /tmp/seqs --scores
    python scripts/stopping_calibrated.py reviews /tmp/seqs --out /tmp/cal-reviews.json
    python scripts/stopping_calibrated.py simulate --runs 40 [--row I ...] --out /tmp/cal-sim.json
    python scripts/stopping_calibrated.py table /tmp/cal-reviews.json /tmp/cal-sim*.json [--show VARIANT ...]

Variants (:func:`variants`) are named ``FLOOR+MODEL/COUNT``: FLOOR ``floorGAP`` (the sample test alone at 80 %
must show target - GAP first) or ``nofloor``; MODEL ``cal[tail]@CONF`` (the calibrated count fitted on every
screened paper's pick-time score, or on those picked after the first half of the includes, its region at CONF;
``fit`` the fit itself) or ``calnow@CONF`` (fitted on the screened papers' scores under the current ranking, which
was trained on their labels: in-sample, so optimistic on a re-ranked order; on the simulation's static ranker it
is ``cal``), combined with today's decaying-rate model as ``either`` (stop when either bound is met) or ``both``.
:data:`~scripts.stopping_variants.DEFAULT` (today's rule) is ``floor0.10+exp/0.95``.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from stopping_variants import SIM_ROWS, fast_sample_left_upper, held_out_picks, print_picks  # noqa: E402

from agentr_dagster.domain.recall_stopping import (  # noqa: E402
    LOOK_SPLIT,
    decaying_rate_expected_left,
    includes_allowed_left,
    model_fit_start,
)
from agentr_dagster.stages.scoring.plan import batch_size_for  # noqa: E402

TARGET, CONFIDENCE, FLOOR_CONF = 0.95, 0.95, 0.8
CAL_CONFS = (None, 0.8, 0.9, 0.95, 0.99)  # None: the fit itself
COUNT_CONFS = (0.8, 0.9, 0.95)
FLOOR_GAPS = (0.10, 0.15, 0.20)
SLOPES = np.linspace(-2.0, 12.0, 71)  # the logistic slope per z-unit, profiled on this grid
BIN = 0.05  # scores are binned to this width (z-units) so that each ask costs the same on any review
# Besides round 5's ten rows (stopping_variants.SIM_ROWS, same seeds, same draws): includes more spread than
# excludes (their sd 1.5), where the label's log-odds are not linear in the score and a logistic calibration
# is wrong in the tail, the way a real ranker's may be.
EXTRA_ROWS = ((3000, 150, 2.0, 1.5), (1000, 40, 2.0, 1.5), (1626, 9, 2.0, 1.5))


def _binned(x: np.ndarray, weights: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Unique binned values and the (weighted) count in each."""
    keys = np.round(np.asarray(x, dtype=np.float64) / BIN).astype(np.int64)
    uniq, inv = np.unique(keys, return_inverse=True)
    counts = np.bincount(inv, weights=weights, minlength=len(uniq))
    return uniq * BIN, counts


def _log_lik(a: np.ndarray, b: np.ndarray, x: np.ndarray, n: np.ndarray, k: np.ndarray) -> np.ndarray:
    """The binomial log-likelihood of intercepts ``a`` and slopes ``b`` (one per row) on bins ``x`` with ``n``
    papers and ``k`` includes."""
    eta = a[:, None] + b[:, None] * x[None, :]
    return (k[None, :] * eta - n[None, :] * np.logaddexp(0.0, eta)).sum(axis=1)


def _probs(a: np.ndarray, b: np.ndarray, x: np.ndarray) -> np.ndarray:
    return 1 / (1 + np.exp(-np.clip(a[:, None] + b[:, None] * x[None, :], -60, 60)))


def _intercepts(b: np.ndarray, x: np.ndarray, n: np.ndarray, k: np.ndarray, drops: tuple[float, ...]):
    """For each slope in ``b``: the intercept that maximises the likelihood and its log-likelihood, then for each
    ``drop`` the largest intercept whose log-likelihood is within ``drop`` of the best over all slopes (Newton's
    method; the log-likelihood is concave in the intercept, so from the right it converges without overshooting)."""
    a = np.full(len(b), math.log((k.sum() + 0.5) / (n.sum() - k.sum() + 0.5))) - b * float(x @ n / n.sum())
    for _ in range(30):
        p = _probs(a, b, x)
        grad, info = (k[None, :] - n[None, :] * p).sum(axis=1), (n[None, :] * p * (1 - p)).sum(axis=1)
        a = a + np.clip(grad / np.maximum(info, 1e-12), -5, 5)
    ll = _log_lik(a, b, x, n, k)
    peak = float(ll.max())
    uppers = []
    for drop in drops:
        up = a + 40.0  # far right of the root: the log-likelihood there is below the threshold
        for _ in range(40):
            p = _probs(up, b, x)
            g = _log_lik(up, b, x, n, k) - (peak - drop)
            slope = (k[None, :] - n[None, :] * p).sum(axis=1)  # negative right of the maximum
            step = np.where(slope < -1e-12, g / np.minimum(slope, -1e-12), 0.0)
            up = np.maximum(up - step, a)
        uppers.append(up)
    return a, ll, peak, uppers


def calibrated_expected_left(pick_scores, labels, left_scores, confidences: tuple[float | None, ...]) -> list:
    """Includes expected among the unscreened papers (their scores ``left_scores``) under a logistic calibration
    of ``labels`` on ``pick_scores`` (the screened papers' scores when picked), for each confidence the largest
    the fit's profile-likelihood region at that confidence allows (None: at the fit). The slope is profiled on
    :data:`SLOPES`."""
    from scipy.stats import chi2

    y = np.asarray(labels, dtype=np.float64)
    if len(y) == 0 or y.sum() == 0:
        return [float(len(left_scores))] * len(confidences)
    x, n = _binned(pick_scores)
    _, k = _binned(pick_scores, y)
    xl, nl = _binned(left_scores)
    drops = tuple(chi2.ppf(c, 1) / 2 for c in confidences if c is not None)
    a_hat, ll, peak, uppers = _intercepts(SLOPES, x, n, k, drops)
    out, i = [], 0
    for c in confidences:
        if c is None:
            ok, a_use = ll >= peak - 1e-9, a_hat
        else:
            ok, a_use = ll >= peak - drops[i], uppers[i]
            i += 1
        expected = (nl[None, :] * _probs(a_use, SLOPES, xl)).sum(axis=1)
        out.append(float(min(expected[ok].max(), float(len(left_scores)))))
    return out


def cal_parts(labels: np.ndarray, picked: np.ndarray, current: np.ndarray, left: np.ndarray, first: int) -> dict:
    """The calibrated parts at one ask: ``labels`` and ``picked`` (pick-time scores) of the screened papers from
    ``first`` on (those picked by a re-ranked queue), ``current`` their scores under the ranking that picks next
    (trained on their labels: in-sample), ``left`` the unscreened papers' scores under it."""
    out = {}
    tail = max(first, model_fit_start(labels, 0.5))
    for name, scores, start in (("cal", picked, first), ("caltail", picked, tail), ("calnow", current, 0)):
        values = calibrated_expected_left(scores[start:], labels[start:], left, CAL_CONFS)
        for c, value in zip(CAL_CONFS, values, strict=True):
            out[f"{name}@{c or 'fit'}"] = value
    return out


def parts_at(labels: np.ndarray, total: int, picked: np.ndarray, scores_now: tuple[np.ndarray, np.ndarray],
             first: int) -> dict:
    """Today's parts (the sample test, its floor at 80 %, the decaying-rate model) and the calibrated ones."""
    found, unscreened = int(labels.sum()), total - len(labels)
    out: dict = {"screened": len(labels), "found": found}
    if found == 0 or unscreened == 0:
        return out
    out["sample"] = fast_sample_left_upper(labels, unscreened, (1 - CONFIDENCE) / LOOK_SPLIT)
    out["floor"] = fast_sample_left_upper(labels, unscreened, 1 - FLOOR_CONF)
    start = model_fit_start(labels, 0.5)
    out["exp"] = decaying_rate_expected_left(labels[start:], total - start, 0.95)
    out.update(cal_parts(labels, picked, scores_now[0], scores_now[1], first))
    return out


def sequence_parts(labels: np.ndarray, boundaries: list[int], picked: np.ndarray, left_at, first: int) -> list:
    """The parts at each ask (before each batch after the first), until the sample test alone stops.
    ``picked``: every paper's pick-time score in scoring order; ``left_at(end)``: the screened and the unscreened
    papers' scores under the ranking at the ask after ``end`` papers; ``first``: the first position picked by a
    re-ranked queue."""
    rows = []
    for end in boundaries[:-1]:
        part = parts_at(labels[:end], len(labels), picked[:end], left_at(end), first)
        rows.append(part)
        if "sample" in part and part["sample"] <= includes_allowed_left(part["found"], TARGET):
            break
    return rows


def review_parts(seq: dict, scores: dict) -> dict:
    y = np.asarray(seq["labels"], dtype=np.int64)
    order, z = scores["order"], scores["z"]
    bounds = seq["boundaries"]
    batch_of = np.searchsorted(np.asarray(bounds), np.arange(len(y)), side="right")  # batch index per position
    picked = z[batch_of, order].astype(np.float64)

    def left_at(end: int) -> tuple[np.ndarray, np.ndarray]:
        b = bounds.index(end) + 1  # the ranking that picks the next batch
        return z[b, order[:end]].astype(np.float64), z[b, order[end:]].astype(np.float64)

    reached = np.cumsum(y) >= TARGET * y.sum() - 1e-9
    clair = next((e for e in bounds if reached[e - 1]), len(y))
    return {"name": seq["name"], "n": len(y), "includes": int(y.sum()), "labels": y.tolist(), "clairvoyant": clair,
            "parts": sequence_parts(y, bounds, picked, left_at, first=bounds[0])}


def simulate(runs: int, seed: int, rows: list[int] | None) -> list[dict]:
    """Round 5's rows (the same draws: the same seeds and calls) and :data:`EXTRA_ROWS`; a static ranker, so a
    paper's pick-time score is its score. Random rows: the order's own scores are the normal draws sorted."""
    out = []
    all_rows = [(n, k, s, 1.0) for n, k, s in SIM_ROWS] + list(EXTRA_ROWS)
    for index, (n, k, shift, spread) in enumerate(all_rows):
        if rows and index not in rows:
            continue
        rng = np.random.default_rng([seed, index])
        size = batch_size_for(n, 4)
        boundaries = list(range(size, n, size)) + [n]
        for run in range(runs):
            scores = rng.normal(size=n)
            scores[:k] = scores[:k] * spread + shift
            labels = np.zeros(n, dtype=np.int64)
            labels[:k] = 1
            if shift:
                order = np.argsort(-scores, kind="stable")
                ordered = scores[order]
            else:
                order = rng.permutation(n)
                ordered = np.sort(scores)[::-1]
            z = (ordered - ordered.mean()) / ordered.std()
            y = labels[order]
            name = f"{n} / {k}, " + (f"s = {shift:g}" if shift else "random") + (f", sd {spread:g}"
                                                                                 if spread != 1 else "")
            out.append({"row": name, "run": run, "n": n, "includes": k, "labels": y.tolist(),
                        "parts": sequence_parts(y, boundaries, z, lambda end, z=z: (z[:end], z[end:]), first=0)})
        print(f"{n} / {k} s={shift} sd={spread}: {runs} runs", flush=True)
    return out


def variants() -> dict[str, dict]:
    out: dict[str, dict] = {"floor0.10+exp/0.95": {"floor": 0.10, "exp": True, "cal": None, "count": 0.95,
                                                  "combine": "exp"}}
    for floor in FLOOR_GAPS + (None,):
        fname = "nofloor" if floor is None else f"floor{floor:.2f}"
        for data in ("cal", "caltail", "calnow"):
            for c in CAL_CONFS:
                for cc in COUNT_CONFS:
                    for combine in ("alone", "either", "both"):
                        model = f"{data}@{c or 'fit'}"
                        label = model if combine == "alone" else f"{combine}(exp, {model})"
                        out[f"{fname}+{label}/{cc}"] = {"floor": floor, "cal": model, "count": cc,
                                                        "combine": combine}
    return out


DEFAULT = "floor0.10+exp/0.95"


def stops(part: dict, total: int, v: dict) -> bool:
    from scipy.special import pdtr

    if "sample" not in part:
        return False
    found = part["found"]
    allowed = includes_allowed_left(found, TARGET)
    if part["sample"] <= allowed:
        return True
    if v["floor"] is not None and part["floor"] > includes_allowed_left(found, max(TARGET - v["floor"], 0.5)):
        return False
    if total - part["screened"] <= allowed:
        return True

    def met(key: str, count: float) -> bool:  # the Poisson quantile at ``count`` is <= allowed
        return float(pdtr(allowed, part[key])) >= count

    exp_ok = met("exp", 0.95)  # today's model, as shipped
    if v["combine"] == "exp":
        return exp_ok
    key = v["cal"]
    if key not in part:  # parts simulated before calnow existed: on a static ranker it is cal
        key = key.replace("calnow", "cal")
    cal_ok = met(key, v["count"])
    return {"alone": cal_ok, "either": cal_ok or exp_ok, "both": cal_ok and exp_ok}[v["combine"]]


def outcomes(items: list[dict], v: dict) -> list[tuple[float, float]]:
    out = []
    for it in items:
        y = np.asarray(it["labels"])
        calls = next((p["screened"] for p in it["parts"] if stops(p, it["n"], v)), it["n"])
        out.append((float(y[:calls].sum() / y.sum()), calls / it["n"]))
    return out


def sim_rows(runs: list[dict], v: dict) -> dict[str, tuple[float, float, float, float]]:
    """Per row: share of runs short of 0.95, share below 0.85, 5th percentile recall, mean calls."""
    by_row: dict[str, list[tuple[float, float]]] = {}
    for run, o in zip(runs, outcomes(runs, v), strict=True):
        by_row.setdefault(run["row"], []).append(o)
    return {row: (float(np.mean([r < TARGET - 1e-9 for r, _ in o])), float(np.mean([r < 0.85 - 1e-9 for r, _ in o])),
                  float(np.percentile([r for r, _ in o], 5)), float(np.mean([c for _, c in o])))
            for row, o in by_row.items()}


def sim_ok(rows: dict, base: dict, slack: float) -> bool:
    """As round 5: no row short of 0.95 (or below 0.85) more than ``slack`` above today's, and none below 0.85
    where today has none."""
    return all(rows[k][0] <= base[k][0] + slack + 1e-9 and rows[k][1] <= base[k][1] + slack + 1e-9
               and (base[k][1] > 0 or rows[k][1] == 0) for k in base)


def _summary(o: list[tuple[float, float]], drug: np.ndarray) -> str:
    rec, calls = np.array([r for r, _ in o]), np.array([c for _, c in o])
    return (f"{int((rec >= TARGET - 1e-9).sum())}/{len(rec)} min {rec.min():.3f} calls {100 * calls.mean():.1f} % "
            f"(drug {100 * calls[drug].mean():.1f}, non-drug {100 * calls[~drug].mean():.1f})")


def table(reviews: list[dict], runs: list[dict], slack: float, show: list[str], exclude: list[str]) -> None:
    vs = {name: v for name, v in variants().items() if not any(word in name for word in exclude)}
    drug = np.array([r["name"].startswith("Cohen_") for r in reviews])
    base_sim = sim_rows(runs, vs[DEFAULT])
    print("today (" + DEFAULT + "): " + _summary(outcomes(reviews, vs[DEFAULT]), drug))
    for row, val in base_sim.items():
        print(f"   {row:26} short {100 * val[0]:.0f} % below0.85 {100 * val[1]:.0f} % p5 {val[2]:.3f} "
              f"calls {100 * val[3]:.1f} %")
    results = []
    for name, v in vs.items():
        o = outcomes(reviews, v)
        rows = sim_rows(runs, v)
        results.append((name, o, rows, sim_ok(rows, base_sim, slack)))
    results.sort(key=lambda t: float(np.mean([c for _, c in t[1]])))
    print(f"\n== variants, cheapest first (sim slack {slack:.2f}; 'BAD' shown only when asked or cheaper than today)")
    today_calls = float(np.mean([c for _, c in outcomes(reviews, vs[DEFAULT])]))
    for name, o, rows, ok in results:
        cheaper = float(np.mean([c for _, c in o])) < today_calls
        if not (ok or name in show or cheaper):
            continue
        cells = " ".join(f"{100 * val[0]:.0f}/{100 * val[1]:.0f}" for val in rows.values())
        print(f"{name:44} sim {'ok ' if ok else 'BAD'} {_summary(o, drug)} | {cells}")
        if name in show:
            for row, val in rows.items():
                b = base_sim[row]
                print(f"     {row:26} short {100 * val[0]:.0f} % below0.85 {100 * val[1]:.0f} % p5 {val[2]:.3f} "
                      f"calls {100 * val[3]:.1f} % (today {100 * b[0]:.0f} / {100 * b[1]:.0f} / {100 * b[3]:.1f} %)")
            for r, x in zip(reviews, o, strict=True):
                print(f"     {r['name']:40} {x[0]:.3f} / {100 * x[1]:.1f} %  (clairvoyant "
                      f"{100 * r['clairvoyant'] / r['n']:.1f} %)")
    allowed = [(name, o) for name, o, _, ok in results if ok]
    picks, held_out = held_out_picks(allowed, len(reviews),
                                     lambda held_in: all(x[0] >= TARGET - 1e-9 for x in held_in))
    print(f"\n== leave one review out (among sim-ok variants, fewest calls with every held-in review >= 0.95): "
          f"held out {_summary(held_out, drug)}")
    print_picks(reviews, picks, held_out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("reviews")
    r.add_argument("sequences", type=Path)
    r.add_argument("--out", type=Path, required=True)
    s = sub.add_parser("simulate")
    s.add_argument("--runs", type=int, default=40)
    s.add_argument("--seed", type=int, default=20261206)
    s.add_argument("--row", type=int, action="append", default=None,
                   help="indices into stopping_variants.SIM_ROWS, then EXTRA_ROWS (default all)")
    s.add_argument("--out", type=Path, required=True)
    t = sub.add_parser("table")
    t.add_argument("reviews", type=Path)
    t.add_argument("sim", type=Path, nargs="+")
    t.add_argument("--slack", type=float, default=0.05)
    t.add_argument("--show", action="append", default=[])
    t.add_argument("--exclude", action="append", default=[], help="leave out variants whose name holds this")
    args = parser.parse_args()
    if args.cmd == "reviews":
        out = []
        for path in sorted(args.sequences.glob("*.json")):
            seq = json.loads(path.read_text(encoding="utf-8"))
            with np.load(path.with_suffix(".scores.npz")) as npz:
                out.append(review_parts(seq, {"order": npz["order"], "z": npz["z"]}))
            print(seq["name"], flush=True)
        args.out.write_text(json.dumps(out), encoding="utf-8")
    elif args.cmd == "simulate":
        args.out.write_text(json.dumps(simulate(args.runs, args.seed, args.row)), encoding="utf-8")
    else:
        runs = [run for path in args.sim for run in json.loads(path.read_text(encoding="utf-8"))]
        table(json.loads(args.reviews.read_text(encoding="utf-8")), runs, args.slack, [DEFAULT] + args.show,
              args.exclude)


if __name__ == "__main__":
    main()
