"""When or how people were exposed: the qualifier of "<qualifier> exposure to X" stays with X."""

from __future__ import annotations

import re

from agentr_dagster.domain.specificity import general_zipf
from agentr_dagster.domain.truncation import truncation
from agentr_dagster.domain.word_class import is_graded_adjective, word_classes
from agentr_dagster.llm.offline.concepts.model import ConceptBlock, _sendable
from agentr_dagster.llm.offline.concepts.terms import EVERYDAY_WORD_ZIPF
from agentr_dagster.llm.offline.concepts.vocabulary import _FUNCTION, META_WORDS, _person_word
from agentr_dagster.llm.offline.concepts.who import _who_block

#: "prenatal exposure to X", "occupational exposures to X": a word before the noun and the first word of what the
#: people were exposed to.
_QUALIFIED_EXPOSURE_RE = re.compile(r"\b([A-Za-z][\w-]*)\s+exposures?\s+to\s+(?:the\s+)?([\w-]+)", re.I)


def _is_qualifier(word: str) -> bool:
    """A word that says when or what kind the exposure was, in a field's own word ("prenatal", "occupational",
    "perinatal"): an adjective or noun rarer than an everyday word (:data:`EVERYDAY_WORD_ZIPF`), no function,
    review or person word, no comparative ("greater exposure to"). An everyday one or a compound of everyday words
    ("chronic", "childhood", "early-life") is said many ways by the studies ("in infancy", "in children", "in
    rodent pups"): AND-ed it would lose them."""
    low = word.casefold()
    if not low.isalpha() or low in _FUNCTION or low in META_WORDS or _person_word(low) or is_graded_adjective(low):
        return False
    return general_zipf(low) < EVERYDAY_WORD_ZIPF and bool(word_classes(low) & {"ADJ", "NOUN"})


def _exposure_qualifier_anded(blocks: list[ConceptBlock], topic: str) -> None:
    """"Is prenatal exposure to cannabis associated with Y?": the reading drops "prenatal exposure" (the exposure
    is every exposure study's word) and X alone was every study of X (``cannabi*``: every cannabis study). When it
    happened or what kind it was is what the review asks of X: the qualifier is AND-ed with X's terms
    (:func:`_is_qualifier`: ``(cannabi* AND prenat*)``), which also finds "prenatal cannabis use" and
    "cannabis ... prenatally"."""
    for m in _QUALIFIED_EXPOSURE_RE.finditer(topic):
        qualifier, first = m.group(1), m.group(2).casefold()
        if not _is_qualifier(qualifier):
            continue
        block = next((b for b in blocks if b.terms and not _who_block(b) and not b.organism
                      and b.label.casefold().split()[:1] == [first]), None)
        stem = qualifier.casefold()[:5]
        if block is None or any(stem in t.casefold() for t in [block.label, *block.terms]):
            continue
        terms = [_sendable(t) for t in block.terms]
        group = terms[0] if len(terms) == 1 else "(" + " OR ".join(terms) + ")"
        block.terms = [f"({group} AND {_sendable(truncation(qualifier.casefold()))})"]
