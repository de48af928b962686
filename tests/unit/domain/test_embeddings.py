"""Static embeddings: contract tests. Needs the distilled model (``make models``); fails when absent."""

from __future__ import annotations

import numpy as np
import pytest

from agentr_dagster.domain import embeddings as emb


def test_default_model_dir_env(monkeypatch, tmp_path):
    monkeypatch.setenv("AGENTR_MODEL_DIR", str(tmp_path / "m"))
    assert emb.default_model_dir() == tmp_path / "m"
    monkeypatch.delenv("AGENTR_MODEL_DIR")
    assert emb.default_model_dir().parts[-4:] == (".cache", "agentr-dagster", "models", "minilm-m2v")


def test_missing_model_gives_clear_error(monkeypatch, tmp_path):
    monkeypatch.setenv("AGENTR_MODEL_DIR", str(tmp_path / "nope"))
    monkeypatch.setattr(emb, "_EMBEDDER", None)
    with pytest.raises(RuntimeError, match="make models"):
        emb.get_embedder()


@pytest.fixture(scope="module")
def embedder():
    if not emb.model_present(emb.default_model_dir()):
        pytest.fail("static model not built; run `make models`", pytrace=False)
    return emb.get_embedder()


def test_shape_dtype_and_normalisation(embedder):
    texts = [
        "Beta blockers in heart failure",
        "",
        "   ",
        "ÆØÅ ✓ 𝛼-blockers\x00 <b>tags</b>",
        "long abstract about drugs " * 3000,
    ]
    v = embedder.encode(texts)
    assert v.shape == (len(texts), embedder.dim)
    assert v.dtype == np.float32
    norms = np.linalg.norm(v, axis=1)
    assert np.allclose(norms[[0, 3, 4]], 1.0, atol=1e-5)
    assert np.all(v[1] == 0) and np.all(v[2] == 0)
    # a text with no known token at all also gives a zero row (never NaN)
    assert np.all(np.isfinite(embedder.encode(["\x00\x01", "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"])))
    assert embedder.encode([]).shape == (0, embedder.dim)
    assert embedder.name.startswith("model2vec:")
    assert emb.get_embedder() is embedder


def test_related_closer_than_unrelated(embedder):
    q, rel, unrel = embedder.encode(
        [
            "randomized trial of ACE inhibitors for hypertension",
            "enalapril lowers blood pressure in hypertensive patients: a controlled trial",
            "a survey of software engineering practices in agile teams",
        ]
    )
    assert float(q @ rel) > float(q @ unrel) + 0.1


def test_batch_independent(embedder):
    a = embedder.encode(["metformin in type 2 diabetes"])
    b = embedder.encode(["something else", "metformin in type 2 diabetes"])[1:]
    assert np.allclose(a, b, atol=1e-5)
