"""The per-(text, model) vector cache: each distinct text is encoded once, across objects and processes."""

from __future__ import annotations

import numpy as np

from agentr_dagster.domain import embedding_cache as ec
from agentr_dagster.domain.embedding_cache import CachedEncoder, EmbeddingCache
from agentr_dagster.testing.screening import HashEmbedder


class CountingEncoder(HashEmbedder):
    """The hashing embedder, counting the texts it is asked to encode."""

    def __init__(self, name="test:counting"):
        self.name = name
        self.calls: list[str] = []

    def encode(self, texts, progress=None):
        self.calls.extend(texts)
        if progress is not None:
            progress(len(texts))
        return super().encode(texts)


def test_each_text_encoded_once_and_read_back_by_a_new_process_view(tmp_path):
    texts = ["beta blockers in heart failure", "teachers' soft skills", "beta blockers in heart failure", ""]
    enc = CountingEncoder()
    first = CachedEncoder(enc, EmbeddingCache(enc.name, enc.dim, tmp_path)).encode(texts)
    assert enc.calls == ["beta blockers in heart failure", "teachers' soft skills"]  # duplicates and blanks skipped
    np.testing.assert_allclose(first, HashEmbedder().encode(texts), atol=1e-6)
    assert not first[3].any()

    again = CountingEncoder()
    fresh_view = CachedEncoder(again, EmbeddingCache(enc.name, enc.dim, tmp_path))  # as another process would
    np.testing.assert_array_equal(fresh_view.encode(texts[::-1]), first[::-1])
    assert again.calls == [] and fresh_view.encoded == 0

    other_model = CountingEncoder("test:another-model")
    CachedEncoder(other_model, EmbeddingCache(other_model.name, other_model.dim, tmp_path)).encode(texts)
    assert len(other_model.calls) == 2  # vectors are versioned by model: none shared


def test_two_views_see_each_others_parts_and_survive_a_merge(tmp_path, monkeypatch):
    monkeypatch.setattr(ec, "_MERGE_AT", 3)
    a_enc, b_enc = CountingEncoder(), CountingEncoder()
    a = CachedEncoder(a_enc, EmbeddingCache(a_enc.name, a_enc.dim, tmp_path))
    b = CachedEncoder(b_enc, EmbeddingCache(b_enc.name, b_enc.dim, tmp_path))
    words = [f"text number {i}" for i in range(7)]
    for w in words:
        a.encode([w])  # one part each: merged every third part
    assert len(list(a.cache.folder.glob("part-*.npz"))) < len(words)
    np.testing.assert_allclose(b.encode(words), HashEmbedder().encode(words), atol=1e-6)
    assert b_enc.calls == []


def test_a_damaged_part_is_ignored_and_its_texts_encoded_again(tmp_path):
    enc = CountingEncoder()
    CachedEncoder(enc, EmbeddingCache(enc.name, enc.dim, tmp_path)).encode(["alpha text", "beta text"])
    (part,) = EmbeddingCache(enc.name, enc.dim, tmp_path).folder.glob("part-*.npz")
    part.write_bytes(b"not a numpy archive")
    again = CountingEncoder()
    out = CachedEncoder(again, EmbeddingCache(enc.name, enc.dim, tmp_path)).encode(["alpha text", "beta text"])
    assert sorted(again.calls) == ["alpha text", "beta text"]
    np.testing.assert_allclose(out, HashEmbedder().encode(["alpha text", "beta text"]), atol=1e-6)


def test_long_encodes_report_progress(tmp_path):
    enc = CountingEncoder()
    seen: list[int] = []
    CachedEncoder(enc, EmbeddingCache(enc.name, enc.dim, tmp_path)).encode(
        [f"record {i}" for i in range(300)], progress=seen.append
    )
    assert sum(seen) == 300
