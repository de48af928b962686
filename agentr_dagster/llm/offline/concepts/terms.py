"""An item of a question ("soft skills of teachers") made into truncated search terms: its runs, heads and
modifiers, judged by general English."""

from __future__ import annotations

import re

from agentr_dagster.domain.specificity import general_completions, general_zipf, opens_onto_zipf
from agentr_dagster.domain.truncation import is_acronym as _is_acronym
from agentr_dagster.domain.truncation import truncation
from agentr_dagster.domain.word_class import (
    can_be_verb,
    gerund,
    is_irregular_past_participle,
    is_past_participle,
    noun_lemmas,
    plural_forms,
    quality_nouns,
    verb_lemmas,
    word_classes,
)
from agentr_dagster.llm.offline.concepts.model import _dedupe, _render, _sendable
from agentr_dagster.llm.offline.concepts.spelling import _spellings
from agentr_dagster.llm.offline.concepts.vocabulary import (
    _ANSWER_KINDS,
    _CLOSING_MEASURES,
    _DESIGN_WORDS,
    _FUNCTION,
    _GENE_HEADS,
    _NO_CONCEPT_ALONE,
    _ORGANISM_MODIFIERS,
    _WHO_FIRST,
    _WORD,
    GENERIC_HEADS,
    GENERIC_ZIPF,
    META_WORDS,
    POPULATION_VARIANTS,
    ROLE_WORDS,
    TOPIC_WORD_ZIPF,
    _content_words,
    _person_word,
    _plural,
)


def _eponym(word: str) -> bool:
    """A capitalised word that is not an acronym and that the lexicon does not know: a person's name."""
    return word[:1].isupper() and not _is_acronym(word) and word.isalpha() and not word_classes(word)


#: A word in -s whose form without it is this much rarer in general English (Zipf) is no plural ("diabetes" 4.2
#: against "diabete" 0, "measles", "species", "series"); "skills" / "skill" differ by 0.4, "analyses" by 0.3.
PLURAL_ONLY_GAP = 1.5


def _singular_tail(phrase: str) -> str:
    """A multi-word phrase, lower case, its last word singular ("soft skills" -> "soft skill"; acronyms kept; a
    word that only looks plural stays: "type 2 diabetes")."""
    words = phrase.split()
    last = words[-1]
    if _is_acronym(last):
        return " ".join(w.casefold() if not _is_acronym(w) else w for w in words)
    low = last.casefold()
    if low.endswith("ies") and len(low) > 5:
        stemmed = low[:-3] + "y"
    elif low.endswith(("ches", "shes", "sses", "xes")):
        stemmed = low[:-2]
    elif low.endswith("s") and not low.endswith(("ss", "us", "is")) and len(low) > 3:
        stemmed = low[:-1]
    else:
        stemmed = low
    if stemmed != low and (general_zipf(low) - general_zipf(stemmed) >= PLURAL_ONLY_GAP
                           or _own_noun_lemma(low, stemmed)):
        stemmed = low
    return " ".join([w.casefold() if not _is_acronym(w) else w for w in words[:-1]] + [stemmed])


def _own_noun_lemma(word: str, stemmed: str) -> bool:
    """A noun in "-s" that is its own lemma and whose form without the "-s" is no word of the lexicon ("caries",
    "scabies", "series"): no plural of another word ("dentine caries" was searched as ``"dentine cary"`` too,
    "cary" being as common as "caries" in general English; "savings" keeps "saving")."""
    # not "expectations", also a lemma of "expectation"
    return noun_lemmas(word) == (word,) and not word_classes(stemmed)


def _phrase_terms(phrase: str) -> list[str]:
    """A phrase as quoted terms, no wildcard inside the quotes (not every engine reads one there): its singular
    form, and the plural as written when the question has it ("soft skill", "soft skills"); a phrase closed by
    a noun in -sis / -tis / -tes also with its -tic adjective (:func:`_paired_form`: "... diabetes" ->
    "... diabetic": "type 2 diabetic patients")."""
    singular = _singular_tail(phrase)
    written = " ".join(w.casefold() if not _is_acronym(w) else w for w in phrase.split())
    terms = [_render(singular)] + ([_render(written)] if written != singular else [])
    words = written.split()
    # only after a number or a noun ("type 2 diabetic", "liver cirrhotic"): after an adjective the adjective
    # form is no phrase ("psoriatic arthritic", "multiple sclerotic")
    before = words[-2] if len(words) >= 2 else ""
    classifier = before.isdigit() or word_classes(before) == {"NOUN"}
    adjective = _paired_form(words[-1]) if classifier and _is_noun_form(words[-1]) else ""
    if adjective:
        terms.append(_render(" ".join([*words[:-1], adjective])))
    # a noun before its head with the "-al" adjective English makes of it ("attention bias": "attentional bias",
    # "emotion regulation": "emotional regulation"): the two are said of one concept
    lead = _adjective_of_noun(words[0]) if len(words) >= 2 else ""
    if lead:
        terms.extend(_render(" ".join([lead, *t.strip('"').split()[1:]])) for t in list(terms))
    return terms


def _adjective_of_noun(word: str) -> str:
    """The "-al" adjective of a noun ("attention": attentional, "behaviour": behavioural), "" for none."""
    low = word.casefold()
    if not low.isalpha() or len(low) < 5 or "NOUN" not in word_classes(low) or "ADJ" in word_classes(low):
        return ""
    form = low + "al"
    # the lexicon's adjective only, or a form it does not list that English uses ("attentional" 2.6)
    return form if word_classes(form) <= {"ADJ"} and general_zipf(form) >= PAIRED_FORM_ZIPF else ""


_NOUN_FORM_ENDINGS = ("sis", "tis", "tes")


#: The other form must be a word of general English this common (wordfreq Zipf): not a coined form.
PAIRED_FORM_ZIPF = 1.5


def _is_noun_form(word: str) -> bool:
    return word.casefold().endswith(_NOUN_FORM_ENDINGS)


def _paired_form(word: str) -> str:
    """A disease or process noun's adjective and back, where both are words and the adjective is the rarer
    (derived) one: "psoriatic" <-> "psoriasis", "diabetes" <-> "diabetic", "arthritis" <-> "arthritic". A
    stem of one ("psoriat*") does not reach the other ("psoriasis"). Not "genetic" / "genesis" nor "synthetic" /
    "synthesis" (the adjective is the commoner word: another sense), nor "critic" (a noun only); '' when none."""
    low = word.casefold()
    if low.endswith("ism") and low.isalpha():
        return _ism_form(low)
    if len(low) < 7 or not low.isalpha():
        return ""
    if low.endswith("tic"):
        classes = word_classes(low)
        if classes and "ADJ" not in classes:
            return ""
        nouns = [low[:-3] + e for e in _NOUN_FORM_ENDINGS]
        noun = max(nouns, key=general_zipf)
        z = general_zipf(noun)
        return noun if z >= PAIRED_FORM_ZIPF and z > general_zipf(low) else ""
    if _is_noun_form(low):
        adjective = low[:-3] + "tic"
        z = general_zipf(adjective)
        classes = word_classes(adjective)
        ok = (not classes or "ADJ" in classes) and PAIRED_FORM_ZIPF <= z < general_zipf(low)
        return adjective if ok else ""
    return _ia_form(low)


def _ism_form(low: str) -> str:
    """An "-ism" noun's "-istic" adjective ("autism" -> "autistic", "nationalism" -> "nationalistic"): a stem of
    the noun (``autism*``) does not reach it, and studies name the people by it ("autistic children"); only an
    adjective of the lexicon rarer than the noun (not "realistic", "optimistic": a sense of their own)."""
    if not low.endswith("ism"):
        return ""
    adjective = low[:-3] + "istic"
    z = general_zipf(adjective)
    return adjective if "ADJ" in word_classes(adjective) and PAIRED_FORM_ZIPF <= z < general_zipf(low) else ""


#: An "-ic" adjective and its "-ia" noun are one family when the noun is at most this much rarer (Zipf):
#: "ischaemic" 1.96 / "ischaemia" 1.59, not "academic" 4.57 / "academia" 3.54 (another sense).
IA_FORM_GAP_ZIPF = 0.5


def _ia_form(low: str) -> str:
    """A condition's "-ic" adjective and its "-ia" noun, each to the other ("ischaemic" <-> "ischaemia",
    "hypoxic" <-> "hypoxia"): a stem of one (``ischaemic*``) does not reach the other, and animal and clinical
    studies name the state by the noun ("cerebral ischaemia") where a title says "ischaemic stroke". Not an
    adjective the lexicon also reads as a noun: that names a person or agent of its own sense ("a hypoglycemic"
    is a drug, no hypoglycaemia); '' when none."""
    if low.endswith("ic") and not low.endswith("tic"):
        adjective, noun = low, low[:-2] + "ia"
    elif low.endswith("ia"):
        adjective, noun = low[:-2] + "ic", low
    else:
        return ""
    classes = word_classes(adjective)
    if "NOUN" in classes or (classes and "ADJ" not in classes):
        return ""
    z_adj, z_noun = general_zipf(adjective), general_zipf(noun)
    ok = min(z_adj, z_noun) >= PAIRED_FORM_ZIPF and z_noun >= z_adj - IA_FORM_GAP_ZIPF
    return ("" if not ok else noun if low == adjective else adjective)


#: A word without a wildcard gets its plural said only when it is this rare in general English (Zipf): a technical
#: noun ("statin" 2.6, "aspirin" 3.4), not a common word the generic check would drop ("seven", "trust").
PLURAL_ADDED_ZIPF = 4.0


def _closed_stem(stem: str, word: str) -> bool:
    """``stem*`` finds only ``word``'s own forms: the stem is no word of its own ("laps") and opens onto no other
    word about as common ("prob*": problem, probably)."""
    floor = general_zipf(word) - 1.5
    return general_zipf(stem) == 0 and not any(
        general_zipf(other) >= floor for other in general_completions(stem)
        if not other.startswith(word) and other[len(stem):] not in ("ing", "ed", "er", "ers"))


def _stems(word: str) -> list[str]:
    """A word's search stem, and its paired form's (:func:`_paired_form`) when that stem does not cover it."""
    stems = [_noun_stem_kept_from_adjective(word, truncation(word))]
    low = word.casefold()
    core = stems[0].rstrip("*")
    if (stems[0].endswith("*") and core.endswith("e") and len(core) >= 5 and core[-2] not in "aeiou"
            and general_zipf(core[:-1] + "ing") > 0 and general_zipf(core) < HEAD_ALONE_ZIPF
            and _closed_stem(core[:-1], core)):
        # a rare verb's noun ("nudges"): its stem also finds the activity ("nudg*": nudging, nudged)
        stems[0] = core[:-1] + "*"
    classes = word_classes(low)
    if (stems[0] == low and low.isalpha() and len(low) >= 5 and not low.endswith(("s", "x", "ch", "sh", "y"))
            and (not classes or "NOUN" in classes) and "ADJ" not in classes and general_zipf(low) < PLURAL_ADDED_ZIPF):
        # no wildcard ("statin*" would open onto "stating"): the plural said as well ("statins")
        stems.append(low + "s")
    elif stems[0] == low and len(low) >= 6 and low.endswith("s"):
        # a plural whose stem would open onto another verb's "-ing" ("statins": stating): the singular as well
        lemmas = [n for n in noun_lemmas(low) if n != low] or [low[:-1]] * (general_zipf(low[:-1]) > 0)
        singular = next((n for n in lemmas if truncation(n) == n), "")
        if singular:
            stems.append(singular)
    return stems + _paired_stem(word, stems[0])


def _paired_stem(word: str, stem: str) -> list[str]:
    """The stem of ``word``'s paired form (:func:`_paired_form`) when ``stem`` does not reach it, else none."""
    other = _paired_form(word)
    return [truncation(other)] if other and not other.startswith(stem.rstrip("*")) else []


def _noun_stem_kept_from_adjective(word: str, stem: str) -> str:
    """A noun's stem lengthened until it opens onto no adjective commoner than the noun (by more than
    :data:`STEM_REACH_ZIPF`): "medication" -> medicat* (not medic*: "medical"), "regulation" -> regulat* (not regul*:
    "regular"), "generation" -> generat* (not gener*: "general"), "severity" -> severi* ("several"). Nouns of one
    family keep the short stem ("vaccination" -> vaccin*: "vaccine"; "supplementation" -> supplement*), as do a noun
    derived from the adjective or verb reached (:func:`_derived_from`: "adolescence" -> adolesc*, "correction" ->
    correct*) and a word that is an adjective itself ("depressive" -> depress*)."""
    low = word.casefold()
    classes = word_classes(low)
    if not stem.endswith("*") or "NOUN" not in classes or "ADJ" in classes or not low.startswith(stem[:-1]):
        return stem
    singular = next((n for n in noun_lemmas(low) if low.startswith(n[:len(stem) - 1])), low)
    core = stem[:-1]
    while len(core) < len(low) and _reaches_commoner_adjective(core, singular):
        core = low[:len(core) + 1]
    return core + "*"


def _reaches_commoner_adjective(prefix: str, word: str) -> bool:
    """A word of general English beginning with ``prefix``, not one of ``word``'s own forms nor its kin
    (:func:`_derived_from`), that can be an adjective and is commoner than ``word`` by more than
    :data:`STEM_REACH_ZIPF`."""
    return any(_stem_reaches_commoner(other, word) and "ADJ" in word_classes(other) and not _derived_from(word, other)
               for other in general_completions(prefix) if not other.startswith(word))


def _derived_from(noun: str, other: str) -> bool:
    """``noun`` is English's regular derivation of ``other``: the quality an adjective names ("severe" ->
    "severity", "aware" -> "awareness", "lonely" -> "loneliness", "adolescent" -> "adolescence", "pregnant" ->
    "pregnancy", :func:`quality_nouns`) or the act of a verb ``other`` is a form of ("prefer" -> "preference",
    "progress" -> "progression")."""
    if noun in quality_nouns(other) or noun in (other + "ness", other[:-1] + "iness") or (
            other.endswith(("ent", "ant")) and noun in (other[:-1] + "ce", other[:-1] + "cy")):
        return True
    return any(noun.startswith(lemma.rstrip("e")) for lemma in verb_lemmas(other) if len(lemma) >= 4)


def _stem_reaches_commoner(term: str, word: str) -> bool:
    """``term`` (a word, or a stem by its commonest completion) is commoner in general English than ``word`` by more
    than :data:`STEM_REACH_ZIPF`: a wildcard meant for ``word`` would mostly find that other word."""
    return general_zipf(term) > general_zipf(word) + STEM_REACH_ZIPF


#: Nouns whose concept is what they are "to" ("exposure to X", "susceptibility to X"); not "resistance to X" or
#: "adherence to X", whose phrase names its own concept ("antibiotic resistance", "medication adherence").
_TOWARD_NOUNS = frozenset("exposure exposures susceptibility vulnerability predisposition".split())


def _runs(item: str) -> list[list[str]]:
    """The item's runs of content words between meta and function words. A meta word between two content words
    is part of the phrase ("alcohol use disorder", not alcohol* and disorder*); a verb's "-ed" form closing a
    run is what is done to the concept ("behaviour measured"), not part of it."""
    words = re.findall(_WORD, item)

    def breaks(i: int) -> bool:
        low = words[i].casefold()
        if low in _FUNCTION:
            return not _index_letter_a(words, i)
        if low not in META_WORDS:
            return False
        # only a noun ("use", "quality") joins a phrase: "surgery using fragility index" is two concepts
        inner = 0 < i < len(words) - 1 and "NOUN" in word_classes(low) and not low.endswith(("ing", "ed"))
        if i > 0 and _meta_closes_compound(words[i - 1], words[i]):
            return False
        return not (inner and all(words[j].casefold() not in META_WORDS | _FUNCTION for j in (i - 1, i + 1)))

    runs: list[list[str]] = [[]]
    relation_runs: set[int] = set()
    before_to: set[int] = set()  # the runs a "to" or "than" closes ("superior to X", "safer than X")
    for i, w in enumerate(words):
        if breaks(i):
            if w.casefold() in ("to", "than"):
                before_to.add(len(runs) - 1)
            runs.append([])
        else:
            runs[-1].append(w)
            # "(early-life) exposure to X": what the studies are exposed to is the concept; the exposure itself,
            # and when it happened, are every exposure study's words
            # and so is what one is susceptible to ("genetic susceptibility to X": every susceptibility study's words)
            if w.casefold() in _TOWARD_NOUNS and i + 2 < len(words) and words[i + 1].casefold() == "to":
                relation_runs.add(len(runs) - 1)
    runs = [[] if n in relation_runs else run for n, run in enumerate(runs)]
    as_written: dict[int, list[str]] = {}
    for n, run in enumerate(runs):
        # after a noun, a verb's "-ed" form starts what is done to it ("therapy delivered online", "behaviour
        # measured"); before one it modifies it ("learned helplessness") and stays
        # (not after an adverb, which grades the modifier: "artificially sweetened beverages", "newly diagnosed")
        # (an irregular one too, after a noun: "antidepressants given in pregnancy", "drugs taken for pain")
        cut = next((i for i in range(1, len(run)) if "-" not in run[i] and (
                    is_past_participle(run[i])
                    or _irregular_participle(run[i]) and word_classes(run[i - 1]) == {"NOUN"})
                    and not (run[i - 1].casefold().endswith("ly") and "ADV" in word_classes(run[i - 1]))), len(run))
        runs[n] = run[:cut]
        if len(runs[n]) == 1 and is_past_participle(runs[n][0]):
            runs[n] = []
        # an adjective after its noun is a predicate ("are mindfulness interventions effective"): not the concept
        # and so is one seldom a noun before "to" or "than" ("is ketamine superior to ECT")
        while len(runs[n]) >= 2 and (_adjective(runs[n][-1]) or n in before_to and _mostly_adjective(runs[n][-1])):
            runs[n].pop()
        # an organism before a named thing ("human methotrexate studies", "rat hippocampus"): who the study was
        # done on, not part of the thing's name; "mouse models" keeps it (the head alone is no concept)
        # (before an everyday word the run as written stays too, an alternative: the organism may say what the
        # thing is of or from, "fish oil"; not "human ketamine", where "ketamine" alone names it)
        if (len(runs[n]) >= 2 and runs[n][0].casefold() in _ORGANISM_MODIFIERS
                and runs[n][-1].casefold() not in GENERIC_HEADS):
            if not _plural(runs[n][0]) and general_zipf(runs[n][1].casefold()) >= EVERYDAY_WORD_ZIPF:
                as_written[n] = runs[n]
            runs[n] = runs[n][1:]
    return [r for n, run in enumerate(runs) for r in (as_written.get(n, []), run) if r]


def _irregular_participle(word: str) -> bool:
    """A verb's past participle not in "-ed" ("given", "taken", "worn"; not "cut", "set", the verb's own form) that
    is seldom a noun (:func:`_seldom_a_noun`: "givens", "knowns")."""
    return is_irregular_past_participle(word) and _seldom_a_noun(word.casefold())


def _without_coordinated_predicate(items: list[str]) -> list[str]:
    """An adjective closing an item before a lone adjective item is a predicate like it ("Is switching to a
    biosimilar safe and effective?": "biosimilar safe", "effective"): the item without it, and no lone item."""
    out = list(items)
    for k in range(len(items) - 1):
        words, nxt = items[k].split(), _content_words(items[k + 1])
        if len(words) >= 2 and len(nxt) == 1 and _adjective(nxt[0]) and (
                "ADJ" in word_classes(words[-1]) or _adjective(words[-1])):
            out[k], out[k + 1] = " ".join(words[:-1]), ""
    return [i for i in out if i.strip()]


def _adjective(word: str) -> bool:
    """The lexicon has ``word`` as an adjective (or adverb) only, or, not knowing it, its ending makes one
    ("interchangeable", "reproducible"): a word of that form closing a run is a predicate, not a noun's name."""
    classes = word_classes(word)
    if classes:
        return classes <= {"ADJ", "ADV"}
    low = word.casefold()
    return low.isalpha() and len(low) >= 8 and low.endswith(("able", "ible"))


#: A word with both readings whose plural is at least this much rarer (Zipf) than it is an adjective in use: its
#: noun reading is seldom written ("safe" 5.1 / "safes" 2.8, "inferior" 3.8 / 2.2, "common" 5.2 / 4.1); not "acid"
#: 4.5 / 3.9, "chemical" 4.6 / 4.2 or "human" 5.4 / 4.6, which name things.
ADJECTIVE_PLURAL_GAP = 1.0


def _mostly_adjective(word: str) -> bool:
    """The lexicon reads ``word`` as an adjective, and as a noun at most seldom (:func:`_seldom_a_noun`)."""
    low = word.casefold()
    return low.isalpha() and "ADJ" in word_classes(low) and _seldom_a_noun(low)


def _seldom_a_noun(low: str) -> bool:
    """The lexicon has no noun reading of ``low``, or English seldom uses it: its plural is at least
    :data:`ADJECTIVE_PLURAL_GAP` rarer than the word ("safes", "givens")."""
    if "NOUN" not in word_classes(low):
        return True
    plurals = [p for p in plural_forms(low) if p != low] or [low + "s"]
    return max(general_zipf(p) for p in plurals) <= general_zipf(low) - ADJECTIVE_PLURAL_GAP


#: A question that opens with its verb "to be" ("Are X safe for Y?", "Is X common among Y?"), also after who or
#: where it is about ("Among pregnant women, are X effective ...?", the effect frame's who first).
_COPULA_QUESTION_RE = re.compile(rf"^\W*{_WHO_FIRST}(?:is|are|was|were)\b", re.I)


def _without_predicate_adjective(piece: str) -> tuple[str, bool]:
    """A copular question's subject closed by its predicate ("non-opioid analgesics safe", "X safe and
    effective"): the piece without the adjectives (:func:`_mostly_adjective`), and whether one was there; a
    one-word piece is kept."""
    words = piece.rstrip(" ,;:?.").split()

    def predicate(word: str) -> bool:
        return _adjective(word) or _mostly_adjective(word)

    kept = list(words)
    # right before a predicate only a word that is no noun at all is another ("clinically effective"): a mass noun
    # the lexicon also calls an adjective is the subject's head ("point-of-care ultrasound accurate", "ultrasounds"
    # being seldom written); one joined by "and" / "or" is ("safe and effective")
    joined = True
    while len([w for w in kept if w.casefold() not in _FUNCTION]) >= 2 and (
            predicate(kept[-1]) if joined else _adjective(kept[-1])):
        kept.pop()
        joined = len(kept) >= 2 and kept[-1].casefold() in ("and", "or") and predicate(kept[-2])
        if joined:
            kept.pop()
    if len(kept) == len(words):
        return piece, False
    return " ".join(kept), True


def _meta_closes_compound(before: str, meta: str) -> bool:
    """A meta noun after a word that cannot stand alone is part of a compound ("screen time", "software quality"):
    the word before is a common word (general Zipf at least :data:`HEAD_ALONE_ZIPF`), whose stem alone would be every
    field's ("screen*": screening; softwar*); "cannabis use" (a rare noun) still gives ``cannabi*``, and before
    "use" only a verb closes one ("alcohol use" gives ``alcohol*``, which its studies' "drinking" shares)."""
    low, before_low = meta.casefold(), before.casefold()
    return (low in META_WORDS and "NOUN" in word_classes(low) and not low.endswith(("ing", "ed", "ly"))
            and before_low not in META_WORDS and before_low not in _FUNCTION and before.isalpha()
            and (can_be_verb(before) or low not in ("use", "usage")) and "NOUN" in word_classes(before_low)
            and general_zipf(before_low) >= HEAD_ALONE_ZIPF)


def _rare_class_kind(words: list[str]) -> bool:
    """The words end in a head that says "a kind of treatment" after a rare class word ("anxiolytic drug",
    "antiretroviral treatment": under :data:`RARE_PART_ZIPF`): a meta word after them ("effects", "outcomes") is
    their aspect, no part of a compound, as after "side" or "screen"."""
    return (len(words) >= 2 and words[-1].casefold() in GENERIC_HEADS
            and general_zipf(words[-2].casefold()) < RARE_PART_ZIPF)


def item_terms(item: str) -> list[str]:
    """Search terms for one concept item: each run of content words; a single word truncated, a phrase quoted
    with its tail truncated, and for a phrase of three words or more its two-word parts."""
    out: list[str] = []
    words = [w.casefold() for w in re.findall(_WORD, item)]
    for run in _runs(item):
        if len(run) == 1 and (run[0].casefold() in _NO_CONCEPT_ALONE
                              or (len(run[0]) < 3 and not _is_acronym(run[0]))
                              or _adverb(run[0]) or _lone_modifier(run[0], words)
                              or _everyday_head_from(run[0], words)):
            continue  # "drugs" or "techniques" alone is no concept, nor a two-letter word, nor an adverb
        out.extend(_run_terms(run))
    return out


def _design_only(term: str) -> bool:
    """The term names a study design and nothing else ("randomised trials", "trial design")."""
    words = [w.casefold() for w in re.findall(_WORD, term)]
    design = [w for w in words if w.rstrip("s") in _DESIGN_WORDS or w in _DESIGN_WORDS]
    return bool(design) and all(w in design or w in ("design", "designs") for w in words)


#: A modifier left alone by its meta head ("hepatic outcomes") is a term only when this rare (Zipf):
#: "transgenerational" 1.7, "neuroprotective" 2.0 ("neuroprotective effects"); not "hepatic" 3.1, "renal" 3.4.
LONE_MODIFIER_ZIPF = 2.5


def _lone_modifier(word: str, words: list[str]) -> bool:
    """A modifier whose head is a meta word ("hepatic outcomes", "a dichotomous outcome"): alone it is every
    field's, unless it is rare ("transgenerational effects")."""
    low = word.casefold()
    at = words.index(low) if low in words else -1
    # a function word next is no head ("self-compassion as a mediator": "as" is a meta word of "such as")
    return (0 <= at < len(words) - 1 and words[at + 1] in META_WORDS and words[at + 1] not in _FUNCTION
            and ("ADJ" in word_classes(low) or _modifier_like(low)) and general_zipf(low) >= LONE_MODIFIER_ZIPF)


def _everyday_head_from(word: str, words: list[str]) -> bool:
    """An everyday noun whose "from" phrase says what it is away from ("recovery from opioid use disorder",
    "withdrawal from X", "exit from homelessness"): the concept is the whole phrase; the head alone is every
    field's (``recover*``), the rest names what it is of."""
    low = word.casefold()
    at = words.index(low) if low in words else -1
    return 0 <= at < len(words) - 2 and words[at + 1] == "from" and general_zipf(low) >= EVERYDAY_WORD_ZIPF


def _adverb(word: str) -> bool:
    """An adverb in "-ly": the lexicon's, or a word it does not know made of a known adjective and "ly"
    ("differentially" of "differential", which alone made a block of "differentially expressed")."""
    low = word.casefold()
    classes = word_classes(low)
    return low.endswith("ly") and (classes == {"ADV"} or not classes and "ADJ" in word_classes(low[:-2]))


#: A run that closes with an object pronoun is a verb and its object ("... to detect or fix them"): the pronoun
#: stands for a concept named before, so the run names none (lower case only: "IT" is information technology).
#: A subject pronoun closing it opens a relative clause ("the support they receive"): the noun is what the clause
#: is about, an aspect of a concept named before, no concept of its own ("support they" was a term).
_CLOSING_PRONOUNS = frozenset({"them", "it", "him", "us", "they", "we"})


def _concept_words(words: list[str]) -> list[str]:
    """A run's words without what names no concept around them: meta and function words at either end, a
    closing measure or design word, an age or a duration; [] when nothing is left."""
    if words and words[-1] in _CLOSING_PRONOUNS:  # "fix them", "measure it": a verb and what it stands for
        return []
    # drop leading/trailing meta and function words ("a recent myocardial infarction" -> "myocardial infarction")
    while words and (words[0].casefold() in META_WORDS or words[0].casefold() in _FUNCTION):
        words = words[1:]
    while words and (words[-1].casefold() in META_WORDS or words[-1].casefold() in _FUNCTION) and not (
            len(words) >= 2 and _meta_closes_compound(words[-2], words[-1]) and not _rare_class_kind(words[:-1])):
        words = words[:-1]
    # "gaming disorder prevalence" is the prevalence of gaming disorder: the measure closing a phrase is an aspect
    if len(words) >= 2 and words[-1].casefold() in _CLOSING_MEASURES:
        words = words[:-1]
    # "ketamine trials" are trials of ketamine: the design word closing a phrase is the design block's
    if len(words) >= 2 and words[-1].casefold() in ("trial", "trials") and words[-2].casefold() not in _DESIGN_WORDS:
        words = words[:-1]
    if not words or all(re.fullmatch(r"[\d.,%]+", w) for w in words):  # a year alone ("published to 2020")
        return []
    # an age or a duration is eligibility, not a concept ("children aged 6 to 12 years": children; "12 years")
    at = next((k for k, w in enumerate(words[:-1]) if w.casefold() in ("aged", "age") and words[k + 1][:1].isdigit()),
              None)
    words = words if at is None else words[:at]
    if not words or words[0][:1].isdigit() and words[-1].casefold().rstrip("s") in _TIME_UNITS:
        return []
    return words


#: Heads that name a kind of the noun before them ("insulin type", "lens type"): the pair is one of its kinds.
_KIND_HEADS = frozenset("type types kind kinds sort sorts".split())


#: Heads of what an animal shows as a model of a human condition ("anxiety-like behaviour").
_PROXY_HEADS = frozenset("behaviour behaviours behavior behaviors phenotype phenotypes".split())


def _condition_of_like_behaviour(words: list[str]) -> list[str]:
    """"anxiety-like behaviour", "depressive-like phenotype": the behaviour an animal model shows in place of a
    human condition, which its studies also name by the condition alone ("stress-induced anxiety in rats",
    "reduced depressive behaviour"): the condition's stem is a term."""
    if len(words) != 2 or words[1].casefold() not in _PROXY_HEADS:
        return []
    condition, _, like = words[0].casefold().rpartition("-")
    if like != "like" or not condition.isalpha() or len(condition) < 4:
        return []
    return [_render(truncation(condition))]


def _related_said_plain(words: list[str]) -> list[str]:
    """A phrase led by "X-related" ("performance-related pay", "work-related stress"): the Y related to X, which
    its studies also write as the plain compound ("performance pay", "work stress"): that phrase too."""
    left, _, right = words[0].casefold().rpartition("-") if len(words) >= 2 else ("", "", "")
    if right != "related" or not left.isalpha() or len(left) < 3:
        return []
    return _phrase_terms(" ".join([words[0].rpartition("-")[0], *words[1:]]))


def _run_terms(words: list[str]) -> list[str]:
    words = _concept_words(words)
    if not words:
        return []
    eponym = _eponym_terms(words)
    if eponym:
        return eponym
    if len(words) == 1:
        acro, _, tail = words[0].partition("-")
        if _is_acronym(acro) and len(acro) >= 3 and tail.isalpha() and len(tail) >= 4:
            # an acronym compound ("HIV-stigma"): its studies write the two apart ("stigma among people with HIV")
            return [_render(truncation(words[0])), f"({acro} AND {_sendable(truncation(tail.casefold()))})"]
        return _activity_stem(words) or [_render(t) for t in _stems(words[0])]
    if len(words) > 4:
        words = words[-4:]
    terms = _phrase_terms(" ".join(words)) + (_phrase_parts(words) if len(words) >= 3 else [])
    # a "non-X" qualifier inside a phrase only says what the concept excludes ("chronic non-cancer pain"): its
    # studies say the phrase without it ("chronic pain")
    plain = [w for w in words[:-1] if not w.casefold().startswith("non-")] + words[-1:]
    if 2 <= len(plain) < len(words):
        terms.extend(_phrase_terms(" ".join(plain)))
    elif len(plain) == 1 < len(words) and "-" in plain[0].strip("-"):
        # one word left, a hyphenated compound: it names the concept ("non-X self-care" -> self-care*); a
        # plain word left ("non-cancer pain" -> pain) is every field's
        terms.extend(_run_terms(plain))
    head = words[-1].casefold()
    # ... not the noun of a verb done to the words before it ("vitamin D supplementation": supplement* alone is
    # every supplement)
    if (len(words) >= 3 and len(head) >= 9 and head not in GENERIC_HEADS and not _is_acronym(words[-1])
            and general_zipf(truncation(head)) < HEAD_ALONE_ZIPF and not _done_noun(head)
            and not _everyday_noun(head) and not _everyday_modifiers(words) and not _kind_by_everyday_noun(words)):
        terms.extend(_head_alone(words))  # "urge urinary incontinence" -> incontinen*
    # a class adjective before a generic head ("antipsychotic drugs" -> antipsychotic*; not "channel blockers")
    before = words[-2].casefold() if len(words) >= 2 else ""
    if (words[-1].casefold() in GENERIC_HEADS and len(before) >= 6 and not before.endswith(("ive", "ed", "ing"))
            and (_modifier_like(words[-2]) or before.endswith(("ant", "ent", "ion")))
            and not before.endswith("ment")  # a process noun ("replacement therapy") is every field's
            # nor a stem that is a word of every field ("cognitive behavioural therapy": behaviour*)
            and general_zipf(truncation(before).rstrip("*")) < HEAD_ALONE_ZIPF):
        terms.append(_render(truncation(words[-2])))
    # a short or generic head after a distinctive noun ("proton beam"): the noun alone names the concept; not a
    # head that names a kind of the noun ("insulin type": insulin* alone is every insulin study)
    if (len(words) == 2 and not _modifier_like(words[0]) and len(words[0]) >= 6 and not _index_word(words[1])
            and words[1].casefold() not in _KIND_HEADS
            and (len(words[1]) <= 4 or words[1].casefold() in GENERIC_HEADS or _given_as(words))
            and not _meta_closes_compound(words[0], words[1]) and not _process_noun(words[0], conversion=False)):
        # not a process ("management interventions": managem*); a thing the treatment uses, AND-ed with it
        terms.append(_means_of_treatment(words) or _render(truncation(words[0])))
    terms.extend([*_letter_compound_alone(words), *_extent_lead_dropped(words), *_condition_of_like_behaviour(words)])
    terms.extend(_activity_stem(words))
    terms.extend([*_compound_of_a_role(words), *_related_said_plain(words)])
    terms.extend(_role_of_an_everyday_kind(words))
    # a topic word before a participle of means joined to it ("psilocybin-assisted therapy", "mindfulness-based
    # stress reduction", "simulation-based training"): the word names the concept, which its studies name by it
    # ("mindfulness training", "high-fidelity simulation"); not an everyday word of a setting or medium
    # ("school-based", "web-based", "evidence-based"), nor one of cause ("NSAID-associated ulcers",
    # "opioid-induced constipation": the ulcers are), nor a short acronym ("AUC-guided": "auc" alone sits inside
    # other words and names every AUC)
    terms.extend(_render(truncation(left)) for w in words for left, _, right in [w.casefold().partition("-")]
                 if right in _MEANS_PARTICIPLES and left.isalpha() and _means_word_alone(left, right)
                 and not (_is_acronym(w.partition("-")[0]) and len(left) < 4))
    if len(words) == 2:
        terms.extend(_pair_naming_words(words))
    # a noun acted on by a process ("fault prediction"): papers write the process of it ("predicting faults")
    # (not after a lead that makes the kind: "inquiry-based mathematics instruction" is no mathematics taught)
    for a, b in zip(words, words[1:], strict=False) if not (_kind_of_everyday_thing(words) or _kind_lead(words)
                                                            or _field_before_head(words)) else ():
        if (not _modifier_like(a) and "NOUN" in word_classes(a.casefold()) and not _process_noun(a)
                and (_process_noun(b, conversion=False) or _sion_verb(b.casefold()))):
            verb = _sion_verb(b.casefold())
            if verb:  # "lifespan extension": "rapamycin extends lifespan" says the verb
                terms.append(f"({_render(truncation(a.casefold()))} AND ({_render(truncation(b.casefold()))} OR "
                             f"{_render(truncation(verb))}))")
            else:
                terms.extend(t for t in _head_alone([a, b]) if t.startswith("("))
    # a phrase made one word before its head ("object-in-place paradigms"): the compound alone names the kind,
    # whatever the head the studies use ("object-in-place task")
    if len(words) == 2 and _phrase_compound(words[0]):
        terms.extend(_run_terms(words[:1]))
    return _words_anded_of_phrase_alone(words, terms + _modifier_in_front_terms(words))


#: How common in general English both words of a two-word phrase may be for their AND to stay one concept's
#: ("academic" 4.6, "achievement" 4.4; not "weight loss", "sleep quality": each word over 5 is every field's).
PAIR_AND_ZIPF = 4.8
#: How much commoner than its word a stem's commonest completion may be for the AND to keep to the word.
STEM_REACH_ZIPF = 0.1


def _words_anded_of_phrase_alone(words: list[str], terms: list[str]) -> list[str]:
    """A two-word run whose terms are only its exact phrase ("academic achievement") also gets the AND of its
    words' stems (``(academic* AND achievem*)``): studies write the words apart ("achievement in academic
    subjects", "academic performance and achievement"); only when both words are everyday but neither every
    field's (:data:`EVERYDAY_WORD_ZIPF` to :data:`PAIR_AND_ZIPF`: a rarer word's phrase is kept whole by the
    earlier rules, "herbal remedies", "oral contraceptives"), the first grades nothing (:func:`_gradable`),
    none is a meta, generic, degree, design, role or answer-kind word ("prognostic factor": any factor of a
    prognostic study) nor a participle that makes a kind ("flipped classroom": any classroom a study flipped),
    so the AND names no more than the phrase's field."""
    if len(words) != 2 or not terms or not all(t.startswith('"') for t in terms):
        return terms
    low = [w.casefold() for w in words]
    if any(not w.isalpha() or len(w) < 4 or _is_acronym(o) or w in META_WORDS or w in GENERIC_HEADS
           or w in DEGREE_MODIFIERS or w in _FUNCTION or w in _DESIGN_WORDS or w in ROLE_WORDS or _person_word(w)
           or w in _ANSWER_KINDS or is_past_participle(w) or w.endswith("ing")
           for w, o in zip(low, words, strict=True)):
        return terms
    stems = [truncation(w) for w in low]
    zipfs = [general_zipf(w) for w in low]
    # a stem that reaches a commoner word than its own ("formative" 3.3 -> format* 4.5, "regulation" -> regul*
    # 4.5, "depressive" -> depress*) ANDs that word's studies
    if (max(zipfs) >= PAIR_AND_ZIPF or min(zipfs) < EVERYDAY_WORD_ZIPF or _gradable(low[0])
            or any(_stem_reaches_commoner(s, w) for s, w in zip(stems, low, strict=True))):
        return terms
    return [*terms, f"({' AND '.join(_sendable(s) for s in sorted(stems))})"]


#: Participles of who delivers a thing ("pharmacist-led", "peer-delivered"): the word before them names people.
_DELIVERER_PARTICIPLES = frozenset("led delivered facilitated supported".split())


def _means_word_alone(word: str, participle: str) -> bool:
    """A word before a participle of means names the concept alone: a rare word ("psilocybin"), or a topic word
    whose stem opens onto no everyday word (``mindful*``; not ``simul*``: "simultaneously", nor "simulation"
    whole, which names simulations of every field) and names no one who delivers it ("pharmacist-led
    medication review": ``pharmacist*`` is every pharmacist study). Never what guides it: "ultrasound-guided nerve
    block" and "trough-guided dosing" are studies of the block and the dosing, and ``ultrasound*`` or ``trough``
    alone is every study of the guide."""
    if participle == "guided":
        return False
    if general_zipf(word) < RARE_PART_ZIPF:
        return True
    return (general_zipf(word) < TOPIC_WORD_ZIPF and opens_onto_zipf(truncation(word)) < TOPIC_WORD_ZIPF
            and participle not in _DELIVERER_PARTICIPLES and not _person_word(_plural_of(word)))


def _gradable(word: str) -> bool:
    """An adjective with a comparative in use ("soft" -> "softer"): it grades its noun ("soft skills"), and AND-ed
    apart from it is any soft thing; a relational one ("academic", "renal") has none."""
    if "ADJ" not in word_classes(word):
        return False
    forms = [word + "er", word[:-1] + "ier" if word.endswith("y") else "", word + "r" if word.endswith("e") else ""]
    return max(general_zipf(f) for f in forms if f) >= RARE_MODIFIER_ZIPF


#: Nouns of taking a food or a substance in (a general vocabulary of nutrition's phrasing, not a field's).
_INTAKE_HEADS = frozenset("consumption intake".split())


#: The nouns of being exposed to a thing or taking it in ("cadmium exposure", "liquorice intake").
_EXPOSURE_NOUNS = _INTAKE_HEADS | {"exposure", "exposures", "intakes"}


def _pair_naming_words(words: list[str]) -> list[str]:
    """The words of a two-word run that name its concept alone."""
    terms: list[str] = []
    # a rare word before a verb's "-ation" done with it ("probiotic supplementation", "melatonin administration"):
    # the word names the concept; its studies also write "probiotics given to ..."
    # and so before an everyday noun that is a verb too ("probiotic supplements"), whose head alone is no term
    # (:func:`_modifier_in_front_terms`)
    # and so before "exposure" or "intake" ("cadmium exposure": its studies write "urinary cadmium", "blood cadmium
    # levels"; "liquorice intake": "liquorice and hypokalaemia")
    if (_done_noun(words[1]) or _named_everyday_head(words) or words[1].casefold() in _EXPOSURE_NOUNS) \
            and words[0].isalpha() and general_zipf(words[0]) < RARE_PART_ZIPF:
        # with its paired form ("ischaemic stroke": ischaemia* too, as "cerebral ischaemia" in rats)
        stem = truncation(words[0])
        terms.extend(_render(t) for t in [stem, *_paired_stem(words[0], stem)])
    # a food one counts before a noun of taking it in ("almond consumption", "walnut intake"): its studies also
    # write the food alone ("almonds and glycaemic control"): the word and its plural, whole (``almond*``
    # would open onto other words); not an everyday one ("fish intake", "coffee consumption")
    food = words[0].casefold()
    plurals = [p for p in plural_forms(food) if p != food]
    if words[1].casefold() in _INTAKE_HEADS and food.isalpha() and "NOUN" in word_classes(food) and plurals \
            and general_zipf(food) < EVERYDAY_WORD_ZIPF \
            and max(general_zipf(p) for p in plurals) >= general_zipf(food) - COUNT_NOUN_GAP:
        # each in its other spellings ("fibre": fiber, fibres, fibers)
        terms.extend(_dedupe([s for f in [food, *plurals] for s in _spellings(f)]))
    terms.extend(_rare_verb_before_gerund(words))
    terms.extend(_other_intake_head(words))
    terms.extend(_ive_head(words))
    # a symbol with a digit after a word that qualifies it ("germline BRCA1", "serum IL-6"): the symbol names
    # the thing, which its studies name without the qualifier ("BRCA1/2 pathogenic variants")
    if _is_acronym(words[1]) and any(c.isdigit() for c in words[1]) and words[0].isalpha() and words[0].islower():
        terms.append(words[1])
    terms.extend([*_rare_property_alone(words), *_stage_of_life_people(words)])
    # a gene's symbol before what is studied of it ("ATP7B gene", "CYP2C19 polymorphisms"): the symbol names it
    if _is_acronym(words[0]) and words[1].casefold() in _GENE_HEADS:
        terms.append(words[0])
    # a class noun before a name ("antimuscarinics oxybutynin"): each word names the concept
    if (_plural(words[0]) and len(words[0]) >= 8 and len(words[1]) >= 6
            and words[1].casefold() not in GENERIC_HEADS and not _modifier_like(words[0])
            and not _modifier_like(words[1])):
        # an everyday class noun alone is every field's ("requirements traceability": traceabil*, not requirem*)
        terms.extend(_render(truncation(w)) for w in words if not _everyday_noun(w))
    return terms


def _other_intake_head(words: list[str]) -> list[str]:
    """A thing before "consumption" ("coffee consumption"): its studies also write "intake" ("coffee intake"),
    so that phrase too; not "intake" to "consumption", which has senses of its own ("energy consumption" of
    machines)."""
    if words[1].casefold() != "consumption" or not words[0].isalpha():
        return []
    return _phrase_terms(f"{words[0]} intake")


def _ive_head(words: list[str]) -> list[str]:
    """A condition or act noun in "-ion" after its qualifier ("major depression", "suicide prevention"): its
    studies also write the "-ive" adjective before another noun ("major depressive disorder", "suicide
    preventive interventions"), so the phrase with the adjective too; only an adjective of the lexicon rarer than
    the noun (a derived form: not "social cognitive", "disease progressive": a sense of their own)."""
    first, head = words[0].casefold(), words[1].casefold()
    # not an "-ation" or "-ption" noun: its adjective has a sense of its own ("administrative", "consumptive")
    if not head.endswith("ion") or head.endswith(("ation", "ption")) or not first.isalpha() or first in META_WORDS \
            or first in _FUNCTION:
        return []
    adjective = head[:-3] + "ive"
    z = general_zipf(adjective)
    if "ADJ" not in word_classes(adjective) or not PAIRED_FORM_ZIPF <= z < general_zipf(head):
        return []
    return _phrase_terms(f"{words[0]} {adjective}")


def _rare_property_alone(words: list[str]) -> list[str]:
    """A rare noun of a property (:data:`_PROPERTY_ENDINGS`, under :data:`RARE_PART_ZIPF`) after an everyday word
    that is only an adjective ("residential greenness", "greenness" 2.0, "residential" 4.3): the property names
    the concept alone, and its studies write it of the thing in their own words ("greenness around the
    residence", "neighbourhood greenness"). The word whole: its stem opens onto everyday words (``green*``). Not
    after a noun ("gut permeability": the permeability of many things)."""
    mod, head = (w.casefold() for w in words)
    if (head.isalpha() and head.endswith(_PROPERTY_ENDINGS) and general_zipf(head) < RARE_PART_ZIPF
            and word_classes(mod) == {"ADJ"} and general_zipf(mod) >= EVERYDAY_WORD_ZIPF):
        return [head]
    return []


#: The ending of a noun of a stage of life ("childhood", "adulthood", "motherhood").
_STAGE_ENDING = "hood"


def _stage_of_life_people(words: list[str]) -> list[str]:
    """A stage of life named by its people before a condition ("childhood asthma"): its studies write the
    condition of the people ("asthma in children", "asthmatic children"), so the people's stem AND-ed with the
    condition's (``(asthma* AND child*)``); the stage's root a word for people (:func:`_person_word`: "child",
    "adult", "mother"; not "likelihood", "neighbourhood"), the condition a word of no field at large (under
    :data:`PAIR_AND_ZIPF`) and no generic, meta or design word."""
    lead, head = (w.casefold() for w in words)
    root = lead[: -len(_STAGE_ENDING)]
    if not (lead.endswith(_STAGE_ENDING) and len(root) >= 5 and _person_word(root) and head.isalpha()
            and len(head) >= 4 and general_zipf(head) < PAIR_AND_ZIPF and head not in GENERIC_HEADS
            and head not in META_WORDS and head not in _DESIGN_WORDS and not _person_word(head)):
        return []
    return [f"({_sendable(truncation(head))} AND {root}*)"]


def _rare_verb_before_gerund(words: list[str]) -> list[str]:
    """A rare verb before an activity's "-ing" head ("fuzz testing"): the verb's own "-ing" form names the same
    activity ("fuzzing", Zipf 1.7) and its agent noun the tool ("fuzzers"), which its studies write far more
    often than the phrase; not an everyday verb ("stress testing", "load testing": ``stressing`` is any stress)."""
    verb, head = words[0].casefold(), words[1].casefold()
    if not (head.endswith("ing") and "VERB" in word_classes(head) and verb.isalpha() and verb in verb_lemmas(verb)
            and general_zipf(verb) < TOPIC_WORD_ZIPF):
        return []
    doing = gerund(verb)
    return [doing, _render(doing[:-3] + "er*")] if general_zipf(doing) < RARE_PART_ZIPF else []


#: A noun whose plural is at most this much rarer in general English (Zipf) names things one counts ("protons"
#: 0.4, "schemas" 0.7, "mirrors" 0.7, "hormones" 0.1): not a practice ("massages" 0.9, "meditations" 1.0,
#: "mindfulness", "hypnosis" have none in use).
COUNT_NOUN_GAP = 0.8


def _means_of_treatment(words: list[str]) -> str:
    """A thing one counts, of everyday English, before a generic head of treatment ("proton therapy", "schema
    therapy", "mirror therapy"), or a word of every field (:data:`HEAD_ALONE_ZIPF`: "exposure therapy"): the
    treatment uses the thing, which alone is every study of it ("proton pump inhibitors", "database schemas"), so
    the two AND-ed, ``(proton AND therap*)``; "" for a practice named by its noun ("mindfulness interventions":
    ``mindful*``, "massage therapy") or a rare word ("psilocybin therapy")."""
    low, head = words[0].casefold(), words[1].casefold()
    if head not in GENERIC_HEADS or not low.isalpha() or "NOUN" not in word_classes(low):
        return ""
    plurals = [p for p in plural_forms(low) if p != low]
    counted = bool(plurals) and max(general_zipf(p) for p in plurals) >= general_zipf(low) - COUNT_NOUN_GAP
    # a word of every field is no practice's name either ("exposure therapy", "oxygen therapy")
    if general_zipf(low) < RARE_PART_ZIPF or not (counted or general_zipf(low) >= HEAD_ALONE_ZIPF):
        return ""
    return f"({_sendable(truncation(low))} AND {_sendable(truncation(head))})"


#: Nouns of how a treatment is given ("enoxaparin dosing", "gentamicin regimens"): after a rare name the name
#: alone is the concept, as before "dose" or "therapy" (a general vocabulary of pharmacology).
_GIVEN_AS_HEADS = frozenset(
    "dosing dosage dosages doses regimen regimens prophylaxis administration monotherapy infusion infusions".split())


def _given_as(words: list[str]) -> bool:
    """"Enoxaparin dosing": a rare name (a drug's) before a noun of how it is given; its studies say "dose of
    enoxaparin", "weight-based enoxaparin", never always the phrase (``"enoxaparin dosing"`` was the drug's only
    term). Not an everyday word before it ("oxygen administration": every oxygen study)."""
    return (words[1].casefold() in _GIVEN_AS_HEADS and words[0].isalpha()
            and general_zipf(words[0]) < RARE_PART_ZIPF)


#: Everyday nouns for any treatment ("herbal remedies", "home remedies"): the head alone (``remed*``) is every
#: remedy and every remediation, never the concept its modifier names.
_REMEDY_HEADS = frozenset("remedy remedies".split())


def _named_everyday_head(words: list[str]) -> bool:
    """A name before an everyday noun that is a verb too ("omega-3 supplements", "probiotic supplements",
    "anticholinergic burden"): the name, with a number or a word the lexicon does not know, is the concept; the
    head alone is every field's."""
    first = words[0]
    named = any(c.isdigit() for c in first) and "-" in first or (
        first.isalpha() and not word_classes(first) and not _is_acronym(first))
    # (not a head that names a kind of it: "heparin type" is any heparin, :data:`_KIND_HEADS`)
    return named and _everyday_noun(words[-1]) and can_be_verb(words[-1]) and words[-1].casefold() not in _KIND_HEADS


def _verb_in_use(noun: str) -> bool:
    """The noun is a verb of general use too: the lexicon says so and its past form is no rare word of English
    ("supplemented" 3.3, "sprayed" 3.5; not "lasered" 2.0)."""
    low = noun.casefold()
    stem = low[:-1] if low.endswith("s") and not low.endswith("ss") else low
    past = stem + "d" if stem.endswith("e") else stem + "ed"
    return can_be_verb(stem) and general_zipf(past) >= RARE_PART_ZIPF


def _modifier_in_front_terms(words: list[str]) -> list[str]:
    """A modifier in front ("sustained-release morphine", "allergic rhinitis"): the head alone is the concept too,
    or the rest of the phrase after the modifier."""
    out: list[str] = []
    head = words[-1].casefold()
    degree = words[0].casefold() in DEGREE_MODIFIERS  # "insufficient sleep": the degree of a concept
    # ... unless the head alone is a word of every field ("gambling disorder" is no disorder*)
    # ... nor a verb's "-ation" whose stem is an everyday word ("probiotic supplementation": supplement* alone is
    # every supplement; "COVID-19 misinformation" keeps misinform*), nor an everyday noun that is a verb too after
    # a name with a number ("omega-3 supplements"; "noble-gas lasers" keeps laser*)
    everyday_stem = general_zipf(truncation(head)) >= EVERYDAY_WORD_ZIPF
    kind_of_common = len(words) == 2 and not degree and (
        _done_noun(head) and everyday_stem or _named_everyday_head(words)
        # an everyday noun that is a verb in use too names a form things are given in ("herbal supplements",
        # "nasal sprays", "dental implants"), whatever the adjective: alone (``supplem*``) every such form of
        # anything ("noble-gas lasers" keeps laser*: "lasered" is rare)
        or _modifier_like(words[0]) and _everyday_noun(head) and _verb_in_use(head) and head not in _KIND_HEADS
        # a "non-X" modifier: the head alone holds the X it leaves out ("non-opioid analgesics": analgesic*)
        or words[0].casefold().startswith("non-"))
    if (len(words) >= 2 and (_modifier_like(words[0]) or degree or _short_adjective_before_name(words))
            and len(head) >= (4 if degree else 6)
            and head not in GENERIC_HEADS | _REMEDY_HEADS | _INTAKE_HEADS  # ``intak*`` is every food's
            and (len(words) > 2 or general_zipf(truncation(head)) < HEAD_ALONE_ZIPF)
            and not _kind_of_everyday_thing(words) and not _kind_lead(words) and not kind_of_common
            and not _phrase_compound(words[0])
            and not ((_means_compound(words[0]) or _content_compound(words[0]))
                     and (not _process_noun(head) or len(words) >= 3))):
        rest = words[1:]
        # the rest without a rare leading modifier, common English alone, names nothing the phrase does
        # ("posttraumatic stress symptoms": "stress symptoms"; after a compound lead, "ultra-processed food
        # intake": "food intake"), as the phrase parts of :func:`_phrase_parts`
        if len(rest) == 1 and _rare_compound_lead(words[0]):
            out.append(_render(truncation(words[0])))  # "beta-lactam antibiotics": the class, not antibiotic*
        elif len(rest) == 1:
            out.extend(_head_alone(words, degree))
        elif not (_rare_lead_makes_it(words) or "-" in words[0] and _common_without_lead(words, rest)):
            out.extend(_phrase_terms(" ".join(rest)))
        # modifiers all the way to the head ("long-acting oral opioids"): the head alone too, when it is rare;
        # after a degree word the rest is the concept's own phrase ("chronic stable angina": "stable angina")
        while not degree and len(rest) > 1 and (_modifier_like(rest[0]) or rest[0].casefold().endswith(("al", "ic"))
                                 and "ADJ" in word_classes(rest[0])):  # "oral" is too short for the endings
            rest = rest[1:]
        if len(rest) == 1 and len(words) > 2 and general_zipf(truncation(head)) < HEAD_ALONE_ZIPF:
            out.extend(_head_alone(words))
    return out


def _rare_compound_lead(word: str) -> bool:
    """A hyphenated lead with a part rarer than :data:`RARE_PART_ZIPF` ("beta-lactam", "anti-TNF"): it names
    the kind of what its head names, which alone (``antibiotic*`` of "beta-lactam antibiotics") is every kind; the
    lead alone names it ("beta-lactams", "beta-lactam agents"). Not a compound of a participle or a degree
    ("less-sedating antihistamines", "NSAID-associated ulcers") or of an adjective ("beta-adrenergic blockers"): a
    property of the head's things, no class."""
    parts = [p for p in word.casefold().split("-") if p]
    return (len(parts) >= 2 and all(p.isalpha() for p in parts) and "VERB" not in word_classes(parts[-1])
            and not _modifier_like(parts[-1])  # "beta-adrenergic blockers": a property too
            and not any(p in _FUNCTION for p in parts)
            and any(len(p) >= 3 and general_zipf(p) < RARE_PART_ZIPF for p in parts))


def _short_adjective_before_name(words: list[str]) -> bool:
    """A short adjective by its ending (the lexicon's: "oral", "dual"; :func:`_modifier_like` wants five letters
    or more, "real", "ideal") before a name rarer than :data:`RARE_PART_ZIPF` ("oral tacrolimus", "oral
    ketamine"): how the named thing is given, whose studies mostly name it alone (``"oral tacrolimus"`` was the
    drug's one term, as "intravenous vancomycin" gave ``vancomycin*``)."""
    low = words[0].casefold()
    return (len(words) == 2 and len(low) <= 4 and low.endswith(_MODIFIER_ENDINGS) and "ADJ" in word_classes(low)
            and general_zipf(words[1].casefold()) < RARE_PART_ZIPF)


#: One letter, a hyphen and a word of four letters or more, the whole word ("e-government", "m-health").
_LETTER_HYPHEN_WORD_RE = re.compile(r"[A-Za-z]-[A-Za-z]{4,}")


def _letter_compound_alone(words: list[str]) -> list[str]:
    """A compound opened by a single letter ("e-government", "m-health", "e-learning": the electronic or mobile
    form of a thing) before an everyday noun ("services", "apps", "platforms"): the compound alone names the
    concept, as its studies write it without the head ("e-government adoption"), and the head adds nothing.
    As a stem, never spaced: a term is matched as a substring, and "e-learning" sits inside "machine-learning",
    "e learning" inside "the learning"; a stem starts at a word's start."""
    if len(words) != 2 or not _LETTER_HYPHEN_WORD_RE.fullmatch(words[0]) or not _everyday_noun(words[1]):
        return []
    return [words[0].casefold() + "*"]


def _extent_lead_dropped(words: list[str]) -> list[str]:
    """A phrase opened by a compound of an everyday adjective and a rare word ("whole-exome sequencing": "whole"
    at least :data:`GENERIC_ZIPF`, "exome" under :data:`RARE_PART_ZIPF`): the rare word names the thing, the
    adjective only its extent, which its studies often leave out ("exome sequencing", "trio exome sequencing").
    Not a prefix that changes the meaning ("anti-epileptic": English writes it solid too, "antiepileptic"), nor an
    acronym after it ("anti-VEGF"), nor a word of what is done ("less-sedating": the adjective grades the verb),
    nor a rare word said often enough to be everyday's ("whole-genome", "high-dose")."""
    left, _, right = words[0].casefold().partition("-")
    if (len(words) < 2 or not left.isalpha() or not right.isalpha() or _is_acronym(words[0].partition("-")[2])
            or not word_classes(right) <= {"NOUN"}
            or "ADJ" not in word_classes(left) or general_zipf(left) < GENERIC_ZIPF
            or general_zipf(right) >= RARE_PART_ZIPF or general_zipf(left + right) > 0):
        return []
    return _phrase_terms(" ".join([right, *words[1:]]))


def _everyday_modifiers(words: list[str]) -> bool:
    """Every word before the head is an everyday word of English (:data:`EVERYDAY_WORD_ZIPF`, alphabetic) and the
    head, singular, is no rare word (:data:`RARE_PART_ZIPF`) nor a process (whose term is AND-ed with what it
    happens to): the phrase names its kind in ordinary words ("object location paradigms"), so the head alone
    (``paradigm*``) is every kind's. A rare head names the concept ("direct oral anticoagulants", "white matter
    hyperintensities"), and so does the head after a rarer modifier ("urge urinary incontinence")."""
    head = words[-1].casefold()
    singular = (noun_lemmas(head) or (head,))[0]
    return (all(w.isalpha() and general_zipf(w.casefold()) >= EVERYDAY_WORD_ZIPF for w in words[:-1])
            and general_zipf(singular) >= RARE_PART_ZIPF and not _process_noun(head))


def _kind_by_everyday_noun(words: list[str]) -> bool:
    """The word before the head is a noun of everyday English, and only a noun to the lexicon ("renal cell
    carcinoma", "receptor gene polymorphisms"): the two name a kind of the head together ("cell carcinoma", "gene
    polymorphism"), so the head alone (``carcinoma*``, ``polymorphism*``) is every kind's, whatever the words
    before; after an adjective the head stays the concept ("urge urinary incontinence": ``incontinen*``)."""
    before = words[-2].casefold() if len(words) >= 2 else ""
    return before.isalpha() and word_classes(before) == {"NOUN"} and general_zipf(before) >= EVERYDAY_WORD_ZIPF


_COMPOUND_FUNCTION_PARTS = frozenset("in of on to at for by".split())


def _phrase_compound(word: str) -> bool:
    """A hyphenated phrase with a preposition inside ("object-in-place", "point-of-care"): a noun phrase made one
    word, naming which kind of the noun after it is meant ("object-in-place paradigms"); the noun alone
    (``paradigm*``) is every kind's, where after an adjective's compound ("chemotherapy-induced neuropathy") it is
    the concept."""
    parts = word.casefold().split("-")
    return len(parts) >= 3 and any(p in _COMPOUND_FUNCTION_PARTS for p in parts[1:-1])


def _means_compound(word: str) -> bool:
    """A compound closed by a participle of means ("dolutegravir-based", "school-based", "ultrasound-guided"): it
    names which kind of the noun after it is meant, and the noun alone (``regimen*``) is every kind's; a process
    after it keeps its pair ("ultrasound-guided injection": ``(inject* AND ultrasound-guided)``)."""
    left, _, right = word.casefold().rpartition("-")
    return bool(left) and right in _MEANS_PARTICIPLES


#: Adjectives that close a compound saying what a thing holds or lacks ("platelet-rich", "gluten-free").
_CONTENT_ADJECTIVES = frozenset("rich poor free enriched depleted fortified".split())


def _content_compound(word: str) -> bool:
    """A compound closed by an adjective of content (:data:`_CONTENT_ADJECTIVES`: "platelet-rich plasma",
    "platelet-rich fibrin"): it names the kind of the noun after it by what it holds, and the noun alone
    (``plasma*``: every plasma level and plasma cell) is every kind's."""
    left, _, right = word.casefold().rpartition("-")
    return bool(left) and right in _CONTENT_ADJECTIVES


def _everyday_noun(word: str) -> bool:
    """A noun that, in its singular or its plural, is an everyday word of English (:data:`EVERYDAY_WORD_ZIPF`):
    alone it is every field's ("compliance" 4.2 of "hand hygiene compliance", "algorithm" 4.0 of "deep learning
    algorithms", "requirements" 4.6 of "requirements traceability"; not "incontinence" of "urge urinary
    incontinence", nor "antimuscarinics")."""
    low = word.casefold()
    forms = {low, low[:-1] if low.endswith("s") and not low.endswith("ss") else low + "s"}
    return max(general_zipf(f) for f in forms) >= EVERYDAY_WORD_ZIPF


def _role_of_an_everyday_kind(words: list[str]) -> list[str]:
    """A rare role word after an everyday noun that says which of them ("family carers", "family caregivers"):
    its studies name the role alone ("carers of people with X"), and the role, rarer than a topic word, is no
    field's every study (not "school nurses": ``nurse*`` is)."""
    if len(words) != 2:
        return []
    kind, role = words[0].casefold(), words[1].casefold()
    singular = role[:-1] if role.endswith("s") else role
    if not (kind.isalpha() and role.isalpha() and singular in ROLE_WORDS and not _modifier_like(words[0])
            and word_classes(kind) <= {"NOUN", "VERB"} and "NOUN" in word_classes(kind)
            and general_zipf(kind) >= EVERYDAY_WORD_ZIPF and general_zipf(singular) < TOPIC_WORD_ZIPF):
        return []
    return [_render(truncation(role))]


def _compound_of_a_role(words: list[str]) -> list[str]:
    """A compound of who and what ("teacher burnout", "caregiver burden"): its studies write the two apart
    ("burnout among secondary school teachers"), so the two AND-ed are a term too."""
    if len(words) != 2:
        return []
    who, what = words[0].casefold(), words[1].casefold()
    role = who in ROLE_WORDS or any(who == key for key in POPULATION_VARIANTS if " " not in key)
    # a hyphenated compound is one noun ("teacher self-efficacy", "citizen co-production"), read by its last part
    compound = "-" in what.strip("-") and what.replace("-", "").isalpha()
    if not (role and not _plural(who) and (what.isalpha() or compound) and len(what) >= 5
            and what not in GENERIC_HEADS and what not in ROLE_WORDS and "NOUN" in word_classes(what)
            and (compound or not _process_noun(what, conversion=False) or _their_own_process(words))):
        return []
    people = POPULATION_VARIANTS[who][0] if who in POPULATION_VARIANTS else who + "*"  # teachers, parents
    if compound:  # its spellings, whole ("co-production", "co production", coproduction)
        forms = _spellings(what)
        return [f"({forms[0] if len(forms) == 1 else '(' + ' OR '.join(forms) + ')'} AND {people})"]
    return [f"({_sendable(truncation(what))} AND {people})"]


#: A process noun after who has it is theirs alone (their motivation, engagement) below this general-English
#: frequency (Zipf): "motivation" 4.2, "engagement" 4.3, "achievement" 4.4; not "learning" 4.9 nor "development"
#: 5.3, which beside "students" or "children" are any study of them.
ROLE_PROCESS_ZIPF = 4.5


def _their_own_process(words: list[str]) -> bool:
    """"student motivation", "student engagement": a process noun after who has it is AND-ed with them by
    :func:`_head_alone` ("citizen adoption"), except where they are a word too common to be its partner there
    ("student" 5.0); then, a process of their own (no everyday one, :data:`ROLE_PROCESS_ZIPF`), the two AND-ed
    are a term too ("motivation among secondary school students"), as for a role's state ("teacher stress")."""
    return not _head_alone(words) and general_zipf(words[1].casefold()) < ROLE_PROCESS_ZIPF


#: The part before a hyphenated participle is a term alone below this general-English frequency (Zipf):
#: "psilocybin" 2.5, "ketamine" 2.9; not "mindfulness" 3.4, "school" 5.7 ("school-based"), "exercise" 4.7.
RARE_PART_ZIPF = 3.0


#: Participles that join a means to what it serves ("X-assisted therapy", "X-based intervention", "X-guided").
_MEANS_PARTICIPLES = frozenset("assisted based guided delivered led facilitated supported enhanced augmented".split())


_TIME_UNITS = frozenset("year month week day hour minute".split())


def _activity_stem(words: list[str]) -> list[str]:
    """An activity alone or before a generic head ("nudging", "nudging interventions", "tapering interventions")
    names the concept by its verb's stem, when that verb is no common word (nudg*, which finds "nudges" too; not
    "screen")."""
    lemma = next(iter(verb_lemmas(words[0])), "") if words[0].casefold().endswith("ing") else ""
    alone = len(words) == 1 or (len(words) == 2 and words[1].casefold() in GENERIC_HEADS)
    if not (alone and len(lemma) >= 4 and words[0].isalpha() and general_zipf(lemma) < HEAD_ALONE_ZIPF):
        return []
    stem = truncation(lemma).rstrip("*")
    stem = stem if words[0].casefold().startswith(stem) else lemma[:-1]
    return [_render(stem + "*")] if len(stem) >= 4 else []  # "vap*" would open onto every "vapour"


def _phrase_parts(words: list[str]) -> list[str]:
    """The terms of a phrase's leading and trailing parts ("type 2 diabetes mellitus" -> "type 2 diabetes"), then
    of its word pairs, leaving out the parts that name nothing alone."""
    terms: list[str] = []
    kind_lead, field_of_head = _kind_lead(words), _field_before_head(words)
    # a degree word grades what follows it ("low [health literacy]", "high [blood pressure]"): its pair with the
    # next word alone ("low health", "high blood") is a fragment, not a thing (a longer part may name one: "low
    # birth weight" of "... infants")
    graded = len(words) >= 3 and words[0].casefold() in DEGREE_MODIFIERS
    for part in (words[:-1], words[1:]) if len(words) >= 4 else ():
        if not (part[0][0].isdigit() or part[-1][0].isdigit() or _modifier_end(part[-1])
                or _common_without_lead(words, part) or kind_lead and part[0] != words[0]):
            terms.extend(_phrase_terms(" ".join(part)))
    terms.extend(_deliverer_anded(words) if kind_lead else [])
    if len(words) == 3 and _rare_lead_makes_it(words):
        # the rare lead with the head, the common word between left out ("polygenic risk scores": "polygenic
        # scores"): the lead makes the concept, and its studies name it without that word
        terms.extend(_phrase_terms(f"{words[0]} {words[2]}"))
    rare_head = _rare_plural_head(words)
    for i in range(len(words) - 1):
        a, b = words[i], words[i + 1]
        if kind_lead and i > 0 or field_of_head and i == 0 or graded and i == 0:
            continue
        if i + 1 < len(words) - 1 and _modifier_end(b):
            continue  # a pair closed by a modifier of the head ("cerebral small" of "... small vessel disease")
        if _common_without_lead(words, [a, b]) or _everyday_pair_before_rarest(words, i):
            continue
        if rare_head and i + 2 == len(words) - 1:
            continue  # the pair before a rare head names another thing ("skeletal muscle" of "... relaxants")
        if i > 0 and _process_noun(a, conversion=False) and "NOUN" in word_classes(words[i - 1]):
            # the noun before a verb's noun is what it acts on ("fault prediction performance"): the pair without
            # it ("prediction performance") is every field's prediction
            continue
        if {a.casefold(), b.casefold()} <= _GENE_HEADS:
            continue  # what is studied of a gene, without the gene ("gene polymorphisms" of "VDR gene ...")
        if not (a[0].isdigit() or b[0].isdigit() or _index_word(a) or _numbered_next(words, i + 1)):
            terms.extend(_phrase_terms(f"{a} {b}"))
    return terms


def _kind_lead(words: list[str]) -> bool:
    """The phrase's lead makes the kind it names: a compound of means or content ("project-based science
    instruction", "platelet-rich fibrin matrix"), or a name with its number ("omega-3"): a part without it
    (``"science instruction"``, ``"fatty acid"``) is every kind's.
    (Not a past participle: "flipped classroom instruction" is a kind, "perceived social norms" are the norms.)"""
    first = words[0].casefold()
    # a name with its number ("omega-3 fatty acid supplementation"): ``"fatty acid"`` is every fatty acid
    numbered = bool(re.fullmatch(r"[a-z]{2,}-\d{1,2}", first))
    return len(words) >= 3 and (_means_compound(first) or _content_compound(first) or numbered)


def _deliverer_anded(words: list[str]) -> list[str]:
    """A phrase led by who delivers it ("nurse-led telephone follow-up interventions", "peer-delivered exercise
    classes"): every part keeps the lead (:func:`_kind_lead`), but studies say who delivers it many ways ("follow-up
    calls by nurses", "nurse-delivered"), so the rest of the phrase, without a generic head, is AND-ed with the
    people's stem: ``(nurse* AND ("telephone follow-up" OR ...))`` (of four words or more, the rest without its head).
    """
    left, _, right = words[0].casefold().rpartition("-")
    if not (_means_compound(words[0]) and left.isalpha()
            and (_person_word(_plural_of(left)) or _setting_of_means(left, right))):
        return []
    rest = words[1:-1] if len(words) > 3 else words[1:]  # "telephone coaching" of "... coaching sessions"
    parts = _phrase_terms(" ".join(rest)) if len(rest) > 1 else []
    parts = _dedupe([*parts, *(p.replace("-", " ") for p in parts)])
    if not parts or len(left) < 4:
        return []
    group = parts[0] if len(parts) == 1 else "(" + " OR ".join(_sendable(t) for t in parts) + ")"
    return [f"({left}* AND {group})"]


def _setting_of_means(left: str, participle: str) -> bool:
    """An everyday word of a setting or medium before a participle of means ("school-based physical activity
    interventions", "home-based cardiac rehabilitation", "web-based cognitive behavioural therapy"): alone it is
    every field's (:func:`_means_word_alone`), but kept in every variant it lost the studies that say where the
    thing was done apart ("a physical activity intervention in secondary schools"), so the rest is AND-ed with its
    stem as with a deliverer. Not a meta word ("evidence-based"), nor what guides a thing ("ultrasound-guided")."""
    return (participle != "guided" and general_zipf(left) >= EVERYDAY_WORD_ZIPF and left not in META_WORDS
            and not _means_word_alone(left, participle))


def _plural_of(noun: str) -> str:
    """A person noun as role lists write it, plural ("nurse" -> "nurses"; "staff" stays)."""
    return noun if noun.endswith("s") or noun in ROLE_WORDS else noun + "s"


def _field_before_head(words: list[str]) -> bool:
    """A three-word phrase whose middle word is a noun of a process done to the first ("suicide prevention
    messages", "smoking cessation apps"), before a head that is no generic one: the leading pair is the field the
    head is about, and alone (``"suicide prevention"``) every study of the field, not of the thing named."""
    # (the first a noun: "public management reforms" name a field's reforms, "New Public Management" its doctrine)
    return (len(words) == 3 and _process_noun(words[1], conversion=False) and not words[1].casefold().endswith("ing")
            and "ADJ" not in word_classes(words[0].casefold())
            and words[2].casefold() not in GENERIC_HEADS and words[2].isalpha()
            and "NOUN" in word_classes(words[2].casefold()) and not _process_noun(words[2]))


#: A leading pair of a longer phrase this common in general English (wordfreq: "mental health" 4.73, "public
#: health" 5.0; not "attention deficit" 4.02, "liver disease" 4.1) is a field of its own, not the phrase's concept.
EVERYDAY_PAIR_ZIPF = 4.5


def _everyday_pair_before_rarest(words: list[str], i: int) -> bool:
    """The pair at ``i`` opens the phrase, leaves out its rarest word, which follows it, and is an everyday pair
    of English ("mental health" of "mental health literacy programmes"): alone it is every study of the field
    (``"mental health"`` was a top-level alternative of a literacy programme), not the thing the phrase names."""
    # an adjective's field ("mental health"), not a thing ("fish oil supplementation", "sports training")
    if i != 0 or len(words) < 3 or word_classes(words[0].casefold()) != {"ADJ"}:
        return False
    rarest = min(range(len(words)), key=lambda k: general_zipf(words[k].casefold()))
    return rarest > 1 and general_zipf(f"{words[0]} {words[1]}".casefold()) >= EVERYDAY_PAIR_ZIPF


def _numbered_next(words: list[str], k: int) -> bool:
    """A number follows the word: the word and the number name one thing ("type 2", "stage 3", "grade II"), so a
    pair ending in the word ("incident type" of "incident type 2 diabetes") is cut inside a name."""
    return k + 1 < len(words) and (words[k + 1][:1].isdigit() or re.fullmatch(r"I{1,3}|IV|VI{0,3}", words[k + 1])
                                   is not None)


def _index_letter_a(words: list[str], i: int) -> bool:
    """A capital "A" after a content word is the letter that tells which one ("bisphenol A", "vitamin A", "group A
    streptococcus", "hepatitis A"), not the article, which English writes in lower case inside a sentence: read as
    the article it cut the name ("urinary bisphenol" | "exposure": `exposur*` alone stood beside it)."""
    before = words[i - 1].casefold() if i > 0 else ""
    return words[i] == "A" and before.isalpha() and before not in _FUNCTION | META_WORDS


def _index_word(word: str) -> bool:
    """A capital letter, alone or with a number, that tells which one of the word before it ("vitamin D", "hepatitis
    B", "factor V", "vitamin B12"): the pair it leads ("D supplementation") names nothing, and the word before it
    alone (vitamin*) is every one of them."""
    return word[:1].isupper() and word[:1].isalpha() and (len(word) == 1 or word[1:].isdigit() and len(word) <= 3)


def _common_without_lead(words: list[str], part: list[str]) -> bool:
    """``part`` of the phrase ``words`` leaves out the phrase's rarest word, which leads it, and is common English
    alone: it names nothing the phrase does ("colorectal cancer risk": "cancer risk"; "intensive care units": "care
    units"; "dialectical behaviour therapy": "behaviour therapy"), unless the lead only says how much ("acute low
    back pain": "back pain"); a rare part stays ("recurrent genital herpes": "genital herpes")."""
    first = words[0].casefold()
    if part[0] == words[0] or first in DEGREE_MODIFIERS:
        return False
    if word_classes(first) == {"ADJ"} and "ADJ" in word_classes(part[0].casefold()):
        return False  # two adjectives each qualify the head ("urban green space": a green space, urban)
    if "ADJ" in word_classes(first) and words[-1].casefold() in _INTAKE_HEADS and len(part) >= 2:
        return False  # an adjective before what is taken in says how ("dietary iron intake": "heme iron intake")
    # an adjective of every field ("modern" 5.1: "modern code review") is no rare lead, however common the rest; a
    # noun that common still names the kind ("treatment decision making": no "decision making" alone)
    every_field = general_zipf(first) >= GENERIC_ZIPF and "ADJ" in word_classes(first)
    rare_lead = not every_field and all(general_zipf(first) < general_zipf(w.casefold()) for w in words[1:])
    return rare_lead and general_zipf(" ".join(part)) >= COMMON_PAIR_ZIPF


def _rare_lead_makes_it(words: list[str]) -> bool:
    """The phrase's leading modifier is rare in English (under :data:`RARE_MODIFIER_ZIPF`, a hyphenated one as one
    word: "post-traumatic" as "posttraumatic" 2.4) and the rest is common English alone
    (:func:`_common_without_lead`): "posttraumatic stress symptoms", whose "stress symptoms" are every stress
    study's. A commoner lead leaves its rest a name ("cerebral small vessel disease": "small vessel disease")."""
    first = words[0].casefold()
    lead = min(general_zipf(first), general_zipf(first.replace("-", "")) if "-" in first else 9.0)
    return lead < RARE_MODIFIER_ZIPF and _common_without_lead(words, words[1:])


#: The endings of a noun that names a property of its modifier ("bioavailability", "permeability", "tolerance").
_PROPERTY_ENDINGS = ("ity", "ness", "ance", "ence")


def _rare_plural_head(words: list[str]) -> bool:
    """The phrase's head is a rare plural noun (below :data:`RARE_PART_ZIPF`), rarer than every word before it
    ("skeletal muscle relaxants", "relaxants" 2.0; not "software testing tools", "tools" 4.6), after an everyday
    word: the head is what makes it the concept, and the words before it name something else without it
    ("skeletal muscle", "white matter" of "white matter hyperintensities"; not "long-acting opioid" of "...
    analgesics", a class of them)."""
    head = words[-1].casefold()
    # or a rare noun of a property ("oral drug bioavailability": "oral drug" is any drug taken by mouth)
    counted = _plural(head) or head.endswith(_PROPERTY_ENDINGS)
    return (len(words) >= 3 and counted and head.isalpha() and general_zipf(head) < RARE_PART_ZIPF
            and all(general_zipf(head) < general_zipf(w.casefold()) for w in words[:-1])
            and general_zipf(words[-2].casefold()) >= EVERYDAY_WORD_ZIPF)


#: A two-word part of a phrase this common in general English (wordfreq's estimate for the pair: "cancer risk"
#: 4.7, "care units" 4.7, "dose reduction" 4.0; not "genital herpes" 3.2) names nothing without the phrase's rare
#: leading word.
COMMON_PAIR_ZIPF = 3.9


def _modifier_end(word: str) -> bool:
    """A word the lexicon reads as an adjective ("small", "silent", "oral"), and as a noun at most seldom
    (:func:`_mostly_adjective`: not "acid", "fatty acid"): inside a phrase it modifies the words after it, so a part
    of the phrase it closes names nothing ("cerebral small", "clinically silent")."""
    return "-" not in word and _mostly_adjective(word)


#: Endings that make a noun of a verb ("inherit" -> "inheritance", "recur" -> "recurrence", "predict" ->
#: "prediction", "assess" -> "assessment").
_PROCESS_ENDINGS = ("ance", "ence", "ion", "ment", "ing")  # "-ing": a verb's noun as "-ion" ("prescribing")


def _done_noun(word: str) -> bool:
    """A noun in "-ation" of a verb ("supplementation" of "supplement", "stimulation" of "stimulate")."""
    low = word.casefold()
    return low.endswith("ation") and any("VERB" in word_classes(b) for b in (low[:-5], low[:-5] + "e", low[:-3] + "e"))


def _process_noun(word: str, conversion: bool = True) -> bool:
    """``word`` names a process or an event, something that happens to something else: a noun of a verb by its
    ending ("inheritance", "recurrence", "prediction"), or with ``conversion`` a noun that is a verb as it stands
    ("relapse"). Such a noun alone is every field's (relapse of any disease, inheritance of anything): what it
    happens to is its phrase's modifier ("depressive relapse")."""
    low = word.casefold()
    if not low.isalpha():
        return False
    if conversion and "NOUN" in word_classes(low) and can_be_verb(low):
        # a verb in use, not a noun the lexicon also files as a verb ("ulcer", "stroke", "fracture"): its past
        # form is at least as common in English as its plural ("relapsed" 2.7, "relapses" 2.5; "strokes" 3.8,
        # "stroked" 2.9)
        past = max(general_zipf(low + "d" if low.endswith("e") else low + "ed"), 0.0)
        plural = general_zipf(low + "es" if low.endswith(("s", "x", "ch", "sh")) else low + "s")
        return past > 0 and past >= plural
    # a plural's singular ("injections": injection; a generic head's plural, "medications", names kinds of things)
    if low.endswith(tuple(e + "s" for e in _PROCESS_ENDINGS)) and low not in GENERIC_HEADS:
        low = low[:-1]
    for ending in _PROCESS_ENDINGS:
        base = low[: -len(ending)]
        if low.endswith(ending) and len(base) >= 4:
            # "inherit", "restrict"; "recurr" -> "recur"; "compet" -> "compete"; "prioritizat" -> "prioritize"
            # (an "-ization" noun the lexicon does not list: "prioritization", "localisation")
            bases = [base, base + "e"] + ([base[:-1]] if base[-1] == base[-2] else []) + (
                [base[:-2] + "e"] if base.endswith(("izat", "isat")) else [])
            if any("VERB" in word_classes(b) for b in bases):
                return True
    return False


def _sion_verb(noun: str) -> str:
    """The verb of a "-sion" noun whose verb ends in "-d" or "-de" ("extension": extend, "expansion": expand,
    "invasion": invade), which :func:`_process_noun`'s endings miss ("extens", "extense" are no verbs); not a verb
    of every text ("provide", "include", "decide": Zipf :data:`SION_VERB_ZIPF` or more); "" for none."""
    if not noun.endswith("sion") or len(noun) < 8:
        return ""
    base = noun[:-4]
    return next((v for v in (base + "d", base + "de") if "VERB" in word_classes(v)
                 and general_zipf(v) < SION_VERB_ZIPF), "")


#: How common a "-sion" noun's verb may be in English (Zipf) to be searched beside it: "extend" 4.34, "expand"
#: 4.35; not "decide" 4.78, "provide" 5.15.
SION_VERB_ZIPF = 4.5


def _bare_modifier(item: str) -> bool:
    """The item is one word that modifies a noun: an adjective of the lexicon ("atypical", "acute"; not a
    compound, which may be a noun's: "heavy-ion"). A name (unknown to the lexicon) is none."""
    words = _content_words(item)  # a title's capital is no name's ("Topical or systemic agents")
    return len(words) == 1 and words[0].isalpha() and words[0][1:].islower() and "ADJ" in word_classes(words[0])


def _bare_common_noun(item: str) -> bool:
    """The item is one noun of every field (:data:`GENERIC_ZIPF`: "lead" 5.2, "water" 5.5), no adjective: alone
    it is dropped as generic ("iron" 4.7, "fruit" 4.6 stand alone)."""
    words = _content_words(item)
    return (len(words) == 1 and words[0].isalpha() and words[0][1:].islower() and general_zipf(words[0]) >= GENERIC_ZIPF
            and "NOUN" in word_classes(words[0]) and "ADJ" not in word_classes(words[0]))


def _distribute_head(items: list[str]) -> list[str]:
    """A list's bare modifiers with the noun phrase listed after them, less that phrase's own first modifier
    ("acute and chronic pain" -> "acute pain"; "atypical or second-generation antipsychotic drugs" -> "atypical
    antipsychotic drugs"): a modifier alone (``atypic*``) is every field's."""
    out = list(items)
    tail = [w.casefold() for w in re.findall(_WORD, items[-1])] if items else []
    for k, item in enumerate(items):
        if _bare_common_noun(item):
            # "Lead and cadmium exposure": a noun of every field alone is dropped as generic, and its concept with
            # it; the list's next phrase's head says which of its things is meant ("lead exposure")
            later = next((w for i in items[k + 1:] if len(w := [x for r in _runs(i) for x in r]) >= 2), None)
            head = later[-1].casefold() if later else ""
            if later and "NOUN" in word_classes(head) and head not in GENERIC_HEADS | META_WORDS:
                out[k] = f"{_content_words(item)[0]} {later[-1]}"
            continue
        if not _bare_modifier(item):
            continue
        if len(tail) >= 2 and tail[-1] in META_WORDS and k < len(items) - 1:
            out[k] = f"{item.strip()} {tail[-1]}"  # "hepatic and neurological outcomes": hepatic outcomes
            continue
        # the phrase as its runs say it: no meta word, no predicate adjective closing it ("... agents effective")
        phrase = next((w for i in items[k + 1:] if len(w := [x for r in _runs(i) for x in r]) >= 2), None)
        if not phrase or _adjective(phrase[-1]):
            continue  # no noun closes the phrase: nothing to share
        rest = phrase[1:] if (_modifier_like(phrase[0]) or "ADJ" in word_classes(phrase[0])) else phrase
        out[k] = " ".join([_content_words(item)[0], *rest])
    return out


def _shared_modifiers(item: str, items: list[str]) -> list[str]:
    """The modifiers a bare process noun of a list shares with a phrase listed before it whose head is a process
    too ("depressive relapse and recurrence": the recurrence is depressive); none for any other item ("chronic
    pain and depression": depression is no event of the pain; "depression (chronic mild stress, ...)": the
    umbrella before its examples)."""
    words = _content_words(item)
    if len(words) != 1 or not _process_noun(words[0]):
        return []
    for other in items[: items.index(item)]:
        phrase = [w for r in _runs(other) for w in r]
        if len(phrase) >= 2 and _process_noun(phrase[-1]):
            return phrase[:-1]
    return []


def _head_alone(words: list[str], degree: bool = False) -> list[str]:
    """A phrase's head as a term of its own ("allergic rhinitis" -> rhinitis*), or, when the head names a
    process (:func:`_process_noun`: "depressive relapse", "transgenerational inheritance"), the head AND-ed with
    the phrase's other words that name what it happens to (``(relaps* AND depress*)``: "relapse of depression"),
    none when no word does; after a degree word ("early relapse") the head alone is the concept and stays."""
    head = words[-1]
    alone = [_render(truncation(head))]
    if degree or len(words) < 2 or not _process_noun(head):
        return alone
    # what it happens to: the phrase's other words that are not degree, meta or common words
    mods = [w.casefold() for w in words[:-1]]
    partners = _dedupe(_sendable(v) for m in mods if len(m) >= 4 and m.replace("-", "").isalpha()
                       and m not in DEGREE_MODIFIERS and m not in META_WORDS and m not in _FUNCTION
                       and m not in GENERIC_HEADS and general_zipf(m) < GENERIC_ZIPF
                       for stem in _stems(m) for v in _spellings(stem))
    if not partners:
        return []  # nothing names what it happens to: the phrase's own terms say it
    group = partners[0] if len(partners) == 1 else "(" + " OR ".join(partners) + ")"
    # a rare modifier names the concept without the process ("transgenerational effects" are the review's
    # "transgenerational inheritance"); a common one does not ("depressive" alone is any depression)
    rare = [_render(t) for m in mods if m.isalpha() and len(m) >= 6 and general_zipf(m) < RARE_MODIFIER_ZIPF
            for t in _stems(m)]
    # the process in its spellings too, as its partners are ("victimisation": victimis*, victimiz*)
    process = _dedupe(_sendable(v) for v in _spellings(_process_stem(head)))
    process_group = process[0] if len(process) == 1 else "(" + " OR ".join(process) + ")"
    return rare or [f"({process_group} AND {group})"]


def _process_stem(noun: str) -> str:
    """The stem a process noun is searched by beside what it happens to: its verb's where the noun is the verb and
    "-ment" ("enrichment": ``enrich*``, which finds "enriched environment"; ``enrichm*`` found the noun only),
    else the noun's own (``predict*`` of "prediction")."""
    low = noun.casefold()
    base = low[:-1] if low.endswith("ments") else low
    base = base[:-4] if base.endswith("ment") else ""
    stem = truncation(base) if len(base) >= 4 and base in verb_lemmas(base) else ""
    # only a stem that opens onto the verb's forms ("develop" stays whole, as it would open onto "developer")
    return stem if stem.endswith("*") else truncation(noun)


#: A modifier of a process noun this rare in general English (Zipf) names the concept alone: "transgenerational"
#: 1.7, "perioperative" 2.3; not "depressive" 3.3 nor "intergenerational" 2.7.
RARE_MODIFIER_ZIPF = 2.5


#: Heads a person's name is given to ("Wilson disease", "Down syndrome"): papers write the name with or without
#: a possessive (a general medical vocabulary).
EPONYM_HEADS = frozenset("disease syndrome disorder palsy sarcoma lymphoma ulcer phenomenon".split())


_POSSESSIVE_END_RE = re.compile(r"(?:'s|\u2019s)$")


def _eponym_terms(words: list[str]) -> list[str]:
    """A name's concept ("Alzheimer's disease", "Wilson disease"): the phrase as written, with and without the
    possessive, and the name alone (a name is specific); none for any other phrase."""
    if len(words) < 2:
        return []
    name = _POSSESSIVE_END_RE.sub("", words[0])
    possessive = name != words[0]
    if not _eponym(name) or not (possessive or words[1].casefold() in EPONYM_HEADS):
        return []
    rest = " ".join(words[1:])
    forms = [f"{name}'s {rest}", f"{name} {rest}", f"{name}s {rest}"]
    alone = [_render(truncation(name))] if general_zipf(truncation(name)) < HEAD_ALONE_ZIPF else []  # not "wilson*"
    return [t for f in forms for t in _phrase_terms(f)] + alone


#: A phrase's head stands alone as a term only below this general-English frequency ("morphine" 3.4,
#: "rhinitis" 2.4 stand; "disorder" 4.3 does not: "gambling disorder" would become every disorder).
HEAD_ALONE_ZIPF = 4.25


#: A word this common in general English (Zipf) is an everyday thing: a head after a participle that makes a kind
#: of it is not the concept alone ("classroom" 4.15 of "flipped classroom"; not "imagery" 3.83 of "guided imagery",
#: "corticosteroids" 2.67 of "inhaled corticosteroids"), and before a rare head it names another thing ("muscle"
#: 4.4 of "skeletal muscle relaxants"; not "opioid" 3.3 of "long-acting opioid analgesics").
EVERYDAY_WORD_ZIPF = 4.0


def _kind_of_everyday_thing(words: list[str]) -> bool:
    """A phrase led by a word that is only a verb's past participle ("flipped", "blended", "supervised"; not
    "allergic", "infected", which the lexicon reads as adjectives too), the rest everyday words: the participle
    makes the kind the study is about ("flipped classroom teaching"), the rest alone is every classroom."""
    first = words[0].casefold()
    return (word_classes(first) == {"VERB"} and is_past_participle(first)
            and all(general_zipf(w.casefold()) >= EVERYDAY_WORD_ZIPF for w in words[1:]))


#: Words that grade a concept ("poor sleep", "reduced mobility"): the concept alone is a term too.
DEGREE_MODIFIERS = frozenset(
    "insufficient sufficient inadequate adequate poor short long low high reduced increased decreased excessive "
    "chronic acute severe mild moderate early late delayed total partial lack limited impaired incident prevalent "
    "new-onset".split()
)


_MODIFIER_ENDINGS = ("ing", "ed", "al", "ic", "ive", "ous", "ary", "able", "ible", "ar")


def _modifier_like(word: str) -> bool:
    low = word.casefold()
    if low.endswith(("able", "ible")) and general_zipf(low + "s") >= general_zipf(low) > 0:
        # a noun one counts that only ends like an adjective, its plural the commoner ("vegetables" 4.2,
        # "vegetable" 3.9; not "edible", "wearable", "variable"): "vegetable intake" is no kind of intake, whose
        # head alone (``intak*``) was every intake study
        return False
    return "-" in low.strip("-") or (low.endswith(_MODIFIER_ENDINGS) and len(low) > 4 and not _is_acronym(word))
