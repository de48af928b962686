"""Readers for tagged-line reference exports: PubMed's MEDLINE format and Web of Science's plain text.

* **MEDLINE** (PubMed "Save > Format: PubMed", ``.nbib``/``.medline``/``.txt``): ``TAG - value`` with the tag
  padded to four characters, continuation lines indented by six spaces, a blank line between records (each
  starts with ``PMID-``). Repeated tags (``AU``, ``FAU``) give one value per line.
* **Web of Science** plain text (``.txt``/``.ciw``): ``TG value`` with a two-character tag, continuation lines
  indented by three spaces, ``ER`` ending each record and ``FN``/``VR``/``EF`` framing the file. In the author
  tags (``AU``, ``AF``) every continuation line is another author.

Like the other readers (:mod:`agentr_dagster.domain.imports_formats`), each feeds one raw record at a time to a
:class:`Collector` and raises only :class:`ImportFileError`. Pure logic: no Dagster, no files.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from agentr_dagster.domain.imports_core import Collector, ImportFileError

_MEDLINE_TAG = re.compile(r"^([A-Z][A-Z0-9]{1,3}) {0,3}- ?(.*)$")
_WOS_TAG = re.compile(r"^([A-Z][A-Z0-9])(?: (.*))?$")
_WOS_FILE_TAGS = frozenset({"FN", "VR", "EF"})
_WOS_AUTHOR_TAGS = frozenset({"AU", "AF"})

# The first present tag wins for each field.
_MEDLINE_FIELDS: dict[str, tuple[str, ...]] = {
    "title": ("TI", "BTI", "TT"),
    "abstract": ("AB",),
    "year": ("DP", "DEP", "DA"),
    "authors": ("FAU", "AU"),
    "venue": ("JT", "TA"),
    "source_id": ("PMID",),
}
_WOS_FIELDS: dict[str, tuple[str, ...]] = {
    "title": ("TI",),
    "abstract": ("AB",),
    "year": ("PY", "EY", "PD"),
    "doi": ("DI", "D2"),
    "authors": ("AF", "AU"),
    "venue": ("SO", "SE", "BS"),
    "source_id": ("UT",),
}
_DOI_MARK = re.compile(r"^(\S+)\s*\[doi\]\s*$", re.IGNORECASE)

Tagged = list[tuple[str, list[str]]]  # (tag, its lines), in file order


def looks_like_medline(text: str) -> bool:
    return re.search(r"^PMID ?- ?\d", text[:5000], re.MULTILINE) is not None


def looks_like_wos(text: str) -> bool:
    head = text.lstrip("\ufeff")[:5000]
    return head.startswith("FN ") or re.search(r"^PT [A-Z]\s*$", head, re.MULTILINE) is not None


def _medline_records(lines: list[str]) -> Iterator[tuple[int, Tagged]]:
    record: Tagged = []
    start = 0
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            if record:
                yield start, record
            record = []
            continue
        match = _MEDLINE_TAG.match(line)
        if match and not line[0].isspace():
            tag, value = match.group(1), match.group(2).strip()
            if tag == "PMID" and record:  # a record that lost its blank line
                yield start, record
                record = []
            if not record:
                start = number
            record.append((tag, [value] if value else []))
        elif record:
            record[-1][1].append(line.strip())  # continuation of the previous tag
    if record:
        yield start, record


def _wos_records(lines: list[str]) -> Iterator[tuple[int, Tagged]]:
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
        elif tag in _WOS_FILE_TAGS:
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


def _first(record: Tagged, tags: tuple[str, ...]) -> tuple[str, list[list[str]]] | None:
    """The first of ``tags`` present in the record, with the lines of each of its occurrences."""
    for tag in tags:
        found = [lines for t, lines in record if t == tag and lines]
        if found:
            return tag, found
    return None


def _medline_doi(record: Tagged) -> tuple[str, str] | None:
    for tag in ("LID", "AID"):
        for t, lines in record:
            match = _DOI_MARK.match(" ".join(lines)) if t == tag else None
            if match:
                return tag, match.group(1)
    return None


def _add(
    collector: Collector,
    start: int,
    record: Tagged,
    fields: dict[str, tuple[str, ...]],
    fmt: str,
    *,
    authors_per_line: bool,
) -> None:
    raw: dict[str, object] = {}
    columns = {name: tags[0] for name, tags in fields.items()}  # a missing field is named by its usual tag
    for name, tags in fields.items():
        hit = _first(record, tags)
        if hit is None:
            continue
        tag, occurrences = hit
        if name == "authors":
            raw[name] = (
                [line for lines in occurrences for line in lines]
                if authors_per_line
                else [" ".join(lines) for lines in occurrences]
            )
        else:
            raw[name] = " ".join(occurrences[0])
        columns[name] = tag
    if fmt == "medline":
        doi = _medline_doi(record)
        if doi:
            columns["doi"], raw["doi"] = doi
        if raw.get("source_id"):
            raw["url"], columns["url"] = f"https://pubmed.ncbi.nlm.nih.gov/{raw['source_id']}/", "PMID"
    collector.add(start, raw, source_format=fmt, columns=columns)


def _parse(records: Iterator[tuple[int, Tagged]], collector: Collector, fields: dict[str, tuple[str, ...]],
           fmt: str, *, authors_per_line: bool, none_found: str) -> str:
    found = False
    for start, record in records:
        found = True
        collector.count_row(start)
        _add(collector, start, record, fields, fmt, authors_per_line=authors_per_line)
    if not found:
        raise ImportFileError(none_found)
    return fmt


def parse_medline(text: str, collector: Collector) -> str:
    return _parse(_medline_records(text.split("\n")), collector, _MEDLINE_FIELDS, "medline", authors_per_line=False,
                  none_found="No MEDLINE records found (records start with a 'PMID- ' line).")


def parse_wos(text: str, collector: Collector) -> str:
    return _parse(_wos_records(text.split("\n")), collector, _WOS_FIELDS, "wos", authors_per_line=True,
                  none_found="No Web of Science records found (records start with 'PT ' and end with 'ER').")
