"""The ``agentr screen`` contract: a table of records (and optional labels) in, one ranked row per record out.

Input columns (case-insensitive; the first present wins): id :data:`ID_COLUMNS`, title :data:`TITLE_COLUMNS`,
abstract :data:`ABSTRACT_COLUMNS`; a labels table has an id column and a :data:`LABEL_COLUMNS` column.
Output columns: :data:`OUTPUT_COLUMNS` = ``record_id, rank, score, label, method``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from agentr_dagster.domain.text import clean_cell
from agentr_dagster.screening.features import build_features
from agentr_dagster.screening.presets import Preset, get_preset
from agentr_dagster.screening.scores import order_from_scores, zscore

if TYPE_CHECKING:  # pragma: no cover
    from agentr_dagster.screening.features import TextEncoder

__all__ = [
    "ABSTRACT_COLUMNS",
    "ID_COLUMNS",
    "LABEL_COLUMNS",
    "OUTPUT_COLUMNS",
    "TITLE_COLUMNS",
    "labels_from_table",
    "normalise_label",
    "screen",
]

ID_COLUMNS = ("record_id", "id", "paper_id", "key")
TITLE_COLUMNS = ("title", "ti", "primary_title")
ABSTRACT_COLUMNS = ("abstract", "ab", "abstract_note", "notes_abstract")
LABEL_COLUMNS = ("label", "decision", "label_included", "included", "include")
OUTPUT_COLUMNS = ("record_id", "rank", "score", "label", "method")


def _column(df: pd.DataFrame, *names: str) -> pd.Series | None:
    lower = {str(c).strip().lower(): c for c in df.columns}
    for name in names:
        if name in lower:
            return df[lower[name]]
    return None


def normalise_label(value: Any) -> int | None:
    """include/exclude, yes/no, 1/0, true/false, relevant/irrelevant -> 1/0; anything else -> None."""
    if value is None:
        return None
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, (int, np.integer)):
        return 1 if int(value) > 0 else 0
    if isinstance(value, float):
        return None if math.isnan(value) else (1 if value > 0 else 0)
    s = str(value).strip().lower()
    if s in {"1", "include", "included", "yes", "y", "true", "t", "relevant", "in", "+"}:
        return 1
    if s in {"0", "exclude", "excluded", "no", "n", "false", "f", "irrelevant", "out", "-", "-1"}:
        return 0
    return None


def labels_from_table(df: pd.DataFrame) -> dict[str, int] | None:
    """{record_id: 1|0} from a labels table (id and label columns by name, else the first two columns);
    unknown label values and empty ids skipped. None when the table has fewer than two columns."""
    cols = {str(c).strip().lower(): c for c in df.columns}
    id_col = next((cols[c] for c in ID_COLUMNS if c in cols), None)
    val_col = next((cols[c] for c in LABEL_COLUMNS if c in cols), None)
    if id_col is None or val_col is None:
        if len(df.columns) < 2:
            return None
        id_col, val_col = df.columns[0], df.columns[1]
    out: dict[str, int] = {}
    for rid, val in zip(df[id_col], df[val_col], strict=True):
        lv = normalise_label(val)
        rid = clean_cell(rid)
        if rid and lv is not None:
            out[rid] = lv
    return out


@dataclass
class _Records:
    """Distinct records of the input, in first-seen order; ``index`` maps a record_id to its position."""

    ids: list[str]
    titles: list[str]
    abstracts: list[str]
    index: dict[str, int]


def _distinct_records(df: pd.DataFrame) -> _Records:
    """Records with a missing id get ``row-<i>`` (1-based row number); repeated ids are merged, the longest
    title and abstract kept."""
    n_rows = len(df)
    ids_col = _column(df, *ID_COLUMNS)
    raw_ids = [clean_cell(v) for v in ids_col] if ids_col is not None else [""] * n_rows
    ids = [rid if rid else f"row-{i + 1}" for i, rid in enumerate(raw_ids)]
    titles_col = _column(df, *TITLE_COLUMNS)
    abstracts_col = _column(df, *ABSTRACT_COLUMNS)
    titles = [clean_cell(v) for v in titles_col] if titles_col is not None else [""] * n_rows
    abstracts = [clean_cell(v) for v in abstracts_col] if abstracts_col is not None else [""] * n_rows
    out = _Records([], [], [], {})
    for rid, ti, ab in zip(ids, titles, abstracts, strict=True):
        j = out.index.get(rid)
        if j is None:
            out.index[rid] = len(out.ids)
            out.ids.append(rid)
            out.titles.append(ti)
            out.abstracts.append(ab)
        else:
            if len(ti) > len(out.titles[j]):
                out.titles[j] = ti
            if len(ab) > len(out.abstracts[j]):
                out.abstracts[j] = ab
    return out


def _label_vector(labels: Mapping[str, Any] | None, index: Mapping[str, int], n: int) -> np.ndarray:
    """1 include / 0 exclude / -1 unlabelled per record; labels of unknown ids or values ignored."""
    lab = np.full(n, -1, dtype=np.int64)
    for rid, v in (labels or {}).items():
        j = index.get(clean_cell(rid))
        lv = normalise_label(v)
        if j is not None and lv is not None:
            lab[j] = lv
    return lab


def _empty_result() -> pd.DataFrame:
    return pd.DataFrame({c: [] for c in OUTPUT_COLUMNS}).astype(
        {"record_id": object, "rank": np.int64, "score": np.float64, "label": object, "method": object}
    )


def _ranked(ids: list[str], scores: np.ndarray, lab: np.ndarray, method: str) -> pd.DataFrame:
    """Labelled includes first, labelled excludes last, both kept in model order."""
    n = len(ids)
    key = zscore(scores).copy()
    span = (float(np.max(np.abs(key))) if n else 0.0) + 1.0
    key[lab == 1] += 2 * span
    key[lab == 0] -= 2 * span
    order = order_from_scores(key)
    return pd.DataFrame(
        {
            "record_id": [ids[i] for i in order],
            "rank": np.arange(1, n + 1, dtype=np.int64),
            "score": np.round(key[order], 6),
            "label": [("include" if lab[i] == 1 else "exclude" if lab[i] == 0 else "") for i in order],
            "method": method,
        }
    )


def screen(
    question: str,
    papers: pd.DataFrame,
    labels: Mapping[str, int] | None = None,
    *,
    embedder: TextEncoder | None = None,
    preset: str | Preset = "default",
    transformer: TextEncoder | None = None,
) -> pd.DataFrame:
    """Rank ``papers`` (columns ``record_id,title,abstract[,year,doi]``) against ``question``.

    Returns a DataFrame with columns ``record_id, rank, score, label, method``: every distinct input record
    exactly once, best first (rank 1 = read first). Records with a missing ``record_id`` get ``row-<i>``
    (1-based row number); repeated ``record_id`` rows are merged (the longest title/abstract kept).
    With ``labels`` (record_id -> 1 include / 0 exclude; other values ignored) the ranking is re-learned from
    them (the preset's learner, method ``active``) and labelled records are placed first (includes) or last
    (excludes). ``preset``: a name in :data:`agentr_dagster.screening.presets.PRESETS` or a Preset.
    ``transformer``: the second-stage encoder; by default the ONNX all-MiniLM-L6-v2 through the per-text vector
    cache (:func:`agentr_dagster.domain.transformer.get_cached_transformer`) when the preset uses it and
    ``make models`` has built it; a long encode shows a progress bar on stderr.
    """
    chosen = get_preset(preset)
    if embedder is None:
        from agentr_dagster.domain.embeddings import get_embedder

        embedder = get_embedder()
    df = papers if isinstance(papers, pd.DataFrame) else pd.DataFrame(papers)
    records = _distinct_records(df)
    n = len(records.ids)
    if n == 0:
        return _empty_result()
    if transformer is None and chosen.uses_transformer:
        from agentr_dagster.domain.transformer import get_cached_transformer

        transformer = get_cached_transformer()
    feats = build_features(
        records.titles, records.abstracts, embedder, transformer if chosen.uses_transformer else None
    )
    scores = chosen.ranker(clean_cell(question), feats)
    method = "zero-shot"
    lab = _label_vector(labels, records.index, n)
    labeled = np.flatnonzero(lab >= 0)
    if len(labeled):
        scores = chosen.learner(feats, scores).scores(labeled, lab[labeled])
        method = "active"
    return _ranked(records.ids, scores, lab, method)
