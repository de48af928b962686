"""Generic terms and blocks: no common word stands alone as an alternative of a concept."""

from __future__ import annotations

import re

from agentr_dagster.domain.specificity import Background, any_share, general_zipf, is_generic, phrase_zipf
from agentr_dagster.domain.truncation import is_acronym as _is_acronym
from agentr_dagster.domain.truncation import truncation
from agentr_dagster.domain.word_class import word_classes
from agentr_dagster.llm.offline.concepts.model import ConceptBlock, _dedupe, _sendable
from agentr_dagster.llm.offline.concepts.vocabulary import (
    _JOIN,
    _POPULATION_TERMS,
    GENERIC_HEADS,
    GENERIC_ZIPF,
    MAX_TERMS_PER_BLOCK,
    _content_words,
)


def _paired(term: str, terms: list[str], zipf_floor: float) -> list[str]:
    """A generic single word of a block (a stem) AND-ed with the other words of the block's phrases that hold it
    (words that are not common English), as one term: "predict*" of "software fault prediction metrics" ->
    ``(predict* AND (softwar* OR fault* OR metric*))``, which finds "predicting faults", "metrics predict",
    "predicting software defects"; none when no phrase holds it or its other words are common."""
    stem = term.strip('"').rstrip("*").casefold()
    if " " in term.strip('"') or len(stem) < 4 or _is_acronym(term):
        return []
    others: list[str] = []
    for phrase in terms:
        words = phrase.strip('"').casefold().split()
        if len(words) < 2 or not any(w.startswith(stem) for w in words):
            continue
        others += [_sendable(truncation(w)) for w in words if not w.startswith(stem) and len(w) >= 4
                   and w.isalpha() and general_zipf(w) < zipf_floor]
    others = _dedupe(others)
    if not others:
        return []
    return [f"({_sendable(term)} AND {others[0] if len(others) == 1 else '(' + ' OR '.join(others) + ')'})"]


def _shares_product(blocks: list[ConceptBlock], background: Background | None) -> float:
    """The share of a background's records expected to name every one of the blocks (their shares multiplied)."""
    share = 1.0
    for b in blocks:
        share *= any_share(b.terms[:MAX_TERMS_PER_BLOCK], background)
    return share


def _shares_bound(blocks: list[ConceptBlock], background: Background | None) -> float:
    """The most of a background's records that can name every one of the blocks: the rarest block's share. A
    background answers a share per term, never how often two terms meet; blocks of one topic ("blood pressure",
    "hypertension") meet in most of their records, so their shares multiplied read the AND as narrow where it is
    not (every trial of blood pressure in hypertension)."""
    return min((any_share(b.terms[:MAX_TERMS_PER_BLOCK], background) for b in blocks), default=1.0)


def _modifier_only(label: str) -> bool:
    """A label of words the lexicon knows only as adjectives or adverbs ("statistical", "statistically
    significant"): no noun, so no concept of its own."""
    words = _content_words(label)
    return bool(words) and all((c := word_classes(w)) and not c & {"NOUN", "PROPN", "VERB"} for w in words)


def _generic_block(block: ConceptBlock) -> bool:
    """Every phrase of the block is of generic words alone ("health effects", "public health"); "sleep and
    microdialysis" is not."""
    return all(_generic_label(i) for i in [block.label, *block.items])


def _generic_label(label: str) -> bool:
    """A concept named only by generic words: its label without generic heads ("therapies") is common English."""
    words = [w for w in _content_words(label) if w.casefold() not in GENERIC_HEADS]
    return not words or phrase_zipf(" ".join(words)) >= GENERIC_ZIPF


def _phrase_key(phrase: str) -> tuple[str, ...]:
    """A phrase's words as a term and its item share them: lower-cased, split on spaces and hyphens, without a
    plural "s" or a wildcard ("End-of-life care", '"end of life care"'; "nurse experiences", '"nurse experience"')."""
    words = re.split(r"[\s\-]+", phrase.replace(_JOIN, " ").strip().strip('"').casefold().replace("*", ""))
    return tuple(w[:-1] if w.endswith("s") and len(w) > 3 else w for w in words if w)


def _drop_generic_terms(blocks: list[ConceptBlock], zipf_floor: float, background: Background | None = None,
                        share_floor: float | None = None) -> None:
    """No generic term stands as an alternative: a block keeps only its terms that are not generic
    (:func:`~agentr_dagster.domain.specificity.is_generic`: general English, or the ``background``'s records);
    a block with none left keeps its terms but is generic (optional, never the main one)."""
    for block in blocks:
        # a term of one or two letters ("FI") sits inside most words: a substring matcher finds it everywhere
        block.terms = [t for t in block.terms if len(t.strip('"*')) >= 3] or block.terms
        wholes = {_phrase_key(i) for i in [block.label, *block.items]}
        # an acronym that spells a common word ("NEWS", "CARE") finds that word in any field: the matcher ignores
        # case, so general English judges it, whatever the background
        specific = [t for t in block.terms if len(t.strip('"*')) >= 3 and (
            general_zipf(t.strip('"*').casefold()) < zipf_floor if _is_acronym(t.strip('"*'))
            else not is_generic(t, zipf_floor, background, share_floor, whole_phrase=_phrase_key(t) in wholes))]
        if specific and set(specific) <= _POPULATION_TERMS and _generic_label(block.label):
            # only the close terms a population word brings (pediatric*, kid for "children"): the concept itself
            # is common English, and those terms alone would miss the studies that name it
            specific = []
        if background is not None:
            block.background_broad = [t for t in block.terms if t not in specific and not _is_acronym(t.strip('"*'))
                                      and not is_generic(t, zipf_floor, whole_phrase=_phrase_key(t) in wholes)]
        if specific:
            # a generic word of the concept's own phrase stays, AND-ed with each of its neighbours there:
            # "predict*" of "software fault prediction" -> (fault* AND predict*), which finds "predicting faults"
            paired = [p for t in block.terms if t not in specific for p in _paired(t, block.terms, zipf_floor)]
            block.terms = _dedupe(specific + paired)
        else:
            block.generic = True
            block.required = False
