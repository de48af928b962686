"""Replay `--stop-at-recall` on the scoring orders ``scripts/stopping_sequences.py`` wrote: the rule is evaluated
where the scoring stage evaluates it (before every batch after the first), and the figures are those of
`agentr bench pipeline --oracle`: recall at stop and the share of the papers called, per review, Cohen drug
reviews apart from the rest: the default rule (``model_and_floor``: the sample test, or the decaying-rate model
above the sample's floor) and the sample test alone (``hypergeometric``). Beside them: the same test with every
ask at the full confidence (``unsplit``, the rule before
:data:`~agentr_dagster.domain.recall_stopping.LOOK_SPLIT`), the rule it replaced (the point-process bound at
99 %), the clairvoyant stop (the first batch holding the target share of the includes) and the sample test's
floor: its calls on the same review with a perfect ranker (every include first), the least its promise costs
with any ranker.

    python scripts/stopping_eval.py .bench/stopping-sequences [--target 0.95] [--confidence 0.95]

Nothing is fitted to a review: the rule's constants are the target, the confidence, the look split (set on
simulated random orders) and the model's floor (set on simulated binormal rankers; docs/stopping.md), so there is
nothing to hold out (leave-one-review-out is the same as all-in)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from agentr_dagster.domain.recall_stopping import DEFAULT_CONFIDENCE, assess_recall
from agentr_dagster.screening.stopping import PointProcessStop


def replay(labels: np.ndarray, boundaries: list[int], stop) -> int:
    """Papers scored when ``stop(seen)`` first says stop at a batch boundary (every paper when it never does)."""
    for end in boundaries[:-1]:
        if stop(labels[:end]):
            return end
    return len(labels)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sequences", type=Path)
    parser.add_argument("--target", type=float, default=0.95)
    parser.add_argument("--confidence", type=float, default=DEFAULT_CONFIDENCE)
    args = parser.parse_args()
    def make_rule(y):  # the sample test alone (AGENTR_STOP_MODEL=0)
        return lambda seen: assess_recall(seen, len(y), args.target, args.confidence, model=False).stop

    def with_model(y):  # the default: the decaying-rate model may stop sooner, above the sample's floor
        return lambda seen: assess_recall(seen, len(y), args.target, args.confidence).stop

    def unsplit(y):  # the rule before the look split: every ask at the full confidence
        return lambda seen: assess_recall(seen, len(y), args.target, args.confidence, look_split=1,
                                          model=False).stop

    rules = {"hypergeometric": make_rule, "hypergeometric_unsplit": unsplit,
             "point_process": lambda y: (lambda seen: PointProcessStop(args.target)(seen, y)),
             "model_and_floor": with_model}
    rows = []
    for path in sorted(args.sequences.glob("*.json")):
        seq = json.loads(path.read_text(encoding="utf-8"))
        y = np.asarray(seq["labels"], dtype=np.int64)
        row = {"name": seq["name"], "n": len(y), "includes": int(y.sum()), "drug": seq["name"].startswith("Cohen_")}
        for rule, make in rules.items():
            calls = replay(y, seq["boundaries"], make(y))
            row[rule] = (round(float(y[:calls].sum() / y.sum()), 4), round(calls / len(y), 4))
        # the least a rule could spend: the batch boundary where the target is first reached (it cannot know it)
        reached = np.cumsum(y) >= args.target * y.sum() - 1e-9
        row["clairvoyant"] = next((end for end in seq["boundaries"] if reached[end - 1]), len(y)) / len(y)
        # the least *this* rule could spend with any ranker: every include first, the same batches. A test that
        # must hold for a random order has to see a run of excludes covering most of what is left, however good
        # the order; this is that cost, the floor under the rule's calls.
        perfect = np.sort(y)[::-1]
        row["perfect"] = replay(perfect, seq["boundaries"], make_rule(perfect)) / len(y)
        rows.append(row)
    print(f"target {args.target}, confidence {args.confidence}: recall at stop / share of papers called")
    print(f"{'review':40}{'n':>6}{'incl':>6}   {'hypergeometric':>18}   {'unsplit':>18}   {'point process 0.99':>20}"
          f"   {'model + floor':>18}   {'clairvoyant':>11}   {'perfect ranker':>14}")
    for group, drug in (("non-drug", False), ("Cohen drug", True)):
        part = [r for r in rows if r["drug"] == drug]
        for r in part:
            h, u, p = r["hypergeometric"], r["hypergeometric_unsplit"], r["point_process"]
            m = r["model_and_floor"]
            print(f"{r['name']:40}{r['n']:>6}{r['includes']:>6}   {h[0]:>8.3f} {100 * h[1]:>8.1f} %   "
                  f"{u[0]:>8.3f} {100 * u[1]:>8.1f} %   "
                  f"{p[0]:>9.3f} {100 * p[1]:>8.1f} %   {m[0]:>8.3f} {100 * m[1]:>8.1f} %   "
                  f"{100 * r['clairvoyant']:>9.1f} %"
                  f"   {100 * r['perfect']:>12.1f} %")
        if part:
            for rule in rules:
                rec = [r[rule][0] for r in part]
                share = [r[rule][1] for r in part]
                print(f"  {group} {rule}: mean recall {np.mean(rec):.3f}, min {min(rec):.3f}, "
                      f">= {args.target} on {sum(v >= args.target - 1e-9 for v in rec)} of {len(rec)}, "
                      f"mean calls {100 * np.mean(share):.1f} %")
            print(f"  {group} clairvoyant (stops at the first batch reaching the target): mean calls "
                  f"{100 * np.mean([r['clairvoyant'] for r in part]):.1f} %")
            print(f"  {group} hypergeometric with a perfect ranker (every include first): mean calls "
                  f"{100 * np.mean([r['perfect'] for r in part]):.1f} %")
    print(f"all clairvoyant: mean calls {100 * np.mean([r['clairvoyant'] for r in rows]):.1f} %")
    print(f"all hypergeometric with a perfect ranker: mean calls {100 * np.mean([r['perfect'] for r in rows]):.1f} %")
    for rule in rules:
        rec = [r[rule][0] for r in rows]
        share = [r[rule][1] for r in rows]
        print(f"all {rule}: mean recall {np.mean(rec):.3f}, min {min(rec):.3f}, "
              f">= {args.target} on {sum(v >= args.target - 1e-9 for v in rec)} of {len(rec)}, "
              f"mean calls {100 * np.mean(share):.1f} %")


if __name__ == "__main__":
    main()
