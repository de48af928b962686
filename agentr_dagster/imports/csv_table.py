"""CSV and TSV tables with a header row (Zotero, Scopus, PubMed, Web of Science tab-delimited, our own exports).

The delimiter is guessed from the header (the one that finds a title column and the most known columns), Excel's
``sep=`` line is honoured, a quote that swallowed the rest of the file drops only its row, and tab-separated
exports that do not quote at all are read with quotes as ordinary characters. A ``.txt`` file whose first line
has a tab is read here as TSV.

Pure logic: no Dagster imports.
"""

from __future__ import annotations

import csv
import functools
import io
import re
from collections.abc import Iterator
from typing import Literal

from agentr_dagster.imports.cleaning import clip
from agentr_dagster.imports.columns import add_table_rows, map_columns
from agentr_dagster.imports.errors import ImportFileError
from agentr_dagster.imports.hints import sniff_hint
from agentr_dagster.imports.reader import Reader
from agentr_dagster.imports.records import Collector

_DELIMITERS = (",", ";", "\t", "|")


def _ensure_csv_field_limit(needed: int) -> None:
    # csv's limit is process-wide; only ever raise it (never lower another caller's setting).
    if csv.field_size_limit() < needed:
        csv.field_size_limit(needed)


def _first_row(text: str, delimiter: str) -> list[str]:
    reader = csv.reader(io.StringIO(text[:1_000_000]), delimiter=delimiter)
    try:
        for row in reader:
            if any(cell.strip() for cell in row):
                return row
    except csv.Error:
        return []
    return []


def _header_names(row: list[str]) -> list[str]:
    return [" ".join(cell.replace("\ufeff", "").split()) for cell in row]


def parse_csv(text: str, collector: Collector, *, tsv: bool) -> str:
    _ensure_csv_field_limit(collector.limits.max_bytes + 1)
    fmt = "csv"
    offset_rows = 0
    preferred = "\t" if tsv else ","
    first_line = text.split("\n", 1)[0].lstrip("\ufeff ")
    sep_line = re.fullmatch(r"sep=(.) *", first_line, re.IGNORECASE)  # Excel's delimiter hint
    if sep_line:
        candidates: tuple[str, ...] = (sep_line.group(1),)
        text = text.split("\n", 1)[1] if "\n" in text else ""
        offset_rows = 1
    else:
        candidates = (preferred, *(d for d in _DELIMITERS if d != preferred))

    best: tuple[int, str, list[str], dict[str, list[int]]] | None = None
    widest: list[str] = []
    for delimiter in candidates:
        header = _header_names(_first_row(text, delimiter))
        if len(header) > len(widest):
            widest = header
        mapping = map_columns(header)
        if "title" in mapping:
            score = len(mapping)
            if best is None or score > best[0]:
                best = (score, delimiter, header, mapping)
    if best is None:
        if not widest:
            raise ImportFileError("The file has no header row and no data.")
        shown = ", ".join(repr(clip(name, 40)) for name in widest[:20] if name) or "(only empty names)"
        more = f" and {len(widest) - 20} more" if len(widest) > 20 else ""
        raise ImportFileError(
            f"No title column found. Columns found: {shown}{more}. Name the title column 'title' "
            "(also recognised: 'Title', 'Article Title', 'Document Title', 'TI')."
            + sniff_hint(text, ".tsv" if tsv else ".csv"),
            row=1 + offset_rows,
        )
    _, delimiter, header, mapping = best

    rows = _read_records(text, delimiter, csv.QUOTE_MINIMAL, offset_rows, collector)
    swallowed = _swallowed_cell(text, rows)
    if delimiter == "\t" and (
        swallowed is not None or any("\t" in cell and "\n" in cell for _, cells in rows for cell in cells)
    ):
        # Tab-separated exports (Web of Science, PubMed) usually do not quote at all: a quote that swallowed
        # tabs and line breaks was text, not quoting.
        rows, swallowed = _read_records(text, delimiter, csv.QUOTE_NONE, offset_rows, collector), None
        collector.clean(1 + offset_rows, None, "stray quotes: quotes read as ordinary characters")
    if not any(cells for _, cells in rows):
        raise ImportFileError("The file has a header row but no data rows.")
    if swallowed is not None:
        row, index = swallowed
        cells = dict(rows)[row]
        collector.drop(
            row,
            header[index] if index < len(header) else None,
            f"unterminated quote: the rest of the file ({cells[index].count(chr(10))} lines) was read as "
            "one cell; row dropped",
        )
        rows = [(r, c) for r, c in rows if r != row]
    add_table_rows(header, mapping, rows, collector, fmt)
    return fmt


def _read_records(
    text: str, delimiter: str, quoting: Literal[0, 1, 2, 3], offset_rows: int, collector: Collector  # csv.QUOTE_*
) -> list[tuple[int, list[str]]]:
    """Data rows after the header as (spreadsheet row, cells); empty rows as (row, []). Enforces max_rows."""
    reader = csv.reader(io.StringIO(text), delimiter=delimiter, quoting=quoting)
    rows: list[tuple[int, list[str]]] = []
    header_seen = False
    data_rows = 0
    record_index = offset_rows
    iterator: Iterator[list[str]] = iter(reader)
    while True:
        try:
            cells = next(iterator)
        except StopIteration:
            break
        except csv.Error as exc:  # pragma: no cover - csv is lenient with strict=False; kept as a guard
            collector.drop(record_index + 1, None, f"could not read the rest of the file: {clip(str(exc))}")
            break
        record_index += 1
        blank = not any(cell.strip() for cell in cells)
        if not header_seen:
            header_seen = not blank
            continue
        if blank:
            rows.append((record_index, []))
            continue
        data_rows += 1
        if data_rows > collector.limits.max_rows:
            raise collector.too_many_rows(record_index)
        rows.append((record_index, cells))
    return rows


def _swallowed_cell(text: str, rows: list[tuple[int, list[str]]]) -> tuple[int, int] | None:
    """(row, cell index) when an unbalanced quote made csv read the rest of the file into the last row."""
    if not rows or text.count('"') % 2 == 0:
        return None
    row, cells = next((item for item in reversed(rows) if item[1]), (0, []))
    for index, cell in enumerate(cells):
        if "\n" in cell:
            return row, index
    return None



def has_tab_header(text: str) -> bool:
    """A first line with a tab in it: a tab-separated table (how a ``.txt`` export is recognised as one)."""
    return "\t" in text.lstrip("\ufeff").split("\n", 1)[0]


CSV = Reader("csv", read=functools.partial(parse_csv, tsv=False))
TSV = Reader(
    "tsv", read=functools.partial(parse_csv, tsv=True), sniff=has_tab_header,
    describes="a tab-separated table with a header row",
)
