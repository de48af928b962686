"""Boolean queries evaluated over the whole lake at once (Arrow compute kernels, not a Python loop per paper).

Same semantics as :func:`agentr_dagster.domain.boolean_query.matches`: a term matches when its lower-cased text
occurs in the lower-cased paper text; a trailing ``*`` matches any word starting with the stem.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from agentr_dagster.domain.boolean_query import And, Node, Not, Or, Term, parse_boolean_query


def _re2_escape(text: str) -> str:
    """Escape for RE2 (Arrow's regex engine), which rejects some of Python's ``re.escape`` output."""
    out = []
    for ch in text:
        if ch.isalnum() or ord(ch) > 127:
            out.append(ch)
        else:
            out.append(f"\\x{ord(ch):02x}")
    return "".join(out)


def _term_mask(term: str, lowered: pa.ChunkedArray | pa.Array) -> np.ndarray:
    text = term.casefold()
    if text.endswith("*"):
        stem = text[:-1]
        if not stem:
            return np.ones(len(lowered), dtype=bool)
        result = pc.match_substring_regex(lowered, pattern=r"\b" + _re2_escape(stem))
    else:
        result = pc.match_substring(lowered, pattern=text)
    return np.asarray(result.to_numpy(zero_copy_only=False), dtype=bool)


def boolean_mask(query: str | Node, lowered: pa.ChunkedArray | pa.Array) -> np.ndarray:
    """Which of the (already lower-cased) texts the query matches. Raises BooleanQueryError if it does not parse."""
    node = parse_boolean_query(query) if isinstance(query, str) else query
    cache: dict[str, np.ndarray] = {}

    def walk(n: Node) -> np.ndarray:
        if isinstance(n, Term):
            if n.text not in cache:
                cache[n.text] = _term_mask(n.text, lowered)
            return cache[n.text]
        if isinstance(n, Not):
            return ~walk(n.child)
        parts = [walk(child) for child in n.children]
        if isinstance(n, And):
            return np.logical_and.reduce(parts)
        if isinstance(n, Or):
            return np.logical_or.reduce(parts)
        raise TypeError(f"unexpected node {type(n).__name__}")

    return walk(node)
