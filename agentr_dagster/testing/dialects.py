"""Strict parsers for the four search dialects, as the real APIs document them, and the word-level matching
their engines do (used by the replay server, and by the property test that translations only widen).

Each parser rejects what its API would reject (:class:`DialectError`, answered as that API's error):

- PubMed: terms with an optional field tag (``word[tiab]``, ``"a phrase"[tiab]``); ``AND``/``OR``/``NOT``;
  truncation ``*`` only at the end of a word with at least four letters before it (inside phrases too).
- Europe PMC (Lucene): ``FIELD:word`` / ``FIELD:"phrase"`` and date ranges ``FIELD:[a TO b]``; ``AND``/``OR``/``NOT``;
  ``*`` only at the end of a single word (three letters or more), never inside a phrase.
- arXiv: ``prefix:word`` / ``prefix:"phrase"`` with its documented prefixes and ``submittedDate:[a TO b]``;
  ``AND``/``OR``/``ANDNOT`` only (a lone ``NOT`` is an error), no wildcards.
- OpenAlex (``search`` / ``title_and_abstract.search``): words, phrases, ``AND``/``OR``/``NOT``, brackets; no field
  prefixes; ``*``, ``?`` and ``~`` are removed (as OpenAlex does), leaving whole words only.

Matching is by whole words (a phrase is consecutive words within one field; ``stem*`` a word starting with the stem),
against the title and the abstract separately.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from functools import lru_cache
from typing import Any

from agentr_dagster.domain.boolean_query import And, Node, Not, Term

_TOKEN = re.compile(r'\s*(?:(\()|(\))|([A-Za-z_]+):\[([^\]]*)\]|(?:([A-Za-z_.]+):)?(?:"([^"]*)"|([^\s()"\[]+))'
                    r'(\[[^\]]*\])?)')
_WORD = re.compile(r"[\w*?~]+", re.UNICODE)
OPERATORS = {"pubmed": ("AND", "OR", "NOT"), "europepmc": ("AND", "OR", "NOT"), "arxiv": ("AND", "OR", "ANDNOT"),
             "openalex": ("AND", "OR", "NOT")}
FIELDS = {
    "europepmc": {"TITLE": ("title",), "ABSTRACT": ("abstract",), "TITLE_ABS": ("title", "abstract")},
    "arxiv": {"ti": ("title",), "abs": ("abstract",), "all": ("title", "abstract")},
}
RANGE_FIELDS = {"europepmc": ("FIRST_PDATE", "CREATION_DATE", "FIRST_IDATE"),
                "arxiv": ("submittedDate", "lastUpdatedDate")}
PUBMED_TAGS = {"[tiab]": ("title", "abstract"), "[title/abstract]": ("title", "abstract"), "[ti]": ("title",),
               "[title]": ("title",), "[ab]": ("abstract",), "[abstract]": ("abstract",)}
MIN_STEM = {"pubmed": 4, "europepmc": 3}


class DialectError(ValueError):
    """The query is not valid in the dialect (the message says why, as the API would)."""


@dataclass(frozen=True)
class Match:
    """A term: its words, the fields searched, whether the last word is truncated."""

    words: tuple[str, ...]
    fields: tuple[str, ...]


@dataclass(frozen=True)
class Range:
    field: str
    low: str
    high: str


@lru_cache(maxsize=8192)  # a corpus's titles and abstracts are matched over and over
def words_of(text: str) -> tuple[str, ...]:
    return tuple(w.casefold() for w in _WORD.findall(text))


@lru_cache(maxsize=8192)
def _word_set(text: str) -> frozenset[str]:
    return frozenset(words_of(text))


def _phrase_in(words: tuple[str, ...], text: str) -> bool:
    if len(words) == 1 and not words[0].endswith("*"):
        return words[0].rstrip("*") in _word_set(text)
    hay = words_of(text)
    n = len(words)
    return any(all(_word_ok(w, h) for w, h in zip(words, hay[i:i + n], strict=True)) for i in range(len(hay) - n + 1))


def _word_ok(pattern: str, word: str) -> bool:
    if pattern.endswith("*"):
        return word.startswith(pattern[:-1])
    return pattern == word.rstrip("*")


def reference_match(node: Node, title: str, abstract: str) -> bool:
    """What the project's Boolean query means, by whole words (``stem*`` truncates), per field."""
    if isinstance(node, Term):
        words = tuple(words_of(node.text))
        return bool(words) and (_phrase_in(words, title) or _phrase_in(words, abstract))
    if isinstance(node, Not):
        return not reference_match(node.child, title, abstract)
    if isinstance(node, And):
        return all(reference_match(c, title, abstract) for c in node.children)
    return any(reference_match(c, title, abstract) for c in node.children)


def evaluate(tree: Any, title: str, abstract: str, dates: dict[str, date] | None = None) -> bool:
    """A parsed dialect query (:func:`parse`) against one record; ``dates`` maps range fields to the record's date."""
    kind = tree[0]
    if kind == "all":
        return True
    if kind == "match":
        m: Match = tree[1]
        texts = {"title": title, "abstract": abstract}
        return bool(m.words) and any(_phrase_in(m.words, texts[f]) for f in m.fields)
    if kind == "range":
        r: Range = tree[1]
        when = (dates or {}).get(r.field)
        return when is not None and _day(r.low, date.min) <= when <= _day(r.high, date.max)
    if kind == "and":
        return all(evaluate(c, title, abstract, dates) for c in tree[1])
    if kind == "or":
        return any(evaluate(c, title, abstract, dates) for c in tree[1])
    return evaluate(tree[1], title, abstract, dates) and not evaluate(tree[2], title, abstract, dates)  # "not"


def _day(text: str, default: date) -> date:
    digits = re.sub(r"\D", "", text)
    if text.strip() == "*" or len(digits) < 8:
        return default
    return date(int(digits[:4]), int(digits[4:6]), int(digits[6:8]))


def parse(dialect: str, query: str) -> Any:
    """The query as a tree of ``("and"|"or", [...])``, ``("not", a, b)``, ``("match", Match)``, ``("range", Range)``,
    ``("all",)`` (PubMed's ``all[sb]``);
    :class:`DialectError` where the API would refuse it."""
    tokens = _tokens(dialect, query)
    if not tokens:
        raise DialectError("empty query")
    parser = _Parser(dialect, tokens)
    tree = parser.expression()
    if parser.i != len(tokens):
        raise DialectError(f"unexpected {tokens[parser.i][1]!r} at token {parser.i + 1}")
    return tree


def _tokens(dialect: str, query: str) -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = []
    pos, query = 0, query.strip()
    ops = OPERATORS[dialect]
    while pos < len(query):
        m = _TOKEN.match(query, pos)
        if not m or m.end() == pos:
            raise DialectError(f"syntax error at character {pos + 1}: {query[pos:pos + 30]!r}")
        pos = m.end()
        lpar, rpar, rfield, rvalue, field, phrase, word, tag = m.groups()
        if lpar:
            out.append(("(", "("))
        elif rpar:
            out.append((")", ")"))
        elif rfield:
            out.append(("TERM", ("range", _range(dialect, rfield, rvalue))))
        elif field is None and phrase is None and word in ("AND", "OR", "NOT", "ANDNOT"):
            if word not in ops:
                raise DialectError(f"{word} is not an operator of this API (use {', '.join(ops)})")
            out.append((word, word))
        elif dialect == "pubmed" and tag and tag.casefold() == "[sb]":
            # a subset; the replay knows "all[sb]" (every citation: PubMed's documented way to count them all)
            if (phrase if phrase is not None else word or "").casefold() != "all":
                raise DialectError(f"unknown subset {phrase or word}{tag}")
            out.append(("TERM", ("all",)))
        else:
            out.append(("TERM", ("match", _match(dialect, field, phrase, word, tag))))
    return out


def _range(dialect: str, field: str, value: str) -> Range:
    if field not in RANGE_FIELDS.get(dialect, ()):
        raise DialectError(f"{field} is not a date field of this API")
    parts = value.split()
    if len(parts) != 3 or parts[1] != "TO":
        raise DialectError(f"a range is [from TO to], not [{value}]")
    for part in (parts[0], parts[2]):
        digits = re.sub(r"\D", "", part)
        if part != "*" and (len(digits) < 8 or (dialect == "arxiv" and len(digits) != 12)):
            raise DialectError(f"bad date {part!r} in {field}")
    return Range(field, parts[0], parts[2])


def _match(dialect: str, field: str | None, phrase: str | None, word: str | None, tag: str | None) -> Match:
    text = phrase if phrase is not None else word or ""
    fields: tuple[str, ...] = ("title", "abstract")
    if dialect == "pubmed":
        if field:
            raise DialectError(f"unexpected {field}: in a PubMed term")
        if tag:
            fields = PUBMED_TAGS.get(tag.casefold()) or _bad(f"unknown field tag {tag}")
    elif tag:
        raise DialectError(f"unexpected {tag}")
    elif dialect in FIELDS:
        if field is not None:
            fields = FIELDS[dialect].get(field) or _bad(f"{field} is not a searchable field")
    elif field is not None:
        raise DialectError(f"{field}: field prefixes are not part of a search value")
    if dialect == "openalex":
        text = re.sub(r"[*?~]", "", text)
    words = tuple(words_of(text))
    if not words:
        raise DialectError(f"empty term {text!r}")
    for i, w in enumerate(words):
        if "?" in w or "~" in w:
            raise DialectError(f"{w!r}: fuzzy and single-character wildcards are not supported here")
        if "*" not in w:
            continue
        if dialect == "arxiv":
            raise DialectError(f"{w!r}: the arXiv API has no truncation")
        if not w.endswith("*") or "*" in w[:-1]:
            raise DialectError(f"{w!r}: '*' only at the end of a word")
        if dialect == "europepmc" and len(words) > 1:
            raise DialectError(f"{text!r}: a wildcard inside a phrase is not expanded")
        if len(w) - 1 < MIN_STEM[dialect]:
            raise DialectError(f"{w!r}: at least {MIN_STEM[dialect]} letters before '*'")
        if i != len(words) - 1 and dialect != "pubmed":
            raise DialectError(f"{w!r}: '*' only at the end of a term")
    return Match(words, fields)


def _bad(message: str):
    raise DialectError(message)


class _Parser:
    def __init__(self, dialect: str, tokens: list[tuple[str, Any]]):
        self.dialect, self.tokens, self.i = dialect, tokens, 0

    def peek(self) -> str | None:
        return self.tokens[self.i][0] if self.i < len(self.tokens) else None

    def expression(self) -> Any:
        parts = [self.conjunction()]
        while self.peek() == "OR":
            self.i += 1
            parts.append(self.conjunction())
        return parts[0] if len(parts) == 1 else ("or", parts)

    def conjunction(self) -> Any:
        node = self.atom()
        while self.peek() in ("AND", "NOT", "ANDNOT", "TERM", "("):
            kind = self.peek()
            if kind in ("TERM", "(") and self.dialect == "arxiv":
                raise DialectError("terms must be joined with AND, OR or ANDNOT")
            if kind in ("AND", "NOT", "ANDNOT"):
                self.i += 1
            right = self.atom()
            node = ("not", node, right) if kind in ("NOT", "ANDNOT") else ("and", [node, right])
        return node

    def atom(self) -> Any:
        kind = self.peek()
        if kind == "(":
            self.i += 1
            node = self.expression()
            if self.peek() != ")":
                raise DialectError("missing ')'")
            self.i += 1
            return node
        if kind == "TERM":
            self.i += 1
            return self.tokens[self.i - 1][1]
        if kind is None:
            raise DialectError("the query ends where a term was expected")
        raise DialectError(f"unexpected {self.tokens[self.i][1]!r} where a term was expected")
