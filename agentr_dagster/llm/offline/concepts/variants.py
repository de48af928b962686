"""An item's variants: its terms, the long form of an acronym and close terms of common populations."""

from __future__ import annotations

import re

from agentr_dagster.domain.specificity import general_zipf, inside_other_words_zipf
from agentr_dagster.domain.truncation import truncation
from agentr_dagster.domain.word_class import word_classes
from agentr_dagster.llm.offline.concepts.clauses import _switched_from
from agentr_dagster.llm.offline.concepts.model import _sendable
from agentr_dagster.llm.offline.concepts.spelling import _spellings
from agentr_dagster.llm.offline.concepts.terms import (
    EVERYDAY_WORD_ZIPF,
    _common_without_lead,
    _design_only,
    _modifier_like,
    _phrase_terms,
    _rare_plural_head,
    item_terms,
)
from agentr_dagster.llm.offline.concepts.vocabulary import _WORD, POPULATION_VARIANTS, _content_words


def _variants(item: str, acronyms: dict[str, str]) -> list[str]:
    # a part that only names a study design ("randomised trials" of "randomised trials reporting X") is the
    # design block's, never a concept's term
    terms = _switched_from([t for t in item_terms(item) if not _design_only(t)], item)
    low = item.casefold()
    words = _content_words(item)
    for key, extra in POPULATION_VARIANTS.items():
        # the population is the phrase's head ("young adolescents"), not a modifier ("adolescent smoking": a
        # behaviour, whose studies of teenagers still name it)
        head = words[-1].casefold().startswith(key.split()[-1]) if words else False
        if re.search(r"\b" + re.escape(key), low) and len(words) <= 2 and head:
            # a narrowed population keeps the word itself (paired with its modifier where it is common English)
            terms.extend(extra[:1] if _narrowed(words, key) else extra)
            if " " in key:  # a population named by two words ("older adults") is none of its head's alone
                terms = [t for t in terms if t.rstrip("*") != key.split()[-1]]
    paired: list[str] = []
    for acro, long in acronyms.items():
        a = acro.rstrip("s")
        compound = re.search(r"\b" + re.escape(a) + r"-([A-Za-z]{4,})\b", item)
        if compound and not re.search(r"\b" + re.escape(a) + r"s?\b(?!-)", item):
            # only inside a compound ("PTSD-trajectory"): the long form goes AND-ed with the compound's other
            # part, as the acronym does (:func:`_run_terms`), not alone (every study of the acronym's concept)
            tail = _sendable(truncation(compound.group(1).casefold()))
            long_terms = [v for t in _phrase_terms(" ".join(re.findall(_WORD, long))) for v in _spellings(t)]
            paired += [f"({_sendable(t)} AND {tail})" for t in long_terms if t]
            continue
        if re.search(r"\b" + re.escape(a) + r"s?\b", item) or long.casefold() in low:
            # the long form is kept whole even when its words are meta words ("systematic literature reviews")
            long_words = re.findall(_WORD, long)
            if long_words:
                terms.extend(_phrase_terms(" ".join(long_words)))
                # its two-word parts and its first and last word; none of a name coordinated inside ("fat mass and
                # obesity-associated": "mass and", "fat mass" name other things or nothing)
                if len(long_words) >= 3 and not {w.casefold() for w in long_words} & {"and", "or"}:
                    pairs = list(zip(long_words, long_words[1:], strict=False))
                    if not _noun_before_gerund_compound(long_words):
                        pairs.append((long_words[0], long_words[-1]))
                    if _rare_plural_head(long_words):
                        pairs = [p for p in pairs if p != (long_words[-3], long_words[-2])]
                    terms.extend(t for x, y in pairs if not _common_without_lead(long_words, [x, y])
                                 for t in _phrase_terms(f"{x} {y}"))
            # alone only when its letters name it (:func:`_acronym_alone`), or the item is the acronym itself
            if _acronym_alone(a) or item.strip().rstrip("s") == a:
                terms.append(a)
    return [v for t in terms if t for v in _spellings(t)] + paired


def _noun_before_gerund_compound(words: list[str]) -> bool:
    """The phrase closes on a gerund after its object ("decision making", "problem solving") and opens on a noun,
    which names whose or what the act is ("treatment decision making", "family problem solving"): the first word
    with the gerund alone ("treatment making", "family solving") is no phrase of English. (An adjective's lead
    qualifies the act: "functional magnetic resonance imaging" -> "functional imaging".)"""
    last, before, first = (w.casefold() for w in (words[-1], words[-2], words[0]))
    return (last.endswith("ing") and "VERB" in word_classes(last) and "NOUN" in word_classes(before)
            and not _modifier_like(before) and not _modifier_like(first) and "NOUN" in word_classes(first))


def _acronym_alone(acronym: str) -> bool:
    """A defined acronym is a term of its own when its letters say nothing else: never an everyday word of English
    ("HOPE", "SAFE": Zipf :data:`EVERYDAY_WORD_ZIPF` or more, a word the lexicon knows), and one of three letters only
    when general English has it more often as itself than inside other words, where a substring matcher would find
    it ("CBT", "MDD"; not "ACE" in "surface", "IBS" in "ribs", "RCT" in "infarction"). Four letters or more seldom
    sit inside a word ("ADHD", "NSSI", "COPD")."""
    low = acronym.casefold()
    if len(low) < 3 or word_classes(low) and general_zipf(low) >= EVERYDAY_WORD_ZIPF:
        return False
    return len(low) >= 4 or inside_other_words_zipf(low) < general_zipf(low)


#: A modifier this common in general English (Zipf, ``wordfreq``: "young" 5.4, "school" 5.7, "pregnant" 4.6) leaves
#: a population word's close terms apt ("school children": pediatric*); a rarer one narrows the population to what
#: they do not say ("postmenopausal women" is not ``maternal``, "immigrant children" not ``infant*``).
POPULATION_MODIFIER_ZIPF = 4.5


def _narrowed(words: list[str], key: str) -> bool:
    """A word of the phrase outside the population ``key`` that is rarer than :data:`POPULATION_MODIFIER_ZIPF`:
    the phrase keeps the population's own word, not its close terms."""
    # a compound modifier by its commonest part: "community-dwelling" older adults are still the elderly
    return any(not w.casefold().startswith(key.split()[0]) and key not in w.casefold()
               and max(general_zipf(p) for p in w.split("-") if p) < POPULATION_MODIFIER_ZIPF for w in words)
