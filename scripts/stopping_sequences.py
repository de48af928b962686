"""The order `agentr run --stop-at-recall` scores a review in, with a perfect screener, simulated in-process: the
relevance stage's zero-shot order (:func:`agentr_dagster.screening.screen.screen`), then after every batch
(:func:`agentr_dagster.stages.scoring.batch_size_for`, concurrency 4) the scoring stage's own
:class:`~agentr_dagster.stages.relevance.RelevanceQueue` re-ranked with the labels so far as the model's weak
labels, to the last paper. Writes one JSON per review: the 0/1 labels in scoring order and the batch boundaries,
from which ``scripts/stopping_eval.py`` replays any stopping rule (the rule decides only when to stop, never the
order, so the replay is exact up to the pipeline's de-duplication at import).

    python scripts/stopping_sequences.py /work/shared/data/screening --out .bench/stopping-sequences [--review NAME]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd

from agentr_dagster.bench.screening import discover_reviews, load_review
from agentr_dagster.screening.screen import screen
from agentr_dagster.stages.relevance import RelevanceQueue
from agentr_dagster.stages.scoring import batch_size_for

CONCURRENCY = 4  # agentr run's default (AGENTR_LLM_CONCURRENCY)


def review_sequence(folder: Path) -> dict:
    review = load_review(folder)
    n = len(review.labels)
    papers = [SimpleNamespace(id=i, title=review.titles[i], abstract=review.abstracts[i]) for i in range(n)]
    frame = pd.DataFrame({"record_id": [str(i) for i in range(n)], "title": review.titles,
                          "abstract": review.abstracts})
    zero_shot = screen(review.question, frame, None, dedupe=False)
    stored = {int(rid): SimpleNamespace(rank=rank + 1) for rank, rid in enumerate(zero_shot["record_id"])}
    queue = RelevanceQueue(review.question, papers, {}, stored)
    size = batch_size_for(n, CONCURRENCY)
    judged: dict[int, int] = {}
    order: list[int] = []
    boundaries: list[int] = []
    pending = queue.order()
    while pending:
        batch, pending = pending[:size], pending[size:]
        for pid in batch:
            judged[pid] = int(review.labels[pid])
            order.append(pid)
        boundaries.append(len(order))
        if pending:
            queue.rerank(judged)
            pending = queue.order(set(judged))
    labels = review.labels[np.asarray(order)]
    return {"name": review.name, "n_records": n, "n_included": int(review.labels.sum()), "batch_size": size,
            "labels": [int(v) for v in labels], "boundaries": boundaries}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("root", type=Path)
    parser.add_argument("--out", type=Path, default=Path(".bench/stopping-sequences"))
    parser.add_argument("--review", action="append", default=None)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    folders = [f for f in discover_reviews(args.root) if not args.review or f.name in args.review]
    for folder in sorted(folders, key=lambda f: (f / "papers.csv").stat().st_size):
        target = args.out / f"{folder.name}.json"
        if target.is_file():
            continue
        t0 = time.perf_counter()
        result = review_sequence(folder)
        target.write_text(json.dumps(result), encoding="utf-8")
        print(f"{folder.name}: {result['n_records']} records, {len(result['boundaries'])} batches, "
              f"{time.perf_counter() - t0:.0f} s", flush=True)


if __name__ == "__main__":
    main()
