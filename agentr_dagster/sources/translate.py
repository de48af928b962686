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
Wildcards (``term*``) are kept where the source supports them (PubMed, Europe PMC) and dropped elsewhere.
URL encoding is the HTTP client's job: these functions return the text of one parameter.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from agentr_dagster.domain.boolean_query import And, BooleanQueryError, Node, Not, Or, Term, parse_boolean_query

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
        words = [w for w in _WORD_RE.split(text) if w and w.upper() not in ("AND", "OR", "NOT")]
        if not words:
            return None
        parsed = Term(words[0]) if len(words) == 1 else And(tuple(Term(w) for w in words))
    return _without_stopwords(parsed)


def _without_stopwords(node: Node) -> Node:
    if not isinstance(node, And):
        return node
    kept = tuple(c for c in node.children if not (isinstance(c, Term) and c.text.casefold() in STOPWORDS))
    if not kept:
        return node
    return kept[0] if len(kept) == 1 else And(kept)


def _clean(text: str, *, wildcard: bool) -> tuple[str, bool]:
    """Term text without characters that would break the dialect's syntax; and whether it is a phrase."""
    text = re.sub(r'["\[\]():{}\\^~]', " ", text)
    text = " ".join(text.split())
    if not wildcard:
        text = text.replace("*", "").strip()
    # a hyphen or slash inside a word reads as an operator in some engines (``-x`` is NOT in Lucene): quote it
    return text, " " in text or bool(re.search(r"[-/+&!|]", text))


def _split_and(node: And) -> tuple[list[Node], list[Node]]:
    positives = [c for c in node.children if not isinstance(c, Not)]
    negatives = [c.child for c in node.children if isinstance(c, Not)]
    return positives, negatives


@dataclass
class _Dialect:
    """How one source writes a term, a conjunction, a disjunction and an exclusion.

    ``render`` returns None for a part that cannot be said in the dialect, meaning "no constraint": an AND drops
    it and an OR containing it is itself unconstrained, so a translation only ever widens the query."""

    term: Callable[[str, bool], str]  # (text, is_phrase) -> the term in this dialect
    wildcard: bool
    not_word: str  # "NOT" or "ANDNOT"

    def render(self, node: Node, top: bool = True) -> str | None:
        if isinstance(node, Term):
            text, phrase = _clean(node.text, wildcard=self.wildcard)
            return self.term(text, phrase) if text else None
        if isinstance(node, Not):
            return None  # an exclusion with nothing to subtract from
        if isinstance(node, Or):
            parts = [self.render(c, top=False) for c in node.children]
            if any(p is None for p in parts):
                return None
            return self._group(" OR ".join(parts), len(parts), top)
        positives, negatives = _split_and(node)
        pos = [p for p in (self.render(c, top=False) for c in positives) if p]
        neg = [n for n in (self.render(c, top=False) for c in negatives) if n]
        if not pos:
            return None
        text = " AND ".join(pos)
        if neg:
            text = (f"({text})" if len(pos) > 1 else text) + "".join(f" {self.not_word} {n}" for n in neg)
            return self._group(text, 2, top)
        return self._group(text, len(pos), top)

    @staticmethod
    def _group(text: str, parts: int, top: bool) -> str:
        return text if top or parts < 2 else f"({text})"


def _quoted(text: str, phrase: bool) -> str:
    return f'"{text}"' if phrase else text


_PUBMED = _Dialect(lambda text, phrase: f"{_quoted(text, phrase)}[tiab]", wildcard=True, not_word="NOT")
_EUROPEPMC = _Dialect(
    lambda text, phrase: f"(TITLE:{_quoted(text, phrase)} OR ABSTRACT:{_quoted(text, phrase)})",
    wildcard=True, not_word="NOT",
)
_ARXIV = _Dialect(
    lambda text, phrase: f"(ti:{_quoted(text, phrase)} OR abs:{_quoted(text, phrase)})",
    wildcard=False, not_word="ANDNOT",
)
_OPENALEX = _Dialect(_quoted, wildcard=False, not_word="NOT")


def to_pubmed(node: Node) -> str:
    return _PUBMED.render(node) or ""


def to_europepmc(node: Node) -> str:
    return _EUROPEPMC.render(node) or ""


def to_arxiv(node: Node) -> str:
    return _ARXIV.render(node) or ""


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
    if not boolean and text and text.strip():
        return OpenAlexQuery(search=" ".join(text.split()))
    text = _OPENALEX.render(node) or ""
    if not text:
        return OpenAlexQuery()
    if boolean:
        # a comma separates filters and a pipe means OR inside one: neither may appear in the value
        value = " ".join(text.replace(",", " ").replace("|", " ").split())
        return OpenAlexQuery(filters=(f"title_and_abstract.search:{value}",))
    return OpenAlexQuery(search=text)
