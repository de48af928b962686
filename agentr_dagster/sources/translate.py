"""The project's queries in each source's dialect (pure; no I/O).

Input is the parsed Boolean query (``Term``/``Not``/``And``/``Or`` from :mod:`agentr_dagster.domain.boolean_query`)
or a plain search string (parsed the same way: adjacent words are an implicit AND, quotes make a phrase).

- PubMed: ``"deep learning"[tiab] AND (mri[tiab] OR ct[tiab]) NOT animal*[tiab]``
- Europe PMC: ``(TITLE:"deep learning" OR ABSTRACT:"deep learning") AND ... NOT (TITLE:x OR ABSTRACT:x)``
- arXiv: ``(ti:"deep learning" OR abs:"deep learning") AND ... ANDNOT (ti:x OR abs:x)``
- OpenAlex: ``search=`` text for plain strings; the Boolean query as a ``title_and_abstract.search`` filter.

NOT is binary in every dialect (``A NOT B``; arXiv's ``ANDNOT``): a NOT inside an AND becomes the AND's
exclusions. A NOT with nothing to subtract from (alone, or under an OR) has no reliable form in these engines (a
purely negative clause matches nothing in Lucene-style engines), so the part holding it is left unconstrained:
a translation only ever widens the query, and the screening that follows narrows it again.
Wildcards (``term*``): PubMed truncates a word of four letters or more, inside phrases too; Europe PMC (Lucene)
truncates single words, so a phrase holding a wildcard is split into its words; arXiv and OpenAlex have no
truncation ("whole words only"), so a stem (and a stem too short for PubMed or Europe PMC) is sent as the OR of every
English word it matches (:func:`vocabulary_expansion`: ``effect*`` → effect OR effective OR effectiveness OR ...);
a stem matching too many words to send leaves the query unconstrained where it stands (its AND drops it), and a
query made only of such stems is sent with each stem's most frequent words (:func:`stem_word_list`). Inside an
exclusion every rule is reversed (a part that cannot be said exactly subtracts nothing), so a translation never
narrows.
A request too long for a source's URL limit is sent as OR-shards (:func:`or_shards`).
URL encoding is the HTTP client's job: these functions return the text of one parameter.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import product

from agentr_dagster.domain.boolean_query import (
    And,
    BooleanQueryError,
    Node,
    Not,
    Or,
    Term,
    parse_boolean_query,
    query_terms,
)

_WORD_RE = re.compile(r"[^\w*\-']+", re.UNICODE)


# Function words of a plain search string: as required terms they only narrow a title/abstract search.
STOPWORDS = frozenset("a an the of for in on at to by with from via using and or as its their into".split())


def query_tree(text: str, tree: Node | None = None) -> Node | None:
    """The parsed query: ``tree`` when given, else the plain string ``text`` parsed, its stand-alone function
    words dropped ("learning for screening" → learning AND screening); a string that does not parse becomes the
    AND of its words (quotes and brackets dropped). None for a text with no word at all."""
    if tree is not None:
        return tree
    try:
        parsed = parse_boolean_query(text)
    except BooleanQueryError:
        words = [w for w in _WORD_RE.split(text) if _has_word(w) and w.upper() not in ("AND", "OR", "NOT")]
        if not words:
            return None
        parsed = Term(words[0]) if len(words) == 1 else And(tuple(Term(w) for w in words))
    return _without_stopwords(parsed)


def _has_word(text: str) -> bool:
    return any(ch.isalnum() for ch in text)


def _without_stopwords(node: Node) -> Node | None:
    """A plain string's AND without its function words and its punctuation-only terms ("a -" is no search)."""
    if isinstance(node, Term):
        return node if _has_word(node.text) else None
    if not isinstance(node, And):
        return node
    kept = tuple(c for c in node.children if not (isinstance(c, Term) and not _has_word(c.text)))
    words = tuple(c for c in kept if not (isinstance(c, Term) and c.text.casefold() in STOPWORDS))
    kept = words or kept
    if not kept:
        return None
    return kept[0] if len(kept) == 1 else And(kept)


_SPECIAL = re.compile(r"[-/+&!|]")  # a hyphen or slash inside a word reads as an operator in some engines


def _clean(text: str) -> str:
    """Term text without characters that would break the dialect's syntax (``*`` kept for the truncation rules)."""
    return " ".join(re.sub(r'["\[\]():{}\\^~?]', " ", text).split())


def _phrase(text: str) -> bool:
    """Quoted: several words, an operator-like character, or a word that is an operator ("AND" as a term)."""
    return " " in text or bool(_SPECIAL.search(text)) or text in ("AND", "OR", "NOT", "ANDNOT")


def _split_and(node: And) -> tuple[list[Node], list[Node]]:
    positives: list[Node] = [c for c in node.children if not isinstance(c, Not)]
    negatives = [c.child for c in node.children if isinstance(c, Not)]
    return positives, negatives


# Never a wildcard in a phrase with fewer letters before the ``*`` than the engine expands.
TRUNCATION_MIN_STEM = {"pubmed": 4, "lucene": 3}


@dataclass
class _Dialect:
    """How one source writes a term, a conjunction, a disjunction and an exclusion, and how it truncates.

    ``truncation``: ``"pubmed"`` (a trailing ``*`` on a word of four letters or more, inside phrases too),
    ``"lucene"`` (a trailing ``*`` on a single word: a phrase holding one is split into its words) or None (no
    truncation: the stem is sent as its vocabulary's words, or widened away).

    Rendering is done in two modes so that a translation only ever widens: ``widen`` (the query's own positive
    parts: what cannot be said becomes "no constraint", returned as None: an AND drops it, an OR holding it is
    itself unconstrained) and narrow (the inside of an exclusion: what cannot be said becomes "matches nothing",
    returned as ``NOTHING``: an OR drops it, an AND holding it is nothing, and an exclusion of nothing is dropped)."""

    term: Callable[[str, bool], str]  # (text, is_phrase) -> the term in this dialect
    truncation: str | None
    not_word: str  # "NOT" or "ANDNOT"

    def render(self, node: Node, top: bool = True, widen: bool = True) -> str | None:
        if isinstance(node, Term):
            return self._term(node.text, top, widen)
        if isinstance(node, Not):
            return None if widen else NOTHING  # an exclusion with nothing to subtract from
        if isinstance(node, Or):
            parts = [self.render(c, top=False, widen=widen) for c in node.children]
            if widen and any(p is None for p in parts):
                return None
            # narrow rendering never gives None: only NOTHING is left to drop
            said = [p for p in parts if p is not None and p is not NOTHING]
            if not said:
                return NOTHING
            return self._group(" OR ".join(said), len(said), top)
        positives, negatives = _split_and(node)
        pos = [self.render(c, top=False, widen=widen) for c in positives]
        if not widen and any(p is NOTHING for p in pos):
            return NOTHING
        kept = [p for p in pos if p]
        # an exclusion subtracts, so it is rendered the other way round: narrowed when the query widens
        neg = [self.render(c, top=False, widen=not widen) for c in negatives]
        if not widen and any(n is None for n in neg):
            return NOTHING  # A NOT <everything>
        excluded = [n for n in neg if n and n is not NOTHING]
        if not kept:
            return None if widen else NOTHING
        text = " AND ".join(kept)
        if excluded:
            text = (f"({text})" if len(kept) > 1 else text) + "".join(f" {self.not_word} {n}" for n in excluded)
            return self._group(text, 2, top)
        return self._group(text, len(kept), top)

    def _term(self, raw: str, top: bool, widen: bool) -> str | None:
        text = _clean(raw)
        if not re.search(r"\w", text):  # punctuation alone ("/", "&") is no term in any engine
            return None if widen else NOTHING
        if "*" not in text:
            return self.term(text, _phrase(text))
        # a hyphen joins words ("fault-prone*" is the phrase fault prone*): no engine truncates across one, so the
        # words are sent as a phrase the truncation rules below can say (it was left unconstrained, or empty)
        text = " ".join(text.replace("-", " ").split())
        words = text.split()
        if self.truncation == "pubmed" and all(_truncatable(w, TRUNCATION_MIN_STEM["pubmed"]) for w in words):
            return self.term(text, _phrase(text))
        if len(words) == 1 and self.truncation == "lucene" and _truncatable(text, TRUNCATION_MIN_STEM["lucene"]):
            return self.term(text, bool(_SPECIAL.search(text[:-1])))
        if widen and self.truncation == "lucene" and all(
                _truncatable(w, TRUNCATION_MIN_STEM["lucene"]) for w in words):
            return self.render(And(tuple(Term(w) for w in words)), top=top, widen=True)  # each stem truncated
        expansion = vocabulary_expansion(text, phrase_words=not widen)
        if expansion is not None:  # the stem's words the engine cannot expand itself, as an OR of whole words
            return self.render(expansion, top=top, widen=widen)
        if not widen:
            return NOTHING  # splitting a phrase or dropping a stem widens: never inside an exclusion
        # a phrase the engine cannot truncate is split into its words (wider than the phrase); a stem the
        # engine cannot expand is left unconstrained (wider still), never sent bare
        if len(words) == 1:
            return None
        return self.render(And(tuple(Term(w) for w in words)), top=top, widen=True)

    @staticmethod
    def _group(text: str, parts: int, top: bool) -> str:
        return text if top or parts < 2 else f"({text})"


class _Nothing(str):
    """The rendering of a part that matches nothing (only inside exclusions)."""


NOTHING = _Nothing("")


def _truncatable(word: str, min_stem: int) -> bool:
    """A word the engine truncates: ``*`` only at its end, after ``min_stem`` letters or more (a plain word too)."""
    if "*" not in word:
        return True
    return re.fullmatch(r"\w+\*", word) is not None and len(word) - 1 >= min_stem


_SUFFIXES = ("", "s", "es", "y", "ies", "ic", "ical", "ist", "ists", "ing", "ed", "ion", "ions", "al", "eutic")

# A stem expanded into more words than this is left to the widening rules (dropped from its AND): the OR of its
# words would make one request too long and says little more than no constraint.
MAX_STEM_WORDS = 80


@lru_cache(maxsize=1)
def _vocabulary() -> tuple[list[str], dict[str, int]]:
    """English words (wordfreq's large list: every word seen about once in 10^8 words of text and more), sorted
    for prefix look-up, with each word's frequency rank."""
    from wordfreq import iter_wordlist

    ranked = [w for w in iter_wordlist("en", "large") if _WHOLE_WORD.fullmatch(w)]
    return sorted(ranked), {w: i for i, w in enumerate(ranked)}


_WHOLE_WORD = re.compile(r"\w+", re.UNICODE)


@lru_cache(maxsize=4096)
def stem_vocabulary(stem: str) -> tuple[str, ...]:
    """Every word of the vocabulary that ``stem*`` matches, most frequent first (the stem with common English
    endings where the vocabulary has none)."""
    stem = stem.rstrip("*").casefold()
    words, rank = _vocabulary()
    found = set()
    i = bisect_left(words, stem)
    while i < len(words) and words[i].startswith(stem):
        found.add(words[i])
        i += 1
    if not found:
        found = {stem + suffix for suffix in _SUFFIXES}
    return tuple(sorted(found, key=lambda w: (rank.get(w, len(rank)), w)))


def stem_word_list(stem: str) -> list[str]:
    """The most frequent words ``stem*`` matches (``psychotherap`` → psychotherapy, psychotherapist, ...), at most
    :data:`MAX_STEM_WORDS`: what a query made only of truncated stems is sent as where the engine cannot expand a stem
    of that many words (it would otherwise say nothing)."""
    return list(stem_vocabulary(stem)[:MAX_STEM_WORDS])


def vocabulary_expansion(text: str, *, phrase_words: bool = False) -> Node | None:
    """``text`` (a word or phrase holding ``stem*`` words) as an OR of the whole words each stem matches in the
    vocabulary; None when a stem matches more than :data:`MAX_STEM_WORDS` words. Every word the vocabulary has is
    kept, so an engine without truncation matches what the stem matches wherever the text is made of known words.

    A phrase becomes the OR of its phrases (``"breast feed*"`` → ``"breast feed" OR "breast feeding" OR ...``) when
    that stays small, else, unless ``phrase_words`` (the exact phrases are required: inside an exclusion), the AND of
    its words, each stem an OR of its words (wider than the phrase)."""
    words = text.split()
    options = []
    for word in words:
        if word.endswith("*") and _WHOLE_WORD.fullmatch(word[:-1]):
            found = stem_vocabulary(word)
            if len(found) > MAX_STEM_WORDS:
                return None
            options.append(found)
        elif "*" in word:
            return None  # a wildcard inside a word: no engine here says it
        else:
            options.append((word,))
    count = 1
    for found in options:
        count *= len(found)
    if count <= MAX_STEM_WORDS:
        phrases = [" ".join(parts) for parts in product(*options)]
        return Term(phrases[0]) if len(phrases) == 1 else Or(tuple(Term(p) for p in phrases))
    if phrase_words:
        return None
    parts: list[Node] = [Term(o[0]) if len(o) == 1 else Or(tuple(Term(w) for w in o)) for o in options]
    return parts[0] if len(parts) == 1 else And(tuple(parts))


def _expanded(node: Node) -> Node:
    """``node`` with every truncated word replaced by the OR of its word list (phrases split into words first)."""
    if isinstance(node, Term):
        words = _clean(node.text).split()
        if "*" not in node.text:
            return node
        parts: list[Node] = [Or(tuple(Term(w) for w in stem_word_list(word))) if word.endswith("*") else Term(word)
                             for word in (w for w in words if w.strip("*"))]
        return parts[0] if len(parts) == 1 else And(tuple(parts))
    if isinstance(node, Not):
        return node
    return type(node)(tuple(_expanded(c) for c in node.children))


def _quoted(text: str, phrase: bool) -> str:
    return f'"{text}"' if phrase else text


_PUBMED = _Dialect(lambda text, phrase: f"{_quoted(text, phrase)}[tiab]", truncation="pubmed", not_word="NOT")
_EUROPEPMC = _Dialect(
    lambda text, phrase: f"(TITLE:{_quoted(text, phrase)} OR ABSTRACT:{_quoted(text, phrase)})",
    truncation="lucene", not_word="NOT",
)
_ARXIV = _Dialect(
    lambda text, phrase: f"(ti:{_quoted(text, phrase)} OR abs:{_quoted(text, phrase)})",
    truncation=None, not_word="ANDNOT",
)
_OPENALEX = _Dialect(_quoted, truncation=None, not_word="NOT")


def _render(dialect: _Dialect, node: Node) -> str:
    """The whole query; a query left saying nothing because of its stems is sent with their word lists."""
    text = dialect.render(node)
    if not text and dialect.truncation is None and "*" in repr(node):
        text = dialect.render(_expanded(node))
    return text or ""


def sent_as_word_lists(dialect: str, node: Node) -> bool:
    """True when ``node`` says nothing in ``dialect`` but for its stems' word lists: the one translation that is not
    proved a superset of the query (a word list cannot hold every ending; without it the source would say nothing)."""
    rules = {"pubmed": _PUBMED, "europepmc": _EUROPEPMC, "arxiv": _ARXIV, "openalex": _OPENALEX}[dialect]
    return not rules.render(node) and bool(_render(rules, node))


def to_pubmed(node: Node) -> str:
    return _render(_PUBMED, node)


def to_europepmc(node: Node) -> str:
    return _render(_EUROPEPMC, node)


def to_arxiv(node: Node) -> str:
    return _render(_ARXIV, node)


@dataclass(frozen=True)
class OpenAlexQuery:
    """``search`` text and ``filter`` clauses (joined with commas in the request)."""

    search: str | None = None
    filters: tuple[str, ...] = field(default_factory=tuple)

    def params(self) -> dict[str, str]:
        params: dict[str, str] = {}
        if self.search:
            params["search"] = self.search
        if self.filters:
            params["filter"] = ",".join(self.filters)
        return params

    def describe(self) -> str:
        return " & ".join(f"{k}={v}" for k, v in self.params().items())


def to_openalex(node: Node, *, boolean: bool, text: str | None = None) -> OpenAlexQuery:
    """A Boolean query restricts title and abstract (``title_and_abstract.search:``, like PubMed's [tiab]);
    a plain search string goes to ``search=`` as written (``text``; OpenAlex ranks by relevance over title,
    abstract and full text, and reads quotes and AND/OR/NOT itself)."""
    if not boolean and text and text.strip() and _readable_as_written(text):
        return OpenAlexQuery(search=" ".join(text.split()))
    text = _render(_OPENALEX, node)
    if not text:
        return OpenAlexQuery()
    if boolean:
        # a comma separates filters and a pipe means OR inside one: neither may appear in the value
        value = " ".join(text.replace(",", " ").replace("|", " ").split())
        return OpenAlexQuery(filters=(f"title_and_abstract.search:{value}",))
    return OpenAlexQuery(search=text)


_PLAIN = re.compile(r"[\w\s\"()'.\-]+")


def _readable_as_written(text: str) -> bool:
    """A plain string OpenAlex reads as the project wrote it: words, phrases, brackets and AND/OR/NOT that parse,
    nothing OpenAlex would strip or take for a field (``*``, ``?``, ``:``); anything else is sent as translated."""
    if not _PLAIN.fullmatch(text):
        return False
    tokens = [t.strip('"()') for t in text.split()]
    if any(t in ("AND", "OR", "NOT") or not re.search(r"\w", t) for t in tokens):
        return False  # operators (the rendering writes them as OpenAlex reads them), or punctuation alone (`"("`)
    if re.search(r'"[^"\w]*"', text):
        return False  # a quoted phrase without a word (`a"("`): OpenAlex reads an empty term
    try:
        parsed = parse_boolean_query(text)
    except BooleanQueryError:
        return False
    return all(_has_word(term) for term in query_terms(parsed))  # `"a"-` parses with a term `-`


# ------------------------------------------------------------------------------------------- OR-shards
def or_shards(node: Node, fits: Callable[[Node], bool]) -> list[Node]:
    """Queries whose union is ``node`` and each of which ``fits`` (a source's URL limit): the longest OR in a
    positive position (not under a NOT) is split in halves, again until every part fits, since
    ``X AND (a OR b OR c OR d)`` = ``(X AND (a OR b))`` ∪ ``(X AND (c OR d))``. A part with no OR left to split is
    returned as it is (the source will say whether it takes it)."""
    if fits(node):
        return [node]
    target = _longest_or(node)
    if target is None:
        return [node]
    half = len(target.children) // 2
    out: list[Node] = []
    for part in (target.children[:half], target.children[half:]):
        replacement = part[0] if len(part) == 1 else Or(part)
        out += or_shards(_replace(node, target, replacement), fits)
    return out


def _longest_or(node: Node) -> Or | None:
    best: Or | None = None
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, Or) and len(current.children) > 1 and (
                best is None or len(repr(current)) > len(repr(best))):
            best = current
        if isinstance(current, And | Or):
            stack += [c for c in current.children if not isinstance(c, Not)]
    return best


def _replace(node: Node, target: Node, new: Node) -> Node:
    if node is target:
        return new
    if isinstance(node, And | Or):
        return type(node)(tuple(_replace(c, target, new) for c in node.children))
    return node
