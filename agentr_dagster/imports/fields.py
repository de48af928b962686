"""One untrusted value to one paper field: text, year, DOI, URL, authors. Each coercion returns the value (or None)
and a note about what it ignored, never raising on bad input.

Pure logic: no Dagster imports.
"""

from __future__ import annotations

import math
import re

from agentr_dagster.imports.cleaning import clean_text, clip, strip_invisible

_YEAR_RE = re.compile(r"(?<!\d)(\d{4})(?!\d)")
_DOI_RE = re.compile(r"10\.\d{4,9}/[^\s\"<>]+", re.IGNORECASE)
_URL_RE = re.compile(r"https?://[^\s<>\"']+", re.IGNORECASE)
# Whitespace is collapsed first so that no pattern scans a long whitespace run from every position.
_HSPACE_RUN = re.compile(r"[^\S\n]+")
_NEWLINE_RUN = re.compile(r" ?\n[ \n]*")
_AUTHOR_SPLIT = re.compile(r" ?; ?|\n| and ", re.IGNORECASE)
_AUTHOR_SPLIT_COMMAS = re.compile(r" ?[;,] ?|\n| and ", re.IGNORECASE)
_MAX_AUTHORS = 1000
_MAX_AUTHOR_CHARS = 300
SHORT_FIELD_CHARS = 1000
_MAX_DOI_CHARS = 300
_MAX_URL_CHARS = 2000
TITLE_CHARS = 1000  # PaperRecord's limit
ABSTRACT_CHARS = 20_000  # PaperRecord's limit


def _type_name(value: object) -> str:
    return {dict: "an object", list: "a list", bool: "a boolean"}.get(type(value), type(value).__name__)


def as_text(value: object) -> tuple[str | None, str | None]:
    """Untrusted value -> (string or None, note about an ignored value or None)."""
    if value is None:
        return None, None
    if isinstance(value, str):
        return value, None
    if isinstance(value, bool):
        return None, "has a boolean value; ignored"
    if isinstance(value, int):
        if not -(10**30) < value < 10**30:
            return None, "is a very large number; ignored"
        return str(value), None
    if isinstance(value, float):
        if not math.isfinite(value):
            return None, f"has the non-finite number {value}; ignored"
        return (str(int(value)) if value.is_integer() else str(value)), None
    if isinstance(value, (list, tuple)):
        parts = [p for p in value if isinstance(p, str) and p.strip()]
        if parts and len(parts) == len(value):
            return " ".join(parts), None
        if parts:
            return " ".join(parts), "is a list with non-text items; kept its text items"
        return None, f"is {_type_name(value)} with no text; ignored"
    return None, f"is {_type_name(value)}, not text; ignored"


def coerce_year(value: object, _depth: int = 0) -> tuple[int | None, str | None]:
    if value is None or value == "":
        return None, None
    if isinstance(value, bool):
        return None, "year is a boolean; ignored"
    if isinstance(value, int):
        year = value
    elif isinstance(value, float):
        if not math.isfinite(value) or not value.is_integer():
            return None, f"year {clip(value)} is not a whole number; ignored"
        year = int(value)
    elif isinstance(value, str):
        match = _YEAR_RE.search(value[:200])
        if not match:
            return None, f"year {clip(value)!r} has no 4-digit year; ignored"
        year = int(match.group(1))
    elif isinstance(value, (list, tuple)) and value and _depth < 3:  # CSL date-parts [[2020, 5]]
        return coerce_year(value[0], _depth + 1)
    else:
        return None, f"year is {_type_name(value)}; ignored"
    if not 1000 <= year <= 2200:
        return None, f"year {clip(year)} is outside 1000-2200; ignored"
    return year, None


def coerce_doi(value: object) -> tuple[str | None, str | None]:
    text, note = as_text(value)
    if text is None:
        return None, (f"doi {note}" if note else None)
    text = text.strip()
    if not text:
        return None, None
    probe = text[:1000]
    if "%2f" in probe.lower():
        probe = re.sub("%2f", "/", probe, flags=re.IGNORECASE)
    match = _DOI_RE.search(probe)
    if not match:
        return None, f"doi {clip(text)!r} is not a DOI; ignored"
    doi = match.group(0).rstrip(".,;:")
    while doi.endswith(")") and doi.count(")") > doi.count("("):
        doi = doi[:-1]
    doi = strip_invisible(doi)
    if len(doi) > _MAX_DOI_CHARS:
        return None, f"doi is {len(doi)} characters long; ignored"
    return doi.lower(), None


def coerce_url(value: object) -> tuple[str | None, str | None]:
    candidates: list[object] = list(value) if isinstance(value, (list, tuple)) else [value]
    bad: str | None = None
    for item in candidates[:50]:
        text, note = as_text(item)
        if text is None:
            bad = bad or (f"url {note}" if note else None)
            continue
        if not text.strip():
            continue
        match = _URL_RE.search(strip_invisible(text[: _MAX_URL_CHARS * 2]))
        if match and len(match.group(0)) <= _MAX_URL_CHARS:
            return match.group(0).rstrip(".,;"), None
        bad = bad or f"url {clip(text)!r} is not an http(s) URL; ignored"
    return None, bad


def split_authors(text: str, *, commas: bool = False) -> list[str]:
    """Split a names string on ';', newlines and ' and ' (and ',' when ``commas``, as in arXiv records)."""
    text = _NEWLINE_RUN.sub("\n", _HSPACE_RUN.sub(" ", text[:200_000]))
    pattern = _AUTHOR_SPLIT_COMMAS if commas else _AUTHOR_SPLIT
    return [part.strip() for part in pattern.split(text) if part.strip()]


def author_name(item: object, _depth: int = 0) -> str | None:
    """One author from a string, a CSL/OpenAlex-style dict or a [last, first, suffix] list."""
    if isinstance(item, str):
        return item
    if isinstance(item, dict):
        for key in ("display_name", "name", "literal", "full_name", "fullname"):
            if isinstance(item.get(key), str) and item[key].strip():
                return item[key]
        given, family = item.get("given"), item.get("family")
        parts = [p for p in (given, family) if isinstance(p, str) and p.strip()]
        if parts:
            return " ".join(parts)
        inner = item.get("author")
        if isinstance(inner, dict) and _depth < 2:
            return author_name(inner, _depth + 1)
        return None
    if isinstance(item, (list, tuple)) and item and all(isinstance(p, str) for p in item):
        names = [*item, ""]
        last, first, rest = names[0], names[1], names[2:]
        return " ".join(p for p in (first, last, *rest) if p.strip())
    return None


def coerce_authors(value: object) -> tuple[list[str], list[str]]:
    notes: list[str] = []
    if value is None:
        return [], notes
    if isinstance(value, str):
        raw: list[object] = list(split_authors(value))
    elif isinstance(value, (list, tuple)):
        raw = list(value[: _MAX_AUTHORS * 2])
    elif isinstance(value, dict):
        raw = [value]
    else:
        return [], [f"authors is {_type_name(value)}; ignored"]
    names: list[str] = []
    skipped = 0
    removed_total = 0
    for item in raw:
        name = author_name(item)
        if name is None:
            skipped += 1
            continue
        name, removed, _ = clean_text(name, _MAX_AUTHOR_CHARS)
        removed_total += removed
        if name and name.casefold() not in ("others", "et al", "et al."):
            names.append(name)
    if skipped:
        notes.append(f"authors: skipped {skipped} item(s) that were not names")
    if removed_total:
        notes.append(f"removed {removed_total} control or invisible character(s) from authors")
    if len(names) > _MAX_AUTHORS:
        notes.append(f"authors: kept the first {_MAX_AUTHORS} of {len(names)} names")
        names = names[:_MAX_AUTHORS]
    return names, notes
