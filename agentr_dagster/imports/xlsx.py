"""Reader for Excel workbooks (``.xlsx``): the first sheet with a title column, read as a table with a header row.

Spreadsheets of candidates are common (a supervisor's list, a screening tool's export, our own ``agentr export
--format xlsx``). The workbook is a ZIP of XML parts, so before openpyxl opens it the archive is checked: its
declared uncompressed size and part count are bounded (a ZIP bomb is refused without being inflated), and
openpyxl parses the XML through ``defusedxml`` (installed with this package), which refuses entity tricks.
Cells are read as values, never as formulas: a formula cell contributes its cached result or nothing.
Pure logic: no Dagster, no files.
"""

from __future__ import annotations

import datetime as dt
import io
import zipfile

from agentr_dagster.imports.cleaning import clip
from agentr_dagster.imports.columns import add_table_rows, map_columns
from agentr_dagster.imports.decode import binary_file_kind
from agentr_dagster.imports.errors import ImportFileError
from agentr_dagster.imports.reader import Reader
from agentr_dagster.imports.records import Collector

MAX_PARTS = 10_000
UNCOMPRESSED_FACTOR = 8  # a workbook may inflate to at most this many times the import size limit


def _check_archive(data: bytes, max_bytes: int) -> None:
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            infos = archive.infolist()
            names = {info.filename for info in infos}
    except (zipfile.BadZipFile, ValueError, OSError) as exc:
        raise ImportFileError(f"The .xlsx file is not a valid workbook (ZIP): {clip(str(exc), 120)}.") from exc
    if len(infos) > MAX_PARTS:
        raise ImportFileError(f"The workbook has {len(infos):,} parts; that is not a spreadsheet of papers.")
    inflated = sum(info.file_size for info in infos)
    if inflated > UNCOMPRESSED_FACTOR * max_bytes:
        raise ImportFileError(
            f"The workbook would inflate to {inflated:,} bytes, over {UNCOMPRESSED_FACTOR} x the import limit; "
            "refused without unpacking (save the sheet as CSV, or split it)."
        )
    if "xl/workbook.xml" not in names:
        raise ImportFileError(
            "The .xlsx file is a ZIP archive without a workbook in it (a .docx or .zip renamed?); save the "
            "spreadsheet as .xlsx or CSV."
        )


def _cell_text(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return str(value).upper()
    if isinstance(value, float) and value.is_integer():
        return str(int(value))  # 2019.0 -> "2019"
    if isinstance(value, dt.datetime | dt.date):
        return value.isoformat()
    return str(value)


def open_workbook(data: bytes, max_bytes: int):
    """The workbook in ``data``, read-only and values only, after the archive checks; ImportFileError if it
    cannot be opened. The caller closes it."""
    if not data.startswith(b"PK\x03\x04"):
        raise ImportFileError("The .xlsx file is not a workbook (a workbook is a ZIP archive)." + _kind_hint(data))
    _check_archive(data, max_bytes)
    from openpyxl import load_workbook

    try:
        return load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    except Exception as exc:  # openpyxl raises many types on a damaged workbook; all mean the same to the user
        reason = f"{type(exc).__name__}: {clip(str(exc), 120)}"
        raise ImportFileError(f"The workbook could not be opened ({reason}).") from exc


cell_text = _cell_text  # one cell as the text a CSV of the sheet would hold


def parse_xlsx(data: bytes, collector: Collector) -> str:
    workbook = open_workbook(data, collector.limits.max_bytes)
    try:
        return _read_sheets(workbook, collector)
    except ImportFileError:
        raise
    except Exception as exc:  # sheets are read lazily: a damaged part fails here, not at opening
        reason = f"{type(exc).__name__}: {clip(str(exc), 120)}"
        raise ImportFileError(f"The workbook is damaged and could not be read ({reason}).") from exc
    finally:
        workbook.close()


def _read_sheets(workbook, collector: Collector) -> str:
    """The first sheet whose header row has a title column, fed to the collector as a table."""
    seen: list[str] = []
    for sheet in workbook.worksheets:
        rows = sheet.iter_rows(values_only=True)
        header: list[str] = []
        header_row = 0
        for number, values in enumerate(rows, start=1):
            cells = [" ".join(_cell_text(v).split()) for v in values]
            if any(cells):
                header, header_row = cells, number
                break
        mapping = map_columns(header)
        if "title" not in mapping:
            seen.extend(name for name in header if name)
            continue
        table: list[tuple[int, list[str]]] = []
        for number, values in enumerate(rows, start=header_row + 1):
            cells = [_cell_text(v) for v in values]
            if not any(c.strip() for c in cells):
                continue  # spreadsheets carry formatted but empty rows; not worth a note each
            collector.count_row(number)  # raises past the row limit
            table.append((number, cells))
        if not table:
            raise ImportFileError(f"The sheet {clip(sheet.title, 40)!r} has a header row but no data rows.")
        add_table_rows(header, mapping, table, collector, "xlsx")
        return "xlsx"
    shown = ", ".join(repr(clip(name, 40)) for name in seen[:20]) or "(none)"
    raise ImportFileError(f"No sheet has a title column. Header cells found: {shown}.")


def _kind_hint(data: bytes) -> str:
    kind = binary_file_kind(data)
    if kind:
        return f" It is {kind}."
    head = data[:2000].decode("utf-8", errors="replace").lstrip("\ufeff")
    if "," in head or "\t" in head:
        return " It looks like text: save it with a .csv or .tsv suffix."
    return ""


def read_workbook(data: bytes, collector: Collector) -> str:
    """The bytes of an ``.xlsx`` file: refused unless they are a ZIP archive, then read by :func:`parse_xlsx`."""
    if not data:
        raise ImportFileError("The file is empty.")
    if not data.startswith(b"PK\x03\x04"):
        raise ImportFileError("The .xlsx file is not a workbook (a workbook is a ZIP archive)." + _kind_hint(data))
    return parse_xlsx(data, collector)


XLSX = Reader("xlsx", read=read_workbook, binary=True)
