"""Seed studies as ranking evidence, in process: per shared review, 5 includes drawn as seeds exactly as
``agentr bench e2e`` draws them, then the expert's list without them ranked by ``screen()`` zero-shot and with the
seeds as ``extra_includes``. Prints WSS@95 and effort@90 (records read to 90 % of the remaining includes, over the
expert's N) per review, and the means of the 12 Cohen_2006 drug reviews and of the other 6 apart.

    AGENTR_HOME=/tmp/h33z-home nice -n 10 python scripts/seed_evidence_bench.py /work/shared/data/screening \
        [--cache /tmp/h33seed-bench]
"""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path

import pandas as pd

from agentr_dagster.bench.e2e import SEEDS, _draw_seeds, effort, review_group
from agentr_dagster.bench.screening import discover_reviews, load_review
from agentr_dagster.screening.metrics import wss_at
from agentr_dagster.screening.screen import screen


def one(folder: Path, seed: int) -> dict:
    review = load_review(folder)
    chosen = _draw_seeds(review, SEEDS, seed)
    rest = [i for i in range(len(review.labels)) if i not in set(chosen)]
    frame = pd.DataFrame({"record_id": [str(i) for i in rest], "title": [review.titles[i] for i in rest],
                          "abstract": [review.abstracts[i] for i in rest]})
    extra = [(review.titles[i], review.abstracts[i]) for i in chosen]
    out = {"name": review.name, "group": review_group(review.name), "n": len(review.labels),
           "includes_left": int(sum(review.labels[i] for i in rest))}
    for name, seeds in (("unseeded", []), ("seeded", extra)):
        ranked = screen(review.question, frame, dedupe=False, extra_includes=seeds)
        assert len(ranked) == len(rest)
        y = [int(review.labels[int(r)]) for r in ranked["record_id"]]
        out[name] = {"wss95": round(wss_at(y, 0.95), 4),
                     "effort90": effort(y, out["includes_left"], len(review.labels))["0.9"],
                     "method": str(ranked["method"].iloc[0])}
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("root", type=Path)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--cache", type=Path, default=None, help="a folder keeping each review's figures")
    args = ap.parse_args()
    rows = []
    for folder in discover_reviews(args.root):
        path = args.cache / f"{folder.name}-{args.seed}.json" if args.cache else None
        if path is not None and path.is_file():
            rows.append(json.loads(path.read_text()))
        else:
            rows.append(one(folder, args.seed))
            if path is not None:
                path.write_text(json.dumps(rows[-1]))
        r = rows[-1]
        print(f"{r['name']:40s} {r['group']:8s} WSS@95 {r['unseeded']['wss95']:.3f} -> {r['seeded']['wss95']:.3f}"
              f"   effort@90 {r['unseeded']['effort90']:.3f} -> {r['seeded']['effort90']:.3f}", flush=True)
    print("\n| group | n | WSS@95 unseeded | WSS@95 seeded | effort@90 unseeded | effort@90 seeded | better/worse"
          " (effort@90) |\n|---|---:|---:|---:|---:|---:|---|")
    for group in ("drug", "non-drug", "all"):
        g = [r for r in rows if group in ("all", r["group"])]
        m = {f"{k}-{s}": statistics.mean(r[s][k] for r in g) for k in ("wss95", "effort90")
             for s in ("unseeded", "seeded")}
        better = sum(1 for r in g if r["seeded"]["effort90"] < r["unseeded"]["effort90"])
        worse = sum(1 for r in g if r["seeded"]["effort90"] > r["unseeded"]["effort90"])
        print(f"| {group} | {len(g)} | {m['wss95-unseeded']:.3f} | {m['wss95-seeded']:.3f} | "
              f"{m['effort90-unseeded']:.3f} | {m['effort90-seeded']:.3f} | {better}/{worse} |")


if __name__ == "__main__":
    main()
