"""Fixtures of the screening tests: the hashing embedder in place of the static model."""

from __future__ import annotations

import pytest

from agentr_dagster.domain import embeddings as emb_mod
from agentr_dagster.domain import transformer as transformer_mod
from agentr_dagster.testing.screening import HashEmbedder


@pytest.fixture()
def fake_embedder(monkeypatch):
    """The process-wide embedder replaced by :class:`HashEmbedder` (what ``screen()`` and the CLI pick up), and
    no transformer (as when ``make models`` has built none): these tests pin the static-only rankings."""
    e = HashEmbedder()
    monkeypatch.setattr(emb_mod, "_EMBEDDER", e)
    monkeypatch.setattr(transformer_mod, "_DISABLED", True)
    return e
