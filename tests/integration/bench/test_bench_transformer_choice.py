"""The bench's ``dense_onnx`` baseline stays all-MiniLM-L6-v2 when the rankers use another transformer
(``AGENTR_TRANSFORMER``). Real ONNX MiniLM (``make models``); the "other" transformer is a copy of it under
another name, so the two can be told apart by the vector-cache folder each writes."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pandas as pd
import pytest

from agentr_dagster.domain import embeddings as emb_mod
from agentr_dagster.domain import transformer as tr
from agentr_dagster.testing.screening import HashEmbedder, synthetic_review


def _review(folder):
    titles, abstracts, y = synthetic_review(n=60, n_inc=6, seed=3)
    folder.mkdir(parents=True)
    pd.DataFrame(
        {"record_id": [f"r{i}" for i in range(len(y))], "title": titles, "abstract": abstracts, "label_included": y}
    ).to_csv(folder / "papers.csv", index=False)
    (folder / "review.json").write_text(json.dumps({"name": folder.name, "question": "ACE inhibitors hypertension"}))


def _bench(data):
    from agentr_dagster.bench.screening import run_screening_bench

    return run_screening_bench(data, with_feedback=False, st_dense=False, asreview=False, transformer=True,
                               throughput_texts=0)["reviews"][0]["modes"]


def test_dense_onnx_is_minilm_whichever_transformer_ranks(tmp_path, monkeypatch):
    minilm = tr.default_transformer_dir("all-MiniLM-L6-v2")
    if not tr.transformer_present(minilm):
        pytest.fail("transformer model not built; run `make models`", pytrace=False)
    models = tmp_path / "models"
    shutil.copytree(minilm, models / "minilm-onnx")
    shutil.copytree(minilm, models / "mpnet-onnx")
    manifest = json.loads((models / "mpnet-onnx" / tr.MANIFEST).read_text())
    (models / "mpnet-onnx" / tr.MANIFEST).write_text(json.dumps({**manifest, "name": "onnx:stand-in@0"}))
    monkeypatch.setenv("AGENTR_MODEL_DIR", str(models / "m2v"))
    monkeypatch.setattr(emb_mod, "_EMBEDDER", HashEmbedder())
    monkeypatch.setattr(tr, "_TRANSFORMERS", {})
    monkeypatch.setattr(tr, "_CACHED", {})
    _review(tmp_path / "data" / "rev")

    monkeypatch.setenv("AGENTR_EMBEDDING_CACHE", str(tmp_path / "v1"))
    alone = _bench(tmp_path / "data")
    assert [p.name for p in (tmp_path / "v1").iterdir()] == ["onnx_all-MiniLM-L6-v2-int8@" + manifest["sha256"][:12]]

    monkeypatch.setenv("AGENTR_TRANSFORMER", "all-mpnet-base-v2")
    monkeypatch.setenv("AGENTR_EMBEDDING_CACHE", str(tmp_path / "v2"))
    assert tr.get_transformer().name == "onnx:stand-in@0"
    other = _bench(tmp_path / "data")
    # the rankers read the configured transformer, dense_onnx MiniLM: both wrote their own vectors
    assert sorted(p.name for p in (tmp_path / "v2").iterdir()) == sorted(
        ["onnx_stand-in@0", "onnx_all-MiniLM-L6-v2-int8@" + manifest["sha256"][:12]]
    )
    # same weights under both names: the same baseline figures and order either way
    assert other["dense_onnx"]["order"] == alone["dense_onnx"]["order"]
    assert np.isclose(other["dense_onnx"]["wss95"], alone["dense_onnx"]["wss95"])
    assert other["zero_shot"]["order"] == alone["zero_shot"]["order"]
