"""BibTeX (``.bib``), parsed with bibtexparser: LaTeX in titles, abstracts, venues and names turned into text, a
broken entry dropped with its reason, the entry count bounded before parsing.

Pure logic: no Dagster imports.
"""

from __future__ import annotations

import logging
import re
import threading
from typing import Any

import bibtexparser

from agentr_dagster.imports.cleaning import clip
from agentr_dagster.imports.errors import ImportFileError
from agentr_dagster.imports.fields import split_authors
from agentr_dagster.imports.hints import sniff_hint
from agentr_dagster.imports.latex import latex_to_text
from agentr_dagster.imports.reader import Reader
from agentr_dagster.imports.records import Collector

_BIB_URL = re.compile(r"(?:\\url\{)?https?://", re.IGNORECASE)
_BIB_FIELDS: dict[str, tuple[str, ...]] = {
    "title": ("title",),
    "abstract": ("abstract",),
    "year": ("year", "date"),
    "doi": ("doi",),
    "authors": ("author", "editor"),
    "venue": ("journal", "journaltitle", "booktitle", "series", "school", "institution"),
    "url": ("url", "howpublished"),
}


class _QuietWhileParsing(logging.Filter):
    """bibtexparser logs a warning per broken block; we report those as dropped rows instead, so its log
    records are muted for our own calls only (other users of bibtexparser in the process still see them)."""

    def __init__(self) -> None:
        super().__init__()
        self.local = threading.local()

    def filter(self, record: logging.LogRecord) -> bool:
        return not getattr(self.local, "active", False)


_BIBTEX_QUIET = _QuietWhileParsing()
for _name in ("bibtexparser", "bibtexparser.splitter", "bibtexparser.entrypoint", "bibtexparser.middlewares.fieldkeys"):
    logging.getLogger(_name).addFilter(_BIBTEX_QUIET)

# An entry start, not counting @string/@comment/@preamble: counted before parsing to enforce the row limit
# without handing bibtexparser an unbounded number of blocks.
_BIB_ENTRY_START = re.compile(r"@[ \t]*(?!(?:string|comment|preamble)\b)[A-Za-z]+[ \t]*[{(]", re.IGNORECASE)


def parse_bibtex(text: str, collector: Collector) -> str:
    fmt = "bibtex"
    for starts, match in enumerate(_BIB_ENTRY_START.finditer(text), start=1):
        if starts > collector.limits.max_rows:
            row = text.count("\n", 0, match.start()) + 1
            raise ImportFileError(
                f"The file has more than {collector.limits.max_rows:,} BibTeX entries, the import limit; "
                "split it into smaller files",
                row=row,
            )
    _BIBTEX_QUIET.local.active = True
    try:
        library = bibtexparser.parse_string(text)
    except RecursionError as exc:
        raise ImportFileError("The BibTeX is nested too deeply to read.") from exc
    except Exception as exc:
        raise ImportFileError(f"The file could not be read as BibTeX: {clip(str(exc), 200)}") from exc
    finally:
        _BIBTEX_QUIET.local.active = False

    blocks: list[tuple[int, Any, str | None]] = [(e.start_line or 0, e, None) for e in library.entries]
    for failed in library.failed_blocks:
        usable = getattr(failed, "ignore_error_block", None)
        failure = getattr(failed, "error", None)
        reason = (getattr(failure, "abort_reason", None) or (str(failure) if failure is not None else "")
                  or "syntax error")
        blocks.append((getattr(failed, "start_line", 0) or 0, usable, clip(str(reason).split("\n", 1)[0], 200)))
    blocks.sort(key=lambda item: item[0])
    if not blocks:
        raise ImportFileError(
            "No BibTeX entries found (entries start like '@article{key,')." + sniff_hint(text, ".bib")
        )
    for start_line, entry, error in blocks:
        row = start_line + 1
        collector.count_row(row)
        if entry is None or not hasattr(entry, "fields"):
            collector.drop(row, None, f"unparsable BibTeX entry: {error}")
            continue
        if error:
            collector.clean(row, None, f"BibTeX problem, entry kept: {error}")
        values: dict[str, str] = {}
        for field in entry.fields:
            key = str(field.key).strip().lower()
            if key not in values and isinstance(field.value, str):
                values[key] = field.value
        raw: dict[str, Any] = {}
        columns: dict[str, str] = {}
        for name, keys in _BIB_FIELDS.items():
            for key in keys:
                value = values.get(key)
                if value and value.strip():
                    if name == "url" and not _BIB_URL.match(value.lstrip()):
                        continue
                    raw[name], columns[name] = value, key
                    break
        for name in ("title", "abstract", "venue"):
            if name in raw:
                raw[name] = latex_to_text(raw[name])
        if "url" in raw:
            raw["url"] = latex_to_text(raw["url"]) if "\\url" in raw["url"] else raw["url"]
        if "authors" in raw:
            raw["authors"] = [latex_to_text(name) for name in split_authors(raw["authors"])]
        if "url" not in raw and values.get("archiveprefix", "").lower() == "arxiv":
            eprint = values.get("eprint", "").strip()
            if re.fullmatch(r"[\w./-]{4,40}", eprint):
                raw["url"] = f"https://arxiv.org/abs/{eprint}"
        raw["source_id"] = str(getattr(entry, "key", "") or "") or None
        collector.add(row, raw, source_format=fmt, columns=columns)
    return fmt



BIBTEX = Reader("bibtex", read=parse_bibtex)
