"""The screening engine's version: a fingerprint of the code that turns a question and records into scores.

It is the ``relevance`` asset's code version, so a change to any ranker, the features, the learner or the
presets (or to the text encoder in ``domain/embeddings.py``) marks every project's relevance stale in the UI,
with nobody having to remember to bump a number. Modules that only measure or simulate are left out.
"""

from __future__ import annotations

import hashlib
from functools import cache
from pathlib import Path

__all__ = ["engine_version", "scoring_sources", "version_of"]

_SCREENING = Path(__file__).resolve().parent
# Modules of screening/ that do not change a score: measuring, simulating, stopping, tables, comparing orders.
_NOT_SCORING = {"__init__.py", "version.py", "metrics.py", "simulation.py", "stopping.py", "tables.py",
                "versus.py"}
_ALSO = (_SCREENING.parent / "domain" / "embeddings.py",)


def scoring_sources() -> list[Path]:
    """The source files whose text makes the engine's version, in a fixed order."""
    files = sorted(p for p in _SCREENING.rglob("*.py") if p.name not in _NOT_SCORING or p.parent != _SCREENING)
    return [*files, *(p for p in _ALSO if p.is_file())]


def version_of(files: list[Path], root: Path = _SCREENING.parent) -> str:
    """``engine-<12 hex>``: SHA-256 over the files' paths (relative to ``root``, the package) and contents."""
    digest = hashlib.sha256()
    for path in files:
        digest.update(path.relative_to(root).as_posix().encode())
        digest.update(b"\0")
        digest.update(path.read_bytes())
    return f"engine-{digest.hexdigest()[:12]}"


@cache
def engine_version() -> str:
    """The engine's version: :func:`version_of` the :func:`scoring_sources` (computed once per process), with the
    transformer's name appended when ``AGENTR_TRANSFORMER`` picks another than the default, whose vectors give
    other scores."""
    from agentr_dagster.settings import EncoderConfig, get_settings

    model = get_settings().encoder.transformer
    default = EncoderConfig.model_fields["transformer"].default
    return version_of(scoring_sources()) + ("" if model == default else f"+{model}")
