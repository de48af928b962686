"""Zero-shot WSS@95 of each review's expert list ranked against its question and against its abstract.

The abstract is the one `agentr bench queries --written-abstracts` judges from (published where review.json has
one, else the bundled written one). Prints one JSON line per review and the means, all / drug / non-drug.

    python scripts/zero_shot_abstracts.py ../shared/data/screening
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from agentr_dagster.bench.queries import is_drug_review, load_written_abstracts, review_abstract
from agentr_dagster.bench.screening import discover_reviews, load_review
from agentr_dagster.screening.metrics import evaluate_order
from agentr_dagster.screening.screen import screen


def main(root: Path) -> None:
    written = load_written_abstracts()
    rows = []
    for folder in discover_reviews(root):
        rv = load_review(folder)
        abstract, _ = review_abstract(folder, rv.name, written)
        frame = pd.DataFrame({"record_id": rv.record_ids, "title": rv.titles, "abstract": rv.abstracts})
        pos = {rid: i for i, rid in enumerate(rv.record_ids)}
        row = {"name": rv.name, "drug": is_drug_review(rv.name)}
        for kind, text in (("question", rv.question), ("abstract", " ".join(abstract.split()))):
            if not text:
                continue
            ranked = screen(text, frame, dedupe=False)
            labels = rv.labels[np.array([pos[r] for r in ranked["record_id"]])]
            row[kind] = round(evaluate_order(labels)["wss95"], 4)
        rows.append(row)
        print(json.dumps(row), flush=True)
    for kind in ("question", "abstract"):
        means = []
        for group in (None, True, False):
            values = [r[kind] for r in rows if kind in r and (group is None or r["drug"] == group)]
            means.append(round(float(np.mean(values)), 4) if values else None)
        print(f"{kind}: all {means[0]}, drug {means[1]}, non-drug {means[2]}")


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "../shared/data/screening"))
