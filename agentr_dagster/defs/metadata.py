"""Asset metadata laid out for a person reading the Dagster UI first, as helpers every asset can call.

What the pinned UI (dagster-webserver 1.13) does with metadata, read from its source and checked in a browser
(tests/integration/defs/test_ui_metadata.py): entries are listed in the order they are emitted; a table
(``MetadataValue.table``) and short text render inline; Markdown renders inline only under 1,000 characters, so an
image (a data URI of tens of kB) sits behind *Show Markdown* and opens in a dialog at its natural size, up to 80 %
of the window; every numeric entry becomes a plot across materialisations (per partition for partitioned assets),
and every numeric entry of an asset check a plot across *all* its executions, partitions mixed.

So: status and counts first, then the top papers as a table, then the plots (wide, at a readable DPI), then usage
as one table (none when nothing was spent), then the technical entries (versions, paths). Check metadata that
varies per partition is text (:func:`per_partition`), so the check history holds no meaningless saw-tooth.
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping
from decimal import Decimal
from typing import TYPE_CHECKING, Any

import pandas as pd
from dagster import MetadataValue, TableColumn, TableRecord, TableSchema

from agentr_dagster.stages.usage import aggregate, totals_of, usage_calls_frame
from agentr_dagster.synthesis.plots import data_uri

if TYPE_CHECKING:
    from agentr_dagster.store import DomainStore

#: Plots for the metadata dialog: wide enough to read at the dialog's natural size (about 800-1100 px).
PLOT_DPI = 110
TOP_PAPERS = 10
TITLE_CHARS = 60  # the overview's metadata value column is ~450 px wide at 1600 px: a title in two or three lines

#: The top-papers table: export column -> (table column, description). Short names keep the table narrow.
TOP_PAPER_COLUMNS: dict[str, tuple[str, str]] = {
    "rank": ("rank", "position in the export's order: the screening engine's (by P(include)) or, where an LLM "
                     "scored papers, by its judgement (the `llm_judgement` column, then shown)"),
    "title": ("title", "the paper's title (shortened)"),
    "llm_judgement": ("llm_judgement", "what orders this table where an LLM scored papers: its judgement, 0-1 (not "
                                       "a probability), the engine's order mapped onto it elsewhere"),
    "relevance": ("P(include)", "the screening engine's calibrated probability of inclusion, 0-1 (4 decimals: it "
                                "falls strictly down the engine's order)"),
    "c1_score": ("C1", "direct competitor, 0-10 (same problem and method scores highest)"),
    "c2_score": ("C2", "supporting work, 0-10"),
}


def _column_type(dtype) -> str:
    if pd.api.types.is_bool_dtype(dtype):
        return "bool"
    if pd.api.types.is_integer_dtype(dtype):
        return "int"
    if pd.api.types.is_float_dtype(dtype):
        return "float"
    return "string"


def column_schema(frame: pd.DataFrame, descriptions: Mapping[str, str]) -> TableSchema:
    """The frame's columns with their types and descriptions (``KeyError`` names a column left undescribed)."""
    missing = [c for c in frame.columns if c not in descriptions]
    if missing:
        raise KeyError(f"no description for column(s) {', '.join(map(str, missing))}")
    return TableSchema(columns=[
        TableColumn(name=str(c), type=_column_type(t), description=descriptions[c]) for c, t in frame.dtypes.items()
    ])


def _cell(value: Any) -> str | int | float | bool | None:
    if value is None or value is pd.NA or (isinstance(value, float) and value != value):
        return None
    if isinstance(value, Decimal):
        return format(value, "f")
    if hasattr(value, "item"):  # numpy scalars
        value = value.item()
    return value if isinstance(value, (str, int, float, bool)) else str(value)


def table(frame: pd.DataFrame, descriptions: Mapping[str, str]) -> MetadataValue:
    """A frame as an inline UI table (cells are plain text: titles from papers are never rendered as markup)."""
    records = [TableRecord({str(k): _cell(v) for k, v in row.items()}) for row in frame.to_dict(orient="records")]
    return MetadataValue.table(records=records, schema=column_schema(frame, descriptions))


def top_papers_frame(scores: pd.DataFrame, limit: int = TOP_PAPERS,
                     columns: list[str] | None = None) -> pd.DataFrame:
    """The first ``limit`` rows of a scores frame as a reader sees them, under the export's column names: titles
    shortened, P(include) and the LLM's judgement to 4 decimals (as the relevance asset and ``scores.csv`` give
    them). ``columns``: the export columns to show (the UI table's by default); ``llm_judgement`` is left out where
    no LLM judged a paper (offline: the engine's order, which P(include) shows). Also `agentr run`'s table."""
    columns = [c for c in (columns or TOP_PAPER_COLUMNS) if c in scores.columns]
    if "llm_judgement" in columns and scores["llm_judgement"].isna().all():
        columns.remove("llm_judgement")
    shown = scores.head(limit)[columns].copy()
    if "title" in shown:
        shown["title"] = shown["title"].map(lambda t: textwrap.shorten(str(t), TITLE_CHARS, placeholder=" ..."))
    for column in ("relevance", "llm_judgement"):
        if column in shown:
            shown[column] = shown[column].round(4)
    return shown


def top_papers(scores: pd.DataFrame, limit: int = TOP_PAPERS) -> dict[str, MetadataValue]:
    """``{"top_papers": table}`` of the first ``limit`` rows of a scores frame, or ``{}`` when nothing is scored."""
    if scores.empty:
        return {}
    shown = top_papers_frame(scores, limit)
    shown = shown.rename(columns={c: name for c, (name, _) in TOP_PAPER_COLUMNS.items()})
    return {"top_papers": table(shown, dict(TOP_PAPER_COLUMNS.values()))}


def plot(png: bytes, alt: str) -> MetadataValue:
    """A PNG as Markdown (opens in the UI's dialog at its natural size: see the module docstring)."""
    return MetadataValue.md(f"![{alt}]({data_uri(png)})")


USAGE_COLUMNS: dict[str, str] = {
    "scope": "what the row counts: this run, or all calls of a stage and model",
    "calls": "LLM calls",
    "input_tokens": "prompt tokens (cached ones included)",
    "output_tokens": "completion tokens",
    "cost_usd": "cost in USD, exact (priced at call time)",
    "credits": "credits charged, exact",
}


def _usage_row(scope: str, totals: Mapping[str, Any]) -> dict[str, Any]:
    return {"scope": scope, "calls": int(totals["calls"]), "input_tokens": int(totals["input_tokens"]),
            "output_tokens": int(totals["output_tokens"]), "cost_usd": format(totals["cost_usd"], "f"),
            "credits": format(totals["credits"], "f")}


def usage(store: DomainStore, slug: str, *, stage: str | None = None, run_id: str | None = None) -> dict[str, Any]:
    """``{"usage": table}``: one row per stage and model of the project's LLM calls (of ``stage`` only, if given),
    this run's calls first when ``run_id`` is given, and the total; ``{}`` when no call was ever made."""
    calls = usage_calls_frame(store, slug)
    if stage is not None:
        calls = calls[calls["stage"] == stage]
    if calls.empty:
        return {}
    rows = []
    if run_id is not None:
        rows.append(_usage_row("this run", totals_of(calls[calls["run_id"] == run_id])))
    for group in aggregate(calls, ["stage", "model"]).to_dict(orient="records"):
        rows.append(_usage_row(f"{group['stage']} / {group['model']}", group))
    rows.append(_usage_row("total", totals_of(calls)))
    return {"usage": table(pd.DataFrame(rows), USAGE_COLUMNS)}


def per_partition(metadata: Mapping[str, Any]) -> dict[str, Any]:
    """Numbers as text: an asset check's history plots every numeric entry across all partitions' executions,
    which mixes projects into one meaningless line. Booleans, text and other values pass unchanged."""
    return {k: MetadataValue.text(str(v)) if isinstance(v, (int, float)) and not isinstance(v, bool) else v
            for k, v in metadata.items()}
