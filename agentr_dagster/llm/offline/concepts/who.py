"""Who or what the studies are done on: people by age, role or sex, and the animals of animal research."""

from __future__ import annotations

import re

from agentr_dagster.domain.word_class import is_irregular_past_participle, is_past_participle
from agentr_dagster.llm.offline.concepts.model import ConceptBlock, _dedupe
from agentr_dagster.llm.offline.concepts.variants import _variants
from agentr_dagster.llm.offline.concepts.vocabulary import (
    _SPECIES_WORDS,
    DEMOGRAPHIC_WORDS,
    ORGANISM_VARIANTS,
    ORGANISM_WORDS,
    POPULATION_VARIANTS,
    _content_words,
    _person_word,
)

_PEOPLE_RE = re.compile(r"\b(?:humans?|people|persons?|patients?|participants|clinical)\b", re.I)


def names_animals(item: str) -> bool:
    """The phrase names laboratory animals as its head ("rats", "chronically stressed rodents"), or is their model
    ("animal models", "rodent models")."""
    words = [w.casefold() for w in _content_words(item)]
    if not words:
        return False
    if words[-1] in ("model", "models") and len(words) >= 2:
        return words[-2] in _SPECIES_WORDS
    return words[-1] in _SPECIES_WORDS


def is_subject(block: ConceptBlock) -> bool:
    """The block names what the studies are about: not only who they are about (:func:`_who_block`; the animals
    studied are marked apart) nor an aspect asked about ("the prevalence of", "Which risk factors ...")."""
    return block.organism or not (_who_block(block) or block.aspect)


def _organism_block(block: ConceptBlock) -> bool:
    """The block's own phrase names laboratory animals (:func:`names_animals`), and none of its phrases names
    people ("in animals and humans": the studies are not animal studies alone)."""
    people = {"human", "humans", "people", "person", "persons", "patient", "patients"} | DEMOGRAPHIC_WORDS
    heads = {_content_words(i)[-1].casefold() for i in [block.label, *block.items] if _content_words(i)}
    return names_animals(block.label) and not heads & people and not any(
        h.startswith(k) for h in heads for k in POPULATION_VARIANTS)


def _mark_organisms(blocks: list[ConceptBlock], text: str, acronyms: dict[str, str]) -> None:
    """The animals the question or title (``text``) names filter the query (:func:`_as_organisms`), unless it
    names people too ("animal and human studies", "in humans and animals"): then the studies are not animal
    studies alone."""
    if not any(not _seen_in(text[:m.start()]) for m in _PEOPLE_RE.finditer(text)):
        for block in blocks:
            if _organism_block(block):
                _as_organisms(block, acronyms)


#: What comes before a mention of people: a participle and "in" or "among" ("the deficits seen in patients").
_PARTICIPLE_IN_RE = re.compile(r"\b([a-z]+)\s+(?:in|among)\s+(?:the\s+)?$", re.I)


def _seen_in(before: str) -> bool:
    """The people are where something the text names is seen ("the cognitive deficits seen in patients", "the
    symptoms observed in humans"): a past participle before "in" (the lexicon's), not studies of people."""
    m = _PARTICIPLE_IN_RE.search(before)
    return m is not None and (is_past_participle(m.group(1)) or is_irregular_past_participle(m.group(1)))


def _as_organisms(block: ConceptBlock, acronyms: dict[str, str]) -> None:
    """The block becomes the query's animal filter: its own phrase and the species its studies name (rodents:
    rats, mice), nothing a later sentence's chunk brought in by naming them too."""
    terms: list[str] = []
    for item in _dedupe([block.label, *block.items]):
        if not names_animals(item):
            continue
        words = [w.casefold() for w in _content_words(item)]
        species = next((w for w in reversed(words) if w in _SPECIES_WORDS), "")
        terms += [*_variants(item, acronyms), *next((v for k, v in ORGANISM_VARIANTS.items()
                                                      if species.startswith(k)), ())]
    block.terms = _dedupe(terms)
    block.organism = True


def _who_block(block: ConceptBlock) -> bool:
    """The block only says who or what the studies are about (people, an age group, a species): the head noun
    of each of its phrases ("university students", "older adults", "rats") is one."""
    words = [_content_words(i)[-1].casefold() for i in [block.label, *block.items] if _content_words(i)]
    return bool(words) and (block.agents or all(_person_word(w) or w in ORGANISM_WORDS for w in words))
