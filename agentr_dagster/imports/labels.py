"""Screening decisions from a spreadsheet: a CSV, TSV or Excel table with an include/exclude column and a way to
name the paper (a record id, a DOI or a title), as ASReview LAB, Rayyan-style exports and hand-made sheets have.

Pure logic: bytes in, :class:`LabelTable` out, or :class:`ImportFileError` saying why the table is unusable.

* The decision column is the first of :data:`DECISION_COLUMNS` present (header names compared lower-case, letters
  and digits only, so ``Label included`` is ``labelincluded``). Values: 1/0, include/exclude, yes/no, true/false,
  relevant/irrelevant; ``-1`` and empty cells are ASReview's "not labelled yet" and are skipped, as is any
  other value (each skipped row is listed with its reason).
* The paper is named by a record-id column (:data:`RECORD_ID_COLUMNS`: the user's own id, matched against the
  ``source_id`` their paper file gave), a DOI column and a title column; a row needs at least one of them.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field

from agentr_dagster.imports.cleaning import clip
from agentr_dagster.imports.columns import ALIASES, normalise_key
from agentr_dagster.imports.decode import binary_file_kind, decode
from agentr_dagster.imports.errors import ImportFileError
from agentr_dagster.imports.identity import normal_doi
from agentr_dagster.imports.records import ImportLimits
from agentr_dagster.imports.xlsx import cell_text, open_workbook

__all__ = [
    "DECISION_COLUMNS",
    "LABEL_TABLE_SUFFIXES",
    "RECORD_ID_COLUMNS",
    "LabelEntry",
    "LabelTable",
    "decision_of",
    "has_decision_column",
    "normal_doi",
    "read_label_table",
    "table_header",
    "table_rows",
]

LABEL_TABLE_SUFFIXES = (".csv", ".tsv", ".xlsx")
#: ASReview's own names for its label column first (``asreview_label`` in LAB 2+ exports, ``included`` before).
DECISION_COLUMNS = (
    "asreviewlabel", "included", "labelincluded", "finalincluded", "includedlabel", "includedfinal",
    "includedflag", "include", "label", "decision", "screeningdecision", "finaldecision", "inclusion",
)  # fmt: skip
#: The user's record id: ``source_id`` (our own export) first, then the names paper files use.
RECORD_ID_COLUMNS = ("sourceid", *ALIASES["source_id"])
_TITLE_COLUMNS = ALIASES["title"]
_DOI_COLUMNS = ALIASES["doi"]
_INCLUDE = {"1", "include", "included", "yes", "y", "true", "t", "relevant", "+", "1.0"}
_EXCLUDE = {"0", "exclude", "excluded", "no", "n", "false", "f", "irrelevant", "-", "0.0"}
_NOT_YET = {"", "-1", "-1.0", "none", "null", "nan", "unlabeled", "unlabelled", "pending"}
_HEAD_BYTES = 65_536


@dataclass(frozen=True)
class LabelEntry:
    """One decision: the row it came from (as a spreadsheet numbers it) and the names of its paper."""

    row: int
    label: int  # 1 include, 0 exclude
    record_id: str | None = None
    doi: str | None = None
    title: str | None = None
    unit: str = "row"  # what ``row`` counts: a table's row, or an ASReview project's record

    @property
    def where(self) -> str:
        return f"{self.unit} {self.row}"

    def describe(self) -> str:
        name = (f"record id {self.record_id}" if self.record_id else f"DOI {self.doi}" if self.doi
                else f"title {clip(self.title or '', 60)!r}")
        return f"{self.where}: {name}"


@dataclass
class LabelTable:
    format: str  # csv | tsv | xlsx | asreview
    entries: list[LabelEntry]
    skipped: list[tuple[int, str]] = field(default_factory=list)  # (row, why) for rows without a decision
    columns: dict[str, str] = field(default_factory=dict)  # role (decision, record_id, doi, title) -> header


def decision_of(value: object) -> int | None:
    """1 include, 0 exclude, None for "not labelled yet" or a value that is no decision."""
    text = str(value if value is not None else "").strip().lower()
    if text in _INCLUDE:
        return 1
    if text in _EXCLUDE:
        return 0
    return None


def _find(header: list[str], names: tuple[str, ...]) -> int | None:
    keys = [normalise_key(h) for h in header]
    for name in names:
        if name in keys:
            return keys.index(name)
    return None


def has_decision_column(header: list[str]) -> bool:
    return _find(header, DECISION_COLUMNS) is not None


def _csv_rows(data: bytes, tsv: bool) -> list[list[str]]:
    what = binary_file_kind(data)
    if what:
        raise ImportFileError(f"The file is {what}, not a CSV or TSV table.")
    text, _ = decode(data)
    text = text.lstrip("\ufeff")
    if tsv:
        delimiter = "\t"
    else:
        try:
            delimiter = csv.Sniffer().sniff(text[:20000], delimiters=",;\t|").delimiter
        except csv.Error:
            delimiter = ","
    csv.field_size_limit(max(csv.field_size_limit(), len(text) + 1))
    return list(csv.reader(io.StringIO(text), delimiter=delimiter))


def _xlsx_rows(data: bytes, limits: ImportLimits) -> list[list[str]]:
    """The first sheet with a decision column (else the first sheet), as rows of text cells."""
    workbook = open_workbook(data, limits.max_bytes)
    try:
        first: list[list[str]] | None = None
        for sheet in workbook.worksheets:
            rows: list[list[str]] = []
            for values in sheet.iter_rows(values_only=True):
                rows.append([cell_text(v) for v in values])
                if len(rows) > limits.max_rows + 1:
                    break
            while rows and not any(c.strip() for c in rows[0]):
                rows.pop(0)
            if rows and has_decision_column(rows[0]):
                return rows
            first = rows if first is None else first
        return first or []
    except ImportFileError:
        raise
    except Exception as exc:  # a damaged part fails when its sheet is read
        raise ImportFileError(f"The workbook is damaged and could not be read ({type(exc).__name__}).") from exc
    finally:
        workbook.close()


def table_rows(data: bytes, suffix: str, limits: ImportLimits) -> list[list[str]]:
    if len(data) > limits.max_bytes:
        raise ImportFileError(f"The file is too large ({len(data):,} bytes; the limit is {limits.max_bytes:,}).")
    if suffix == ".xlsx":
        return _xlsx_rows(data, limits)
    if suffix in (".csv", ".tsv"):
        return _csv_rows(data, suffix == ".tsv")
    raise ImportFileError(f"A labels table is a {', '.join(LABEL_TABLE_SUFFIXES)} file, not {suffix!r}.")


def table_header(data: bytes, suffix: str, limits: ImportLimits | None = None) -> list[str]:
    """The header row of a table (empty when the file cannot be read as one): enough to tell a labels file
    from a paper file."""
    suffix = suffix.lower()
    if suffix in (".csv", ".tsv"):  # the header is in the first lines: a 50 MB paper file is not decoded here
        head = data[:_HEAD_BYTES]
        data = head[: head.rfind(b"\n") + 1] if len(data) > _HEAD_BYTES and b"\n" in head else head
    try:
        rows = table_rows(data, suffix, limits or ImportLimits())
    except (ImportFileError, csv.Error, UnicodeError):
        return []
    return [" ".join(c.split()) for c in rows[0]] if rows else []


def read_label_table(data: bytes, suffix: str, limits: ImportLimits | None = None) -> LabelTable:
    """Every decision in a labels table. ImportFileError when there is no decision column, no column naming
    the paper, or no row with both."""
    limits = limits or ImportLimits()
    suffix = suffix.lower()
    rows = table_rows(data, suffix, limits)
    if not rows:
        raise ImportFileError("The table is empty.")
    header = [" ".join(c.split()) for c in rows[0]]
    decision = _find(header, DECISION_COLUMNS)
    if decision is None:
        shown = ", ".join(repr(clip(h, 30)) for h in header[:15] if h) or "(none)"
        raise ImportFileError(
            f"no decision column: name one 'included' or 'label' (1/0 or include/exclude); header: {shown}"
        )
    where = {"record_id": _find(header, RECORD_ID_COLUMNS), "doi": _find(header, _DOI_COLUMNS),
             "title": _find(header, _TITLE_COLUMNS)}
    if all(index is None for index in where.values()):
        raise ImportFileError(
            f"no column names the papers: add 'record_id' (your file's id), 'doi' or 'title' beside "
            f"{header[decision]!r}"
        )
    if len(rows) - 1 > limits.max_rows:
        raise ImportFileError(f"The table has more than {limits.max_rows:,} rows (the import limit).")
    entries: list[LabelEntry] = []
    skipped: list[tuple[int, str]] = []
    for number, cells in enumerate(rows[1:], start=2):
        if not any(c.strip() for c in cells):
            continue

        def cell(index: int | None, row: list[str] = cells) -> str | None:
            value = row[index].strip() if index is not None and index < len(row) else ""
            return value or None

        raw = cell(decision) or ""
        label = decision_of(raw)
        if label is None:
            why = "not labelled" if raw.strip().lower() in _NOT_YET else f"{clip(raw, 30)!r} is not a decision"
            skipped.append((number, why))
            continue
        names = {"record_id": cell(where["record_id"]), "doi": normal_doi(cell(where["doi"])),
                 "title": cell(where["title"])}
        if not any(names.values()):
            skipped.append((number, "no record id, DOI or title"))
            continue
        entries.append(LabelEntry(number, label, record_id=names["record_id"], doi=names["doi"], title=names["title"]))
    if not entries:
        raise ImportFileError(
            f"no row has a decision in {header[decision]!r} (1/0, include/exclude, yes/no)"
            + (f"; {len(skipped)} rows skipped, the first: row {skipped[0][0]}: {skipped[0][1]}" if skipped else "")
        )
    columns = {"decision": header[decision], **{k: header[i] for k, i in where.items() if i is not None}}
    return LabelTable(suffix.lstrip("."), entries, skipped, columns)
