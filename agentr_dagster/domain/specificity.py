"""How specific a search term is, judged by data: its frequency in general English (the ``wordfreq`` library)
and, where one is given, its document frequency in a background corpus (the lake, or the candidates).

A term that a large share of all records contain ("effect*", "human*", "test") says nothing about a topic: it
must never stand as a top-level alternative of a query. The general-English estimate needs no corpus; a
background, where the caller has one, is the better judge and takes precedence.
"""

from __future__ import annotations

import bisect
import math
import re
from collections.abc import Callable
from functools import lru_cache
from typing import TypeVar

from agentr_dagster.domain.boolean_query import And, Node, Not, Term
from agentr_dagster.domain.text import FUNCTION_WORDS

#: A term's document frequency in a background corpus: the share of its records that contain it.
Background = Callable[[str], float]
T = TypeVar("T")

#: Words in an abstract-length record: turns a word's frequency per token into the share of records with it.
RECORD_TOKENS = 200
#: Endings tried after a truncated stem: a stem is as general as its most frequent completion.
_STEM_ENDINGS = (
    "", "s", "e", "es", "ed", "ing", "ion", "ions", "al", "y", "ic", "ity", "ive", "ent", "ents", "ence", "er",
    "ers", "ment", "ness", "ation", "ations", "ize", "ise", "ly", "ize", "ist", "ists",
)  # fmt: skip
_WORD_RE = re.compile(r"[\w\-']+\*?")


@lru_cache(maxsize=131072)
def _zipf(text: str) -> float:
    from wordfreq import zipf_frequency

    return zipf_frequency(text, "en")


def general_zipf(term: str) -> float:
    """A search term's frequency in general English on the Zipf scale (log10 per billion words; "the" 7.7,
    "effect" 5.0, "dementia" 3.8): a phrase as a whole, a truncated stem as its most frequent completion."""
    core = term.strip().strip('"').casefold()
    if not core:
        return 0.0
    core = _letter_compound_closed(core)
    if core.endswith("*") and " " not in core:
        stem = core[:-1]
        return max(_zipf(stem + ending) for ending in _STEM_ENDINGS)
    return _zipf(core.replace("*", ""))


_LETTER_COMPOUND_RE = re.compile(r"(?<![\w-])([a-z])-([a-z]{3,})")


def _letter_compound_closed(core: str) -> str:
    """A compound opened by a single letter ("e-government", "m-health", "e-learning") written closed: ``wordfreq``
    reads the letter as a word of its own and combines it with the rest, so the compound came out as common as the
    word after the hyphen ("e-government" 5.1, as "government"); the closed form counts the compound itself
    ("egovernment" 1.5, "email" 4.7)."""
    return _LETTER_COMPOUND_RE.sub(r"\1\2", core)


#: A phrase around a function word is rarer than its words: ``wordfreq`` combines a phrase's words' frequencies
#: (1/f = sum of 1/f_i, about its rarest word's) whatever it holds ("end-of-life care" 5.21, "quality of life" 5.04,
#: as common as "effect"). The generic bar (:data:`GENERIC_ZIPF` of the concepts) was tuned with phrases judged by
#: that combination; each function word inside a phrase takes this much off (:func:`phrase_zipf`). Measured on the
#: shared pool's records (``scripts/measure_phrase_rarity.py``: phrases seen 20 times or more against the same
#: combination of their words' counts there): two content words side by side 1.02 Zipf rarer at the median, three
#: 0.99 (no more), "X of/to/in/for Y" 1.57: 0.55 more (0.50 to 0.59 leaving out each review's records).
PHRASE_WORD_PENALTY = 0.55
_PHRASE_SPLIT_RE = re.compile(r"[\s\-/]+")


def phrase_zipf(term: str) -> float:
    """A term's frequency in general English with a phrase's own rarity: :func:`general_zipf` less
    :data:`PHRASE_WORD_PENALTY` per function word (``FUNCTION_WORDS``) between its first and last words, a
    hyphenated compound's parts counted as words ("end-of-life care" 4.66, "quality of life" 4.49; "health
    problems", "well-being", "follow-up" as before)."""
    words = [w for w in _PHRASE_SPLIT_RE.split(term.strip().strip('"').replace("*", "").casefold()) if w]
    inside = sum(w in FUNCTION_WORDS for w in words[1:-1])
    return general_zipf(term) - PHRASE_WORD_PENALTY * inside


@lru_cache(maxsize=1)
def _english_words() -> tuple[list[str], list[float]]:
    """wordfreq's English words in sorted order, with the running sum of their frequencies (per word)."""
    from itertools import accumulate

    from wordfreq import get_frequency_dict

    freqs = get_frequency_dict("en", wordlist="best")
    words = sorted(freqs)
    return words, list(accumulate((freqs[w] for w in words), initial=0.0))


@lru_cache(maxsize=65536)
def opens_onto_zipf(term: str) -> float:
    """What a truncated stem opens onto in general English, on the Zipf scale: the summed frequency of every word
    that begins with the stem (``alternat*``: "alternative", "alternate", "alternatively", ... 4.95; its
    commonest completion alone 4.71), as a matcher of ``stem*`` finds them all. A term without a wildcard, or a
    phrase: :func:`general_zipf`."""
    core = term.strip().strip('"').casefold()
    if not core.endswith("*") or " " in core:
        return general_zipf(term)
    lo, hi = _completion_range(core[:-1])
    cumulative = _english_words()[1]
    total = cumulative[hi] - cumulative[lo]
    return max(general_zipf(term), math.log10(total * 1e9)) if total > 0 else general_zipf(term)


@lru_cache(maxsize=4096)
def inside_other_words_zipf(letters: str) -> float:
    """How often general English has ``letters`` inside a word other than itself or its plural, on the Zipf scale
    (the summed frequency of those words: "ibs" in "ribs", "gibson" 4.31; "rct" in "arctic", "infarction" 4.30;
    "cbt" 1.28), 0.0 for none: what a substring matcher finds for a short acronym besides the acronym."""
    low = letters.casefold()
    words, cumulative = _english_words()
    freqs = [cumulative[i + 1] - cumulative[i] for i, w in enumerate(words) if low in w and w not in (low, low + "s")]
    return math.log10(sum(freqs) * 1e9) if freqs else 0.0


def general_completions(prefix: str) -> list[str]:
    """The words of general English (``wordfreq``'s list) that begin with ``prefix``: what a wildcard after
    ``prefix`` opens onto."""
    lo, hi = _completion_range(prefix)
    return _english_words()[0][lo:hi]


def _completion_range(prefix: str) -> tuple[int, int]:
    words = _english_words()[0]
    return bisect.bisect_left(words, prefix), bisect.bisect_left(words, prefix + "\U0010ffff")


def _record_share(zipf: float) -> float:
    """The share of abstract-length records expected to hold a word of this Zipf frequency."""
    return 1 - math.exp(-RECORD_TOKENS * 10 ** (zipf - 9))


def general_share(term: str) -> float:
    """The share of abstract-length records expected to contain ``term``, from its general frequency."""
    return _record_share(general_zipf(term))


def reach_share(term: str) -> float:
    """The share of abstract-length records expected to contain ``term`` as a matcher reads it: a truncated stem
    by every word it opens onto (:func:`opens_onto_zipf`), a word or phrase by its general frequency."""
    return _record_share(opens_onto_zipf(term))


def query_share(node: Node) -> float:
    """The share of records a Boolean query is expected to match, from general English alone (terms taken as
    independent): how far a query reaches where no corpus can be asked (a fresh project: no lake, no candidates,
    no source counts). Rough in level, fair in comparison: a widened query against the query it widens."""
    if isinstance(node, Term):
        return reach_share(node.text)
    if isinstance(node, Not):
        return 1.0 - query_share(node.child)
    shares = [query_share(child) for child in node.children]
    if isinstance(node, And):
        return math.prod(shares)
    return 1.0 - math.prod(1.0 - x for x in shares)


def term_share(term: str, background: Background | None = None) -> float:
    """The share of records a term matches: in the background where there is one, else from general English."""
    return background(term) if background is not None else general_share(term)


def any_share(terms: list[str], background: Background | None = None) -> float:
    """The share of records that contain at least one of ``terms`` (an OR-group), its terms taken as
    independent: 1 - prod(1 - share). Spellings of one term count once ("self-harm", "self harm", "selfharm" find
    one set of records: counted three times, a block of one concept read as three times as broad)."""
    miss = 1.0
    seen: set[str] = set()
    stems = [t.casefold()[:-1] for t in terms if re.fullmatch(r"[\w-]{4,}\*", t)]
    for term in terms:
        key = _spelling_key(term)
        if key in seen or _found_by_stem(term, stems):
            continue
        seen.add(key)
        miss *= 1 - min(1.0, term_share(term, background))
    return 1 - miss


def _found_by_stem(term: str, stems: list[str]) -> bool:
    """A phrase another term's wildcard already finds ("suicidal ideation" beside ``suicid*``): it adds no records
    to the group's."""
    low = term.strip('"').casefold()
    return " " in low and any(re.search(r"\b" + re.escape(s), low) for s in stems)


def _spelling_key(term: str) -> str:
    """A term without its quotes, hyphens and spaces: the spellings of one phrase share it."""
    return re.sub(r"[\s\-\"]+", "", term.casefold())


#: With a background (the lake, or other records), a term in this share of its records or more is generic
#: (:func:`is_generic`). Judged leave-one-review-out (`agentr bench queries`, by the most reviews meeting both bars:
#: 0.01 since a generic word of a concept stays paired with the concept's other words, ``(predict* AND
#: (softwar* OR fault* OR metric*))``; it was 0.1 while a word dropped was lost).
GENERIC_SHARE = 0.01
#: A background smaller than this says little about a term: general English judges alone.
MIN_BACKGROUND_RECORDS = 1000
#: With a background, general English still calls a term generic from this far above the floor ("make",
#: "new", "use" are common anywhere, whatever a small background holds).
BACKGROUND_ZIPF_MARGIN = 0.5
#: ... and a word frequent in the background is generic only from this far below the floor: a word of
#: everyday English that papers of every topic use ("patient*" 4.9, "predict*" 4.1), not a topic that happens to
#: fill the background ("dementia*" 3.8, "rodent*" 3.3, when the lake holds dementia or animal studies). A
#: phrase ("heart failure") names a topic however often the background's own topics use it.
BACKGROUND_ZIPF_BELOW = 1.0


def is_generic(term: str, zipf_floor: float, background: Background | None = None,
               share_floor: float | None = None, whole_phrase: bool = False) -> bool:
    """A term too common to name a topic. Without a background (or ``share_floor``): its general-English Zipf
    frequency is ``zipf_floor`` or more. With one, the background decides: a term of everyday English (down to
    :data:`BACKGROUND_ZIPF_BELOW` under the floor) in ``share_floor`` of its records or more is generic
    ("patient*" in scientific abstracts); one that is rare there is not, even where general English uses it
    often ("social media"), unless it is common anywhere (``zipf_floor`` + :data:`BACKGROUND_ZIPF_MARGIN`). An
    acronym written in capitals is judged by its letters as a word ("ADHD" is rare, "ACE" is not). A
    ``whole_phrase`` (a concept's own phrase, not a part cut from a longer one: "mental health problems", not
    "health problems") is judged with its own rarity (:func:`phrase_zipf`): "end-of-life care" names a concept."""
    zipf = general_zipf(term)
    whole = phrase_zipf(term) if whole_phrase else zipf
    if background is not None and share_floor is not None:
        if whole >= zipf_floor + BACKGROUND_ZIPF_MARGIN:
            return True
        if " " in term.strip().strip('"'):
            return False
        return zipf >= zipf_floor - BACKGROUND_ZIPF_BELOW and background(term) >= share_floor
    return whole >= zipf_floor


# -- a background read from a search source's hit counts --------------------------------------------------------


class BackgroundUnavailable(Exception):
    """A background could not answer a term (the source failed, or too many terms were asked): the decision that
    asked must be taken again without any background (:func:`with_background`), never half with one."""


def background_key(term: str) -> str:
    """A search term as the Boolean matcher reads it, quoted or not: the key its share is kept under."""
    return " ".join(term.strip().strip('"').split()).casefold()


class HitCountBackground:
    """A term's share of a search source's records: the number of records the source says match the term over
    the number of records it holds (its document frequency in the database the query will run on).

    ``count`` asks the source for one term's hit count and raises :class:`BackgroundUnavailable` when it cannot
    answer; each term is asked once, and at most ``max_requests`` distinct terms: one more raises
    :class:`BackgroundUnavailable` too (a cost bound, never a partial answer)."""

    def __init__(self, count: Callable[[str], int], total: int, *, label: str, max_requests: int):
        if total <= 0:
            raise ValueError("a background needs a positive record count")
        self._count, self.total, self.label, self.max_requests = count, total, label, max_requests
        self._shares: dict[str, float] = {}

    @property
    def requests(self) -> int:
        return len(self._shares)

    def __call__(self, term: str) -> float:
        key = background_key(term)
        if key in self._shares:
            return self._shares[key]
        if not key:
            return 0.0
        if len(self._shares) >= self.max_requests:
            raise BackgroundUnavailable(f"{self.label}: more than {self.max_requests} terms asked")
        hits = self._count(key if " " not in key else f'"{key}"')
        if hits < 0:
            raise BackgroundUnavailable(f"{self.label}: a negative count for {term!r}")
        share = min(1.0, hits / self.total)
        self._shares[key] = share
        return share


def with_background(decide: Callable[[Background | None], T], background: Background | None,
                    on_fallback: Callable[[BackgroundUnavailable], None] | None = None) -> tuple[T, bool]:
    """``decide(background)``, or ``decide(None)`` when the background fails part-way (whatever it answered
    before is dropped with it). Returns the decision and whether the background was used."""
    if background is None:
        return decide(None), False
    try:
        return decide(background), True
    except BackgroundUnavailable as exc:
        if on_fallback is not None:
            on_fallback(exc)
        return decide(None), False
