"""Whether a text contains a concept, under the variants a reader takes for the same concept.

A statement that a paper "does not address X" is false when the paper's own title or abstract says X in another
form: an abbreviation for its expansion or the reverse ("SLRs" / "systematic literature reviews"), a plural, a
British or American spelling ("modelling" / "modeling"), a hyphen ("e-health" / "ehealth"). :class:`ConceptText`
indexes one text so that :meth:`ConceptText.contains` answers for any concept; abbreviations are expanded from the
definitions ("long form (ABBR)") of the text itself and of any other text given (the planned work's abstract).

Deliberately lenient: a phrase of three or more words counts as present when its head (last word) and all but one
of its other words are ("systematic review" contains the concept "systematic literature review"). The cost of a
false "contains" is one gap left unsaid; the cost of a false "lacks" is a false finding.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache

from agentr_dagster.domain.text import acronyms, is_stopword, stem, tokenize

__all__ = ["ConceptText", "abbreviation_map", "spelling_key"]

# British -> American spelling endings and digraphs, applied to both sides of a comparison (a collision only ever
# makes two words compare equal, the safe direction here).
_SPELLING_RULES = (
    (re.compile(r"isation"), "ization"),
    (re.compile(r"is(e|ed|es|ing)$"), r"iz\1"),
    (re.compile(r"ys(e|ed|es|ing)$"), r"yz\1"),
    (re.compile(r"ell(ing|ed|er|ers)$"), r"el\1"),
    (re.compile(r"our(s|ed|ing|al|ally)?$"), r"or\1"),
    (re.compile(r"([^aeiou])tre(s)?$"), r"\1ter\2"),
    (re.compile(r"^(an|h)ae"), r"\1e"),
    (re.compile(r"^oe"), "e"),
    (re.compile(r"ogue(s)?$"), r"og\1"),
)
_ABBREVIATION_RE = re.compile(r"^[A-Z][A-Za-z0-9]*[A-Z0-9][A-Za-z0-9]*$")  # SLR, SLRs, mHealth, COVID-19 (no hyphen)


@lru_cache(maxsize=1 << 16)
def spelling_key(token: str) -> str:
    """One key for the spelling and inflection variants of a word: case, hyphens, British/American, plural."""
    t = token.casefold().replace("-", "").replace("'", "")
    for pattern, repl in _SPELLING_RULES:
        t = pattern.sub(repl, t)
    return stem(t)


def _abbreviation_key(token: str) -> str:
    """'SLRs' -> 'slr': an abbreviation's letters without a trailing plural s."""
    t = token.replace("-", "")
    if len(t) > 2 and t.endswith("s") and t[:-1].upper() == t[:-1]:
        t = t[:-1]
    return t.casefold()


def _is_abbreviation(token: str) -> bool:
    if len(token) < 2 or token[1:].islower():  # the common case, cheaply: a word with at most its first capital
        return False
    return bool(_ABBREVIATION_RE.match(token.replace("-", ""))) and sum(c.isupper() for c in token) >= 2


def _content_keys(text: str) -> list[str]:
    tokens = [t for t in tokenize(text) if not is_stopword(t)]
    return [spelling_key(t) for t in tokens]


_DEFINITION_RE = re.compile(r"\(\s*[A-Z][A-Za-z0-9-]{1,9}s?\s*\)")


@lru_cache(maxsize=4096)
def _definitions(text: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """(abbreviation key, long-form keys) of each "long form (ABBR)" in ``text``; the definition pattern is run
    only on the few words before each parenthesised abbreviation (on a whole abstract it backtracks at length)."""
    out = []
    for match in _DEFINITION_RE.finditer(text):
        window = text[max(0, match.start() - 90):match.end()]  # the definition pattern reads up to 7 words
        for long_form, abbr in acronyms(window):
            keys = tuple(_content_keys(long_form))
            if keys and (_abbreviation_key(abbr), keys) not in out:
                out.append((_abbreviation_key(abbr), keys))
    return tuple(out)


def abbreviation_map(texts: Iterable[str]) -> dict[str, tuple[tuple[str, ...], ...]]:
    """{abbreviation key: (the content-word keys of each long form)} from "long form (ABBR)" definitions."""
    found: dict[str, list[tuple[str, ...]]] = {}
    for text in texts:
        for abbr, keys in _definitions(text or ""):
            if keys not in found.setdefault(abbr, []):
                found[abbr].append(keys)
    return {k: tuple(v) for k, v in found.items()}


def _initials(keys: Iterable[str], words: Iterable[str]) -> str:
    return "".join(w[0] for w in words if w).casefold()


@dataclass
class ConceptText:
    """A text (a paper's title and abstract) indexed for :meth:`contains`; ``context`` adds the definitions of
    other texts (the planned work's abstract) to the abbreviations this one defines."""

    text: str
    context: Iterable[str] = ()
    keys: set[str] = field(init=False)
    abbreviations: set[str] = field(init=False)
    expansions: dict[str, tuple[tuple[str, ...], ...]] = field(init=False)

    def __post_init__(self) -> None:
        tokens = tokenize(self.text)
        self.keys = {spelling_key(t) for t in tokens}
        raw = re.findall(r"[A-Za-z][A-Za-z0-9-]*", self.text)
        self.abbreviations = {_abbreviation_key(t) for t in raw if _is_abbreviation(t)}
        # a lower-cased abbreviation is a word too ("slr"): counted only where the text also writes it in capitals
        self.expansions = abbreviation_map([self.text, *self.context])

    # -- the pieces
    def _phrase_present(self, keys: tuple[str, ...] | list[str]) -> bool:
        """All words of a one- or two-word phrase; for longer ones the head and all but one of the others."""
        keys = [k for k in keys if k]
        if not keys:
            return False
        present = [k in self.keys for k in keys]
        if len(keys) <= 2:
            return all(present)
        return present[-1] and sum(present) >= len(keys) - 1

    def _abbreviation_present(self, abbr: str) -> bool:
        """The abbreviation itself, or one of its known long forms."""
        if abbr in self.abbreviations:
            return True
        return any(self._phrase_present(long) for long in self.expansions.get(abbr, ()))

    def _word_present(self, word: str) -> bool:
        if _is_abbreviation(word):
            return self._abbreviation_present(_abbreviation_key(word))
        if is_stopword(word):
            return True
        return spelling_key(word) in self.keys

    # -- the question
    def contains(self, concept: str) -> bool:
        """Whether this text names ``concept`` (a word or phrase) in any variant of :mod:`this module`."""
        words = [w for w in re.findall(r"[A-Za-z0-9][A-Za-z0-9'-]*", concept or "")]
        content = [w for w in words if _is_abbreviation(w) or not is_stopword(w)]
        if not content:
            return False
        # every word as written, an abbreviation through its expansions
        if len(content) <= 2:
            if all(self._word_present(w) for w in content):
                return True
        else:
            present = [self._word_present(w) for w in content]
            if present[-1] and sum(present) >= len(content) - 1:
                return True
        # the phrase as a whole written as its abbreviation ("systematic literature reviews" -> "SLR")
        if len(content) >= 2:
            initials = _initials(content, content)
            if initials in self.abbreviations:
                return True
            keys = tuple(spelling_key(w) for w in content)
            for abbr, longs in self.expansions.items():
                if keys in longs and abbr in self.abbreviations:
                    return True
        return False

    def matched(self, concepts: Iterable[str]) -> list[str]:
        """The concepts this text contains, in the given order."""
        return [c for c in concepts if self.contains(c)]
