"""A small parser for Boolean search queries: terms, "quoted phrases", AND / OR / NOT, parentheses.

Used to validate generated queries (they must parse) and to evaluate them against paper text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_TOKEN_RE = re.compile(r'\s*(?:(\()|(\))|"([^"]*)"|([^\s()"]+))')


class BooleanQueryError(ValueError):
    """The query does not parse; the message says where."""


@dataclass(frozen=True)
class Term:
    text: str


@dataclass(frozen=True)
class Not:
    child: Node


@dataclass(frozen=True)
class And:
    children: tuple[Node, ...]


@dataclass(frozen=True)
class Or:
    children: tuple[Node, ...]


Node = Term | Not | And | Or


def _tokenize(query: str) -> list[tuple[str, str]]:
    tokens: list[tuple[str, str]] = []
    pos = 0
    query = query.rstrip()
    while pos < len(query):
        match = _TOKEN_RE.match(query, pos)
        if not match:
            raise BooleanQueryError(f"unbalanced quote at character {pos + 1}")
        open_paren, close_paren, phrase, word = match.groups()
        if open_paren:
            tokens.append(("(", "("))
        elif close_paren:
            tokens.append((")", ")"))
        elif phrase is not None:
            if not phrase.strip():
                raise BooleanQueryError(f"empty phrase at character {pos + 1}")
            tokens.append(("TERM", phrase.strip()))
        elif word.upper() in ("AND", "OR", "NOT"):
            tokens.append((word.upper(), word))
        else:
            tokens.append(("TERM", word))
        pos = match.end()
    return tokens


class _Parser:
    def __init__(self, tokens: list[tuple[str, str]]):
        self.tokens = tokens
        self.i = 0

    def peek(self) -> str | None:
        return self.tokens[self.i][0] if self.i < len(self.tokens) else None

    def take(self) -> tuple[str, str]:
        token = self.tokens[self.i]
        self.i += 1
        return token

    def parse_or(self) -> Node:
        children = [self.parse_and()]
        while self.peek() == "OR":
            self.take()
            children.append(self.parse_and())
        return children[0] if len(children) == 1 else Or(tuple(children))

    def parse_and(self) -> Node:
        children = [self.parse_unary()]
        # Adjacent terms without an operator are an implicit AND, as in most search engines.
        while self.peek() in ("AND", "NOT", "TERM", "("):
            if self.peek() == "AND":
                self.take()
            children.append(self.parse_unary())
        return children[0] if len(children) == 1 else And(tuple(children))

    def parse_unary(self) -> Node:
        kind = self.peek()
        if kind == "NOT":
            self.take()
            return Not(self.parse_unary())
        if kind == "(":
            self.take()
            node = self.parse_or()
            if self.peek() != ")":
                raise BooleanQueryError(f"missing ')' after token {self.i}")
            self.take()
            return node
        if kind == "TERM":
            return Term(self.take()[1])
        if kind is None:
            raise BooleanQueryError("query ends where a term was expected")
        raise BooleanQueryError(f"unexpected {self.tokens[self.i][1]!r} at token {self.i + 1}")


def parse_boolean_query(query: str) -> Node:
    tokens = _tokenize(query)
    if not tokens:
        raise BooleanQueryError("empty query")
    parser = _Parser(tokens)
    node = parser.parse_or()
    if parser.i != len(tokens):
        raise BooleanQueryError(f"unexpected {tokens[parser.i][1]!r} at token {parser.i + 1}")
    return node


def query_terms(node: Node) -> list[str]:
    """Positive terms of a query (those not under NOT), in order."""
    if isinstance(node, Term):
        return [node.text]
    if isinstance(node, Not):
        return []
    terms: list[str] = []
    for child in node.children:
        terms.extend(query_terms(child))
    return terms


#: Unicode hyphens (U+2010, U+2011, the non-breaking one) are the ASCII hyphen: publishers write "high\u2010risk",
#: a query says "high-risk", and a database's index does not tell them apart.
_HYPHENS = str.maketrans({"\u2010": "-", "\u2011": "-"})


def fold(text: str) -> str:
    """``text`` as the matcher compares it: case-folded, Unicode hyphens as the ASCII one."""
    return text.casefold().translate(_HYPHENS)


def matches(node: Node, text: str) -> bool:
    """Evaluate the query against text (case-insensitive substring match per term, Unicode hyphens as ASCII ones;
    `*` is a stem wildcard)."""
    lowered = fold(text)
    if isinstance(node, Term):
        term = fold(node.text)
        if term.endswith("*"):
            return re.search(r"\b" + re.escape(term[:-1]), lowered) is not None
        return term in lowered
    if isinstance(node, Not):
        return not matches(node.child, text)
    if isinstance(node, And):
        return all(matches(child, text) for child in node.children)
    return any(matches(child, text) for child in node.children)


def to_query(node: Node) -> str:
    """The query text of a parsed query (parses back to the same tree): phrases quoted, groups bracketed."""
    if isinstance(node, Term):
        text = node.text
        plain = re.fullmatch(r"[\w\-'*.]+", text) is not None and text.upper() not in ("AND", "OR", "NOT")
        return text if plain else '"' + text.replace('"', " ") + '"'
    if isinstance(node, Not):
        return "NOT " + _grouped(node.child)
    joiner = " AND " if isinstance(node, And) else " OR "
    return joiner.join(_grouped(child) for child in node.children)


def _grouped(node: Node) -> str:
    return "(" + to_query(node) + ")" if isinstance(node, (And, Or)) else to_query(node)


def blocks_of(node: Node) -> list[Node]:
    """The AND-ed blocks of a query (the top-level AND's positive children; the query itself otherwise)."""
    if isinstance(node, And):
        return [child for child in node.children if not isinstance(child, Not)]
    return [node]
