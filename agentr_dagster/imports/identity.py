"""Paper identity: whether two records are the same paper, decided in one place.

The keys: :func:`paper_key` (DOI, else normalised title and year) is the one key every path into a project uses
(file imports, lake retrieval, search results, ``agentr screen``), so the same paper arriving both ways is one
paper; :func:`title_key` and :func:`content_hash` beside it. The rules that merge records with different keys:
two known DOIs that differ never merge (:func:`dois_conflict`); the same title with a year missing on one side
merges unless the first authors differ (:func:`same_title_any_year`); near-identical titles compare by
:func:`titles_alike`; two substantial abstracts sharing under 30% of their words are two papers
(:func:`abstracts_disagree`). :class:`PaperIndex` applies them all, in one order, to a new record against the
papers kept so far: ``imports/dedup.py`` (import and ``agentr screen``) and ``lake/core.py`` (the lake's merge) both
ask it, so a record is a duplicate in the lake exactly when it is one on import. ``stages/labels.py``
(decisions matched to papers) uses the keys and :func:`titles_alike`. Pure logic: no Dagster imports.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Callable
from difflib import SequenceMatcher

from agentr_dagster.domain.contracts import PaperRecord

_NON_WORD = re.compile(r"[\W_]+")


def normalise_title(title: str) -> str:
    """Case-folded, accents removed, punctuation to single spaces: "The Café, Revisited!" -> "the cafe revisited"."""
    text = unicodedata.normalize("NFKD", title.casefold())
    text = "".join(ch for ch in text if not unicodedata.combining(ch))
    normal = _NON_WORD.sub(" ", text).strip()
    return normal or " ".join(title.casefold().split())


PAPER_KEY_MAX_CHARS = 255  # the store's papers.paper_key column (PostgreSQL refuses a longer value)


def title_key(title: str, year: int | None) -> str:
    """``t:<normalised title>|<year>``, unbounded: for matching titles exactly (:func:`paper_key` bounds it)."""
    return f"t:{normalise_title(title)}|{year if year is not None else ''}"


def paper_key(record: PaperRecord) -> str:
    """Stable de-duplication key: ``doi:<doi>`` when a DOI is known, else ``t:<normalised title>|<year>``;
    at most PAPER_KEY_MAX_CHARS characters. The one key every path into a project uses (file imports, lake
    retrieval), so the same paper arriving both ways is one paper."""
    return paper_key_for(record.doi, None if record.doi else title_key(record.title, record.year))


def paper_key_for(doi: str | None, tkey: str | None) -> str:
    """:func:`paper_key` from the record's DOI or, without one, its :func:`title_key` (for callers that keep
    the title key too). A longer key keeps its start and ends in a hash of the whole, so distinct long keys
    (a 1,000-character title) stay distinct."""
    key = f"doi:{doi}" if doi else tkey
    if key is None:
        raise ValueError("paper_key_for needs a DOI or a title key")
    if len(key) <= PAPER_KEY_MAX_CHARS:
        return key
    digest = hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return f"{key[: PAPER_KEY_MAX_CHARS - len(digest) - 1]}#{digest}"


def content_hash(record: PaperRecord) -> str:
    """sha256 (hex) of the whitespace/Unicode-normalised title and abstract: the text scoring depends on."""
    title = " ".join(unicodedata.normalize("NFC", record.title).split())
    abstract = " ".join(unicodedata.normalize("NFC", record.abstract or "").split())
    payload = f"{title}\n{abstract}".encode("utf-8", errors="surrogatepass")
    return hashlib.sha256(payload).hexdigest()


_DOI_PREFIX = re.compile(r"^(?:https?://(?:dx\.)?doi\.org/|doi:\s*)", re.IGNORECASE)


def normal_doi(value: str | None) -> str | None:
    """A DOI as the store keeps it: lower case, without ``https://doi.org/`` or ``doi:``."""
    doi = _DOI_PREFIX.sub("", (value or "").strip()).strip().lower()
    return doi or None


def dois_conflict(a: str | None, b: str | None) -> bool:
    """Two known DOIs that differ: two papers, whatever their titles say."""
    return bool(a and b and a != b)


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


# A title this long matches a record without a year (shorter ones, "Editorial", need the same year).
MIN_TITLE_CHARS_ANY_YEAR = 20


def same_title_any_year(title: str, one_year_missing: bool, author_a: str | None, author_b: str | None) -> bool:
    """Two records with this same normalised title and a year missing on one side are one paper: a reference
    list or an empty CSV column says nothing against the match, unless the title is short or the first authors
    differ (a recurring title, "Introduction to the special issue", by another author is another paper)."""
    return len(title) >= MIN_TITLE_CHARS_ANY_YEAR and one_year_missing and not authors_disagree(author_a, author_b)


def titles_alike(a: str, b: str, ratio: float, matcher: SequenceMatcher | None = None) -> bool:
    """Normalised titles whose difflib ratio is at least ``ratio`` (a kept subtitle, a typo fixed). A caller
    comparing one title with many passes ``matcher`` with that title set as its second sequence (difflib caches
    that side)."""
    if a == b:
        return True
    if matcher is None:
        matcher = SequenceMatcher(None, autojunk=False)
        matcher.set_seq2(b)
    matcher.set_seq1(a)
    return matcher.quick_ratio() >= ratio and matcher.ratio() >= ratio


_WORD = re.compile(r"[^\W_]+")  # the runs of word characters (what normalise_title keeps)
_ABSTRACT_MIN_CHARS = 200
_ABSTRACT_MIN_OVERLAP = 0.3


def abstract_words(abstract: str) -> frozenset[str] | None:
    """The word set :func:`abstracts_disagree` compares (first 3,000 characters, case-folded), or None for an
    abstract too short to judge by."""
    if len(abstract) < _ABSTRACT_MIN_CHARS:
        return None
    return frozenset(_WORD.findall(abstract[:3000].casefold()))


def abstracts_disagree(words_a: frozenset[str] | None, words_b: frozenset[str] | None) -> bool:
    """Two substantial abstracts sharing under 30% of their words: different papers with the same title
    (versions of one paper's abstract, truncated or with a copyright line, share far more). Takes the word
    sets of :func:`abstract_words`, so each abstract is split once however often it is compared."""
    if words_a is None or words_b is None:
        return False
    return len(words_a & words_b) / max(1, min(len(words_a), len(words_b))) < _ABSTRACT_MIN_OVERLAP


# ------------------------------------------------------------------------------------------------------------
# The rules together: which kept paper a new record is
# ------------------------------------------------------------------------------------------------------------

_NUMBERISH = re.compile(r"\b(?:\d+|[ivxlc]{1,6})\b")
FUZZY_RATIO = 0.95  # near-identical titles: difflib ratio at least this, same year, same numbers
FUZZY_MIN_CHARS = 20  # shorter titles only ever match exactly
BLOCK_CAP = 64  # candidates remembered per title / per fuzzy block: bounded work on large or hostile input
# Titles whose lengths differ more never match fuzzily. (The ratio itself allows len(short)/len(long) down to
# r / (2 - r), about 0.905; this stricter bound is the rule as imports have always applied it: a one-character
# difference in length matches only from about 39 characters on.)
_MIN_LEN_RATIO = 2 * FUZZY_RATIO / (1 + FUZZY_RATIO) - 1e-9


def title_numbers(title: str) -> frozenset[str]:
    """The numbers in a normalised title (digits, short roman numerals): "part 1" and "part 2" differ."""
    return frozenset(_NUMBERISH.findall(title))


def _lengths_allow(a: str, b: str) -> bool:
    """Long enough and of similar lengths: what a difflib ratio of FUZZY_RATIO needs."""
    short, long = sorted((len(a), len(b)))
    return short >= FUZZY_MIN_CHARS and short / long >= _MIN_LEN_RATIO


def _block_keys(title: str, year: int | None) -> tuple[int, int]:
    """The fuzzy blocks of a title: same year and the same first, or last, 8 normalised characters. Kept as
    hashes (a large index holds two per paper); a collision only adds a candidate, which the rules then test."""
    return hash((year, title[:8])), hash((year, "|", title[-8:]))


Members = int | list[int]  # one slot (most keys have one), or several in the order added


def _put(table: dict, key: object, slot: int, *, keep_recent: bool = False) -> None:
    """Add ``slot`` under ``key``: at most BLOCK_CAP slots per key, the first ones or (``keep_recent``) the
    most recent."""
    members = table.get(key)
    if members is None:
        table[key] = slot
    elif type(members) is int:
        table[key] = [members, slot]
    elif len(members) < BLOCK_CAP:
        members.append(slot)
    elif keep_recent:
        del members[0]
        members.append(slot)


def _members(table: dict, key: object) -> tuple[int, ...] | list[int]:
    members = table.get(key, ())
    return (members,) if type(members) is int else members


class Probe:
    """A record being matched: DOI, normalised title and year, and what only some rules read (the first authors,
    the abstract), given as values or as zero-argument functions called on first need (the lake reads a stored
    row only for the rare candidate that needs it). Each is worked out once however often it is compared."""

    __slots__ = ("_abstract", "_author", "_authors", "_numbers", "_words", "author_known", "doi", "title",
                 "words_known", "year")

    def __init__(self, doi: str | None, title: str, year: int | None,
                 authors: list[str] | Callable[[], list[str] | None] | None = None,
                 abstract: str | Callable[[], str | None] | None = None):
        self.doi, self.title, self.year = doi, title, year
        self._authors, self._abstract = authors, abstract
        self._numbers: frozenset[str] | None = None
        self._author: str | None = None
        self._words: frozenset[str] | None = None
        self.author_known = self.words_known = False

    @classmethod
    def of(cls, record: PaperRecord) -> Probe:
        return cls(record.doi, normalise_title(record.title), record.year, record.authors, record.abstract)

    def author(self) -> str | None:
        if not self.author_known:
            names = self._authors() if callable(self._authors) else self._authors
            self._author, self._authors, self.author_known = first_author_key(names), None, True
        return self._author

    def abstract(self) -> str:
        if callable(self._abstract):
            self._abstract = self._abstract()
        return self._abstract or ""

    def words(self) -> frozenset[str] | None:
        if not self.words_known:
            self._words, self.words_known = abstract_words(self.abstract()), True
        return self._words

    def numbers(self) -> frozenset[str]:
        if self._numbers is None:
            self._numbers = title_numbers(self.title)
        return self._numbers


Match = tuple[int, str]  # (slot of the kept paper, the rule that matched)


class PaperIndex:
    """The papers kept so far (slots 0, 1, ... in the order added), indexed for the identity rules; :meth:`match`
    says which of them a new record is. The rules, in order: the same DOI; the same normalised title and year;
    the same title of at least MIN_TITLE_CHARS_ANY_YEAR characters with a year missing on one side and first
    authors that do not differ (:func:`same_title_any_year`); a near-identical title (difflib ratio >=
    FUZZY_RATIO, same year, same numbers such as "Part 2"). Two known DOIs that differ, or two substantial
    abstracts that disagree (:func:`abstracts_disagree`), never merge on a title.

    Linear and bounded: each lookup is a dict hit, and the title lists and fuzzy blocks (same year and first or
    last 8 characters) keep at most BLOCK_CAP papers each. A kept paper's first author and abstract are read
    (through ``authors_of`` / ``abstract_of``, by slot) only when a title rule needs them, and each once."""

    def __init__(self, authors_of: Callable[[int], list[str] | None], abstract_of: Callable[[int], str | None],
                 remember: int | None = None):
        self._authors_of, self._abstract_of = authors_of, abstract_of
        self._remember = remember  # at most this many slots' surnames and word sets kept (None: all)
        self.dois: list[str | None] = []
        self.titles: list[str] = []
        self.years: list[int | None] = []
        self._by_doi: dict[str, int] = {}
        self._by_title_year: dict[tuple[str, int | None], Members] = {}
        self._by_title: dict[str, Members] = {}
        self._blocks: dict[int, Members] = {}
        self._authors: dict[int, str | None] = {}  # slot -> first author's surname, once read
        self._words: dict[int, frozenset[str] | None] = {}  # slot -> abstract word set, once read

    def __len__(self) -> int:
        return len(self.titles)

    def add(self, doi: str | None, title: str, year: int | None) -> int:
        """Keep a paper (normalised title); returns its slot."""
        slot = len(self.titles)
        self.dois.append(doi)
        self.titles.append(title)
        self.years.append(year)
        if doi:
            self._by_doi.setdefault(doi, slot)
        _put(self._by_title_year, (title, year), slot)
        _put(self._by_title, title, slot)
        if len(title) >= FUZZY_MIN_CHARS:  # a shorter title is never a fuzzy candidate
            for block in _block_keys(title, year):
                _put(self._blocks, block, slot, keep_recent=True)
        return slot

    def keep(self, probe: Probe) -> int:
        """Keep a matched-against record (what it worked out stays with its slot)."""
        slot = self.add(probe.doi, probe.title, probe.year)
        if probe.author_known:
            self._store(self._authors, slot, probe.author())
        if probe.words_known:
            self._store(self._words, slot, probe.words())
        return slot

    def _store(self, cache: dict, slot: int, value: object) -> None:
        if self._remember is not None and len(cache) >= self._remember:
            del cache[next(iter(cache))]  # the oldest goes: memory stays bounded on a huge re-import
        cache[slot] = value

    def _author(self, slot: int) -> str | None:
        if slot not in self._authors:
            self._store(self._authors, slot, first_author_key(self._authors_of(slot)))
        return self._authors[slot]

    def _abstracts_disagree(self, probe: Probe, slot: int) -> bool:
        """:func:`abstracts_disagree` of the record's and the kept paper's abstracts; the word sets are built
        only when both abstracts are substantial and not the same text (a re-import's duplicates are)."""
        if len(probe.abstract()) < _ABSTRACT_MIN_CHARS:
            return False
        if slot not in self._words:
            text = self._abstract_of(slot) or ""
            if len(text) < _ABSTRACT_MIN_CHARS or text == probe.abstract():
                return False
            self._store(self._words, slot, abstract_words(text))
        return abstracts_disagree(probe.words(), self._words[slot])

    def _conflict(self, probe: Probe, slot: int) -> bool:
        """Two papers whatever their titles say: DOIs that differ, or abstracts that disagree."""
        return dois_conflict(probe.doi, self.dois[slot]) or self._abstracts_disagree(probe, slot)

    def match(self, probe: Probe) -> Match | None:
        """The kept paper this record is, with the rule that matched, or None (a new paper)."""
        if probe.doi and probe.doi in self._by_doi:
            return self._by_doi[probe.doi], f"same DOI {probe.doi}"
        title = probe.title
        for slot in _members(self._by_title_year, (title, probe.year)):
            if not self._conflict(probe, slot):
                return slot, "same title and year"
        if len(title) >= MIN_TITLE_CHARS_ANY_YEAR:
            for slot in _members(self._by_title, title):
                if (probe.year is None or self.years[slot] is None) \
                        and same_title_any_year(title, True, probe.author(), self._author(slot)) \
                        and not self._conflict(probe, slot):
                    return slot, "same title, year missing on one side"
        return self._near_identical(probe) if len(title) >= FUZZY_MIN_CHARS else None

    def _near_identical(self, probe: Probe) -> Match | None:
        """The most recent kept paper in the record's fuzzy blocks with a near-identical title (the cheap tests
        first: lengths, DOIs, numbers; the abstracts last, as they may have to be read)."""
        title, matcher, seen = probe.title, None, set()
        for block in _block_keys(title, probe.year):
            for slot in reversed(_members(self._blocks, block)):
                if slot in seen:
                    continue
                seen.add(slot)
                other = self.titles[slot]
                if self.years[slot] != probe.year or not _lengths_allow(other, title) \
                        or dois_conflict(probe.doi, self.dois[slot]) or title_numbers(other) != probe.numbers():
                    continue
                if matcher is None:  # built on first use: most titles have no candidate
                    matcher = SequenceMatcher(None, autojunk=False)
                    matcher.set_seq2(title)
                if titles_alike(other, title, FUZZY_RATIO, matcher) \
                        and not self._abstracts_disagree(probe, slot):
                    return slot, "near-identical title, same year"
        return None
