"""A question sentence cut into chunks at prepositions, clause words and verbs (the lexicon's word classes)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from agentr_dagster.domain.specificity import general_zipf
from agentr_dagster.domain.word_class import (
    can_be_verb,
    is_finite_verb,
    is_graded_adjective,
    is_participle_compound,
    is_past_participle,
    is_plain_verb,
    noun_lemmas,
    past_forms,
    verb_lemmas,
    word_classes,
)
from agentr_dagster.llm.offline.concepts.model import _dedupe, _sendable
from agentr_dagster.llm.offline.concepts.terms import (
    _COPULA_QUESTION_RE,
    PLURAL_ONLY_GAP,
    _eponym,
    _modifier_like,
    _without_predicate_adjective,
)
from agentr_dagster.llm.offline.concepts.vocabulary import (
    _ACRONYM_PAREN_RE,
    _ANSWER_KINDS,
    _BOUNDARY_RE,
    _COMPARATOR_CUE_RE,
    _DESIGN_WORDS,
    _EFFECT_VERBS,
    _EXAMPLE_RE,
    _FUNCTION,
    _INTERVENTION_CUE_RE,
    _JOINING_PREFIXES,
    _ORGANISM_MODIFIERS,
    _OUTCOME_CUE_RE,
    _POPULATION_CUE_RE,
    _PREPOSITIONS,
    _STUDY_NOUNS,
    _UNDERGOING_CUE_RE,
    _WHO_FIRST,
    _WORD,
    DEMOGRAPHIC_WORDS,
    META_PHRASES,
    META_WORDS,
    POPULATION_VARIANTS,
    TOPIC_WORD_ZIPF,
    _content_words,
    _person_word,
    _plural,
    _sentences,
)

_POSSESSIVE_RE = re.compile(r"([A-Za-z][\w-]*)(?:'s|s'|\u2019s|s\u2019)\s+")


def _possessive(match: re.Match) -> str:
    """A possessive as an "of" phrase ("teachers' soft skills" -> "teachers of soft skills"), except a name's
    (a capitalised word the lexicon does not know: "Alzheimer's disease", "Crohn's disease"), which is part of
    the concept's own name and stays as written."""
    word = match.group(1)
    if _eponym(word):
        return match.group(0)
    # one noun after it is a compound ("teachers' expectations": teacher expectations), whose head alone would
    # name nothing; a phrase after it ("teachers' soft skills") is its own concept, the possessor who has it, and
    # so is a hyphenated compound ("children's self-regulation": "children self-regulation" is never written)
    after = re.match(r"([A-Za-z][\w-]*)(?:\s+([A-Za-z][\w-]*))?", match.string[match.end():])
    after = None if after is None or "-" in after.group(1).strip("-") else after
    if after and (after.group(2) is None or after.group(2).casefold() in _FUNCTION | _PREPOSITIONS
                  or after.group(2).casefold() in ("and", "or") or after.group(2).casefold() in _EFFECT_VERBS
                  or is_finite_verb(after.group(2))) and "NOUN" in word_classes(after.group(1)) \
            and "ADJ" not in word_classes(after.group(1)) and not after.group(1).endswith("ing"):
        return word + " "
    return word + " of "


@dataclass
class _Chunk:
    text: str
    cue: str  # the boundary word(s) before it
    items: list[str]
    aspect: bool = False  # followed by "of": an aspect of what comes next ("the pharmacokinetics of vancomycin")


def _acronym_pairs(text: str) -> dict[str, str]:
    """Acronym -> long form, from "long form (LF)": the last words whose initials spell it; else the last words
    whose count is near its letter count and whose initials start with its first letter; else the shortest last
    words that hold its letters in order, from the first word's start (a contraction: "apolipoprotein E (APOE)").
    Initials that spell it win over a near count: "the prevalence of post-traumatic stress disorder (PTSD)" is
    "post-traumatic stress disorder", not ``"prevalence of post-traumatic stress disorder"``."""
    pairs = {}
    for long, acro in _ACRONYM_PAREN_RE.findall(text):
        words = long.split()
        letters = acro.rstrip("s").replace("-", "").upper()
        spans = [words[-k:] for k in range(min(len(words), len(letters) + 2), 0, -1)]
        found = next((c for c in spans if _initials_of(c) == letters), None) or next(
            (c for c in spans if _initials_of(c).startswith(letters[:1]) and abs(len(c) - len(letters)) <= 1),
            None) or next((c for c in reversed(spans) if _contracts_to(c, letters)), None)
        if found:
            pairs[acro] = " ".join(found)
    return pairs


def _initials_of(words: list[str]) -> str:
    """The first letters of the words and of a hyphenated word's parts, in capitals."""
    return "".join(w[0] for w in re.split(r"[\s\-/]+", " ".join(words)) if w).upper()


def _contracts_to(words: list[str], letters: str) -> bool:
    """The acronym's letters, in order, in the words, the first letter the first word's first and the last word
    giving the last (``APOE`` in "apolipoprotein E", ``BMSC`` in "bone marrow stromal cells"), read from the end
    as Schwartz and Hearst's abbreviation matcher does."""
    joined = " ".join(words).upper()
    if len(words) < 2:
        return False
    at = len(joined)
    for i, letter in enumerate(reversed(letters)):
        at = joined.rfind(letter, 0, at)
        if at < 0 or (i == 0 and at < len(joined) - len(words[-1])):
            return False
    return at == 0


def _slashed_names_joined(text: str) -> str:
    """A name the text defines an acronym for whose words a slash joins ("attention-deficit/hyperactivity disorder
    (ADHD)") is one phrase wherever the text says it, the slash a space: a slash elsewhere offers alternatives
    ("pain/fatigue"), and read so the name fell apart into a half-name and the acronym was no variant of it."""
    for long in _acronym_pairs(text).values():
        if "/" in long:
            text = re.sub(re.escape(long), lambda m: m.group(0).replace("/", " "), text, flags=re.I)
    return text


_CAPS_RE = re.compile(r"\b[A-Z]{3,6}\b")


def _initials(word: str) -> list[tuple[str, str]]:
    """The letters a word can give an acronym, each with the word as the long form writes it: its first letter,
    or with a joining prefix split off ("posttraumatic" -> PT, "post-traumatic": "traumatic" is a word)."""
    low = word.casefold()
    out = [(low[:1], low)]
    for prefix in sorted(_JOINING_PREFIXES):
        rest = low[len(prefix):]
        if low.startswith(prefix) and len(rest) >= 5 and word_classes(rest):
            out.insert(0, (prefix[0] + rest[0], f"{prefix}-{rest}"))
    return out


def _undefined_acronyms(text: str, defined: dict[str, str]) -> dict[str, str]:
    """Acronym -> long form for an acronym the text uses without defining it ("PTSD" beside "posttraumatic
    stress symptoms"): the longest run of content words in one sentence whose initials spell it, or spell all
    but its last letter (the long form's head, for which the text has another: "symptoms" for "disorder") for an
    acronym of four letters or more. A prefix split off gives the hyphenated form ("post-traumatic stress")."""
    out: dict[str, str] = {}
    for acro in dict.fromkeys(_CAPS_RE.findall(text)):
        if any(a.rstrip("s") == acro for a in defined) or word_classes(acro.casefold()):
            continue  # defined, or a word in capitals ("EFFECT" in a title set in capitals)
        letters = acro.casefold()
        best: list[str] = []
        for sentence in _sentences(text):
            words = re.findall(r"[A-Za-z][a-z]+(?:-[a-z]+)*", sentence)
            for i in range(len(words)):
                spelled, run = "", []
                for w in words[i: i + len(letters)]:
                    if w.casefold() in _FUNCTION or w.casefold() in META_WORDS:
                        break
                    pick = next(((x, form) for x, form in _initials(w) if letters.startswith(spelled + x)), None)
                    if pick is None:
                        break
                    spelled += pick[0]
                    run.append(pick[1])
                    if (len(run) >= 2 and len(run) > len(best)
                            and (spelled == letters or len(letters) >= 4 and spelled == letters[:-1])):
                        best = list(run)
        if best:
            out[acro] = " ".join(best)
    return out


#: "X as a mediator", "scales as predictors": the part a concept plays, named by a role noun (a general vocabulary
#: of study findings), is no variant of it.
_AS_ROLE_RE = re.compile(r"\bas\s+(?:an?\s+)?(?:(?:potential|possible|independent|early)\s+)?"
                         r"(?:predictors?|mediators?|moderators?|markers?|biomarkers?|indicators?)\b", re.I)


def _split_items(text: str) -> list[str]:
    text = re.split(r",?\s*\bbut\b", text, maxsplit=1, flags=re.I)[0]  # "X, but Y are needed": a clause, no item
    text = _AS_ROLE_RE.sub(" ", text)
    text = re.sub(r"[()\[\]]", ",", text)
    text = _EXAMPLE_RE.sub(",", text)
    # "animal and human methotrexate studies": two organisms sharing what follows, not an item "animal"; not
    # two organisms the list ends with ("to rats or mice and measured X")
    text = re.sub(r"\b(" + "|".join(sorted(_ORGANISM_MODIFIERS)) + r")\s+(?:and|or)\s+(?=(?:"
                  + "|".join(sorted(_ORGANISM_MODIFIERS)) + r")\s+(?!(?:and|or)\b)\w)", "", text, flags=re.I)
    parts = re.split(r",|;|:|\?|\.(?=\s|$)|\band/or\b|\bor\b|\band\b|/", text)
    return [" ".join(p.split()) for p in parts if p and p.strip(" -")]


_ACRONYM_INSIDE_RE = re.compile(
    r"([A-Za-z][\w\-]*(?: [A-Za-z][\w\-]*){0,5}) \(([A-Z][A-Za-z0-9\-]{1,9})\) ([a-z][\w\-]+)"
)


def _acronym_inside(match: re.Match) -> str:
    """ "angiotensin-converting enzyme (ACE) inhibitors" -> "angiotensin-converting enzyme inhibitors (ACE
    inhibitors)": the words after the brackets belong to both forms."""
    long, acro, tail = match.groups()
    if tail.casefold() in _FUNCTION or _BOUNDARY_RE.fullmatch(tail):
        return match.group(0)
    return f"{long} {tail} ({acro} {tail})"


#: Cues that relate what a "Which X ..." question asks for to what it is about.
_ASKED_RELATION_RE = re.compile(r"(?:(?:are|is|were|was)\s+)?(?:predicts?|associated with|related to|linked to|"
                                r"affects?|influences?|determines?)\b", re.I)


#: "Which variants in the X gene are associated with Y": the relation after where the answer is sought.
_PLACE_THEN_RELATION_RE = re.compile(
    r"(?:in|of|on|among|within)\s+[^,;:?]{1,60}?\s+(?:are|is|were|was)\s+(?:predictive of|associated with|related to|"
    r"linked to)\b", re.I)


#: "Which X are used to / for Y": X a kind of answer about Y; "used in Y" says where X is used, X stays the subject.
_USED_RE = re.compile(
    r"(?:are|is|were|was|have been|has been|can be|could be)\s+(?:used|applied|employed)\b(?!\s+(?:in|within|at)\b)",
    re.I)


def _chunks(sentence: str, verbs: frozenset[str] = frozenset()) -> list[_Chunk]:
    verbs = verbs | _verbs_before_possessive(sentence) | _do_question_verb(sentence)
    sentence = _BETWEEN_RE.sub(_between, _between_a_list(sentence))
    sentence = _REPEATED_PREPOSITION_RE.sub(_repeated_preposition, sentence)
    sentence = _AS_AS_RE.sub(_as_as, sentence)
    sentence = _COMPARED_MODIFIERS_RE.sub(_compared_modifiers, sentence)
    sentence = _POSSESSIVE_RE.sub(_possessive, sentence)  # "teachers' soft skills" -> "teachers of soft skills"
    sentence = _ACRONYM_INSIDE_RE.sub(_acronym_inside, sentence)
    out: list[_Chunk] = []
    pos = 0
    cue = ""
    predicate_ahead = bool(_COPULA_QUESTION_RE.match(sentence))
    for m in _clause_boundaries(sentence, verbs):
        piece = _without_purpose_verb(sentence[pos: m.start()], cue)
        if predicate_ahead and piece.strip(" ,;:?.-"):
            piece, found = _without_predicate_adjective(piece)
            predicate_ahead = not found
        if piece.strip(" ,;:?.-"):
            aspect = (m.group(0).casefold() == "of" and not _rare_kind_of(piece) and not _named_technique(piece)
                      or _asked_about_next(cue, sentence, m, piece))
            out.append(_Chunk(piece, cue, _items_without_change(piece), aspect=aspect))
            cue = ""
        cue = (cue + " " + m.group(0)).strip()
        pos = m.end()
    piece = _without_purpose_verb(sentence[pos:], cue)
    if predicate_ahead and piece.strip(" ,;:?.-"):
        piece = _without_predicate_adjective(piece)[0]
    if piece.strip(" ,;:?.-"):
        out.append(_Chunk(piece, cue, _items_without_change(piece)))
    for k in range(len(out) - 1):
        # "X of students", "X of nurses": who has X, not what X is an aspect of
        named = [w for i in out[k].items for w in _content_words(i)]
        if (out[k].aspect and out[k + 1].cue.casefold().split()[-1:] == ["of"] and _names_who(out[k + 1].items)
                and (len(named) >= 2 or any(general_zipf(w) < TOPIC_WORD_ZIPF for w in named))):
            out[k].aspect = False
    return out


def _names_who(items: list[str]) -> bool:
    heads = [_content_words(i)[-1].casefold() for i in items if _content_words(i)]
    return bool(heads) and all(_person_word(h) for h in heads)


def _rare_kind_of(piece: str) -> bool:
    """"the transgenerational effects (of X)": a rare modifier names the concept, the meta head only its kind; no
    aspect of X as "the prevalence of X" is."""
    words = [w for w in re.findall(_WORD, piece) if w.casefold() not in _DETERMINERS]
    return (len(words) == 2 and words[1].casefold() in META_WORDS and words[0].isalpha()
            and general_zipf(words[0]) < KIND_MODIFIER_ZIPF)


def _named_technique(piece: str) -> bool:
    """"Metamorphic testing (of X)", "mutation testing (of X)": a gerund named by a rare modifier is a technique
    applied to X, a subject of its own, not an aspect of X as "the pharmacokinetics of X" is (the title lost the
    technique and kept X alone: every study of X); so is one gerund rare in general English ("deprescribing",
    "splinting of the wrist")."""
    words = [w for w in re.findall(_WORD, piece) if w.casefold() not in _DETERMINERS]
    head = words[-1].casefold() if words else ""
    if len(words) == 1 and head.endswith("ing") and head.isalpha() and head not in META_WORDS:
        return general_zipf(head) < TOPIC_WORD_ZIPF and (bool(verb_lemmas(head)) or not word_classes(head))
    return (2 <= len(words) <= 3 and head.endswith("ing") and bool(verb_lemmas(head))
            and head not in META_WORDS and all(w.isalpha() or "-" in w for w in words)
            and any(general_zipf(w) < TOPIC_WORD_ZIPF for w in words[:-1]))


#: How rare a modifier must be (Zipf) to name the concept before "effects of X": "transgenerational" 1.7; not
#: "neuroprotective" 2.0 ("the neuroprotective effect of erythropoietin" is about erythropoietin).
KIND_MODIFIER_ZIPF = 2.0


_USED_TO_RE = re.compile(r"\b(?:used|applied|employed)\s+to$", re.I)


def _without_purpose_verb(piece: str, cue: str) -> str:
    """After "used to" the next word is the purpose's verb ("paradigms used to test X"), no word of X."""
    first = piece.split()[:1]
    if first and _USED_TO_RE.search(cue) and can_be_verb(first[0]) and is_plain_verb(first[0].casefold()):
        return piece.replace(first[0], "", 1)
    return piece


#: Verbs that say which way something changes ("reducing stress", "improving adherence"): their "-ing" form before
#: a concept is the direction of an effect, not a word the studies share (a general vocabulary, not a field's).
#: Words after which "to" opens an infinitive of purpose ("aim to fix", "designed to detect").
_PURPOSE_WORDS = frozenset("aim aims aimed seek seeks sought designed intended developed used attempt attempts".split())


def _purpose_infinitive(words: list[re.Match], k: int) -> bool:
    """The word is a purpose word before "to" and a verb ("tools aim to detect faults"), or that verb."""
    def low(j: int) -> str:
        return words[j].group(0).casefold() if 0 <= j < len(words) else ""

    if low(k) in _PURPOSE_WORDS and low(k + 1) == "to" and is_plain_verb(low(k + 2)):
        return True
    # "use X to V Y" ("How do teachers use learning analytics dashboards to support struggling students?"): what
    # is used is a phrase of its own, the verb after "to" its purpose (read as a phrase the chunk's last noun,
    # "students", made the tool a block of people)
    used = any(low(j) in _USE_FORMS for j in range(max(0, k - 6), k - 2))
    return low(k - 1) == "to" and (low(k - 2) in _PURPOSE_WORDS or used) and is_plain_verb(low(k))


_USE_FORMS = frozenset("use uses using".split())


_CHANGE_VERBS = frozenset(
    "reduce improve prevent increase decrease promote enhance raise treat manage facilitate encourage "
    "mitigate address tackle combat limit curb boost strengthen foster alleviate relieve minimise minimize optimise "
    "optimize maximise maximize maintain sustain change alter modify shape influence".split())


def _items_without_change(piece: str) -> list[str]:
    """The piece's list items, each without a leading change verb's "-ing" form ("for reducing stress": stress),
    and none that "its" opens (:func:`_refers_back`)."""
    out = []
    for item in _split_items(piece):
        if _refers_back(item):
            continue
        first, _, rest = item.partition(" ")
        low = first.casefold()
        if rest and low.endswith("ing") and word_classes(low) <= {"VERB", "ADJ"} and any(
                v in _CHANGE_VERBS for v in verb_lemmas(low)):
            item = rest
        out.append(item)
    return out


def _refers_back(item: str) -> bool:
    """An item opened by "its" names what belongs to the thing listed before it ("bisphenol A and its analogues",
    "the drug and its metabolites"): the noun alone ("analogues") is every such thing's, no concept of its own."""
    return item.split(" ", 1)[0].casefold() == "its"


def _asked_about_next(cue: str, sentence: str, boundary: re.Match, piece: str = "") -> bool:
    """The chunk right after "Which" / "What" asks for a kind of answer about what follows, an aspect of it as "the
    prevalence of X" is: "Which tests are used to assess X", "What are the risk factors for X", "What are the
    barriers to implementing X"."""
    low = cue.casefold()
    if low.split()[:1] not in (["which"], ["what"]):
        return False
    used = low in ("which", "what") and bool(_USED_RE.match(sentence, boundary.start()))
    # "Which risk factors predict X", "What genetic variants are associated with X": the answer's kind, about X
    # ("Which code smells are associated with X" asks about code smells: no kind of answer)
    head = (re.findall(_WORD, piece) or [""])[-1].casefold()
    relation = (low in ("which", "what") and head in _ANSWER_KINDS
                and bool(_ASKED_RELATION_RE.match(sentence, boundary.start())
                         or _PLACE_THEN_RELATION_RE.match(sentence, boundary.start())))
    return used or relation or _generic_means(low, piece, boundary) or boundary.group(0).casefold() in ("for", "to")


#: Heads of the means a "Which X improve Y" question asks for (a general vocabulary of what is done, not a field's).
_MEANS_HEADS = frozenset(
    "strategies interventions approaches practices programmes programs methods techniques tools activities policies "
    "measures".split())


def _generic_means(cue: str, piece: str, boundary: re.Match) -> bool:
    """"Which teaching strategies improve X": a kind of means asked for, named by a means head and common English
    before it (each word at least :data:`TOPIC_WORD_ZIPF`), as the subject of a verb; the question is about X, what
    the means act on. A rarer modifier names the concept ("Which dietary interventions ..."), and so does a
    compound ("Which search-based techniques ...": general English counts its parts, not the compound)."""
    words = [w for w in re.findall(_WORD, piece) if w.casefold() not in _DETERMINERS]
    verb = boundary.group(0)
    return (cue in ("which", "what") and bool(words) and words[-1].casefold() in _MEANS_HEADS
            and all(w.isalpha() and general_zipf(w) >= TOPIC_WORD_ZIPF for w in words[:-1])
            and (is_finite_verb(verb) or can_be_verb(verb)) and verb.casefold() not in _FUNCTION)


def _verbs_before_possessive(sentence: str) -> frozenset[str]:
    """The words used as a verb before a possessive noun: one that can be a verb, after a noun that is no adjective
    and that it agrees with ("Do nudges in school cafeterias increase children's fruit intake": "increase"; not
    "care" in "primary care patients' views", where "primary" modifies it, nor "triage" in "telephone triage
    nurses' decisions")."""
    out = set()
    for m in _BEFORE_POSSESSIVE_RE.finditer(sentence):
        before, word = m.group(1), m.group(2)
        # the verb agrees with its noun: "cafeterias increase", "training increases"; not "telephone triage"
        agrees = _plural(before) != _plural(word)
        if agrees and can_be_verb(word) and "NOUN" in word_classes(before) and "ADJ" not in word_classes(before):
            out.add(word.casefold())
    return frozenset(out)


#: "between" and what follows it up to the clause's end: where a list inside X hides the "and" of Y.
_BETWEEN_SPAN_RE = re.compile(r"\bbetween\s+([^;:?.()]+)", re.I)


def _between_a_list(sentence: str) -> str:
    """"the association between the A, B and C polymorphisms of the G gene and D": X holds a list, so its commas
    hide the "and" that names Y from :data:`_BETWEEN_RE`; the last "and" of the span, with no comma after it, is
    Y's ("... of the G gene on D"), the list's own "and" stays; so is a lone "and" after a list that "or" closes
    ("interactions between apixaban, rivaroxaban or dabigatran and antiepileptic drugs")."""
    def last_and(m: re.Match) -> str:
        span = m.group(1)
        head, _, tail = span.partition(",")
        ands = [a for a in re.finditer(r"\s+and\s+", span)]
        own_conjunction = len(ands) >= 2 or bool(ands) and bool(re.search(r"\s+or\s+", span[: ands[0].start()]))
        if not tail or " and " in f" {head} " or not own_conjunction or "," in span[ands[-1].end():]:
            return m.group(0)
        if _alternatives_before(m.string[: m.start()]):
            return m.group(0)  # "switching between A, B and C": alternatives, a list
        cut = ands[-1]
        return m.group(0)[: m.start(1) - m.start()] + span[: cut.start()] + " on " + span[cut.end():]
    return _BETWEEN_SPAN_RE.sub(last_and, sentence)


def _between(m: re.Match) -> str:
    """"the association between X and Y" as "X on Y": two concepts, the second what the first is related to; but
    "switching between X and Y" or "choosing between X and Y" names alternatives of one concept, a list."""
    if _alternatives_before(m.string[: m.start()]):
        return f"between {m.group(1)} and "
    return f"between {m.group(1)} on "


def _alternatives_before(text: str) -> bool:
    """The word before "between" makes what follows alternatives of one concept ("switching", "choice")."""
    before = words[-1].casefold() if (words := re.findall(_WORD, text)) else ""
    return before.endswith("ing") or before in ("switch", "switches", "transition", "transitions", "choice", "choices")


#: "X as safe and effective as Y": an equality comparison, Y what X is compared with.
_AS_AS_RE = re.compile(r"\bas\s+((?:[a-z-]+\s+(?:and|or)\s+)?[a-z-]+)\s+as\s+", re.I)


def _as_as(m: re.Match) -> str:
    """"Is X as effective as Y", "as safe and effective as Y" read as "X compared with Y": what follows is the
    comparator, not another variant of X (``X OR Y`` is every study of Y). Only where the words between are
    adjectives and never adverbs ("as well as", "as long as", "as early as" are no comparison of X with Y)."""
    words = [w for w in m.group(1).split() if w.casefold() not in ("and", "or")]
    if all("ADJ" in word_classes(w) and "ADV" not in word_classes(w) for w in words):
        return " compared with "
    return m.group(0)


#: "oral versus intravenous levetiracetam": two modifiers compared, the noun after the second shared by both.
_COMPARED_MODIFIERS_RE = re.compile(
    r"\b([A-Za-z][\w-]*)\s+(versus|vs\.?|compared (?:with|to))\s+([A-Za-z][\w-]*)((?:\s+[A-Za-z][\w-]*){1,3})",
    re.I)


def _compared_modifiers(m: re.Match) -> str:
    """"oral versus intravenous X" as "oral X versus intravenous X": the first modifier alone ("oral") names no
    concept. Only where both compared words modify (an adjective or a modifier's ending) and a noun follows,
    after other modifiers of it ("synchronous versus asynchronous online learning": "synchronous online
    learning versus asynchronous online learning"; "online" is no noun)."""
    first, cue, second, rest = m.groups()

    def modifies(w: str) -> bool:
        return "ADJ" in word_classes(w) or (_modifier_like(w) and not word_classes(w) - {"ADJ"})

    def noun_like(w: str) -> bool:
        return w.casefold() not in _FUNCTION and word_classes(w) != {"ADJ"} and "ADV" not in word_classes(w)

    if not (modifies(first) and modifies(second)):
        return m.group(0)
    words = rest.split()
    for j, w in enumerate(words):
        if noun_like(w):
            head = " ".join(words[: j + 1])
            after = "".join(" " + x for x in words[j + 1:])
            return f"{first} {head} {cue} {second} {head}{after}"
        if w.casefold() in _FUNCTION or not modifies(w):
            break
    return m.group(0)


#: "the association between X and Y": two concepts, the second what the first is related to.
_BETWEEN_RE = re.compile(r"\bbetween\s+((?:(?!\b(?:and|between)\b)[^,;:?])+?)\s+and\s+", re.I)


#: A preposition said again after "and" / "or" ("the effects of X and of Y", "in children or in adults").
_REPEATED_PREPOSITION_RE = re.compile(r"\b(of|in|among|for|on)\s+([^,;:?]{1,80}?)\s+(and|or)\s+\1\s+", re.I)


def _repeated_preposition(m: re.Match) -> str:
    """"the effects of X and of Y" as "the effects of X and Y": one list of the preposition's objects, not a
    second chunk that leaves Y a concept apart from what X is listed with."""
    return f"{m.group(1)} {m.group(2)} {m.group(3)} "


_WORD_RE = re.compile(_WORD)


_DETERMINERS = frozenset("the a an this that these those its their our his her each every any some no".split())


_SUBTITLE_RE = re.compile(r"(?<=\w):(?=\s+[A-Z][a-z])")


_DETERMINER_NEXT_RE = re.compile(r"\s+(?:the|a|an|their|its|this|these|those|his|her|our)\s", re.I)


#: A noun, then a word right before a possessive noun, which stands as a determiner ("nudges increase children's
#: intake"): the middle word is a verb when it can be one.
_BEFORE_POSSESSIVE_RE = re.compile(
    r"\b([A-Za-z][\w-]*)\s+([a-z][a-z-]*)\s+(?=[A-Za-z][\w-]*(?:'s|s'|\u2019s|s\u2019)\s)")


def _verbs_in_text(sentences: list[str]) -> frozenset[str]:
    """Words a text uses as verbs somewhere: one that can be a verb (not an adjective) followed by an adjective
    and a noun ("..., favour active involvement"), as a noun phrase never is. The text uses a word in one sense
    throughout, so its other sentences (a title: "the role adults with cancer favour in ...") cut there too."""
    out: set[str] = set()
    for sentence in sentences:
        # words in a row: no punctuation between the three ("panic disorder, social anxiety" is a list)
        runs = [r.split() for r in re.split(r"[^\w\s'\u2019-]+", sentence)]
        for before, w, adj, noun in (q for r in runs for q in zip(["", *r], r, r[1:], r[2:], strict=False)):
            # not after a determiner or an adjective ("the design", "long studies"), not a plural noun ("studies")
            if (can_be_verb(w) and w.islower() and adj.islower() and noun.islower()
                    and before.casefold() not in _DETERMINERS and before.casefold() not in _PREPOSITIONS
                    and not (before and word_classes(before) <= {"ADJ"})
                    and not (w.endswith("s") and "NOUN" in word_classes(w)) and "ADJ" not in word_classes(w)
                    and "ADJ" in word_classes(adj) and not word_classes(adj) & {"VERB"} and not is_graded_adjective(adj)
                    and word_classes(noun) == {"NOUN"}):
                out.add(w.casefold())
    return frozenset(out)


#: A sentence that opens "How <people> V (and V) ...": the title of a review of experiences ("How midwives
#: experience and cope with stillbirth"), its words after the plural subject its verbs.
_HOW_PEOPLE_VERB_RE = re.compile(
    r"^\W*how\s+(?:(?:do|does|did)\s+)?(?:[\w'\u2019-]+\s+){0,3}?[a-z][\w'-]*s\s+([a-z]+)"
    r"(?:\s+(?:and|or)\s+([a-z]+))?\b", re.I)


#: "How do <people> use / experience / perceive X?": a question of what people do with X or live through; the verb
#: in its plain form after "do" and the people (up to seven words: "patients with chronic kidney disease").
HOW_PEOPLE_DO_RE = re.compile(
    r"^\W*how\s+(?:do|does|did)\s+(?P<who>(?:[\w'\u2019-]+\s+){1,7}?)(?P<verb>use|experience|perceive)\s+(?P<x>[^?]+)",
    re.I)


def _how_people_verbs(sentences: list[str]) -> frozenset[str]:
    """The verbs of a title "How <people> V and V with X" (:data:`_HOW_PEOPLE_VERB_RE`): words that can be verbs
    in their plain form ("experience", "cope"), though nouns too; read as nouns they named a concept of their own
    ("midwives experience", ``cope AND midwiv*``). So is a question's "How do <people> experience X?"
    (:data:`HOW_PEOPLE_DO_RE`: "chronic kidney disease experience haemodialysis" was one phrase)."""
    asked = HOW_PEOPLE_DO_RE.match(sentences[0]) if sentences and "?" in sentences[0] else None
    if asked is not None:
        return frozenset({asked.group("verb").casefold()})
    # a question ("How does peer feedback influence ...?") has its own frames
    m = _HOW_PEOPLE_VERB_RE.match(sentences[0]) if sentences and "?" not in sentences[0] else None
    if m is None:
        return frozenset()
    found = [w for w in m.groups() if w and can_be_verb(w) and not w.endswith(("s", "ed", "ing"))]
    return frozenset(w.casefold() for w in found) if len(found) == len([w for w in m.groups() if w]) else frozenset()


#: A plural noun, a relative pronoun, then a word in its plain form before another word ("studies that measure
#: transparency", "trials that give households feedback", "papers that train defect models"), past a gloss in
#: brackets ("studies (surveys, panel data) that measure X").
_RELATIVE_CLAUSE_RE = re.compile(
    r"\b([A-Za-z][\w-]*)(?:\s*\([^()]*\))?\s+(that|who|which)\s+([a-z]{3,})\s+(?=[A-Za-z0-9])")


def _relative_clause_verbs(sentences: list[str]) -> frozenset[str]:
    """Words a text uses as a relative clause's verb everywhere (:func:`_relative_verb` says "text"): after a
    plural noun, or past a gloss in brackets after it, "that" / "who" / "which" and a verb's plain form ("Include
    studies that measure trust", "trials that expose participants to X"), though a noun too: the text uses the
    word in that sense throughout ("..., and measure heating costs"), so it cuts there as a verb cuts, never
    opening a concept's phrase ("measure transparency", "give households")."""
    plain = {m.group(3).casefold() for sentence in sentences for m in _RELATIVE_CLAUSE_RE.finditer(sentence)
             if _relative_verb(m.group(1), m.group(3)) == "text"}
    return frozenset(plain | _preposed_relative_verbs(sentences))


#: "in which / to whom / where" and the clause's plural subject, then its next word ("experiments in which rodents
#: received X", "trials where patients underwent X").
_PREPOSED_RELATIVE_RE = re.compile(
    r"\b(?:(?:in|to|for|with|by) (?:which|whom)|where)\s+(?:the\s+)?([a-z][\w-]*)\s+([a-z]{4,})\s+(?=[A-Za-z0-9])")


def _preposed_relative_verbs(sentences: list[str]) -> set[str]:
    """A past form right after the plural subject of a relative clause opened by "in which" or "where"
    ("experiments in which rodents received Lactobacillus, Bifidobacterium or ..."): the clause's verb, though the
    lexicon also knows it as an adjective ("received wisdom"); it cuts there, so what was received is the list,
    not a phrase "rodents received Lactobacillus"."""
    return {m.group(2) for sentence in sentences for m in _PREPOSED_RELATIVE_RE.finditer(sentence)
            if _plural(m.group(1)) and "NOUN" in word_classes(m.group(1)) and m.group(2) not in _FUNCTION
            and is_past_participle(m.group(2))}


def _relative_verb(noun: str, word: str) -> str:
    """How ``word``, right after "that" / "which" / "who" following ``noun``, reads: "text" for a verb's plain form
    after a plural noun (a verb wherever the text uses it: :func:`_relative_clause_verbs`); "here" for a verb's
    form after another noun or a name the lexicon does not know, there only (:func:`_relative_clause_verb`): a past
    form ("studies that measured loneliness"), a plain form (the clause may belong to a noun further back: "trials
    of CBT-I that measure X") or an "-s" form after a singular ("a study that reports X"); "" for no verb. After a
    verb "that" opens a clause whose first word may be a modifier ("found that reduced intake ..."), so the word
    before "that" is a noun, never a verb's "-ed" form."""
    low, before = word.casefold(), noun.casefold()
    if not word.islower() or before in _FUNCTION or low in _FUNCTION or low in _AUXILIARIES:
        return ""
    if _plural(noun) and "NOUN" in word_classes(noun) and is_plain_verb(low):
        return "text"
    if (word_classes(noun) and "NOUN" not in word_classes(noun) or before.endswith("ed")
            or not noun.replace("-", "").isalnum()):
        return ""
    if is_past_participle(low):
        return "here"
    if "ADJ" in word_classes(low) or not can_be_verb(low):
        return ""
    return "here" if is_plain_verb(low) or not _plural(noun) and low.endswith("s") and bool(verb_lemmas(low)) else ""


#: Words after which the next one starts a subject, never a verb ("How effective are nudges applied by X").
_AUXILIARIES = frozenset(
    "are is was were be been being do does did have has had can could will would may might should shall".split())


#: A question whose verb follows its subject in the plain form: "Does X ...", "How do X ...".
_AUX_OPENING_RE = re.compile(
    r"^\s*(?:(?:how|why|when|to what extent|in what ways?)\s+)?(?:do|does|did|can|could|will|would|may|might|should)\b",
    re.I)


#: "Which X change Y" (no auxiliary after "Which"): the verb follows its plural subject in the plain form.
_WHICH_SUBJECT_RE = re.compile(r"^\s*(?:which|what)\s+(?!(?:is|are|was|were|do|does|did|have|has|can)\b)", re.I)


def _who_first_words(sentence: str, words: list[re.Match]) -> tuple[str, int]:
    """A question past its leading "In / Among / For <who>, " (:data:`_WHO_FIRST`), and how many words that
    phrase holds: "In adults with obesity, does X lead to Y?" is asked as "does X lead to Y?" (its verb after
    "does X"), and no word of who the studies are about is the question's verb ("autism spectrum disorder")."""
    m = re.match(_WHO_FIRST, sentence, re.I)
    if m is None or not m.group(0):
        return sentence, 0
    return sentence[m.end():], sum(1 for w in words if w.start() < m.end())


def _effect_verb_at(sentence: str, words: list[re.Match]) -> int:
    """The position of a question's verb of effect when it is a noun too: after "Does X" / "How do X" (or "Which
    X") the verb is in its plain form whatever X's number, right after a noun ("How does teacher feedback
    influence students' writing?"); of several, the last ("Does climate change affect X": affect), -1 when none.
    Who is named first ("In older adults, does X ...") is passed over (:func:`_who_first_words`)."""
    asked, first = _who_first_words(sentence, words)
    if not (_AUX_OPENING_RE.match(asked) or _WHICH_SUBJECT_RE.match(asked)):
        return -1
    at = -1
    for k in range(first + 2, len(words) - 1):
        low, prev = words[k].group(0).casefold(), words[k - 1].group(0)
        if (low in _EFFECT_VERBS and "NOUN" in word_classes(prev) and "ADJ" not in word_classes(prev)
                and sentence[words[k - 1].end(): words[k].start()].strip() == ""
                and words[k + 1].group(0)[:1].isalpha()):
            at = k
    return at


#: A yes/no question opened by "Do" / "Does" / "Did": its verb follows the subject in the plain form.
_DO_OPENING_RE = re.compile(r"^\s*(?:do|does|did)\s", re.I)


def _past_form_zipf(word: str) -> float:
    """How common a verb's past form is in general English ("showed" 4.9, "disordered" 3.0): of two words in a row
    that can both be a plain verb, the one English uses more as a verb."""
    return max((general_zipf(f) for f in past_forms(word)), default=0.0)


def _do_question_verb(sentence: str) -> frozenset[str]:
    """The verb of a "Do / Does / Did X ..." question (:func:`_do_question_verb_at`), read before its possessives
    become "of" phrases ("boost graduates' employment": "graduates'" is a noun, never the verb)."""
    words = list(_WORD_RE.finditer(sentence))
    k = _do_question_verb_at(sentence, words) if _effect_verb_at(sentence, words) < 0 else -1
    return frozenset({words[k].group(0).casefold()}) if k >= 0 else frozenset()


def _do_question_verb_at(sentence: str, words: list[re.Match]) -> int:
    """The position of a "Do / Does / Did X ..." (or "Which X ...") question's verb when no verb of effect or word
    that can only be a verb tells it: the first word after the subject's noun that can be a verb in its plain form
    ("Do rodent models of PTSD show deficits", "Does participatory budgeting increase trust"); not after an adjective
    ("post-traumatic stress": a noun's modifier), and of two such words in a row the one English uses more as a
    verb ("stress disorder show": show). -1 when none, or when another word says where the verb is."""
    # "Which animal models of X show Y": so with no auxiliary anywhere ("Which regression test selection techniques
    # are used ...": "are" is the verb, "test" a noun); who is named first is passed over ("In adults with
    # obesity, does X lead to Y": lead)
    asked, first = _who_first_words(sentence, words)
    which = bool(_WHICH_SUBJECT_RE.match(asked)) and not any(m.group(0).casefold() in _AUXILIARIES for m in words)
    if not (_DO_OPENING_RE.match(asked) or which) or any(is_finite_verb(m.group(0)) for m in words[first + 2:]):
        return -1

    def candidate(k: int) -> bool:
        if k < first + 2 or k + 1 >= len(words):
            return False
        low, prev = words[k].group(0).casefold(), words[k - 1].group(0)
        before = sentence[: words[k].start()]
        if before.count("(") > before.count(")"):  # inside a gloss: "(proton beam, carbon-ion therapy)"
            return False
        prev_classes = word_classes(prev)
        nominal = ("NOUN" in prev_classes or prev.casefold().endswith("ing") or not prev_classes) and (
            prev_classes != {"ADJ"})
        return (can_be_verb(low) and is_plain_verb(low) and low not in _FUNCTION and nominal
                and prev.casefold() not in _FUNCTION | _PREPOSITIONS | _DETERMINERS | _AUXILIARIES
                and sentence[words[k - 1].end(): words[k].start()].strip() == ""
                and words[k + 1].group(0)[:1].isalpha())

    for k in range(2, len(words)):
        if candidate(k):
            run = [k]
            while candidate(run[-1] + 1):
                run.append(run[-1] + 1)
            return max(run, key=lambda j: _past_form_zipf(words[j].group(0)))
    return -1


def _clause_boundaries(sentence: str, verbs: frozenset[str] = frozenset()) -> list[re.Match]:
    """Where a sentence is cut into concept chunks: the boundary words (prepositions, clause words), and every
    word that can only be a verb (:func:`~agentr_dagster.domain.word_class.is_finite_verb`: "chronic stress
    impairs spatial memory", "does isolation impair recognition memory"), a predicate between two concepts, or
    that the text uses as a verb elsewhere (``verbs``: :func:`_verbs_in_text`)."""
    # a colon before a capital starts a subtitle ("Arthritis: Lessons for ..."): a new chunk, not a list item
    cuts = list(_BOUNDARY_RE.finditer(sentence)) + list(_SUBTITLE_RE.finditer(sentence))
    spans = [(m.start(), m.end()) for m in cuts]
    words = list(_WORD_RE.finditer(sentence))
    effect_verb = _effect_verb_at(sentence, words)
    # in a question opened by "to be" that is its verb: a noun before an adjective is the subject's head, the
    # adjective its predicate ("are herbal remedies safe"), no verb and its object's modifier
    copular = bool(_COPULA_QUESTION_RE.match(sentence))
    for k, m in enumerate(words):
        inside = any(a <= m.start() < b for a, b in spans)
        # a word that can be a verb is one right before a determiner ("does X change the pharmacokinetics"), or
        # between a noun and an adjective ("does exposure to violent games increase aggressive behaviour"): a noun
        # is not followed by an adjective inside a noun phrase
        nxt = words[k + 1].group(0) if k + 1 < len(words) else ""
        verb = is_finite_verb(m.group(0)) or m.group(0).casefold() in verbs or can_be_verb(m.group(0)) and (
            bool(_DETERMINER_NEXT_RE.match(sentence, m.end()))
            or (k > 0 and not copular and "ADJ" not in word_classes(m.group(0)) and "ADJ" in word_classes(nxt)
                # a preposition the lexicon also calls an adjective ("after", "under", "over") opens what follows:
                # "postpartum haemorrhage after vaginal birth" names the haemorrhage, no verb "haemorrhage" (a
                # verb's plain form is no finite verb after a singular noun; "behaviour rose after X" stays one)
                and (nxt.casefold() not in _PREPOSITIONS or verb_lemmas(m.group(0).casefold()) != (
                    m.group(0).casefold(),))
                # a compound is read by its last part ("pro-eating-disorder content"): a modifier there, no verb
                and "-" not in m.group(0)
                and words[k - 1].group(0).casefold() not in _PREPOSITIONS | _AUXILIARIES | {"and", "or", "nor"}
                # after the verb it opens the verb's object ("preserve muscle mass": "mass" may be an adjective)
                and words[k - 1].group(0).casefold() not in verbs
                # after an adjective it is that adjective's noun ("are serious games used in X"), as after a
                # participle's compound ("nurse-led telephone follow-up interventions")
                and word_classes(words[k - 1].group(0).casefold()) != {"ADJ"}
                and not is_participle_compound(words[k - 1].group(0))
                and sentence[words[k - 1].end(): m.start()].strip() == "" and sentence[m.end(): words[k + 1].start()]
                .strip() == ""))
        # a verb's "-ing" form that the lexicon has no noun for, before "to" ("measurements relating to sleep")
        # or right after "studies" / "trials" ("studies investigating X": a clause, not a phrase "investigating X")
        # or after a plural noun before what it acts on ("interventions targeting X", "patients receiving X")
        prev = words[k - 1].group(0) if k > 0 else ""
        plural_noun_before = (_plural(prev) and "NOUN" in word_classes(prev) and "AUX" not in word_classes(prev)
                              and not _adjective_compound(prev)
                              and sentence[words[k - 1].end(): m.start()].strip() == "")
        verb = verb or (m.group(0).casefold().endswith("ing") and word_classes(m.group(0)) == {"VERB"} and k > 0
                        and (nxt.casefold() == "to" or prev.casefold() in _STUDY_NOUNS
                             or (bool(nxt) and plural_noun_before)))
        # an "-ing" form between a plural noun and a preposition is that noun's verb, though a noun too ("adults
        # living in nursing homes", "patients presenting with X"), also past what they have ("people with
        # dementia living in care homes")
        verb = verb or (m.group(0).casefold().endswith("ing") and "VERB" in word_classes(m.group(0))
                        and (plural_noun_before or _plural_with_before(sentence, words, k))
                        and nxt.casefold() in ("in", "with", "at", "under", "on"))
        # a verb's plain form right after a plural noun, before another word ("interventions show promise"): a
        # compound's modifier is singular ("patient care"), so the plural noun is the subject and the word its verb
        low = m.group(0).casefold()
        # after plural study nouns an "-ing" form that is a noun too is their verb before what it acts on
        # ("studies testing rumination as a mediator", "trials reporting remission"), never a compound's head
        verb = verb or (low.endswith("ing") and "VERB" in word_classes(low) and prev.casefold() in _STUDY_NOUNS
                        and _plural(prev) and nxt[:1].isalpha() and nxt.casefold() not in _FUNCTION)
        verb = verb or (plural_noun_before and len(low) >= 3 and is_plain_verb(low) and nxt.isalpha()
                        and nxt.casefold() not in _FUNCTION and not _eponym(prev))
        verb = verb or _effect_verb_after_subject(low, prev, nxt, plural_noun_before, sentence[
            words[k - 1].end(): m.start()] if k else "x")
        # a verb's "-ed" form right after "studies" / "trials" is their verb ("Which rodent studies tested X")
        verb = verb or (prev.casefold() in _STUDY_NOUNS and is_past_participle(low) and nxt[:1].isalpha()
                        and sentence[words[k - 1].end(): m.start()].strip() == "")
        # a change verb after "to" is the purpose's verb ("interventions to increase X"), even one that is a noun too
        verb = verb or (m.group(0).casefold() in _CHANGE_VERBS and k > 0 and words[k - 1].group(0).casefold() == "to")
        # "aim to", "designed to" and any verb after ("techniques aim to fix software bugs"): a purpose, no phrase
        verb = verb or _purpose_infinitive(words, k)
        verb = verb or k == effect_verb or _relative_clause_verb(sentence, words, k) or _modal_and_verb(words, k)
        verb = verb or _second_past_predicate(words, k)
        if not inside and verb:
            cuts.append(m)
    return sorted(cuts + _recipient_to(words, cuts), key=lambda m: m.start())


def _recipient_to(words: list[re.Match], cuts: list[re.Match]) -> list[re.Match]:
    """The "to" after a past verb's object ("exposed larval zebrafish to fluoxetine", "gave ketamine to rats"):
    a preposition that opens what the object met or went to, another concept (it was read inside one phrase,
    "zebrafish to fluoxetine"); never an infinitive's "to" ("used X to predict")."""
    out = []
    for k in range(1, len(words) - 1):
        if words[k].group(0) != "to" or is_plain_verb(words[k + 1].group(0).casefold()):
            continue
        before = [c for c in cuts if c.start() < words[k].start()]
        last = max(before, key=lambda c: c.start()) if before else None
        if last is not None and last.end() <= words[k - 1].start() and _past_verb(last.group(0)) \
                and "AUX" not in word_classes(last.group(0).casefold()):  # "is switching from A to B": no object
            out.append(words[k])
    return out


#: Words a clause's subject is said by before its verb ("studies that gave", "we reviewed").
_CLAUSE_SUBJECTS = frozenset("that which who we".split())


def _past_verb(word: str) -> bool:
    """A verb's past form, lower case: not its own lemma ("gave" of "give", "measured" of "measure")."""
    low = word.casefold()
    return word.islower() and "VERB" in word_classes(low) and bool(lemmas := verb_lemmas(low)) and low not in lemmas \
        and not low.endswith("ing")


def _second_past_predicate(words: list[re.Match], k: int) -> bool:
    """A verb's past form after "and" in a clause whose own verb was a past form after its subject ("studies that
    gave ketamine to rats or mice and measured immobility time", "we searched X and screened Y"): a second
    predicate of the clause, never a modifier in a list of what the first one took ("measured immobility" was
    a variant of the ketamine)."""
    if k < 3 or words[k - 1].group(0) != "and" or not _past_verb(words[k].group(0)):
        return False
    nxt = words[k + 1].group(0) if k + 1 < len(words) else ""
    if not nxt[:1].isalpha() or nxt.casefold() in _FUNCTION:
        return False
    return any(words[j - 1].group(0).casefold() in _CLAUSE_SUBJECTS and _past_verb(words[j].group(0))
               for j in range(max(1, k - 15), k - 1))


#: English modal auxiliaries: the plain form after one (past "not" or an adverb) is a verb.
_MODALS = frozenset("can cannot could may might must should would will shall".split())


def _modal_and_verb(words: list[re.Match], k: int) -> bool:
    """A modal auxiliary before a verb's plain form, or that verb ("game-based learning can increase motivation",
    "X may benefit relatives"): the two are the sentence's predicate, though the verb is a noun too, and no part
    of a concept's phrase ("learning can increase motivation", "increase motivation" were terms). Lower case
    only ("May", the month)."""
    low = [w.group(0) for w in words[max(0, k - 2): k + 3]]
    at = k - max(0, k - 2)
    if low[at] in _MODALS:
        rest = [w for w in low[at + 1:] if w != "not" and not w.endswith("ly")][:1]
        return bool(rest) and is_plain_verb(rest[0]) and rest[0].islower()
    before = [w for w in low[:at] if w != "not" and not w.endswith("ly")][-1:]
    return bool(before) and before[0] in _MODALS and low[at].islower() and is_plain_verb(low[at])


def _effect_verb_after_subject(low: str, prev: str, nxt: str, plural_before: bool, between: str) -> bool:
    """An effect verb right after its subject noun: its past form after a plural ("heat waves increased
    admissions", "images increased body dissatisfaction"), its "-s" form after a singular ("wildfire smoke
    increases admissions"); no modifier of what follows ("increased body dissatisfaction" was a term)."""
    if not (nxt[:1].isalpha() and nxt.casefold() not in _FUNCTION and set(verb_lemmas(low)) & _EFFECT_VERBS):
        return False
    if low.endswith("ed"):
        return plural_before
    singular = (not between.strip() and prev.islower() and not _plural(prev) and "NOUN" in word_classes(prev)
                and prev.casefold() not in _FUNCTION)
    return low.endswith("s") and singular


def _adjective_compound(word: str) -> bool:
    """A hyphenated compound opened by an adjective ("low-stakes", "high-needs"): a modifier of the noun after it
    ("low-stakes quizzing on X": the quizzing is the concept), no plural subject whose verb that noun would be."""
    first, _, rest = word.casefold().partition("-")
    return bool(rest) and "ADJ" in word_classes(first)


def _plural_with_before(sentence: str, words: list[re.Match], k: int) -> bool:
    """Before the word at ``k``: a plural noun, "with" and one to three words of what they have, no other
    preposition nor punctuation between ("people with dementia", "adults with type 2 diabetes"): an "-ing" form
    there is the people's verb, not a noun of the condition's phrase ("dementia living")."""
    for j in range(k - 2, max(k - 5, 0), -1):
        if words[j].group(0).casefold() == "with":
            between = [w.group(0).casefold() for w in words[j + 1: k]]
            before = words[j - 1].group(0)
            return (not any(w in _FUNCTION for w in between) and not re.search(r"[,;:()]", sentence[
                words[j - 1].start(): words[k].start()]) and _plural(before) and "NOUN" in word_classes(before))
    return False


_GERUND_AFTER_PLURAL_RE = re.compile(r"\b([a-z][a-z-]*s)\s+([a-z]+ing)\s+(?=([A-Za-z][\w-]*))")


def _gerunds_after_plurals(sentence: str) -> frozenset[str]:
    """An eligibility sentence's "-ing" forms that are nouns too ("reporting", "training") after a plural noun and
    before the words they act on ("courses reporting attendance or satisfaction", "programmes training
    volunteers"): the noun's verb, as "studies reporting X" is. A plural has a singular English uses ("course";
    not "physic" of "physics": :data:`PLURAL_ONLY_GAP`). Eligibility sentences only: a question's "sports
    training programmes" is a compound."""
    out: set[str] = set()
    for m in _GERUND_AFTER_PLURAL_RE.finditer(sentence):
        before, low, nxt = m.group(1), m.group(2), m.group(3).casefold()
        singulars = [w for w in noun_lemmas(before) if w != before
                     and general_zipf(before) - general_zipf(w) < PLURAL_ONLY_GAP]
        if singulars and "VERB" in word_classes(low) and nxt not in _FUNCTION:
            out.add(low)
    return frozenset(out)


_RELATIVE_PRONOUNS = frozenset("that which who".split())


def _relative_clause_verb(sentence: str, words: list[re.Match], k: int) -> bool:
    """The word at ``k``, right after "that" / "which" / "who" right after a noun and before another word, is the
    relative clause's verb (:func:`_relative_verb`), before the word it acts on: not a modifier of the phrase after
    it ("measured loneliness" is no concept)."""
    if k < 2 or k + 1 >= len(words) or not words[k + 1].group(0)[:1].isalpha():
        return False
    word, rel, noun = (words[j].group(0) for j in (k, k - 1, k - 2))
    if (rel.casefold() not in _RELATIVE_PRONOUNS or sentence[words[k - 1].end(): words[k].start()].strip()
            or sentence[words[k - 2].end(): words[k - 1].start()].strip(" ,")):
        return False
    return _relative_verb(noun, word) != ""


def _is_meta_item(item: str) -> bool:
    low = " ".join(item.casefold().split())
    if not _content_words(item):
        return True
    if any(low == p or low.endswith(" " + p) and len(_content_words(low[: -len(p)])) == 0 for p in META_PHRASES):
        return True
    words = [w.casefold() for w in _content_words(item)]
    # a count of common things ("its three dimensions", "two groups", "5 domains") names no concept
    if len(words) == 2 and (words[0] in _NUMBER_WORDS or words[0].isdigit()) and general_zipf(words[1]) >= 4.0:
        return True
    return all(w in _DESIGN_WORDS for w in words)


_NUMBER_WORDS = frozenset("two three four five six seven eight nine ten twelve several".split())


def _names_people(item: str) -> bool:
    """A word of the item names people (a population key opens it), not as the modifier of a noun that names no
    people: "student achievement", "patient satisfaction" are outcomes, what the noun after the people names;
    "older adults with diabetes", "student nurses" are people."""
    said = re.findall(_WORD, item)
    for j, word in enumerate(said):
        low = word.casefold()
        if not any(low.startswith(key) for key in POPULATION_VARIANTS):
            continue
        after = said[j + 1].casefold() if j + 1 < len(said) else ""
        if after and after not in _FUNCTION and word_classes(after) == {"NOUN"} and not _person_word(after):
            continue
        return True
    return False


def _facet_for(cue: str, items: list[str]) -> str:
    words = {w.casefold() for i in items for w in _content_words(i)}
    if words and words <= DEMOGRAPHIC_WORDS | {"children", "adolescents", "child", "adolescent"}:
        return "population"
    if any(_names_people(i) for i in items):  # "teachers", "older adults"
        return "population"
    if _COMPARATOR_CUE_RE.search(cue):
        return "comparator"
    if _OUTCOME_CUE_RE.search(cue):
        return "outcome"
    if _INTERVENTION_CUE_RE.search(cue):
        return "intervention"
    if _POPULATION_CUE_RE.search(cue) or _UNDERGOING_CUE_RE.match(cue.strip()):
        return "population"
    return "exposure"


#: "switching from X to Y", "transition from X to Y": what is left is named after "from".
_SWITCH_FROM_RE = re.compile(r"\b(switch|transition)(?:ing|ed|es|s)?\s+from\s+(.+?)\s+to\s+\S", re.I)


def _said_in(term: str, text: str) -> bool:
    """Every word of ``term`` (a stem by its letters, hyphens read as spaces) opens a word of ``text``."""
    said = re.findall(_WORD, text.casefold().replace("-", " "))
    words = re.findall(_WORD, term.casefold().replace("-", " "))
    return bool(words) and all(any(s.startswith(w) for s in said) for w in words)


def _switched_from(terms: list[str], item: str) -> list[str]:
    """An item "switching from X to Y": X's own terms are no alternatives of the concept (``warfarin*`` alone is
    every warfarin study; the switch is the subject), only AND-ed with the switch, ``(switch* AND warfarin*)``;
    Y's terms stay (what is switched to is what the studies give). A term of X in any spelling ("brand name
    levothyroxine" of "brand-name levothyroxine") is X's, and so is one Y says again: what both sides name stays
    the same, no switch ("from brand-name levothyroxine to generic levothyroxine": ``levothyroxin*`` alone is every
    levothyroxine study)."""
    m = _SWITCH_FROM_RE.search(item)
    if m is None:
        return terms
    origin = _dedupe(t for t in terms if not t.startswith("(") and _said_in(t, m.group(2)))
    if not origin:
        return terms
    group = _sendable(origin[0]) if len(origin) == 1 else "(" + " OR ".join(_sendable(t) for t in origin) + ")"
    return [t for t in terms if t not in origin] + [f"({m.group(1).casefold()}* AND {group})"]
