"""Column, header and key names to paper fields, and a table's rows to raw records (shared by the CSV/TSV, Excel
and plain-JSON readers).

Pure logic: no Dagster imports.
"""

from __future__ import annotations

import re
from typing import Any

from agentr_dagster.imports.records import Collector

#: Normalised header (lower case, letters and digits only) -> field, in priority order per field: when a
#: file has several columns for one field, the earlier alias wins, falling back to the next one when empty.
ALIASES: dict[str, tuple[str, ...]] = {
    "title": (
        "title", "articletitle", "documenttitle", "papertitle", "primarytitle", "ti", "t1", "worktitle",
        "displayname", "titleofarticle",
    ),
    "abstract": ("abstract", "abstractnote", "ab", "n2", "summary", "abstracttext", "description"),
    "year": (
        "year", "publicationyear", "py", "pubyear", "yearpublished", "y1", "publicationdate", "pubdate",
        "date", "da", "datepublished", "coverdate", "issued",
    ),
    "doi": ("doi", "di", "do", "doiurl", "doilink", "digitalobjectidentifier"),
    "authors": (
        "authors", "author", "authorfullnames", "af", "au", "a1", "authorlist", "authornames", "creators",
        "creator",
    ),
    "venue": (
        "venue", "journal", "journaltitle", "sourcetitle", "publicationtitle", "publicationname",
        "journalname", "containertitle", "so", "jo", "jf", "t2", "booktitle", "conference", "source",
        "publication",
    ),
    "url": ("url", "link", "uri", "ur", "landingpageurl", "pdfurl", "links"),
    "source_id": (
        "recordid", "id", "pmid", "pubmedid", "eid", "ut", "utuniquewosid", "accessionnumber", "an", "key",
        "openalexid", "arxivid", "paperid", "articleid", "uid",
    ),
}  # fmt: skip
_ALIAS_RANK: dict[str, tuple[str, int]] = {
    alias: (field, rank) for field, aliases in ALIASES.items() for rank, alias in enumerate(aliases)
}
_KEY_NORMALISE = re.compile(r"[^0-9a-z]+")


def normalise_key(name: str) -> str:
    return _KEY_NORMALISE.sub("", name.casefold())


def map_columns(names: list[str]) -> dict[str, list[int]]:
    """field -> indexes of the columns that hold it, best first."""
    ranked: dict[str, list[tuple[int, int]]] = {}
    for index, name in enumerate(names):
        hit = _ALIAS_RANK.get(normalise_key(name))
        if hit:
            ranked.setdefault(hit[0], []).append((hit[1], index))
    return {field: [index for _, index in sorted(hits)] for field, hits in ranked.items()}


def add_table_rows(
    header: list[str],
    mapping: dict[str, list[int]],
    rows: list[tuple[int, list[str]]],
    collector: Collector,
    fmt: str,
) -> None:
    """Feed (row number, cells) of a table to the collector, each field from the first non-empty column that
    holds it (see :func:`map_columns`); an empty row is dropped with its reason."""
    field_columns = {field: header[indexes[0]] for field, indexes in mapping.items()}
    for row, cells in rows:
        if not cells:
            collector.drop(row, None, "empty row")
            continue
        if len(cells) > len(header) and any(cell.strip() for cell in cells[len(header) :]):
            collector.clean(
                row, None, f"row has {len(cells)} cells but the header has {len(header)}; extra cells ignored"
            )
        raw: dict[str, Any] = {}
        columns: dict[str, str] = {}
        for field, indexes in mapping.items():
            columns[field] = field_columns[field]
            for index in indexes:
                if index < len(cells) and cells[index].strip():
                    raw[field] = cells[index]
                    columns[field] = header[index]
                    break
        collector.add(row, raw, source_format=fmt, columns=columns)
