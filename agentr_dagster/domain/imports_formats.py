"""Format readers for candidate-paper files: CSV/TSV, BibTeX, RIS and JSON (OpenAlex, arXiv, plain).

Each reader takes already-decoded text (see :mod:`agentr_dagster.domain.imports`), feeds one raw row at a
time to a :class:`Collector` and returns the format label. Readers raise only :class:`ImportFileError`.
Line endings are normalised to ``\\n`` before any reader runs.
"""

from __future__ import annotations

import csv
import io
import json
import logging
import re
import threading
from collections.abc import Iterator
from typing import Any

import bibtexparser
import rispy

from agentr_dagster.domain.imports_core import (
    Collector,
    ImportFileError,
    clip,
    latex_to_text,
    split_authors,
)

# --------------------------------------------------------------------------------------------------------
# Column / key names
# --------------------------------------------------------------------------------------------------------

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


def sniff_hint(text: str, suffix: str) -> str:
    """A hint when the content looks like another supported format than its suffix says."""
    head = text.lstrip()[:2000]
    guesses = (
        (bool(re.match(r"@\s*[A-Za-z]+\s*[{(]", head)), ".bib", "BibTeX"),
        (bool(re.search(r"^TY {1,2}- ", head, re.MULTILINE)), ".ris", "RIS"),
        (head.startswith("{"), ".jsonl", "JSON Lines"),
        (head.startswith("["), ".json", "a JSON array"),
    )
    for matched, guess, label in guesses:
        if matched:
            if guess == suffix or (guess == ".jsonl" and suffix == ".json"):
                return ""
            return f" The content looks like {label}; save it with a {guess} suffix."
    if re.search(r"<records>\s*<record>", head):
        return "" if suffix == ".xml" else " The content looks like EndNote XML; save it with a .xml suffix."
    if head[:200].lower().startswith(("<!doctype", "<html", "<?xml")):
        return " The content looks like HTML/XML, not a reference export."
    return ""


# --------------------------------------------------------------------------------------------------------
# CSV / TSV
# --------------------------------------------------------------------------------------------------------

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


def _read_records(
    text: str, delimiter: str, quoting: int, offset_rows: int, collector: Collector
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


# --------------------------------------------------------------------------------------------------------
# BibTeX
# --------------------------------------------------------------------------------------------------------

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

    blocks: list[tuple[int, Any, str | None]] = [(e.start_line, e, None) for e in library.entries]
    for failed in library.failed_blocks:
        usable = getattr(failed, "ignore_error_block", None)
        exc = getattr(failed, "error", None)
        reason = getattr(exc, "abort_reason", None) or (str(exc) if exc is not None else "") or "syntax error"
        error = clip(str(reason).split("\n", 1)[0], 200)
        blocks.append((getattr(failed, "start_line", 0) or 0, usable, error))
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


# --------------------------------------------------------------------------------------------------------
# RIS
# --------------------------------------------------------------------------------------------------------

_RIS_TAG = re.compile(r"^([A-Z][A-Z0-9])[ \t]{1,3}-(?:[ \t](.*))?$")
_RIS_FIELDS: dict[str, tuple[str, ...]] = {
    "title": ("title", "primary_title", "translated_title", "short_title"),
    "abstract": ("abstract", "notes_abstract"),
    "year": ("year", "publication_year", "date"),
    "doi": ("doi",),
    "authors": ("authors", "first_authors"),
    "venue": ("secondary_title", "journal_name", "alternate_title3", "alternate_title2", "alternate_title1"),
    "url": ("urls",),
    "source_id": ("id", "accession_number"),
}
_RIS_TAG_OF = {
    "title": "TI", "primary_title": "T1", "translated_title": "TT", "short_title": "ST", "abstract": "AB",
    "notes_abstract": "N2", "year": "PY", "publication_year": "Y1", "date": "DA", "doi": "DO",
    "authors": "AU", "first_authors": "A1", "secondary_title": "T2", "journal_name": "JO",
    "alternate_title3": "JF", "alternate_title2": "JA", "alternate_title1": "J2", "urls": "UR", "id": "ID",
    "accession_number": "AN",
}  # fmt: skip


def _ris_chunks(lines: list[str]) -> Iterator[tuple[int, list[str], list[str]]]:
    """Yield (start line, canonical one-line-per-tag lines, notes) for each record.

    Continuation lines are joined here (linear time) rather than left to rispy, which re-concatenates the
    growing value for every continuation line (quadratic on a hostile file).
    """
    chunk: list[tuple[str, list[str]]] | None = None
    start = 0
    notes: list[str] = []

    def render(items: list[tuple[str, list[str]]]) -> list[str]:
        return [*(f"{tag}  - {' '.join(parts)}" for tag, parts in items), "ER  - "]

    for number, line in enumerate(lines, start=1):
        match = _RIS_TAG.match(line.rstrip())
        if match:
            tag, value = match.group(1), (match.group(2) or "").strip()
            if tag == "TY":
                if chunk is not None:
                    yield start, render(chunk), [*notes, "record has no ER (end of record) line"]
                chunk, start, notes = [("TY", [value])], number, []
            elif tag == "ER":
                if chunk is not None:
                    yield start, render(chunk), notes
                chunk = None
            else:
                if chunk is None:
                    chunk, start, notes = [("TY", ["GEN"])], number, ["record has no TY (type) line"]
                chunk.append((tag, [value] if value else []))
        elif chunk is not None and line.strip():
            chunk[-1][1].append(line.strip())  # continuation of the previous tag
    if chunk is not None:
        yield start, render(chunk), [*notes, "record has no ER (end of record) line"]


def parse_ris(text: str, collector: Collector) -> str:
    fmt = "ris"
    found = False
    for start, chunk, notes in _ris_chunks(text.split("\n")):
        found = True
        collector.count_row(start)
        try:
            entries = rispy.loads("\n".join(chunk))
        except RecursionError:
            entries, error = [], "nested too deeply"
        except Exception as exc:
            entries, error = [], clip(str(exc), 200)
        else:
            error = "no fields"
        if len(entries) != 1 or not isinstance(entries[0], dict):
            collector.drop(start, None, f"unparsable RIS record: {error}")
            continue
        for note in notes:
            collector.clean(start, None, note)
        entry = entries[0]
        raw: dict[str, Any] = {}
        columns: dict[str, str] = {}
        for name, keys in _RIS_FIELDS.items():
            for key in keys:
                value = entry.get(key)
                if value not in (None, "", []):
                    raw[name], columns[name] = value, _RIS_TAG_OF.get(key, key)
                    break
        collector.add(start, raw, source_format=fmt, columns=columns)
    if not found:
        raise ImportFileError(
            "No RIS records found (records start with a 'TY  - ' line and end with 'ER  - ')."
            + sniff_hint(text, ".ris")
        )
    return fmt


# --------------------------------------------------------------------------------------------------------
# JSON Lines / JSON: OpenAlex works, arXiv metadata-snapshot records, plain objects
# --------------------------------------------------------------------------------------------------------

_MAX_INDEX_POSITION = 1_000_000
_ARXIV_ID = re.compile(r"(?:\d{4}\.\d{4,5}|[a-z-]+(?:\.[A-Z]{2})?/\d{7})(?:v\d+)?")


def _get(obj: Any, *path: str) -> Any:
    for key in path:
        if not isinstance(obj, dict):
            return None
        obj = obj.get(key)
    return obj


def json_kind(obj: dict[str, Any]) -> str:
    identifier = obj.get("id")
    if (
        "abstract_inverted_index" in obj
        or "authorships" in obj
        or "publication_year" in obj
        or (isinstance(identifier, str) and identifier.startswith("https://openalex.org/"))
    ):
        return "jsonl-openalex"
    if any(key in obj for key in ("authors_parsed", "versions", "update_date", "journal-ref", "submitter")):
        return "jsonl-arxiv"
    return "jsonl"


def rebuild_abstract(index: object, max_words: int) -> tuple[str | None, list[str]]:
    """OpenAlex ``abstract_inverted_index`` ({word: [positions]}) -> text, never trusting its shape."""
    if index is None:
        return None, []
    if not isinstance(index, dict):
        return None, [f"abstract_inverted_index is {type(index).__name__}, not an object; ignored"]
    pairs: list[tuple[int, str]] = []
    bad = 0
    capped = False
    for word, positions in index.items():
        if not isinstance(positions, list):
            bad += 1
            continue
        for position in positions:
            if isinstance(position, bool) or not isinstance(position, int) or not 0 <= position <= _MAX_INDEX_POSITION:
                bad += 1
            elif len(pairs) >= max_words:
                capped = True
                break
            else:
                pairs.append((position, word))
        if capped:
            break
    notes = []
    if bad:
        notes.append(f"abstract_inverted_index: skipped {bad} invalid position(s)")
    if capped:
        notes.append(f"abstract_inverted_index: kept the first {max_words:,} words")
    pairs.sort()
    return " ".join(word for _, word in pairs) or None, notes


def _openalex(obj: dict[str, Any], collector: Collector, row: int) -> dict[str, Any]:
    abstract, notes = rebuild_abstract(obj.get("abstract_inverted_index"), collector.limits.max_field_chars)
    for note in notes:
        collector.clean(row, "abstract_inverted_index", note)
    authors: list[Any] = []
    authorships = obj.get("authorships")
    if isinstance(authorships, list):
        for item in authorships[:5000]:
            name = _get(item, "author", "display_name")
            if not isinstance(name, str):
                name = _get(item, "raw_author_name")
            authors.append(name)
    elif authorships is not None:
        collector.clean(row, "authorships", "authorships is not a list; ignored")
    return {
        "title": obj.get("title") if obj.get("title") not in (None, "") else obj.get("display_name"),
        "abstract": abstract if abstract is not None else obj.get("abstract"),
        "year": obj.get("publication_year") if obj.get("publication_year") is not None else obj.get("publication_date"),
        "doi": obj.get("doi") if obj.get("doi") else _get(obj, "ids", "doi"),
        "authors": authors or None,
        "venue": _get(obj, "primary_location", "source", "display_name") or _get(obj, "host_venue", "display_name"),
        "url": _get(obj, "primary_location", "landing_page_url") or obj.get("doi"),
        "source_id": obj.get("id"),
    }


def _arxiv(obj: dict[str, Any]) -> dict[str, Any]:
    authors: Any = None
    parsed = obj.get("authors_parsed")
    if isinstance(parsed, list) and parsed:
        authors = parsed
    elif isinstance(obj.get("authors"), str):  # "A. Smith, B. Jones and C. Doe"
        authors = split_authors(obj["authors"], commas=True)
    else:
        authors = obj.get("authors")
    year: Any = None
    versions = obj.get("versions")
    if isinstance(versions, list) and versions:
        year = _get(versions[0], "created")
    if year is None:
        year = obj.get("update_date") if obj.get("year") is None else obj.get("year")
    identifier = obj.get("id")
    url = obj.get("url")
    if url is None and isinstance(identifier, str) and _ARXIV_ID.fullmatch(identifier.strip()):
        url = f"https://arxiv.org/abs/{identifier.strip()}"
    return {
        "title": obj.get("title"),
        "abstract": obj.get("abstract"),
        "year": year,
        "doi": obj.get("doi"),
        "authors": authors,
        "venue": obj.get("journal-ref"),
        "url": url,
        "source_id": identifier,
    }


def _plain(obj: dict[str, Any]) -> tuple[dict[str, Any], dict[str, str]]:
    keys = list(obj.keys())[:500]
    mapping = map_columns([str(k) for k in keys])
    raw: dict[str, Any] = {}
    columns: dict[str, str] = {}
    for field, indexes in mapping.items():
        for index in indexes:
            value = obj[keys[index]]
            if value not in (None, "", [], {}):
                if field == "year" and isinstance(value, dict):  # CSL "issued": {"date-parts": [[2020]]}
                    value = value.get("date-parts")
                raw[field], columns[field] = value, str(keys[index])
                break
    return raw, columns


def _add_json_object(obj: Any, row: int, collector: Collector, kinds: set[str], what: str) -> None:
    collector.count_row(row)
    if not isinstance(obj, dict):
        collector.drop(row, None, f"{what} is {type(obj).__name__}, not a JSON object")
        return
    kind = json_kind(obj)
    columns: dict[str, str] = {}
    if kind == "jsonl-openalex":
        raw = _openalex(obj, collector, row)
        columns = {"year": "publication_year", "authors": "authorships", "source_id": "id"}
    elif kind == "jsonl-arxiv":
        raw = _arxiv(obj)
        columns = {"venue": "journal-ref", "source_id": "id"}
    else:
        raw, columns = _plain(obj)
    if collector.add(row, raw, source_format=kind, columns=columns) is not None:
        kinds.add(kind)


def _loads(text: str) -> tuple[Any, str | None, int | None]:
    """(value, error, error line) — never raises."""
    try:
        return json.loads(text), None, None
    except json.JSONDecodeError as exc:
        return None, exc.msg, exc.lineno
    except RecursionError:
        return None, "nested too deeply", None
    except ValueError as exc:  # e.g. integers longer than Python's digit limit
        return None, clip(str(exc), 120), None


def _label(kinds: set[str]) -> str:
    return kinds.pop() if len(kinds) == 1 else "jsonl"


def _records_from_document(value: Any) -> list[Any] | None:
    if isinstance(value, list):
        return value
    if isinstance(value, dict):
        if isinstance(value.get("results"), list):  # an OpenAlex API page
            return value["results"]
        if any(k in value for k in ("title", "display_name", "Title")):
            return [value]
    return None


def parse_json_lines(text: str, collector: Collector) -> str:
    kinds: set[str] = set()
    parsed = 0
    first_error: tuple[int, str] | None = None
    lines = text.split("\n")
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        value, error, _ = _loads(line)
        if error is not None:
            collector.count_row(number)
            first_error = first_error or (number, error)
            collector.drop(number, None, f"line is not valid JSON: {error}")
            continue
        parsed += 1
        _add_json_object(value, number, collector, kinds, "line")
    if parsed == 0:
        # Maybe a pretty-printed JSON document saved as .jsonl.
        value, error, _ = _loads(text)
        items = _records_from_document(value) if error is None else None
        if items is not None:
            collector.dropped.clear()
            collector.rows_seen = 0
            return _parse_items(items, collector)
        if first_error is None:
            raise ImportFileError("The file has no JSON lines.")
        raise ImportFileError(
            f"No line is a valid JSON object; the first error is: {first_error[1]}." + sniff_hint(text, ".jsonl"),
            row=first_error[0],
        )
    return _label(kinds)


def _parse_items(items: list[Any], collector: Collector) -> str:
    kinds: set[str] = set()
    if not items:
        raise ImportFileError("The JSON array is empty.")
    for number, item in enumerate(items, start=1):
        _add_json_object(item, number, collector, kinds, "element")
    return _label(kinds)


def parse_json_document(text: str, collector: Collector) -> str:
    value, error, line = _loads(text)
    if error is not None:
        # JSON Lines saved as .json: accept when its first non-blank line is an object by itself.
        first = next((ln for ln in text.split("\n") if ln.strip()), "")
        head, head_error, _ = _loads(first)
        if head_error is None and isinstance(head, dict) and first.strip() != text.strip():
            return parse_json_lines(text, collector)
        raise ImportFileError(f"The file is not valid JSON: {error}." + sniff_hint(text, ".json"), row=line)
    items = _records_from_document(value)
    if items is None:
        raise ImportFileError(
            f"The JSON document is {type(value).__name__}; expected an array of paper objects "
            "(or an OpenAlex page with a 'results' list)."
        )
    return _parse_items(items, collector)
