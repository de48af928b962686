"""PubMed's MEDLINE format (PubMed "Save > Format: PubMed", ``.nbib``/``.medline``, or a ``.txt`` recognised by
its ``PMID-`` lines): ``TAG - value`` with the tag padded to four characters, continuation lines indented by six
spaces, a blank line between records (each starts with ``PMID-``). Repeated tags (``AU``, ``FAU``) give one value
per line. The DOI comes from ``LID``/``AID`` lines marked ``[doi]``; the URL from the PMID.

Pure logic: no Dagster imports.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from agentr_dagster.imports.reader import Reader
from agentr_dagster.imports.records import Collector
from agentr_dagster.imports.tagged import TagFields, Tagged, add_records, raw_fields

_MEDLINE_TAG = re.compile(r"^([A-Z][A-Z0-9]{1,3}) {0,3}- ?(.*)$")
_FIELDS: TagFields = {
    "title": ("TI", "BTI", "TT"),
    "abstract": ("AB",),
    "year": ("DP", "DEP", "DA"),
    "authors": ("FAU", "AU"),
    "venue": ("JT", "TA"),
    "source_id": ("PMID",),
}
_DOI_MARK = re.compile(r"^(\S+)\s*\[doi\]\s*$", re.IGNORECASE)


def looks_like_medline(text: str) -> bool:
    return re.search(r"^PMID ?- ?\d", text[:5000], re.MULTILINE) is not None


def _records(lines: list[str]) -> Iterator[tuple[int, Tagged]]:
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


def _doi(record: Tagged) -> tuple[str, str] | None:
    for tag in ("LID", "AID"):
        for t, lines in record:
            match = _DOI_MARK.match(" ".join(lines)) if t == tag else None
            if match:
                return tag, match.group(1)
    return None


def _raw(record: Tagged) -> tuple[dict[str, object], dict[str, str]]:
    raw, columns = raw_fields(record, _FIELDS, authors_per_line=False)
    doi = _doi(record)
    if doi:
        columns["doi"], raw["doi"] = doi
    if raw.get("source_id"):
        raw["url"], columns["url"] = f"https://pubmed.ncbi.nlm.nih.gov/{raw['source_id']}/", "PMID"
    return raw, columns


def parse_medline(text: str, collector: Collector) -> str:
    return add_records(_records(text.split("\n")), collector, "medline", _raw,
                       none_found="No MEDLINE records found (records start with a 'PMID- ' line).")


MEDLINE = Reader(
    "medline", read=parse_medline, sniff=looks_like_medline,
    describes="a PubMed (MEDLINE) export (records starting 'PMID- ')",
)
