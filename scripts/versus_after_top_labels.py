"""What the re-rank's "versus zero-shot" report says after k labels from the top of the zero-shot list, per review,
beside what actually happened to the includes left to find.

    AGENTR_HOME=/tmp/vs-home .venv/bin/python scripts/versus_after_top_labels.py /work/shared/data/screening \
        --json /tmp/vs.json

For each review and k (default 10 and 25): the k best records of the preset's (``--preset``) zero-shot order are
labelled with their true labels (as a person starting from the top of the list, issue 33), its learner re-scores,
and :func:`~agentr_dagster.screening.versus.compare_with_zero_shot` compares the two orders on the unlabelled
records as ``screen`` does. Beside it: the unlabelled includes in the learned top K and in the zero-shot top K (the
figure issue 33 quotes) and whether the caution fired. Each review's rows are written to the JSON file as soon as
they exist; a re-run skips the reviews already there. Nothing is tuned here.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from agentr_dagster.bench.screening import discover_reviews, load_review
from agentr_dagster.screening.presets import Preset, get_preset
from agentr_dagster.screening.scores import order_from_scores
from agentr_dagster.screening.screen import zero_shot_inputs
from agentr_dagster.screening.versus import compare_with_zero_shot


def review_rows(folder: Path, ks: list[int], preset: Preset) -> list[dict]:
    rv = load_review(folder)
    feats, zero = zero_shot_inputs(preset, rv.question, rv.titles, rv.abstracts)
    y = rv.labels.astype(np.int64)
    top = order_from_scores(zero)
    rows = []
    for k in ks:
        labeled = top[:k]
        lab = np.full(len(y), -1)
        lab[labeled] = y[labeled]
        learner = preset.learner(feats, zero)
        learned = learner.scores(labeled, y[labeled])
        versus = compare_with_zero_shot(learned, zero, lab, getattr(learner, "last_prior_weight", None))
        free = np.flatnonzero(lab < 0)
        found = {name: int(y[free[order_from_scores(s[free])[:versus.top_k]]].sum())
                 for name, s in (("learned", learned), ("zero_shot", zero))}
        rows.append({"review": rv.name, "k": k, **versus.as_dict(), "caution": versus.caution,
                     "includes_left": int(y[free].sum()), "includes_in_top_learned": found["learned"],
                     "includes_in_top_zero_shot": found["zero_shot"]})
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data", type=Path)
    parser.add_argument("--k", type=int, nargs="+", default=[10, 25])
    parser.add_argument("--preset", default="default", help="default, or classic: the learner without the prior")
    parser.add_argument("--json", type=Path, required=True)
    args = parser.parse_args()
    done: list[dict] = json.loads(args.json.read_text()) if args.json.is_file() else []
    for folder in sorted(discover_reviews(args.data), key=lambda p: len(p.joinpath("papers.csv").read_bytes())):
        if any(r["review"] == folder.name for r in done):
            continue
        done += review_rows(folder, args.k, get_preset(args.preset))
        args.json.write_text(json.dumps(done, indent=1))
    print(f"{'review':<40} {'k':>3} {'incl':>4} {'K':>4} {'overlap':>7} {'rho':>5} {'w':>5} "
          f"{'found learned/zero-shot (of left)':>34} caution")
    for r in sorted(done, key=lambda r: (r["review"], r["k"])):
        rho = "" if r["spearman"] is None else f"{r['spearman']:.2f}"
        w = "" if r["prior_weight"] is None else f"{r['prior_weight']:.2f}"
        found = f"{r['includes_in_top_learned']}/{r['includes_in_top_zero_shot']} ({r['includes_left']})"
        print(f"{r['review']:<40} {r['k']:>3} {r['includes']:>4} {r['top_k']:>4} {r['overlap']:>7} {rho:>5} "
              f"{w:>5} {found:>34} {'yes' if r['caution'] else ''}")


if __name__ == "__main__":
    main()
