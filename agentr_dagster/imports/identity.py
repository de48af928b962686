"""Paper identity: whether two records are the same paper, decided in one place.

The keys: :func:`paper_key` (DOI, else normalised title and year) is the one key every path into a project uses
(file imports, lake retrieval, search results, ``agentr screen``), so the same paper arriving both ways is one
paper; :func:`title_key` and :func:`content_hash` beside it. The rules that merge records with different keys:
two known DOIs that differ never merge (:func:`dois_conflict`); the same title with a year missing on one side
merges unless the first authors differ (:func:`same_title_any_year`); near-identical titles compare by
:func:`titles_alike`; two substantial abstracts sharing under 30% of their words are two papers
(:func:`abstracts_disagree`). Users: ``imports/dedup.py`` (import and ``agentr screen``), ``lake/core.py``
(the lake's merge), ``stages/labels.py`` and ``stages/feedback.py`` (decisions matched to papers). Pure logic:
no Dagster imports.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
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
