"""Is a paper found by more of the project's searches more likely an include? Reads the exports `agentr bench e2e
--keep-exports DIR` kept and measures, per review, the effort to 90 % of the includes (rows read in order, over the
expert's N, as the bench counts it) when the export's order is fused with how many searches found each paper:
``score = (1 - row / rows) + w * percentile(count)``, for a grid of ``w``; the count is the distinct search strings
(any source) or every source:query sighting. ``w`` is also picked leave-one-review-out (the w with the least mean
effort on the other reviews, a review that never reaches 90 % counted as 1.5).

Usage: PYTHONPATH=. python scripts/e2e_found_by.py DIR ROOT [ROOT ...] [--run question] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

WEIGHTS = (0.0, 0.05, 0.1, 0.2, 0.3, 0.5, 1.0)
NEVER = 1.5  # a review that never reaches the level, in the leave-one-out objective


def sightings(found_by: str) -> list[str]:
    """The export's ``found_by`` cell as its ``source:query`` labels."""
    return [label for label in found_by.split("; ") if ":" in label]


def counts(found_by: list[str], kind: str) -> np.ndarray:
    """Per paper: the distinct search strings that found it (``strings``), or all its sightings (``sightings``)."""
    if kind == "strings":
        return np.array([len({lb.split(":", 1)[1] for lb in sightings(c) if lb.split(":", 1)[1].startswith("string")})
                         for c in found_by], dtype=float)
    return np.array([len(sightings(c)) for c in found_by], dtype=float)


def fused_order(count: np.ndarray, weight: float) -> np.ndarray:
    """Row indices of the export (best first) re-ordered by its order fused with the count's percentile."""
    rows = len(count)
    base = 1.0 - np.arange(rows) / max(rows, 1)
    percentile = pd.Series(count).rank(pct=True, method="average").to_numpy() if rows else count
    return np.argsort(-(base + weight * percentile), kind="stable")


def leave_one_out(table: dict[str, list[float | None]], weights: tuple[float, ...]) -> dict[str, tuple[float, Any]]:
    """Per review: the weight picked on the others (least mean effort, ``NEVER`` for None) and its own effort."""
    def cost(name: str, i: int) -> float:
        value = table[name][i]
        return NEVER if value is None else min(value, NEVER)

    picked = {}
    for name in table:
        others = [o for o in table if o != name]
        best = min(range(len(weights)), key=lambda i: (statistics.mean(cost(o, i) for o in others), i))
        picked[name] = (weights[best], table[name][best])
    return picked


def _median(values: list[float | None]) -> float:
    return float(statistics.median(NEVER * 2 if v is None else v for v in values))


def main() -> None:
    from agentr_dagster.bench.e2e import _export_members, _figures, pool_of
    from agentr_dagster.bench.pipeline import _slug
    from agentr_dagster.bench.screening import discover_reviews, load_review

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("exports", type=Path)
    parser.add_argument("roots", nargs="+", type=Path)
    parser.add_argument("--run", default="question", help="the run label of the kept exports (question, abstract)")
    parser.add_argument("--json", default="")
    args = parser.parse_args()
    reviews = [load_review(f) for root in args.roots for f in discover_reviews(root)]
    pool = pool_of(reviews)
    result: dict[str, Any] = {}
    for kind in ("strings", "sightings"):
        table: dict[str, list[float | None]] = {}
        for review in reviews:
            path = args.exports / f"{_slug(f'{review.name}-{args.run}')}.csv"
            if not path.exists():
                continue
            frame = pd.read_csv(path, dtype=str, keep_default_na=False)
            frame = frame.sort_values("rank", key=lambda r: pd.to_numeric(r)).reset_index(drop=True)
            members = _export_members(frame, pool, review.name)
            includes = {i for i, label in enumerate(review.labels) if label}
            count = counts(list(frame["found_by"]), kind)
            table[review.name] = [
                _figures([members[i] for i in fused_order(count, w)], includes, len(review.labels),
                         len(frame))["effort"]["0.9"] for w in WEIGHTS]
        held = leave_one_out(table, WEIGHTS)
        print(f"{kind}: effort to 90 % per w {WEIGHTS}")
        for name, row in table.items():
            print(f"  {name[:40]:40} " + " ".join("never" if v is None else f"{v:.3f}" for v in row)
                  + f"   held out w {held[name][0]}")
        for i, w in enumerate(WEIGHTS):
            column = [row[i] for row in table.values()]
            print(f"  w {w}: median {_median(column):.4f}, within 0.5 of N on "
                  f"{sum(v is not None and v <= 0.5 for v in column)} of {len(column)}")
        column = [v for _, v in held.values()]
        print(f"  held out: median {_median(column):.4f}, within 0.5 of N on "
              f"{sum(v is not None and v <= 0.5 for v in column)} of {len(column)}")
        result[kind] = {"weights": WEIGHTS, "effort_90": table, "held_out": held}
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
