"""Import candidate-paper files (CSV/TSV, Excel, BibTeX, RIS, MEDLINE, Web of Science, EndNote XML, JSON Lines,
JSON), hardened against hostile input.

Contract:

* :func:`parse_file` / :func:`parse_bytes` return an :class:`ImportResult` whose records are valid
  :class:`PaperRecord` objects, de-duplicated within the file, with every dropped row and every cleaned
  value listed with its reason; or they raise :class:`ImportFileError` saying why the file is unusable
  (with row and column when one applies). Nothing else escapes for bad input.
* A file that is entirely bad is rejected; a partially bad file keeps its good rows.
* Limits (:class:`ImportLimits`) are checked before work: file size before reading, record count while
  reading, field length per value (truncated with a note).
* Decoding (:mod:`.decode`): UTF-8 (with or without BOM), UTF-16/32 with BOM, BOM-less UTF-16, and a cp1252 /
  Latin-1 fallback. Binary files (NUL bytes, known magic numbers, mostly control characters) are rejected.
* Formula-looking cells (``=SUM(...)``) are kept as data; export safety is the exporter's job.

The rooms:

* ``parse`` — the entry points; ``registry`` — which reader reads a suffix (then, for ``.txt``, which content);
  ``reader`` — the contract every format fulfils.
* One module per format: ``csv_table`` (CSV/TSV), ``xlsx``, ``bibtex`` (with ``latex``), ``ris``, ``medline``
  and ``wos`` (sharing ``tagged``), ``endnote`` (EndNote XML), ``json_records`` (JSON Lines, JSON; OpenAlex,
  arXiv, plain objects).
* ``decode`` (bytes -> text), ``cleaning`` (untrusted text), ``fields`` (one value -> one field), ``columns``
  (header names -> fields), ``records`` (raw row -> :class:`PaperRecord` through a collector), ``hints`` ("this
  looks like RIS; save it as .ris"), ``errors``.
* ``identity`` (whether two records are the same paper: paper key, title key, content hash, DOI form, and the
  rules: DOI conflict, first-author guard, near-identical titles, abstract disagreement; lake, labels and
  ``agentr screen`` use it too) and ``dedup`` (those rules applied to a list of records, in order, linear).

**Adding a format** is one new module and one registry line: write ``imports/<format>.py`` with a
``parse_<format>(text, collector) -> label`` that hands each raw record (a dict over ``records.FIELDS``) to
``collector.add`` and raises only :class:`ImportFileError`, and end it with its :class:`~.reader.Reader`
(``RIS = Reader("ris", read=parse_ris)``; a ``sniff`` and ``describes`` if it shares a suffix such as ``.txt``,
``binary=True`` if it reads bytes). Then add its suffix to ``registry.READERS`` (or the reader to a shared
suffix's tuple, where its sniffer decides). Nothing else changes: ``SUPPORTED_SUFFIXES``, the inbox sensor and
the CLI follow the table.

Pure Python; no Dagster imports.
"""

from __future__ import annotations

from agentr_dagster.imports.decode import binary_file_kind, decode
from agentr_dagster.imports.dedup import dedupe
from agentr_dagster.imports.errors import ImportFileError, UnexpectedImportError
from agentr_dagster.imports.identity import (
    MIN_TITLE_CHARS_ANY_YEAR,
    PAPER_KEY_MAX_CHARS,
    authors_disagree,
    content_hash,
    first_author_key,
    normalise_title,
    paper_key,
    paper_key_for,
    title_key,
)
from agentr_dagster.imports.parse import parse_bytes, parse_file
from agentr_dagster.imports.records import ImportLimits, ImportResult, RowIssue
from agentr_dagster.imports.registry import SUPPORTED_SUFFIXES

__all__ = [
    "MIN_TITLE_CHARS_ANY_YEAR",
    "PAPER_KEY_MAX_CHARS",
    "SUPPORTED_SUFFIXES",
    "ImportFileError",
    "ImportLimits",
    "ImportResult",
    "RowIssue",
    "UnexpectedImportError",
    "authors_disagree",
    "binary_file_kind",
    "content_hash",
    "decode",
    "dedupe",
    "first_author_key",
    "normalise_title",
    "paper_key",
    "paper_key_for",
    "parse_bytes",
    "parse_file",
    "title_key",
]
