"""From one untrusted raw row to a validated :class:`PaperRecord`, or a recorded reason why not.

A reader maps its format's fields onto :data:`FIELDS` and hands each raw row to a :class:`Collector`, which
coerces every value (:mod:`agentr_dagster.imports.fields`), records every cleaning note and every dropped row
(:class:`RowIssue`) and enforces the :class:`ImportLimits`. :class:`ImportResult` is what an import returns.

Pure logic: no Dagster imports.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from agentr_dagster.domain.contracts import PaperRecord
from agentr_dagster.imports.cleaning import clean_text, clip
from agentr_dagster.imports.errors import ImportFileError
from agentr_dagster.imports.fields import (
    ABSTRACT_CHARS,
    SHORT_FIELD_CHARS,
    TITLE_CHARS,
    as_text,
    coerce_authors,
    coerce_doi,
    coerce_url,
    coerce_year,
)

UNTITLED = "[no title]"
#: A record without a title is kept when its abstract has at least this many words: it is a paper whose title
#: the export lost (screening reads its abstract), not an empty row; shorter, it is dropped ("missing title").
UNTITLED_MIN_WORDS = 8
_UNTITLED_WORDS = 12  # words of the abstract its title carries after the marker


def untitled_title(abstract: str) -> str | None:
    """The title a record without one is stored under: ``[no title]`` and its abstract's first words (so two
    untitled papers keep apart keys and the table shows which one it is); None when the abstract is too short
    to stand for a paper (:data:`UNTITLED_MIN_WORDS`)."""
    words = abstract.split()
    if len(words) < UNTITLED_MIN_WORDS:
        return None
    head = " ".join(words[:_UNTITLED_WORDS])[:200]
    return f"{UNTITLED} {head}" + ("..." if len(words) > _UNTITLED_WORDS else "")


@dataclass
class RowIssue:
    """A dropped or cleaned row and why.

    ``row`` is 1-based and means what a person would look for: the spreadsheet row for CSV/TSV (the header
    is row 1), the line number for JSONL, BibTeX and RIS (where the entry starts), the element number for a
    JSON array. ``column`` is the header, key or tag as written in the file, when one applies.
    """

    row: int
    column: str | None
    reason: str
    duplicate: bool = False  # dropped as a duplicate of an earlier row (PRISMA counts it apart from unusable rows)


@dataclass(frozen=True)
class ImportLimits:
    max_bytes: int = 50_000_000
    max_rows: int = 100_000
    max_field_chars: int = 20_000

    def __post_init__(self) -> None:
        for name in ("max_bytes", "max_rows", "max_field_chars"):
            if not isinstance(getattr(self, name), int) or getattr(self, name) < 1:
                raise ValueError(f"ImportLimits.{name} must be a positive integer")


@dataclass
class ImportResult:
    # "csv" | "xlsx" | "bibtex" | "ris" | "medline" | "wos" | "endnote-xml" | "jsonl-openalex" | "jsonl-arxiv" |
    # "jsonl"
    format: str
    records: list[PaperRecord]
    dropped: list[RowIssue] = field(default_factory=list)
    cleaned: list[RowIssue] = field(default_factory=list)
    encoding: str = "utf-8"


FIELDS = ("title", "abstract", "year", "doi", "authors", "venue", "url", "source_id")


class Collector:
    """Accumulates records, dropped rows and cleaning notes for one file."""

    def __init__(self, name: str, limits: ImportLimits):
        self.name = name
        self.limits = limits
        self.records: list[PaperRecord] = []
        self.dropped: list[RowIssue] = []
        self.cleaned: list[RowIssue] = []
        self.rows_seen = 0

    def count_row(self, row: int) -> None:
        self.rows_seen += 1
        if self.rows_seen > self.limits.max_rows:
            raise self.too_many_rows(row)

    def too_many_rows(self, row: int) -> ImportFileError:
        return ImportFileError(
            f"The file has more than {self.limits.max_rows:,} records, the import limit; split it into smaller files.",
            row=row,
        )

    def drop(self, row: int, column: str | None, reason: str, *, duplicate: bool = False) -> None:
        self.dropped.append(RowIssue(row, column, reason, duplicate))

    def clean(self, row: int, column: str | None, reason: str) -> None:
        self.cleaned.append(RowIssue(row, column, reason))

    def _text_field(self, row: int, field: str, value: object, column: str, max_chars: int) -> str | None:
        text, note = as_text(value)
        if note:
            self.clean(row, column, f"{field} {note}")
        if text is None:
            return None
        text, removed, truncated = clean_text(text, max_chars)
        if removed:
            self.clean(row, column, f"removed {removed} control or invisible character(s) from {field}")
        if truncated:
            self.clean(row, column, f"{field} truncated from {truncated:,} to {max_chars:,} characters")
        return text or None

    def add(
        self,
        row: int,
        raw: dict[str, Any],
        *,
        source_format: str,
        columns: dict[str, str] | None = None,
    ) -> PaperRecord | None:
        """Validate one row. ``raw`` maps FIELDS to untrusted values; ``columns`` maps them to file names."""
        columns = columns or {}
        limit = self.limits.max_field_chars

        def col(field: str) -> str:
            return columns.get(field, field)

        title = self._text_field(row, "title", raw.get("title"), col("title"), min(TITLE_CHARS, limit))
        abstract = self._text_field(row, "abstract", raw.get("abstract"), col("abstract"), min(ABSTRACT_CHARS, limit))
        if not title:
            title = untitled_title(abstract or "")
            if title is None:
                self.drop(row, col("title"), "missing title")
                return None
            self.clean(row, col("title"), f"missing title: titled {UNTITLED!r} + the abstract's first words")
        short = min(SHORT_FIELD_CHARS, limit)
        venue = self._text_field(row, "venue", raw.get("venue"), col("venue"), short)
        source_id = self._text_field(row, "source_id", raw.get("source_id"), col("source_id"), short)
        year, note = coerce_year(raw.get("year"))
        if note:
            self.clean(row, col("year"), note)
        doi, note = coerce_doi(raw.get("doi"))
        if note:
            self.clean(row, col("doi"), note)
        url, note = coerce_url(raw.get("url"))
        if note:
            self.clean(row, col("url"), note)
        authors, notes = coerce_authors(raw.get("authors"))
        for note in notes:
            self.clean(row, col("authors"), note)
        try:
            record = PaperRecord(
                title=title,
                abstract=abstract or "",
                year=year,
                doi=doi,
                authors=authors,
                venue=venue,
                url=url,
                source_id=source_id,
                source_format=source_format,
                source_file=self.name,
                source_row=row,
            )
        except ValidationError as exc:  # defensive: the cleaning above should make this unreachable
            first = exc.errors()[0] if exc.errors() else {"loc": (), "msg": str(exc)}
            where = ".".join(str(p) for p in first.get("loc", ())) or None
            self.drop(row, where, f"invalid record: {clip(first.get('msg', ''), 200)}")
            return None
        self.records.append(record)
        return record
