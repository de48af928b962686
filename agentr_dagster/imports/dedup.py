"""De-duplication of imported records: same DOI, same title and year, same title with a year missing on one side
(unless the first authors differ), near-identical title. The rules and their order are
:class:`agentr_dagster.imports.identity.PaperIndex`, the one the lake's merge asks too; see :func:`dedupe`.

Pure logic: no Dagster imports.
"""

from __future__ import annotations

from agentr_dagster.domain.contracts import PaperRecord
from agentr_dagster.imports.identity import PaperIndex, Probe

Duplicate = tuple[PaperRecord, PaperRecord, str]  # (dropped, kept, why)


def dedupe_with_reasons(records: list[PaperRecord]) -> tuple[list[PaperRecord], list[Duplicate]]:
    """:func:`dedupe`, each pair with the rule that matched ("same DOI 10.1/x", "same title and year"...)."""
    unique: list[PaperRecord] = []
    pairs: list[Duplicate] = []
    index = PaperIndex(lambda slot: unique[slot].authors, lambda slot: unique[slot].abstract)
    for record in records:
        probe = Probe.of(record)
        found = index.match(probe)
        if found is None:
            index.keep(probe)
            unique.append(record)
        else:
            pairs.append((record, unique[found[0]], found[1]))
    return unique, pairs


def dedupe(records: list[PaperRecord]) -> tuple[list[PaperRecord], list[tuple[PaperRecord, PaperRecord]]]:
    """Remove duplicates: same DOI, then same normalised title + year, then the same title of at least 20
    characters where one of the two has no year and the first authors' surnames do not differ, then near-identical
    title (difflib ratio >= 0.95, same year, same numbers such as "Part 2"). Records with two different DOIs, or
    two substantial abstracts that share under 30% of their words, are never merged on their titles. The first
    occurrence is always the one kept (so the result is stable and ``dedupe`` of its own output changes
    nothing). Returns (unique records in input order, [(dropped, kept)]).

    Fuzzy matching compares each title with at most 64 recent titles sharing its first or last 8
    normalised characters and year, so the cost stays linear for large or hostile inputs.
    """
    unique, pairs = dedupe_with_reasons(records)
    return unique, [(dropped, kept) for dropped, kept, _ in pairs]
