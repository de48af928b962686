"""The lake's BM25 index against bm25s's own, weighted RRF fusion by hand, and where the lake lives."""

from __future__ import annotations

import os
from pathlib import Path

import bm25s
import numpy as np
import pytest

from agentr_dagster.lake import FusionWeights, fuse
from agentr_dagster.lake import files as lf
from agentr_dagster.lake.lexical import bm25_scores, build_bm25


def test_bm25_index_equals_bm25s_own_indexing():
    rng = np.random.default_rng(3)
    docs = [list(rng.integers(0, 60, rng.integers(0, 40))) for _ in range(400)]
    vocab = {f"t{i}": i for i in range(60)}
    flat = np.array([t for d in docs for t in d], dtype=np.int32)
    offsets = np.concatenate([[0], np.cumsum([len(d) for d in docs])]).astype(np.int64)
    mine = build_bm25(flat, offsets, vocab)
    reference = bm25s.BM25()
    reference.index(bm25s.tokenization.Tokenized(ids=[[int(x) for x in d] for d in docs], vocab=dict(vocab)),
                    show_progress=False)
    for query in ([1, 2, 3], [7], [59, 3, 3], [0, 10, 20, 30, 40, 50]):
        assert np.allclose(bm25_scores(mine, query), reference.get_scores_from_ids(query), atol=1e-5)
    assert not bm25_scores(mine, []).any() and not bm25_scores(mine, [10_000]).any()


def test_weighted_rrf_by_hand():
    lexical = np.array([3.0, 0.0, 1.0, 2.0, 0.0])
    dense = np.array([0.1, 0.9, 0.5, 0.2, 0.3])
    w = FusionWeights(dense=0.5, lexical=1.0, k=10)
    ids, scores, lr, dr = fuse(lexical, dense, 5, weights=w)
    expected = {  # lexical ranks: 0,3,2 ; dense ranks: 1,2,4,3,0
        0: 1 / 11 + 0.5 / 15, 1: 0.5 / 11, 2: 1 / 13 + 0.5 / 12, 3: 1 / 12 + 0.5 / 14, 4: 0.5 / 13,
    }
    assert ids.tolist() == sorted(expected, key=lambda d: -expected[d])
    assert np.allclose(scores, [expected[d] for d in ids.tolist()])
    assert dict(zip(ids.tolist(), lr.tolist(), strict=True)) == {0: 1, 3: 2, 2: 3, 1: 0, 4: 0}
    mask = np.array([False, True, True, True, True])
    ids, _, _, _ = fuse(lexical, dense, 2, weights=w, mask=mask)
    assert 0 not in ids.tolist() and len(ids) == 2
    dense_only, _, _, _ = fuse(lexical, dense, 5, weights=FusionWeights(dense=1.0, lexical=0.0))
    assert dense_only.tolist() == [1, 2, 4, 3, 0]
    with pytest.raises(ValueError):
        FusionWeights(dense=0, lexical=0)


def test_fusion_depth_and_ties():
    dense = np.zeros(6, dtype=np.float32)  # all tied: lower id first
    ids, _, _, dr = fuse(np.zeros(6), dense, 6, weights=FusionWeights(depth=3))
    assert ids.tolist() == [0, 1, 2] and dr.tolist() == [1, 2, 3]


def test_lake_dir_follows_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("AGENTR_LAKE_DIR", str(tmp_path / "elsewhere"))
    assert lf.lake_dir() == (tmp_path / "elsewhere").resolve()
    monkeypatch.delenv("AGENTR_LAKE_DIR")
    assert lf.lake_dir() == Path(os.environ["AGENTR_HOME"]).resolve() / "lake"
