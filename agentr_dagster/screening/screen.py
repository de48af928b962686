"""The ``agentr screen`` contract: a table of records (and optional labels) in, one ranked row per record out.

Input columns (case-insensitive; the first present wins): id :data:`ID_COLUMNS`, title :data:`TITLE_COLUMNS`,
abstract :data:`ABSTRACT_COLUMNS`; a labels table has an id column and a :data:`LABEL_COLUMNS` column.
Output columns: :data:`OUTPUT_COLUMNS` = ``record_id, rank, score, label, method, duplicate_of, probability``:
``score`` is the order key (z-scores; labelled includes lifted above, excludes pushed below: an order, not a
probability), ``probability`` the calibrated probability of inclusion
(:mod:`agentr_dagster.screening.calibration`; a labelled record's is its label). The frame's
``attrs["estimate"]`` is the :class:`~agentr_dagster.screening.calibration.CountEstimate` of includes and
``attrs["model_score"]`` the model's scores in row order (before labelled records are moved to the ends); when
the ranking learnt from labels, ``attrs["versus_zero_shot"]`` is the
:class:`~agentr_dagster.screening.versus.VersusZeroShot` comparison of the learned order with the zero-shot order on
the unlabelled records (absent without labels).

Records that ``agentr papers add`` would merge as duplicates are merged here too (:func:`screen`'s ``dedupe``), so
that ``agentr screen`` ranks the corpus the main job ranks; each duplicate keeps its output row, right after the
record it duplicates.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from agentr_dagster.domain.contracts import PaperRecord
from agentr_dagster.domain.text import clean_cell
from agentr_dagster.imports.columns import add_table_rows, map_columns
from agentr_dagster.imports.dedup import dedupe
from agentr_dagster.imports.identity import normal_doi, paper_key
from agentr_dagster.imports.records import Collector, ImportLimits
from agentr_dagster.screening.calibration import calibrate, estimate_included
from agentr_dagster.screening.features import ScreeningFeatures, build_features
from agentr_dagster.screening.presets import Preset, get_preset
from agentr_dagster.screening.scores import order_from_scores, zscore
from agentr_dagster.screening.versus import compare_with_zero_shot

if TYPE_CHECKING:  # pragma: no cover
    from agentr_dagster.screening.features import TextEncoder

__all__ = [
    "ABSTRACT_COLUMNS",
    "ID_COLUMNS",
    "LABEL_COLUMNS",
    "OUTPUT_COLUMNS",
    "TITLE_COLUMNS",
    "cell_column",
    "labels_from_table",
    "normalise_label",
    "place_duplicates",
    "record_ids",
    "screen",
]

ID_COLUMNS = ("record_id", "id", "paper_id", "key")
TITLE_COLUMNS = ("title", "ti", "primary_title")
ABSTRACT_COLUMNS = ("abstract", "ab", "abstract_note", "notes_abstract")
LABEL_COLUMNS = ("label", "decision", "label_included", "included", "include")
OUTPUT_COLUMNS = ("record_id", "rank", "score", "label", "method", "duplicate_of", "probability")


def _column(df: pd.DataFrame, *names: str) -> pd.Series | None:
    lower = {str(c).strip().lower(): c for c in df.columns}
    for name in names:
        if name in lower:
            return df[lower[name]]
    return None


def cell_column(df: pd.DataFrame, *names: str) -> list[str]:
    """The cells of the first of ``names`` present (case-insensitive), cleaned; empty strings when none is."""
    col = _column(df, *names)
    return [clean_cell(v) for v in col] if col is not None else [""] * len(df)


def record_ids(df: pd.DataFrame) -> list[str]:
    """Each row's record id as :func:`screen` names it: its id column, else ``row-<i>`` (1-based row number)."""
    return [rid or f"row-{i + 1}" for i, rid in enumerate(cell_column(df, *ID_COLUMNS))]


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
    """Distinct records of the input, in first-seen order; ``index`` maps a record_id to its position,
    ``first_rows`` holds the input row each was first seen in and ``repeated`` the positions seen in several rows."""

    ids: list[str]
    titles: list[str]
    abstracts: list[str]
    index: dict[str, int]
    first_rows: list[int]
    repeated: set[int]


def _distinct_records(df: pd.DataFrame) -> _Records:
    """Records with a missing id get ``row-<i>`` (1-based row number); repeated ids are merged, the longest
    title and abstract kept."""
    ids = record_ids(df)
    titles = cell_column(df, *TITLE_COLUMNS)
    abstracts = cell_column(df, *ABSTRACT_COLUMNS)
    out = _Records([], [], [], {}, [], set())
    for row, (rid, ti, ab) in enumerate(zip(ids, titles, abstracts, strict=True)):
        j = out.index.get(rid)
        if j is None:
            out.index[rid] = len(out.ids)
            out.ids.append(rid)
            out.titles.append(ti)
            out.abstracts.append(ab)
            out.first_rows.append(row)
        else:
            out.repeated.add(j)
            if len(ti) > len(out.titles[j]):
                out.titles[j] = ti
            if len(ab) > len(out.abstracts[j]):
                out.abstracts[j] = ab
    return out


def _raw_cell(value: Any) -> str:
    """A cell as the importer reads a table's cells: text, uncleaned ("" for a missing value)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    return str(value)


def _imported(df: pd.DataFrame, records: _Records) -> list[PaperRecord | None]:
    """Each record's first row as ``agentr papers add`` reads a table row (the importer's column names, field
    coercion and cleaning), or None where the importer drops it (no title). ``source_row`` is the record's
    1-based position."""
    header = [str(c).strip() for c in df.columns]
    cells = df.to_numpy(dtype=object)
    rows = [(j + 1, [_raw_cell(v) for v in cells[row]]) for j, row in enumerate(records.first_rows)]
    collector = Collector("agentr screen", ImportLimits())
    add_table_rows(header, map_columns(header), rows, collector, "csv")
    out: list[PaperRecord | None] = [None] * len(records.ids)
    for record in collector.records:
        out[(record.source_row or 0) - 1] = record
    return out


def _twins(imported: list[PaperRecord | None]) -> dict[int, int]:
    """{duplicate position: position of the record it duplicates}, merged as ``agentr papers add`` merges them:
    the importer's de-duplication of a file, then the store's one paper per paper key (the first kept)."""
    unique, pairs = dedupe([r for r in imported if r is not None])
    twin = {(dropped.source_row or 0) - 1: (kept.source_row or 0) - 1 for dropped, kept in pairs}
    first_of_key: dict[str, int] = {}
    for record in unique:
        j = (record.source_row or 0) - 1
        first = first_of_key.setdefault(paper_key(record), j)
        if first != j:
            twin[j] = first

    def kept(j: int) -> int:  # a twin merged by its key in turn: the record kept (twins always come earlier)
        while j in twin:
            j = twin[j]
        return j

    return {duplicate: kept(j) for duplicate, j in twin.items()}


def _merge_duplicates(df: pd.DataFrame, records: _Records) -> tuple[dict[int, int], list[int]]:
    """The duplicates in ``records`` (see :func:`_twins`) and the records the importer drops (no title and too
    short an abstract to stand for a paper: a project never holds them; one with the DOI of a record the importer
    keeps counts as that record's duplicate). A record the importer keeps is ranked
    on the text the importer stores for it (a project ranks exactly that), unless its id repeats (then the
    merged text stays, and the record is ranked even where its first row would be dropped)."""
    imported = _imported(df, records)
    for j, record in enumerate(imported):
        if record is not None and j not in records.repeated:
            records.titles[j] = clean_cell(record.title)
            records.abstracts[j] = clean_cell(record.abstract)
    twin = _twins(imported)
    dropped = [j for j, record in enumerate(imported) if record is None and j not in records.repeated]
    # a dropped record with the DOI of one the importer keeps is that paper (the export lists it there)
    doi_column = _column(df, "doi")
    if dropped and doi_column is not None:
        cells = doi_column.tolist()
        owner: dict[str, int] = {}
        for j, record in enumerate(imported):
            if record is not None and record.doi:
                owner.setdefault(record.doi, twin.get(j, j))
        for j in list(dropped):
            doi = normal_doi(_raw_cell(cells[records.first_rows[j]]))
            if doi and doi in owner:
                twin[j] = owner[doi]
                dropped.remove(j)
    return twin, dropped


def _label_vector(labels: Mapping[str, Any] | None, index: Mapping[str, int], slot: list[int],
                  kept: list[int]) -> np.ndarray:
    """1 include / 0 exclude / -1 unlabelled per kept record (``slot``: a record's position -> its kept record's
    index in ``kept``); labels of unknown ids or values ignored. A duplicate's label applies to its twin: the
    twin's own label wins, else include if any of its duplicates says include."""
    own = np.full(len(kept), -1, dtype=np.int64)
    via_duplicate = np.full(len(kept), -1, dtype=np.int64)
    for rid, v in (labels or {}).items():
        j = index.get(clean_cell(rid))
        lv = normalise_label(v)
        if j is None or lv is None:
            continue
        s = slot[j]
        if s < 0:  # a record the importer drops: not ranked, its label unused
            continue
        if kept[s] == j:
            own[s] = lv
        else:
            via_duplicate[s] = max(via_duplicate[s], lv)
    return np.where(own >= 0, own, via_duplicate)


def _empty_result() -> pd.DataFrame:
    return pd.DataFrame({c: [] for c in OUTPUT_COLUMNS}).astype(
        {"record_id": object, "rank": np.int64, "score": np.float64, "label": object, "method": object,
         "duplicate_of": object, "probability": np.float64}
    )


def _ranked(records: _Records, kept: list[int], twin: Mapping[int, int], scores: np.ndarray, lab: np.ndarray,
            method: str, probability: np.ndarray, unranked: Sequence[int] = (),
            labels: Mapping[str, Any] | None = None) -> pd.DataFrame:
    """Labelled includes first, labelled excludes last, both kept in model order; each duplicate right after
    its twin (in input order), with the twin's score, label and probability; the ``unranked`` records (the
    importer drops them) in input order after the ranked records not labelled exclude (before the excludes),
    scored between them."""
    key = zscore(scores).copy()
    span = (float(np.max(np.abs(key))) if len(kept) else 0.0) + 1.0
    key[lab == 1] += 2 * span
    key[lab == 0] -= 2 * span
    followers: dict[int, list[int]] = {}
    for duplicate in sorted(twin):
        followers.setdefault(twin[duplicate], []).append(duplicate)
    rows: list[tuple[int, int]] = []  # (record position, kept index)
    for i in order_from_scores(key):
        rows += [(j, int(i)) for j in (kept[i], *followers.get(kept[i], ()))]
    ids = [records.ids[j] for j, _ in rows]
    score = list(np.round(key[[i for _, i in rows]], 6))
    label = [("include" if lab[i] == 1 else "exclude" if lab[i] == 0 else "") for _, i in rows]
    duplicate_of = [records.ids[twin[j]] if j in twin else "" for j, _ in rows]
    prob = list(np.round(probability[[i for _, i in rows]], 6))
    if unranked:  # after the ranked records nobody excluded, before the labelled excludes
        at = next((r for r, (_, i) in enumerate(rows) if lab[i] == 0), len(rows))
        above = float(key[rows[at - 1][1]]) if at > 0 else (float(key[rows[at][1]]) + 2.0 if rows else 1.0)
        below = float(key[rows[at][1]]) if at < len(rows) else above - 2.0
        least = float(probability[rows[at - 1][1]]) if at > 0 else 0.0
        given = {records.index.get(clean_cell(rid)): normalise_label(v) for rid, v in (labels or {}).items()}
        ids[at:at] = [records.ids[j] for j in unranked]
        score[at:at] = [round((above + below) / 2, 6)] * len(unranked)
        label[at:at] = ["include" if given.get(j) == 1 else "exclude" if given.get(j) == 0 else "" for j in unranked]
        duplicate_of[at:at] = [""] * len(unranked)
        prob[at:at] = [round(least, 6)] * len(unranked)
    return pd.DataFrame(
        {
            "record_id": ids,
            "rank": np.arange(1, len(ids) + 1, dtype=np.int64),
            "score": np.asarray(score, dtype=np.float64),
            "label": label,
            "method": method,
            "duplicate_of": duplicate_of,
            "probability": np.asarray(prob, dtype=np.float64),
        }
    )


def place_duplicates(ranking: pd.DataFrame) -> pd.DataFrame:
    """A re-ordered ranking with every row that names a twin in ``duplicate_of`` moved right after the twin
    (one twin's duplicates in their current order) and ``rank`` renumbered."""
    twins = [str(t) if isinstance(t, str) else "" for t in ranking["duplicate_of"]]
    followers: dict[str, list[int]] = {}
    for row, twin in enumerate(twins):
        if twin:
            followers.setdefault(twin, []).append(row)
    order: list[int] = []
    for row, (rid, twin) in enumerate(zip(ranking["record_id"].astype(str), twins, strict=True)):
        if not twin:
            order += [row, *followers.pop(rid, ())]
    order += [row for rows in followers.values() for row in rows]  # a twin not in the table: at the end
    out = ranking.iloc[order].reset_index(drop=True)
    out["rank"] = np.arange(1, len(out) + 1, dtype=np.int64)
    return out


def zero_shot_inputs(preset: Preset, question: str, titles: list[str], abstracts: list[str],
                     embedder: TextEncoder | None = None,
                     transformer: TextEncoder | None = None) -> tuple[ScreeningFeatures, np.ndarray]:
    """The features a preset ranks on and its zero-shot scores, built one way for ``screen`` and the scoring
    stage's queue: the static embedder (default: the bundled one) and, when the preset uses it, the transformer
    (default: the ONNX model through the per-text vector cache); the question cleaned as a cell is."""
    if embedder is None:
        from agentr_dagster.domain.embeddings import get_embedder

        embedder = get_embedder()
    if transformer is None and preset.uses_transformer:
        from agentr_dagster.domain.transformer import get_cached_transformer

        transformer = get_cached_transformer()
    feats = build_features(titles, abstracts, embedder, transformer if preset.uses_transformer else None)
    return feats, preset.ranker(clean_cell(question), feats)


def _ranked_slots(n_records: int, twin: Mapping[int, int], unranked: list[int]) -> tuple[list[int], list[int]]:
    """The records ranked (neither a merged duplicate nor dropped by the importer) and, per record, its position
    among them: a duplicate takes its twin's, a dropped record -1."""
    dropped = set(unranked)
    kept = [j for j in range(n_records) if j not in twin and j not in dropped]
    slot = [-1] * n_records
    for i, j in enumerate(kept):
        slot[j] = i
    for duplicate, j in twin.items():
        slot[duplicate] = slot[j]
    return kept, slot


def screen(
    question: str,
    papers: pd.DataFrame,
    labels: Mapping[str, int] | None = None,
    *,
    embedder: TextEncoder | None = None,
    preset: str | Preset = "default",
    transformer: TextEncoder | None = None,
    dedupe: bool = True,
    extra_includes: Sequence[tuple[str, str]] = (),
) -> pd.DataFrame:
    """Rank ``papers`` (columns ``record_id,title,abstract[,year,doi]``) against ``question``.

    Returns a DataFrame with columns ``record_id, rank, score, label, method, duplicate_of``: every distinct input
    record exactly once, best first (rank 1 = read first). Records with a missing ``record_id`` get ``row-<i>``
    (1-based row number); repeated ``record_id`` rows are merged (the longest title/abstract kept).
    With ``dedupe`` (the default) the records are read and de-duplicated as ``agentr papers add`` reads and
    de-duplicates a file (the importer's columns, cleaning and rules: same DOI, same title and year...; then one
    record per paper key), and only the records it keeps are ranked, on the text it keeps: the corpus the main
    job ranks. A merged duplicate is listed right after the record it duplicates, with its score and label, and
    names it in ``duplicate_of`` (empty for every other record); a label given for a duplicate applies to that
    record. A record the importer drops (no title, and an abstract too short to stand for a paper: see
    :func:`agentr_dagster.imports.records.untitled_title`) is not ranked, as a project never holds it: such
    records come after every ranked record (before labelled excludes), in input order. ``dedupe=False`` ranks
    every distinct record (for a project's papers, de-duplicated at import).
    With ``labels`` (record_id -> 1 include / 0 exclude; other values ignored) the ranking is re-learned from
    them (the preset's learner, method ``active``) and labelled records are placed first (includes) or last
    (excludes). ``preset``: a name in :data:`agentr_dagster.screening.presets.PRESETS` or a Preset.
    ``transformer``: the second-stage encoder; by default the ONNX all-MiniLM-L6-v2 through the per-text vector
    cache (:func:`agentr_dagster.domain.transformer.get_cached_transformer`) when the preset uses it and
    ``make models`` has built it; a long encode shows a progress bar on stderr.
    ``extra_includes``: (title, abstract) of known includes that are not among ``papers`` (a project's seed
    studies found nowhere in its candidates): the learner trains on them as labelled includes (method
    ``active``), and they are never part of the output, the calibration or the count of includes.
    """
    chosen = get_preset(preset)
    df = papers if isinstance(papers, pd.DataFrame) else pd.DataFrame(papers)
    records = _distinct_records(df)
    if not records.ids:
        return _empty_result()
    twin, unranked = _merge_duplicates(df, records) if dedupe else ({}, [])
    kept, slot = _ranked_slots(len(records.ids), twin, unranked)
    if not kept:  # nothing the importer keeps: every record unranked, in input order
        out = _ranked(records, [], {}, np.zeros(0), np.zeros(0, dtype=np.int64), "zero-shot", np.zeros(0),
                      unranked, labels)
        out.attrs["estimate"] = estimate_included(np.zeros(0), np.zeros(0, dtype=np.int64))
        out.attrs["model_score"] = np.full(len(out), np.nan)
        return out
    # the extra includes are ranked with the records (features, prior) and trained on, then cut off again
    extra = [(clean_cell(t), clean_cell(a)) for t, a in extra_includes]
    n = len(kept)
    feats, scores = zero_shot_inputs(chosen, question, [records.titles[j] for j in kept] + [t for t, _ in extra],
                                     [records.abstracts[j] for j in kept] + [a for _, a in extra], embedder,
                                     transformer)
    method = "zero-shot"
    lab = _label_vector(labels, records.index, slot, kept)
    train = np.r_[lab, np.ones(len(extra), dtype=np.int64)]
    labeled = np.flatnonzero(train >= 0)
    versus = None
    if len(labeled):
        learner = chosen.learner(feats, scores)
        learned = learner.scores(labeled, train[labeled])[:n]
        # how far the labels moved the order from the question's own (the zero-shot scores, the learner's prior)
        versus = compare_with_zero_shot(learned, scores[:n], lab, getattr(learner, "last_prior_weight", None))
        scores = learned
        method = "active"
    scores = scores[:n]
    # the model's own scores (before labelled records are moved to the ends) are what calibration reads
    calibration = calibrate(scores, lab)
    out = _ranked(records, kept, twin, scores, lab, method, calibration.probability, unranked, labels)
    out.attrs["estimate"] = estimate_included(scores, lab)
    position = {rid: i for i, rid in enumerate(records.ids)}
    out.attrs["model_score"] = np.array([scores[slot[position[r]]] if slot[position[r]] >= 0 else np.nan
                                         for r in out["record_id"]])  # row order
    if versus is not None:
        out.attrs["versus_zero_shot"] = versus
    return out
