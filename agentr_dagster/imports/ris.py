"""RIS (``.ris``): records from ``TY  -`` to ``ER  -``, continuation lines joined here (linear time), each record
then mapped by rispy. A record without its TY or ER line is kept with a note.

Pure logic: no Dagster imports.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import rispy

from agentr_dagster.imports.cleaning import clip
from agentr_dagster.imports.errors import ImportFileError
from agentr_dagster.imports.hints import sniff_hint
from agentr_dagster.imports.reader import Reader
from agentr_dagster.imports.records import Collector

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



RIS = Reader("ris", read=parse_ris)
