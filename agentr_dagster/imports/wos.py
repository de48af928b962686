"""Web of Science plain text (``.ciw``, or a ``.txt`` recognised by its ``FN``/``PT`` lines): ``TG value`` with a
two-character tag, continuation lines indented by three spaces, ``ER`` ending each record and ``FN``/``VR``/``EF``
framing the file. In the author tags (``AU``, ``AF``) every continuation line is another author.

Pure logic: no Dagster imports.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from agentr_dagster.imports.reader import Reader
from agentr_dagster.imports.records import Collector
from agentr_dagster.imports.tagged import TagFields, Tagged, add_records, raw_fields

_WOS_TAG = re.compile(r"^([A-Z][A-Z0-9])(?: (.*))?$")
_FILE_TAGS = frozenset({"FN", "VR", "EF"})
_FIELDS: TagFields = {
    "title": ("TI",),
    "abstract": ("AB",),
    "year": ("PY", "EY", "PD"),
    "doi": ("DI", "D2"),
    "authors": ("AF", "AU"),
    "venue": ("SO", "SE", "BS"),
    "source_id": ("UT",),
}


def looks_like_wos(text: str) -> bool:
    head = text.lstrip("\ufeff")[:5000]
    return head.startswith("FN ") or re.search(r"^PT [A-Z]\s*$", head, re.MULTILINE) is not None


def _records(lines: list[str]) -> Iterator[tuple[int, Tagged]]:
    record: Tagged = []
    start = 0
    for number, line in enumerate(lines, start=1):
        stripped = line.rstrip()
        if not stripped:
            continue
        if stripped[0].isspace():
            if record:
                record[-1][1].append(stripped.strip())
            continue
        match = _WOS_TAG.match(stripped.lstrip("\ufeff"))
        if not match:
            if record:
                record[-1][1].append(stripped.strip())  # an unindented continuation: keep it with its tag
            continue
        tag, value = match.group(1), (match.group(2) or "").strip()
        if tag == "ER":
            if record:
                yield start, record
            record = []
        elif tag in _FILE_TAGS:
            continue
        else:
            if tag == "PT" and record:  # a record without its ER line
                yield start, record
                record = []
            if not record:
                start = number
            record.append((tag, [value] if value else []))
    if record:
        yield start, record


def _raw(record: Tagged) -> tuple[dict[str, object], dict[str, str]]:
    return raw_fields(record, _FIELDS, authors_per_line=True)


def parse_wos(text: str, collector: Collector) -> str:
    return add_records(_records(text.split("\n")), collector, "wos", _raw,
                       none_found="No Web of Science records found (records start with 'PT ' and end with 'ER').")


WOS = Reader(
    "wos", read=parse_wos, sniff=looks_like_wos, describes="a Web of Science export ('PT J' ... 'ER')",
)
