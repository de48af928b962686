"""`screen()` with the real ONNX transformer (``make models``): vectors computed once, reused on re-runs."""

from __future__ import annotations

from importlib import resources

import pandas as pd
import pytest

from agentr_dagster.domain import transformer as tr
from agentr_dagster.domain.embedding_cache import CachedEncoder
from agentr_dagster.screening.features import build_features
from agentr_dagster.screening.screen import screen
from agentr_dagster.testing.screening import HashEmbedder


def test_screen_encodes_each_text_once_across_runs_and_processes(tmp_path, monkeypatch):
    if not tr.transformer_present():
        pytest.fail("transformer model not built; run `make models`", pytrace=False)
    monkeypatch.setenv("AGENTR_EMBEDDING_CACHE", str(tmp_path / "vectors"))
    papers = pd.read_csv(resources.files("agentr_dagster.data") / "demo" / "papers.csv")
    question = "How do structured document retrieval systems improve access to engineering documents?"

    first = screen(question, papers)
    cached = tr.get_cached_transformer()
    first_run = cached.encoded
    assert 2 * len(papers) <= first_run <= 2 * len(papers) + 2  # title + abstract, the title, the question
    second = screen(question, papers)
    assert cached.encoded == first_run  # nothing encoded again
    pd.testing.assert_frame_equal(first, second)

    other_process = CachedEncoder(tr.get_transformer())  # a fresh view of the same cache folder
    texts = build_features(papers["title"], papers["abstract"], HashEmbedder()).texts
    other_process.encode(texts[:5])
    assert other_process.encoded == 0
    assert first["record_id"].iloc[0] == "107"  # the structured-document-retrieval review itself
