"""Screening decisions from an ASReview LAB project export (``.asreview``): a ZIP archive of the project folder.

The layouts read (from ASReview's documented project format):

* LAB 2 and later: ``project.json`` (``datasets[0].name``, ``reviews[].id``), ``data_store.db`` (SQLite, table
  ``record``: ``record_id``, ``dataset_row``, ``title``, ``doi``), ``reviews/<id>/results.db`` (SQLite, table
  ``results``: ``record_id``, ``label``), and the user's data file in ``data/``;
* LAB 1: ``project.json`` (``dataset_path``), ``reviews/<id>/results.sql`` (table ``results``) and the data
  file in ``data/``, whose ``record_id`` column (else its row number, from 0) is the record id.

Each decision is named by the record's title and DOI and, when the data file is a table with an id column,
by the user's own record id. A label that is neither 0 nor 1 (a record still pending) is skipped. Pure logic:
the archive is checked before anything is unpacked (part count, inflated size), and the SQLite files are
opened read-only from a private temporary folder.
"""

from __future__ import annotations

import io
import json
import sqlite3
import tempfile
import zipfile
from pathlib import Path, PurePosixPath

from agentr_dagster.imports.cleaning import clip
from agentr_dagster.imports.columns import normalise_key
from agentr_dagster.imports.errors import ImportFileError
from agentr_dagster.imports.labels import (
    LABEL_TABLE_SUFFIXES,
    RECORD_ID_COLUMNS,
    LabelEntry,
    LabelTable,
    normal_doi,
    table_rows,
)
from agentr_dagster.imports.records import ImportLimits

__all__ = ["read_asreview_project"]

MAX_PARTS = 10_000
INFLATE_FACTOR = 8  # the unpacked project may be at most this many times the import size limit


def _members(archive: zipfile.ZipFile, limits: ImportLimits) -> dict[str, zipfile.ZipInfo]:
    """Members by path relative to the project folder (the folder holding project.json)."""
    infos = archive.infolist()
    if len(infos) > MAX_PARTS:
        raise ImportFileError(f"The archive has {len(infos):,} parts; that is not an ASReview project.")
    if sum(info.file_size for info in infos) > INFLATE_FACTOR * limits.max_bytes:
        raise ImportFileError("The project would inflate past the import limit; refused without unpacking.")
    configs = sorted((i.filename for i in infos if PurePosixPath(i.filename).name == "project.json"), key=len)
    if not configs:
        raise ImportFileError("The archive has no project.json: it is not an ASReview project export.")
    root = PurePosixPath(configs[0]).parent
    members: dict[str, zipfile.ZipInfo] = {}
    for info in infos:
        path = PurePosixPath(info.filename)
        if info.is_dir() or ".." in path.parts or path.is_absolute():
            continue
        try:
            members[str(path.relative_to(root))] = info
        except ValueError:
            continue
    return members


def _query(path: Path, sql: str) -> list[tuple]:
    try:
        conn = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True)
        try:
            return conn.execute(sql).fetchall()
        finally:
            conn.close()
    except sqlite3.Error as exc:
        raise ImportFileError(f"{path.name} in the project is not a readable ASReview database ({exc}).") from exc


def _data_ids(archive: zipfile.ZipFile, members: dict[str, zipfile.ZipInfo], name: str | None,
              limits: ImportLimits) -> tuple[list[str | None], bool] | None:
    """The data file's record ids by row (None where empty), and whether they came from an id column
    (False: the file has none). None when the file is not a table we read."""
    info = members.get(f"data/{name}") if name else None
    suffix = PurePosixPath(name or "").suffix.lower()
    if info is None or suffix not in LABEL_TABLE_SUFFIXES:
        return None
    rows = table_rows(archive.read(info), suffix, limits)
    if not rows:
        return None
    keys = [normalise_key(h) for h in rows[0]]
    column = next((keys.index(c) for c in RECORD_ID_COLUMNS if c in keys), None)
    if column is None:
        return [None] * (len(rows) - 1), False
    return [(r[column].strip() or None) if column < len(r) else None for r in rows[1:]], True


def _titles_by_row(archive, members, name, limits) -> dict[int, tuple[str | None, str | None]]:
    """LAB 1 keeps no record table: (title, doi) by data-file row from the data file itself."""
    info = members.get(f"data/{name}") if name else None
    suffix = PurePosixPath(name or "").suffix.lower()
    if info is None or suffix not in LABEL_TABLE_SUFFIXES:
        return {}
    rows = table_rows(archive.read(info), suffix, limits)
    keys = [normalise_key(h) for h in rows[0]] if rows else []
    title = keys.index("title") if "title" in keys else None
    doi = keys.index("doi") if "doi" in keys else None

    def cell(row: list[str], index: int | None) -> str | None:
        return (row[index].strip() or None) if index is not None and index < len(row) else None

    return {i: (cell(r, title), normal_doi(cell(r, doi))) for i, r in enumerate(rows[1:])}


def read_asreview_project(data: bytes, limits: ImportLimits | None = None) -> LabelTable:
    """The decisions of every review in an ASReview project export, later reviews overriding earlier ones."""
    limits = limits or ImportLimits()
    if len(data) > limits.max_bytes:
        raise ImportFileError(f"The file is too large ({len(data):,} bytes; the limit is {limits.max_bytes:,}).")
    if not data.startswith(b"PK\x03\x04"):
        raise ImportFileError("An .asreview file is a ZIP archive of the project; this one is not.")
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, ValueError, OSError) as exc:
        raise ImportFileError(f"The .asreview file is not a valid ZIP archive: {clip(str(exc), 120)}.") from exc
    with archive, tempfile.TemporaryDirectory(prefix="agentr-asreview-") as tmp:
        members = _members(archive, limits)
        try:
            config = json.loads(archive.read(members["project.json"]).decode("utf-8-sig"))
        except (ValueError, UnicodeError) as exc:
            raise ImportFileError(f"project.json is not valid JSON ({clip(str(exc), 80)}).") from exc
        if not isinstance(config, dict):
            raise ImportFileError("project.json is not a JSON object.")
        datasets = config.get("datasets") or []
        dataset = (datasets[0].get("name") if datasets and isinstance(datasets[0], dict) else None) \
            or config.get("dataset_path")
        review_ids = [str(r.get("id")) for r in config.get("reviews") or [] if isinstance(r, dict) and r.get("id")]
        found = [(rid, members.get(f"reviews/{rid}/results.db") or members.get(f"reviews/{rid}/results.sql"))
                 for rid in review_ids]
        results = [(rid, info) for rid, info in found if info is not None]
        if not results:
            raise ImportFileError("The project has no review results (reviews/<id>/results.db or results.sql).")

        def unpack(info: zipfile.ZipInfo, name: str) -> Path:
            target = Path(tmp) / name
            target.write_bytes(archive.read(info))
            return target

        decisions: dict[int, int] = {}
        for n, (_, info) in enumerate(results):
            db = unpack(info, f"results-{n}.db")
            for record_id, label in _query(db, "SELECT record_id, label FROM results ORDER BY rowid"):
                if label in (0, 1) and isinstance(record_id, int):
                    decisions.pop(record_id, None)
                    decisions[record_id] = int(label)
        ids = _data_ids(archive, members, dataset, limits)
        entries: list[LabelEntry] = []
        if "data_store.db" in members:  # LAB 2+: the record table names each record
            store = unpack(members["data_store.db"], "data_store.db")
            records = {int(r[0]): r[1:] for r in _query(
                store, "SELECT record_id, dataset_row, title, doi FROM record")}
            for record_id, label in decisions.items():
                row, title, doi = records.get(record_id, (None, None, None))
                user_id = ids[0][row] if ids and isinstance(row, int) and 0 <= row < len(ids[0]) else None
                entries.append(LabelEntry(record_id, label, user_id, normal_doi(doi), title or None, "record"))
        else:  # LAB 1: record ids are the data file's record_id column, else its row numbers
            by_row = _titles_by_row(archive, members, dataset, limits)
            if not by_row:
                raise ImportFileError(
                    f"The project's data file {clip(str(dataset), 60)!r} is not a CSV/TSV/XLSX table, so its records "
                    "cannot be named; export the labelled dataset from ASReview as CSV and drop that instead."
                )
            row_of = ({int(v): i for i, v in enumerate(ids[0]) if v and v.lstrip("-").isdigit()}
                      if ids and ids[1] else {i: i for i in by_row})
            for record_id, label in decisions.items():
                row = row_of.get(record_id)
                title, doi = by_row.get(row, (None, None)) if row is not None else (None, None)
                user_id = str(record_id) if ids and ids[1] else None
                entries.append(LabelEntry(record_id, label, user_id, doi, title, "record"))
    entries = [e for e in entries if e.record_id or e.doi or e.title]
    if not entries:
        raise ImportFileError("The project holds no include/exclude decision on a record it can name.")
    return LabelTable("asreview", entries, [], {"decision": "results.label", "record_id": "record_id"})
