"""The order `agentr run --stop-at-recall` scores a review in, with a perfect screener, simulated in-process: the
relevance stage's zero-shot order (:func:`agentr_dagster.screening.screen.screen`), then after every batch
(:func:`agentr_dagster.stages.scoring.batch_size_for`, concurrency 4) the scoring stage's own
:class:`~agentr_dagster.stages.relevance.RelevanceQueue` re-ranked with the labels so far as the model's weak
labels, to the last paper. Writes one JSON per review: the 0/1 labels in scoring order and the batch boundaries,
from which ``scripts/stopping_eval.py`` replays any stopping rule (the rule decides only when to stop, never the
order, so the replay is exact up to the pipeline's de-duplication at import).

With ``--scores`` it also writes ``NAME.scores.npz`` beside each JSON, what a score-calibrated stopping rule needs
(``scripts/stopping_calibrated.py``): ``order`` (the paper ids in scoring order) and ``z`` (one row per batch: the
queue's scores that picked that batch, z-scored over every paper so that rankings are comparable, in paper-id
order; row 0 is the zero-shot order's, ``-rank``). Row ``b`` holds both the scores the papers of batch ``b`` had
when they were picked and, at the ask before batch ``b``, the scores of every paper not yet screened.

    python scripts/stopping_sequences.py /work/shared/data/screening --out .bench/stopping-sequences [--review NAME]
        [--scores]
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


def _z(scores: np.ndarray) -> np.ndarray:
    sd = float(scores.std())
    return ((scores - scores.mean()) / sd if sd > 1e-12 else np.zeros_like(scores)).astype(np.float32)


def review_sequence(folder: Path, keep_scores: bool = False) -> tuple[dict, dict]:
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
    rankings = [_z(queue.scores)] if keep_scores else []
    while pending:
        batch, pending = pending[:size], pending[size:]
        for pid in batch:
            judged[pid] = int(review.labels[pid])
            order.append(pid)
        boundaries.append(len(order))
        if pending:
            queue.rerank(judged)
            pending = queue.order(set(judged))
            if keep_scores:
                rankings.append(_z(queue.scores))
    labels = review.labels[np.asarray(order)]
    scores = {"order": np.asarray(order, dtype=np.int32), "z": np.stack(rankings)} if keep_scores else {}
    return ({"name": review.name, "n_records": n, "n_included": int(review.labels.sum()), "batch_size": size,
             "labels": [int(v) for v in labels], "boundaries": boundaries}, scores)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("root", type=Path)
    parser.add_argument("--out", type=Path, default=Path(".bench/stopping-sequences"))
    parser.add_argument("--review", action="append", default=None)
    parser.add_argument("--scores", action="store_true", help="also write NAME.scores.npz (the queue's scores)")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    folders = [f for f in discover_reviews(args.root) if not args.review or f.name in args.review]
    for folder in sorted(folders, key=lambda f: (f / "papers.csv").stat().st_size):
        target = args.out / f"{folder.name}.json"
        scores_file = args.out / f"{folder.name}.scores.npz"
        if target.is_file() and (scores_file.is_file() or not args.scores):
            continue
        t0 = time.perf_counter()
        result, scores = review_sequence(folder, args.scores)
        target.write_text(json.dumps(result), encoding="utf-8")
        if scores:
            np.savez_compressed(scores_file, **scores)
        print(f"{folder.name}: {result['n_records']} records, {len(result['boundaries'])} batches, "
              f"{time.perf_counter() - t0:.0f} s", flush=True)


if __name__ == "__main__":
    main()
