"""`agentr bench screening` on synthetic labelled reviews (no ASReview, no sentence-transformers)."""

from __future__ import annotations

import json

import pandas as pd
from click.testing import CliRunner

from agentr_dagster.testing.screening import synthetic_review


def _write_review(folder, seed):
    titles, abstracts, y = synthetic_review(n=150, n_inc=12, seed=seed)
    folder.mkdir(parents=True)
    pd.DataFrame(
        {"record_id": [f"r{i}" for i in range(len(y))], "title": titles, "abstract": abstracts, "label_included": y}
    ).to_csv(folder / "papers.csv", index=False)
    (folder / "review.json").write_text(json.dumps({"name": folder.name, "question": "ACE inhibitors hypertension"}))

def test_bench_screening(tmp_path, fake_embedder, monkeypatch):
    from agentr_dagster.bench.screening import format_table, run_screening_bench
    from agentr_dagster.cli.screen import bench_screening_command

    monkeypatch.delenv("AGENTR_ASREVIEW_PYTHON", raising=False)
    monkeypatch.setattr("agentr_dagster.bench.screening._asreview_inprocess_ok", lambda: False)
    _write_review(tmp_path / "rev1", 1)
    _write_review(tmp_path / "rev2", 2)
    res = run_screening_bench(tmp_path, seed=0, st_dense=False)
    assert [r["name"] for r in res["reviews"]] == ["rev1", "rev2"]
    for r in res["reviews"]:
        assert set(r["modes"]) == {"zero_shot", "feedback", "bm25", "dense", "random", "asreview"}
        for m in r["modes"].values():
            assert sorted(m["order"]) == sorted(f"r{i}" for i in range(150))
        assert r["modes"]["feedback"]["order"][:2] == r["priors"]
        assert r["modes"]["asreview"]["order"][:2] == r["priors"]
        assert "re-implementation" in r["modes"]["asreview"]["implementation"]
    assert res["mean"]["feedback"]["wss95"] > res["mean"]["random"]["wss95"]
    assert "mean" in format_table(res)
    # labels from the top of the zero-shot list: recall of the unlabelled papers, re-ranked beside zero-shot
    for r in res["reviews"]:
        assert set(r["after_top_labels"]) == {"10", "25", "50"}
        for per_mode in r["after_top_labels"].values():
            assert set(per_mode) == {"zero_shot", "feedback"}
            assert all(0.0 <= v <= 1.0 for m in per_mode.values() for v in m.values())
    assert set(res["after_top_labels"]["10"]) == {"zero_shot", "feedback", "worse_by_more_than_slack"}
    assert "after k labels from the top" in format_table(res)

    # a review.json written with a byte-order mark (as some Windows editors do) still loads
    meta = (tmp_path / "rev2" / "review.json").read_text(encoding="utf-8")
    (tmp_path / "rev2" / "review.json").write_text(meta, encoding="utf-8-sig")
    cli = CliRunner().invoke(bench_screening_command, [str(tmp_path), "--json", "--no-feedback", "--no-st-dense"])
    assert cli.exit_code == 0, cli.output
    payload = json.loads(cli.stdout)
    assert set(payload["mean"]) == {"zero_shot", "bm25", "dense", "random"}
