"""Hashes and cache keys, defined once: what makes a stored artefact or score reusable, and a file's identity."""

from __future__ import annotations

import hashlib
from pathlib import Path

from agentr_dagster.domain.prompts import prompt_version


def sha256(*parts: str) -> str:
    """The hex digest of the parts, each followed by a unit separator (so ("ab", "c") and ("a", "bc") differ)."""
    digest = hashlib.sha256()
    for part in parts:
        digest.update(part.encode())
        digest.update(b"\x1f")
    return digest.hexdigest()


def score_cache_key(content_hash: str, intent_hash: str, model: str) -> str:
    """A paper's score is reusable exactly when paper text, intent, prompt version and model are the same."""
    return sha256(content_hash, intent_hash, prompt_version("score"), model)


def file_sha256(path: Path) -> str:
    """The hex digest of a file's bytes, read in 1 MiB blocks."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()
