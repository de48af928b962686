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


def test_a_long_encode_reports_counts_to_the_callers_reporter(tmp_path):
    """Inside `reporting_to(log)` (a Dagster asset's context.log) a long encode writes count lines there, not a
    tqdm bar to stderr that the UI never shows."""
    from agentr_dagster.domain.progress import reporting_to

    lines: list[str] = []
    texts = [f"paper number {i} on a topic" for i in range(ec._PROGRESS_FROM + 10)]
    enc = CountingEncoder("test:progress")
    with reporting_to(lines.append):
        CachedEncoder(enc, EmbeddingCache(enc.name, enc.dim, tmp_path)).encode(texts)
    assert lines[0] == f"embedding {len(texts)} texts (test:progress): 0/{len(texts)} started"
    assert lines[-1].startswith(f"embedding {len(texts)} texts (test:progress): {len(texts)}/{len(texts)} (100%)")
    assert "done in" in lines[-1]
    lines.clear()
    CachedEncoder(CountingEncoder("test:progress-2"), EmbeddingCache("test:progress-2", enc.dim, tmp_path)).encode(
        texts)
    assert lines == []  # outside the block: nothing sent to the old reporter


def test_progress_lines_are_written_at_intervals_with_counts_and_rate():
    from agentr_dagster.domain.progress import ProgressLines

    now = [0.0]
    lines: list[str] = []
    bar = ProgressLines(lines.append, 1000, "ranking", every_s=10, clock=lambda: now[0])
    for _ in range(10):  # 100 texts a second
        now[0] += 4.0
        bar.update(100)
    bar.close()
    assert lines[0] == "ranking: 0/1,000 started"
    assert lines[1:3] == ["ranking: 300/1,000 (30%), 25.0/s", "ranking: 600/1,000 (60%), 25.0/s"]
    assert lines[-1] == "ranking: 1,000/1,000 (100%), 25.0/s, done in 40 s" and len(lines) == 5
