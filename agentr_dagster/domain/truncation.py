"""Search truncation of one word: the stem a wildcard opens ("adolescents" -> "adolescen*"), shared by the
offline query builder and the seed-study check (which proposes widening terms)."""

from __future__ import annotations

import re

from agentr_dagster.domain.specificity import general_completions, general_zipf
from agentr_dagster.domain.word_class import word_classes

_TRUNC_SUFFIXES = (
    "alities", "ality", "ities", "ity", "nesses", "ness", "ations", "ation", "ions", "ion", "ences", "ence",
    "ents", "ent", "ings", "ing", "ives", "ive", "als", "al", "ies", "es", "e", "s", "y",
)  # fmt: skip
#: Endings that keep a whole word's meaning ("sleep" -> "sleeps", "sleeping", "sleepy").
_INFLECTIONS = frozenset(
    "s es 's ' d ed ing er ers est ly y ies ier iest ily ness ful less al ally ic ical ism ist ists ity ment ments "
    "ion ions ation ations ive ize ise ized ised izes ises able".split()
)
#: A wildcard on a whole word is dropped when it opens onto another word at most this much rarer (Zipf
#: points, 1.5 = a thirtieth as common): "media*" opens onto "median", "health*" onto "healthcare".
FOREIGN_COMPLETION_GAP = 1.5


def truncation(word: str) -> str:
    """The word's search stem with a wildcard ("adolescents" -> "adolescen*"), or the word when it is short.

    A stem keeps at least five letters, so a wildcard never opens onto unrelated short words."""
    low = word.casefold().strip("'\u2019-")
    if is_acronym(word) or len(low) <= 4 or not low.isascii():
        if not is_acronym(word):
            return low
        return word[:-1] if word.endswith("s") and word[:-1].isupper() else word  # "NSAIDs" -> "NSAID"
    if low.endswith("ren") and low[:-3] in ("child",):
        return low[:-3] + "*"
    if "-" in low.strip("-"):
        # a source takes no wildcard inside a hyphenated word and matches whole words: "anti-inflammator" would
        # find nothing there ("anti-inflammatory" does), though a substring match here finds it
        return low
    if low.endswith(("us", "um")) and not low.endswith("ous") and len(low) >= 8 and general_zipf(low[:-2]) == 0:
        # a Latin noun's stem, which its plural and adjective share ("hippocampus", "hippocampi", "hippocampal";
        # "cerebellum", "cerebellar"): not when the stem is a word of its own ("continuum": continu*)
        return low[:-2] + "*"
    stem = low.removesuffix("cy").removesuffix("cies") if low.endswith(("ancy", "ancies")) else ""
    if len(stem) >= 5 and general_zipf(stem + "t") >= general_zipf(stem + "cy"):
        # the state's "-ant" adjective or agent, as common as the noun, names the same thing and shares its stem
        # ("pregnancy" -> pregnan*: "pregnant women"; "malignancy" -> "malignant"; "infancy" -> "infant")
        return stem + "*"
    short = _short_ity_stem(low) or _ia_stem(low) or _iness_stem(low) or _acy_stem(low)
    if short:
        return short + "*"
    for suffix in _TRUNC_SUFFIXES:
        if low.endswith(suffix) and len(low) - len(suffix) >= 5:
            stem = low[: -len(suffix)]
            if suffix in _LETTER_ENDINGS and _opens_onto_gerund(stem, low):
                return low
            return stem + "*"
    return low if _opens_onto_other_words(low) else low + "*"


def _short_ity_stem(low: str) -> str:
    """The four-letter stem of a state in "-ity" whose "-e" adjective is about as common and names the same thing
    ("obesity" -> obes*: "obese adults"; "density" -> dens*: "dense breasts"), "" otherwise: the stem would keep
    fewer than five letters, so it is taken only where general English opens it onto no other word (the "-ity"
    noun's "obesit*" missed every "obese" study)."""
    stem = low[:-3] if low.endswith("ity") else ""
    adjective = stem + "e"
    if len(stem) != 4 or not stem.isalpha() or "ADJ" not in word_classes(adjective) \
            or general_zipf(adjective) < general_zipf(low) - _ADJECTIVE_GAP:
        return ""
    floor = general_zipf(adjective) - FOREIGN_COMPLETION_GAP
    others = [w for w in general_completions(stem) if not w.startswith((adjective, stem + "it"))]
    return "" if any(general_zipf(w) >= floor for w in others) else stem


def _iness_stem(low: str) -> str:
    """The stem a state in "-iness" shares with its "-y" adjective ("loneliness" -> lonel*: "feeling lonely";
    "drowsiness" -> drows*), "" otherwise: ``loneli*`` missed every study that asked whether people felt lonely.
    Only where general English has the adjective and the stem opens onto no other word nearly as common as the
    noun ("sleepiness": "sleep" is another concept's word)."""
    stem = low[:-5] if low.endswith("iness") else ""
    if len(stem) < 5 or not stem.isalpha() or "ADJ" not in word_classes(stem + "y"):
        return ""
    floor = general_zipf(low) - FOREIGN_COMPLETION_GAP
    others = [w for w in general_completions(stem) if not w.startswith((stem + "y", stem + "i"))]
    return "" if general_zipf(stem) >= floor or any(general_zipf(w) >= floor for w in others) else stem


def _ia_stem(low: str) -> str:
    """The stem a condition in "-ia" shares with its "-ic" adjective, where general English has that adjective
    ("ischaemia" -> ischaemi*: "ischaemic injury"; "hypothermia" -> hypothermi*: "hypothermic rats"), "" otherwise
    ("dementia": no "dementic"). ``ischaemia*`` missed every study that named the injury by its adjective ("a rat
    stroke model ... ischemic injury"). Not where the stem opens onto another word nearly as common as the noun."""
    stem = low[:-2] if low.endswith("ia") else ""
    if len(stem) < 5 or not stem.isalpha() or general_zipf(stem + "ic") == 0:
        return ""
    floor = general_zipf(low) - FOREIGN_COMPLETION_GAP
    others = [w for w in general_completions(stem) if not w.startswith((low, stem + "ic"))]
    return "" if any(general_zipf(w) >= floor for w in others) else stem + "i"


_ACY_ENDINGS = ("acies", "atic", "acy", "ats", "at")
#: How common the "-at" agent must be to be a word of English ("bureaucrat" 2.8; not "advocat" 1.1, a foreign word).
_AGENT_ZIPF = 2.0


def _acy_stem(low: str) -> str:
    """The stem a rule or system in "-acy" shares with its agent in "-at" ("bureaucracy", "bureaucrats",
    "bureaucratic" -> bureaucra*; "democracy", "democrats" -> democra*), "" otherwise: ``bureaucrat*`` missed
    every study of "public bureaucracies", ``bureaucrac*`` every one of "bureaucrats". Only where general English
    has both the "-acy" noun and the "-at" agent ("piracy" has "pirate", "format" no "formacy") and the stem opens
    onto no other word nearly as common ("diplomacy": diploma* opens onto "diploma")."""
    ending = next((e for e in _ACY_ENDINGS if low.endswith(e)), "")
    stem = low[: len(low) - len(ending) + 1] if ending else ""
    if len(stem) < 6 or not stem.isalpha() or not general_zipf(stem + "cy") \
            or general_zipf(stem + "t") < _AGENT_ZIPF:
        return ""
    floor = max(general_zipf(stem + "cy"), general_zipf(stem + "t")) - FOREIGN_COMPLETION_GAP
    others = [w for w in general_completions(stem) if not w.startswith((stem + "c", stem + "t"))]
    return "" if any(general_zipf(w) >= floor for w in others) else stem


#: How much rarer (Zipf points) a state's "-e" adjective may be than its "-ity" noun and still share its stem.
_ADJECTIVE_GAP = 0.5


#: The endings whose removal leaves the word's own letters ("creatine" -> "creatin", "statins" -> "statin").
_LETTER_ENDINGS = frozenset(("e", "es", "s"))


def _opens_onto_gerund(stem: str, word: str) -> bool:
    """``stem*`` of a word that is no verb opens onto another verb's "-ing" form about as common as the word:
    "creatin*" finds "creating", "statin*" "stating", "routin*" "routing", "raisin*" "raising" (the word's own
    "-ing" form would be the stem and "ing"; the stem and "g" is always another verb's)."""
    gerund = stem + "g"
    return (stem.endswith("in") and "VERB" not in word_classes(word) and word_classes(gerund) == {"VERB"}
            and general_zipf(gerund) >= general_zipf(word) - FOREIGN_COMPLETION_GAP)


def _opens_onto_other_words(word: str) -> bool:
    """``word*`` would match a word of another meaning that general English uses nearly as often as ``word``."""
    floor = general_zipf(word) - FOREIGN_COMPLETION_GAP
    return any(
        general_zipf(other) >= floor
        for other in general_completions(word)
        if other != word and other[len(word):] not in _INFLECTIONS
    )


def is_acronym(word: str) -> bool:
    core = word.strip("-")
    return len(core) >= 2 and sum(c.isupper() for c in core) >= 2 and not core.isdigit()


#: A truncated word the concept query sends with its wildcard: four letters or more of a plain word
#: (``concepts.model._sendable`` strips the wildcard from any other).
_SENDABLE_STEM = re.compile(r"\w{4,}\*")


def sent_as_written(term: str) -> bool:
    """Whether the concept query sends ``term`` with the meaning it is counted with here. It keeps a wildcard only
    after four letters or more of a plain word (``concepts.model._sendable``): ``all-caus*`` goes as ``all-caus`` and
    ``kid*`` as ``kid``. A source matches those as whole words, so ``all-caus`` finds nothing, while the
    in-process matcher (:func:`agentr_dagster.domain.boolean_query.matches`, the lake, the bench's pool) still
    finds "all-cause" in it: such a term grows the local count and brings nothing. The seeds' and the
    pseudo-seeds' term proposals (:mod:`agentr_dagster.domain.seed_check`) leave it out."""
    return all(_SENDABLE_STEM.fullmatch(word.strip('"')) for word in term.split() if "*" in word)
