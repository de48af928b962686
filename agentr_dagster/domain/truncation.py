"""Search truncation of one word: the stem a wildcard opens ("adolescents" -> "adolescen*"), shared by the
offline query builder and the seed-study check (which proposes widening terms)."""

from __future__ import annotations

_TRUNC_SUFFIXES = (
    "alities", "ality", "ities", "ity", "nesses", "ness", "ations", "ation", "ions", "ion", "ences", "ence",
    "ents", "ent", "ings", "ing", "ives", "ive", "als", "al", "ies", "es", "e", "s", "y",
)  # fmt: skip
_NO_TRUNCATE = frozenset("disease diseases misinformation software media health".split())


def truncation(word: str) -> str:
    """The word's search stem with a wildcard ("adolescents" -> "adolescen*"), or the word when it is short.

    A stem keeps at least five letters, so a wildcard never opens onto unrelated short words."""
    low = word.casefold().strip("'\u2019-")
    if is_acronym(word) or len(low) <= 4 or low in _NO_TRUNCATE or not low.isascii():
        if not is_acronym(word):
            return low
        return word[:-1] if word.endswith("s") and word[:-1].isupper() else word  # "NSAIDs" -> "NSAID"
    if low.endswith("ren") and low[:-3] in ("child",):
        return low[:-3] + "*"
    for suffix in _TRUNC_SUFFIXES:
        if low.endswith(suffix) and len(low) - len(suffix) >= 5:
            return low[: -len(suffix)] + "*"
    return low + "*"


def is_acronym(word: str) -> bool:
    core = word.strip("-")
    return len(core) >= 2 and sum(c.isupper() for c in core) >= 2 and not core.isdigit()
