"""Which parts of speech an English word can be, from a lexicon (``lemminflect``: the SPECIALIST lexicon's
lemmas by universal part-of-speech tag), not a word list of ours.

Used to read a question or a title as clauses: a word that can only be a verb ("impair", "predicts",
"promotes") is a predicate between two concepts ("chronic stress impairs spatial memory" -> chronic stress,
spatial memory), and a past participle closing a phrase ("how is this behaviour measured") says what is done to
the concept, not which concept.
"""

from __future__ import annotations

from functools import lru_cache

#: Readings that make a word usable inside a noun phrase.
_NOMINAL = frozenset({"NOUN", "PROPN", "ADJ", "NUM"})


@lru_cache(maxsize=65536)
def word_classes(word: str) -> frozenset[str]:
    """The universal part-of-speech tags the lexicon has for ``word`` (lower-cased; a hyphenated word by its
    last part, "co-occur" as "occur"); empty for a word it does not know (a name, a drug, an acronym)."""
    from lemminflect import getAllLemmas

    low = word.casefold().strip("-'")
    if "-" in low:
        low = low.rsplit("-", 1)[1]
    if not low.isalpha():
        return frozenset()
    return frozenset(getAllLemmas(low))


def is_finite_verb(word: str) -> bool:
    """``word`` can only be a verb, in its plain or third-person form ("impair", "predicts", "respond"): never
    a noun or adjective, never a participle ("impaired glucose", "learned helplessness" modify a noun) or a
    gerund ("decision making" is a noun)."""
    low = word.casefold()
    if len(low) < 4 or low.endswith(("ing", "ed")) or word[:1].isupper() and word.isupper():
        return False
    classes = word_classes(word)
    return bool(classes) and "VERB" in classes and not classes & _NOMINAL and not _participle_compound(low)


def _participle_compound(low: str) -> bool:
    """A compound closed by a verb's irregular past participle ("body-worn", "hand-held", "home-made"): it
    modifies a noun, as "-ed" compounds do, though its last part is read as a verb."""
    if "-" not in low:
        return False
    from lemminflect import getInflection

    last = low.rsplit("-", 1)[1]
    return any(last != lemma and last in getInflection(lemma, "VBN") for lemma in verb_lemmas(last))


def is_participle_compound(word: str) -> bool:
    """``word`` is a compound closed by a verb's past participle, regular or not ("nurse-led", "school-based",
    "body-worn"): a modifier of the noun after it, never a noun whose verb that word could be."""
    low = word.casefold()
    if "-" not in low:
        return False
    return _participle_compound(low) or is_past_participle(low.rsplit("-", 1)[1])


def is_past_participle(word: str) -> bool:
    """``word`` is a verb's "-ed" form ("measured", "assessed", "reported"): after a noun it is a predicate. A verb's
    own plain form in "-eed" is none ("speed", "breed", "exceed": "walking speed" is one phrase)."""
    low = word.casefold()
    return low.endswith("ed") and len(low) > 4 and "VERB" in word_classes(word) and low not in verb_lemmas(low)


def is_irregular_past_participle(word: str) -> bool:
    """``word`` is a verb's past participle not in "-ed" ("given", "taken", "worn"), not the verb's own form ("cut",
    "set")."""
    from lemminflect import getInflection

    low = word.casefold()
    if not low.isalpha() or low.endswith("ed") or len(low) < 4:
        return False
    return any(low != lemma and low in getInflection(lemma, "VBN") for lemma in verb_lemmas(low))


def plural_forms(word: str) -> tuple[str, ...]:
    """The plural forms of ``word`` read as a noun ("safe" -> ("safes",))."""
    from lemminflect import getInflection

    return tuple(getInflection(word.casefold(), "NNS"))


def can_be_verb(word: str) -> bool:
    """``word`` has a verb reading in a plain or third-person form ("change", "favours"), whatever else it can be;
    only its context tells (before a determiner it is a verb: "change the dose")."""
    low = word.casefold()
    return len(low) >= 4 and not low.endswith(("ing", "ed")) and "VERB" in word_classes(word)


@lru_cache(maxsize=65536)
def verb_lemmas(word: str) -> tuple[str, ...]:
    """The plain forms of the verbs ``word`` can be a form of ("nudging" -> ("nudge",)); empty for no verb."""
    from lemminflect import getAllLemmas

    return tuple(getAllLemmas(word.casefold()).get("VERB", ()))


@lru_cache(maxsize=65536)
def adverb_lemmas(word: str) -> tuple[str, ...]:
    """The plain forms of the adverbs ``word`` can be a form of ("best" -> ("well",)); empty for no adverb."""
    from lemminflect import getAllLemmas

    return tuple(getAllLemmas(word.casefold()).get("ADV", ()))


def verb_forms(lemma: str) -> tuple[str, ...]:
    """Every form the lexicon gives the verb ``lemma`` ("leave" -> "leaves", "left", "leaving", ...), each once."""
    from lemminflect import getAllInflections

    forms = (f for fs in getAllInflections(lemma.casefold(), upos="VERB").values() for f in fs)
    return tuple(dict.fromkeys(forms))


def gerund(word: str) -> str:
    """The "-ing" form of the verb ``word`` ("outsource" -> "outsourcing", "quit" -> "quitting")."""
    from lemminflect import getInflection

    low = word.casefold()
    return next(iter(getInflection(low, "VBG")), low + "ing")


def past_forms(word: str) -> tuple[str, ...]:
    """The past forms of ``word`` read as a verb ("show" -> ("showed",))."""
    from lemminflect import getInflection

    return tuple(getInflection(word.casefold(), "VBD"))


@lru_cache(maxsize=65536)
def noun_lemmas(word: str) -> tuple[str, ...]:
    """The singular forms of the nouns ``word`` can be a form of ("caries" -> ("caries",)); empty for no noun."""
    from lemminflect import getAllLemmas

    return tuple(getAllLemmas(word.casefold()).get("NOUN", ()))


def is_plain_verb(word: str) -> bool:
    """``word`` is a verb in its plain form ("increase", "use"), whatever else it can be (a noun too)."""
    low = word.casefold()
    return low.isalpha() and low in verb_lemmas(low)


def is_graded_adjective(word: str) -> bool:
    """``word`` is an adjective's comparative or superlative ("fewer", "higher", "largest"): never a noun (the
    lexicon files "number" as the comparative of "numb"). A phrase it leads says how much of something a result
    is ("fewer abstracts", "higher accuracy"), not what a study is about."""
    if not word.isalpha():  # "anxiety-related": a compound, read by its last part elsewhere, is no graded form
        return False
    classes = word_classes(word)
    if "ADJ" not in classes or "NOUN" in classes:
        return False
    from lemminflect import getAllLemmas

    return word.casefold() not in getAllLemmas(word.casefold()).get("ADJ", ())


def quality_nouns(adjective: str) -> tuple[str, ...]:
    """The "-ity" nouns of the quality an adjective the lexicon knows names ("suicidal" -> "suicidality", "obese"
    -> "obesity", "adaptable" -> "adaptability"): English's regular derivation, also where the lexicon does not
    list the noun; empty for a word it does not know as an adjective."""
    low = adjective.casefold()
    if len(low) < 5 or not low.isalpha() or "ADJ" not in word_classes(low):
        return ()
    if low.endswith("ble"):
        return (low[:-3] + "bility",)
    if low.endswith("ous"):
        return (low[:-3] + "osity",)
    return (low[:-1] + "ity",) if low.endswith("e") else (low + "ity",)
