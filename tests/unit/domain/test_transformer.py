"""The ONNX transformer encoder (all-MiniLM-L6-v2). Needs the exported model (``make models``); fails when absent."""

from __future__ import annotations

import numpy as np
import pytest

from agentr_dagster.domain import transformer as tr


@pytest.fixture(scope="module")
def encoder():
    if not tr.transformer_present():
        pytest.fail("transformer model not built; run `make models`", pytrace=False)
    return tr.TransformerEncoder(threads=1)


def test_missing_model_gives_clear_error_and_no_default(monkeypatch, tmp_path):
    monkeypatch.setenv("AGENTR_MODEL_DIR", str(tmp_path / "m2v"))
    with pytest.raises(RuntimeError, match="make models"):
        tr.TransformerEncoder()
    monkeypatch.setattr(tr, "_TRANSFORMERS", {})
    assert tr.get_transformer() is None
    assert tr.default_transformer_dir() == tmp_path / "minilm-onnx"  # beside the static model
    monkeypatch.setenv("AGENTR_TRANSFORMER", "all-mpnet-base-v2")
    assert tr.default_transformer_dir() == tmp_path / "mpnet-onnx"
    assert tr.default_transformer_dir("all-MiniLM-L6-v2") == tmp_path / "minilm-onnx"
    assert tr.get_transformer() is None
    monkeypatch.setenv("AGENTR_TRANSFORMER", "bge-small")
    with pytest.raises(ValueError):  # the settings refuse a model no `make` target builds
        tr.default_transformer_dir()


def test_unit_rows_zero_for_blank_and_batch_independent(encoder):
    texts = ["Beta blockers after myocardial infarction", "", "   ", "Teachers' soft skills in primary schools",
             "long abstract about drugs " * 400]
    v = encoder.encode(texts)
    assert v.shape == (5, encoder.dim) and v.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(v[[0, 3, 4]], axis=1), 1.0, atol=1e-5)
    assert not v[1].any() and not v[2].any()
    # int8 activations are scaled over whatever is run together, so each text is run alone: its vector is the
    # same whichever texts it comes with
    alone = encoder.encode([texts[0]])[0]
    np.testing.assert_array_equal(alone, v[0])
    np.testing.assert_array_equal(encoder.encode(texts[::-1])[::-1], v)
    assert encoder.name.startswith("onnx:all-MiniLM-L6-v2-int8@")


def test_it_reads_meaning_not_words(encoder):
    q, para, other = encoder.encode([
        "heart attack treatment",
        "therapy after myocardial infarction",
        "soft skills of primary school teachers",
    ])
    assert q @ para > q @ other + 0.2


def test_unknown_names_fall_into_many_word_pieces(encoder):
    lisinopril, teachers = encoder.piece_counts(["lisinopril", "teachers"])
    assert lisinopril >= 3 and teachers == 1
