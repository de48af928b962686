"""De-duplication of imported records: same DOI, same title and year, same title with a year missing on one side
(unless the first authors differ), near-identical title. See :func:`dedupe` for the rules.

Pure logic: no Dagster imports.
"""

from __future__ import annotations

import difflib
import re

from agentr_dagster.domain.contracts import PaperRecord
from agentr_dagster.imports.keys import normalise_title

_WORD = re.compile(r"[^\W_]+")  # the runs of word characters (what normalise_title keeps)
_NUMBERISH = re.compile(r"\b(?:\d+|[ivxlc]{1,6})\b")

_INITIALS = re.compile(r"^(?:[A-Z]\.?){1,3}$|^[A-Za-z]\.?$")


def first_author_key(authors: list[str] | None) -> str | None:
    """The first author's surname, normalised: "Smith, John", "John Smith", "Smith JK" -> "smith"; for a
    particle surname the last word ("van der Berg, J." and "J. van der Berg" -> "berg"). None if unknown."""
    name = next((a for a in authors or () if a and a.strip()), None)
    if name is None:
        return None
    if "," in name:
        words = name.split(",", 1)[0].split()
    else:
        words = name.split()
        while len(words) > 1 and words[-1].casefold().strip(".") in ("et", "al"):  # "Smith et al."
            words.pop()
        while len(words) > 1 and _INITIALS.match(words[-1]):  # "Smith JK": initials after the surname
            words.pop()
    if not words:
        return None
    return normalise_title(words[-1]) or None


def authors_disagree(a: str | None, b: str | None) -> bool:
    """Two known first authors with different surnames."""
    return a is not None and b is not None and a != b


_FUZZY_RATIO = 0.95
_FUZZY_MIN_CHARS = 20
_FUZZY_BLOCK_CAP = 64
# A title this long matches a record without a year (shorter ones, "Editorial", need the same year).
MIN_TITLE_CHARS_ANY_YEAR = 20


_ABSTRACT_MIN_CHARS = 200
_ABSTRACT_MIN_OVERLAP = 0.3


def _abstract_words(abstract: str) -> frozenset[str] | None:
    """The word set :func:`_abstracts_disagree` compares (first 3,000 characters, case-folded), or None for an
    abstract too short to judge by."""
    if len(abstract) < _ABSTRACT_MIN_CHARS:
        return None
    return frozenset(_WORD.findall(abstract[:3000].casefold()))


def _abstracts_disagree(words_a: frozenset[str] | None, words_b: frozenset[str] | None) -> bool:
    """Two substantial abstracts sharing under 30% of their words: different papers with the same title
    (versions of one paper's abstract, truncated or with a copyright line, share far more). Takes the word
    sets of :func:`_abstract_words`, so each abstract is split once however often it is compared."""
    if words_a is None or words_b is None:
        return False
    return len(words_a & words_b) / max(1, min(len(words_a), len(words_b))) < _ABSTRACT_MIN_OVERLAP


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
            self._words, self._abstract = _abstract_words(self._abstract), None
        return self._words


_MIN_LEN_RATIO = 2 * _FUZZY_RATIO / (1 + _FUZZY_RATIO) - 1e-9  # ratio >= r needs len(short)/len(long) >= this


def _fuzzy_candidate(new: _Title, other: _Title) -> bool:
    """The cheap tests a near-identical title must pass: enough length, similar lengths, the same numbers."""
    a, b = other.text, new.text
    if min(len(a), len(b)) < _FUZZY_MIN_CHARS or min(len(a), len(b)) / max(len(a), len(b)) < _MIN_LEN_RATIO:
        return False
    return new.numbers == other.numbers  # "Part 1" vs "Part 2"


def _fuzzy_same(matcher: difflib.SequenceMatcher, other: _Title) -> bool:
    """``matcher`` has the new title as its second sequence (difflib caches that side)."""
    matcher.set_seq1(other.text)
    return matcher.quick_ratio() >= _FUZZY_RATIO and matcher.ratio() >= _FUZZY_RATIO


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
        if record.doi and other.doi and record.doi != other.doi:
            return True
        return _abstracts_disagree(title.abstract_words(), titles[slot].abstract_words())

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
            # One side without a year (a reference list or a CSV column left empty) says nothing against the match,
            # unless the first authors differ: a recurring title ("Introduction to the special issue") by another
            # author is another paper. (Same title, same or no year: one paper key, so one paper, as before.)
            slot = next((c for c in same_title if (record.year is None or unique[c].year is None)
                         and not authors_disagree(title.author(), titles[c].author())
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
                    if _fuzzy_same(matcher, other):
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
