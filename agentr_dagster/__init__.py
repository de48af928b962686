"""agentr-dagster: a literature review as a Dagster workflow.

From Python, with the store the settings name (``AGENTR_DATABASE_URL``, else SQLite under ``AGENTR_HOME``)::

    import agentr_dagster
    frame = agentr_dagster.scores("my-review")     # one row per scored paper, best direct competitors first
    spent = agentr_dagster.usage("my-review")      # calls, tokens, USD and credits by stage, model and day

Both import pandas and the store only when called, so ``import agentr_dagster`` stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd


def scores(slug: str) -> pd.DataFrame:
    """The project's scores as a pandas DataFrame (the export columns); ProjectNotFound for an unknown slug."""
    from agentr_dagster.stages.frames import scores as _scores

    return _scores(slug)


def usage(
    slug: str | None = None, by: tuple[str, ...] | list[str] = ("project", "stage", "model", "day")
) -> pd.DataFrame:
    """LLM usage as a pandas DataFrame grouped by ``by`` (every project when ``slug`` is None)."""
    from agentr_dagster.stages.frames import usage as _usage

    return _usage(slug, by)


__all__ = ["scores", "usage"]
