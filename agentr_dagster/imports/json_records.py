"""JSON Lines (``.jsonl``) and JSON documents (``.json``): OpenAlex works (also an OpenAlex API page), arXiv
metadata-snapshot records and plain objects whose keys name the fields. A pretty-printed document saved as
``.jsonl``, or JSON Lines saved as ``.json``, is still read.

Pure logic: no Dagster imports.
"""

from __future__ import annotations

import json
import re
from typing import Any

from agentr_dagster.imports.cleaning import clip
from agentr_dagster.imports.columns import map_columns
from agentr_dagster.imports.errors import ImportFileError
from agentr_dagster.imports.fields import split_authors
from agentr_dagster.imports.hints import sniff_hint
from agentr_dagster.imports.reader import Reader
from agentr_dagster.imports.records import Collector

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


JSON_LINES = Reader("jsonl", read=parse_json_lines)
JSON_DOCUMENT = Reader("json", read=parse_json_document)
