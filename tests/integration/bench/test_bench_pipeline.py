"""`agentr bench pipeline --oracle` on a small synthetic review folder: the real CLI chain, the LLM path on the
scripted server judging from the labels, and the figures it reports."""

from __future__ import annotations

import json

import pandas as pd

from agentr_dagster.bench.pipeline import run_pipeline_bench
from agentr_dagster.cli.main import main
from agentr_dagster.testing.screening import synthetic_review


def write_review(folder, n=60, n_inc=8):
    titles, abstracts, labels = synthetic_review(n=n, n_inc=n_inc, seed=3)
    folder.mkdir(parents=True)
    frame = pd.DataFrame({"record_id": [f"S{i}" for i in range(n)], "title": titles, "abstract": abstracts})
    frame.to_csv(folder / "papers_unlabeled.csv", index=False)
    frame.assign(label_included=labels).to_csv(folder / "papers.csv", index=False)
    question = ("Do ACE inhibitors such as enalapril lower blood pressure in patients with hypertension "
                "compared with other treatment?")
    (folder / "review.json").write_text(json.dumps({"name": folder.name, "question": question}))
    return labels


def test_the_oracle_bench_runs_the_chain_and_counts_calls_and_recall(tmp_path):
    labels = write_review(tmp_path / "reviews" / "Synthetic_ACE")
    lines: list[str] = []
    result = run_pipeline_bench(tmp_path / "reviews", cli_main=main, oracle=True, progress=lines.append)
    (entry,) = result["reviews"]
    assert (entry["n_records"], entry["n_included"]) == (60, int(labels.sum()))
    assert entry["papers_in_project"] == 60 and entry["not_in_export"] == 0  # every record found in the export
    oracle = entry["oracle"]
    assert oracle["calls"] + oracle["calls_saved"] == 60 and 0 < oracle["calls"] <= 60
    assert oracle["recall_at_stop"] >= 0.95 and result["stop_at_recall"] == 0.95
    # The scored papers carry a perfect judgement, so the export puts the includes it scored first.
    methods = entry["methods"]
    assert methods["export"]["wss95"] >= methods["screen"]["wss95"]
    assert set(methods) == {"export", "screen", "bm25"}
    assert all(-0.05 <= m["wss95"] <= 1 and 0 <= m["recall20"] <= 1 for m in methods.values())
    assert lines and lines[0].startswith("Synthetic_ACE: export=")
