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
    # the judgements in call order (replayable by scripts/stopping_eval.py) and the rule's last word
    assert len(oracle["sequence"]) == oracle["calls"]
    assert sum(oracle["sequence"]) == round(oracle["recall_at_stop"] * int(labels.sum()))
    rule = oracle["stopping"]
    assert rule["confidence"] == 0.95 and rule["recall_interval"][1] == 1.0 and rule["reason"]
    assert rule["stop"] and rule["recall_lower"] >= 0.95  # it stopped at the target, or scored every paper
    # The scored papers carry a perfect judgement, so the export puts the includes it scored first.
    methods = entry["methods"]
    assert methods["export"]["wss95"] >= methods["screen"]["wss95"]
    assert set(methods) == {"export", "screen", "bm25"}
    assert all(-0.05 <= m["wss95"] <= 1 and 0 <= m["recall20"] <= 1 for m in methods.values())
    assert lines and lines[0].startswith("Synthetic_ACE: export=")


def test_the_labels_bench_labels_through_the_workflow_and_scores_the_composed_order(tmp_path):
    import numpy as np

    from agentr_dagster.screening.metrics import evaluate_order
    from agentr_dagster.screening.simulation import choose_priors

    labels = write_review(tmp_path / "reviews" / "Synthetic_ACE", n=40, n_inc=6)
    ids = [f"S{i}" for i in range(40)]
    written: list[dict] = []
    result = run_pipeline_bench(tmp_path / "reviews", cli_main=main, labels=True, checkpoint=written.append)
    (entry,) = result["reviews"]
    done = entry["labelling"]
    inc, exc = choose_priors(labels, 0)  # the priors bench screening draws with the same seed
    assert done["priors"] == [ids[inc], ids[exc]] and done["labelled_order"][:2] == done["priors"]
    # Each round reads only records no earlier round read; together they are the labelled order.
    read: list[str] = []
    for rnd in done["rounds"]:
        assert not set(rnd["records"]) & set(read)
        read += rnd["records"]
    assert read == done["labelled_order"] and len(set(read)) == len(read) == done["labelled_papers"]
    assert [r["read"] for r in done["rounds"]][:2] == [2, 10]  # the priors, then the first round of 10
    assert done["found"] >= done["target"] == 6  # ceil(0.95 * 6) includes labelled
    # The order scored: the labelled records, then every other record once (the last export's order).
    order = done["order"]
    assert order[: len(read)] == read and sorted(order) == sorted(ids)
    position = {rid: i for i, rid in enumerate(ids)}
    expected = evaluate_order(labels[np.array([position[r] for r in order])])
    assert entry["methods"]["labels"]["wss95"] == round(expected["wss95"], 4)
    assert entry["methods"]["labels"]["recall20"] == round(expected["recall20"], 4)
    assert set(entry["methods"]) == {"export", "screen", "bm25", "labels", "feedback"}
    assert -0.05 <= entry["methods"]["feedback"]["wss95"] <= 1
    assert written and written[-1]["complete"] is False and result["complete"] is True
    assert result["labels_summary"]["mean_rounds"] == len(done["rounds"]) - 1
