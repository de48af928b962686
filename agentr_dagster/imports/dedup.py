"""De-duplication of imported records: same DOI, same title and year, same title with a year missing on one side
(unless the first authors differ), near-identical title. See :func:`dedupe` for the order the rules of
:mod:`agentr_dagster.imports.identity` are applied in, and the blocking that keeps it linear.

Pure logic: no Dagster imports.
"""

from __future__ import annotations

import difflib
import re

from agentr_dagster.domain.contracts import PaperRecord
from agentr_dagster.imports import identity
from agentr_dagster.imports.identity import (
    MIN_TITLE_CHARS_ANY_YEAR,
    abstracts_disagree,
    dois_conflict,
    first_author_key,
    normalise_title,
    same_title_any_year,
    titles_alike,
)

_NUMBERISH = re.compile(r"\b(?:\d+|[ivxlc]{1,6})\b")

_FUZZY_RATIO = 0.95
_FUZZY_MIN_CHARS = 20
_FUZZY_BLOCK_CAP = 64


class _Title:
    """A record's normalised title with what matching needs, computed once: the numbers in the title, and (on
    first use, as most records are never compared) its abstract's word set and its first author's surname."""

    __slots__ = ("_abstract", "_author", "_authors", "_words", "numbers", "text")

    def __init__(self, text: str, abstract: str = "", authors: list[str] | None = None):
        self.text = text
        self.numbers = frozenset(_NUMBERISH.findall(text))
        self._abstract: str | None = abstract
        self._words: frozenset[str] | None = None
        self._authors: list[str] | None = authors
        self._author: str | None = None

    def author(self) -> str | None:
        if self._authors is not None:
            self._author, self._authors = first_author_key(self._authors), None
        return self._author

    def abstract_words(self) -> frozenset[str] | None:
        if self._abstract is not None:
            self._words, self._abstract = identity.abstract_words(self._abstract), None
        return self._words


_MIN_LEN_RATIO = 2 * _FUZZY_RATIO / (1 + _FUZZY_RATIO) - 1e-9  # ratio >= r needs len(short)/len(long) >= this


def _fuzzy_candidate(new: _Title, other: _Title) -> bool:
    """The cheap tests a near-identical title must pass: enough length, similar lengths, the same numbers."""
    a, b = other.text, new.text
    if min(len(a), len(b)) < _FUZZY_MIN_CHARS or min(len(a), len(b)) / max(len(a), len(b)) < _MIN_LEN_RATIO:
        return False
    return new.numbers == other.numbers  # "Part 1" vs "Part 2"


Duplicate = tuple[PaperRecord, PaperRecord, str]  # (dropped, kept, why)


def dedupe_with_reasons(records: list[PaperRecord]) -> tuple[list[PaperRecord], list[Duplicate]]:
    """:func:`dedupe`, each pair with the rule that matched ("same DOI 10.1/x", "same title and year"...)."""
    unique: list[PaperRecord] = []
    titles: list[_Title] = []
    pairs: list[Duplicate] = []
    by_doi: dict[str, int] = {}
    by_title: dict[str, list[int]] = {}  # normalised title -> slots (at most _FUZZY_BLOCK_CAP)
    blocks: dict[tuple[str, int | None, str], list[int]] = {}

    def conflicts(record: PaperRecord, title: _Title, slot: int) -> bool:
        other = unique[slot]
        if dois_conflict(record.doi, other.doi):
            return True
        return abstracts_disagree(title.abstract_words(), titles[slot].abstract_words())

    def block_keys(title: str, year: int | None) -> tuple[tuple[str, int | None, str], ...]:
        return (("p", year, title[:8]), ("s", year, title[-8:]))

    def register(slot: int) -> None:
        record, title = unique[slot], titles[slot].text
        if record.doi:
            by_doi.setdefault(record.doi, slot)
        same_title = by_title.setdefault(title, [])
        if len(same_title) < _FUZZY_BLOCK_CAP:  # bounded, like the fuzzy blocks: linear on hostile input
            same_title.append(slot)
        for block in block_keys(title, record.year):
            members = blocks.setdefault(block, [])
            members.append(slot)
            if len(members) > _FUZZY_BLOCK_CAP:
                del members[0]

    for record in records:
        title = _Title(normalise_title(record.title), record.abstract, record.authors)
        slot, why = None, ""
        if record.doi and record.doi in by_doi:
            slot, why = by_doi[record.doi], f"same DOI {record.doi}"
        same_title = by_title.get(title.text, ())
        if slot is None:
            slot = next((c for c in same_title if unique[c].year == record.year and not conflicts(record, title, c)),
                        None)
            why = "same title and year"
        if slot is None and len(title.text) >= MIN_TITLE_CHARS_ANY_YEAR:
            # (Same title, same or no year: one paper key, so one paper, as before.)
            slot = next((c for c in same_title
                         if same_title_any_year(title.text, record.year is None or unique[c].year is None,
                                                title.author(), titles[c].author())
                         and not conflicts(record, title, c)), None)
            why = "same title, year missing on one side"
        if slot is None and len(title.text) >= _FUZZY_MIN_CHARS:
            matcher: difflib.SequenceMatcher | None = None  # built on first use: most titles have no candidate
            seen: set[int] = set()
            for block in block_keys(title.text, record.year):
                for candidate in reversed(blocks.get(block, ())):
                    if candidate in seen:
                        continue
                    seen.add(candidate)
                    other = titles[candidate]
                    if not _fuzzy_candidate(title, other) or conflicts(record, title, candidate):
                        continue
                    if matcher is None:
                        matcher = difflib.SequenceMatcher(None, autojunk=False)
                        matcher.set_seq2(title.text)
                    if titles_alike(other.text, title.text, _FUZZY_RATIO, matcher):
                        slot, why = candidate, "near-identical title, same year"
                        break
                if slot is not None:
                    break
        if slot is None:
            unique.append(record)
            titles.append(title)
            register(len(unique) - 1)
            continue
        pairs.append((record, unique[slot], why))
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
