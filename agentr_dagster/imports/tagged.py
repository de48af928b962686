"""What the tagged-line readers (:mod:`~agentr_dagster.imports.medline`, :mod:`~agentr_dagster.imports.wos`)
share: a record as (tag, lines) pairs, the first present tag per field, and the loop feeding records to the
:class:`Collector`.

Pure logic: no Dagster imports.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from agentr_dagster.imports.errors import ImportFileError
from agentr_dagster.imports.records import Collector

Tagged = list[tuple[str, list[str]]]  # (tag, its lines), in file order
#: field -> the tags that may hold it; the first present tag wins
TagFields = dict[str, tuple[str, ...]]


def first_tag(record: Tagged, tags: tuple[str, ...]) -> tuple[str, list[list[str]]] | None:
    """The first of ``tags`` present in the record, with the lines of each of its occurrences."""
    for tag in tags:
        found = [lines for t, lines in record if t == tag and lines]
        if found:
            return tag, found
    return None


def raw_fields(
    record: Tagged, fields: TagFields, *, authors_per_line: bool
) -> tuple[dict[str, object], dict[str, str]]:
    """(raw values, the tag each came from) for one record. Authors are one per occurrence of the tag, or, with
    ``authors_per_line``, one per line."""
    raw: dict[str, object] = {}
    columns = {name: tags[0] for name, tags in fields.items()}  # a missing field is named by its usual tag
    for name, tags in fields.items():
        hit = first_tag(record, tags)
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
    return raw, columns


def add_records(
    records: Iterator[tuple[int, Tagged]],
    collector: Collector,
    fmt: str,
    to_raw: Callable[[Tagged], tuple[dict[str, object], dict[str, str]]],
    *,
    none_found: str,
) -> str:
    """Feed each (start line, record) to the collector as ``to_raw`` maps it; no record at all is an error."""
    found = False
    for start, record in records:
        found = True
        collector.count_row(start)
        raw, columns = to_raw(record)
        collector.add(start, raw, source_format=fmt, columns=columns)
    if not found:
        raise ImportFileError(none_found)
    return fmt
