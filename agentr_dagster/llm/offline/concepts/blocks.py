"""Chunks made into concept blocks: coordinations, lists and compounds joined, a block per concept."""

from __future__ import annotations

import re

from agentr_dagster.domain.specificity import general_zipf
from agentr_dagster.domain.truncation import is_acronym as _is_acronym
from agentr_dagster.domain.word_class import (
    adverb_lemmas,
    gerund,
    is_finite_verb,
    is_graded_adjective,
    is_plain_verb,
    verb_lemmas,
    word_classes,
)
from agentr_dagster.llm.offline.concepts.clauses import (
    _AUXILIARIES,
    _CHANGE_VERBS,
    _Chunk,
    _chunks,
    _facet_for,
    _is_meta_item,
    _split_items,
)
from agentr_dagster.llm.offline.concepts.model import ConceptBlock, _dedupe
from agentr_dagster.llm.offline.concepts.sentences import _restore_headings
from agentr_dagster.llm.offline.concepts.terms import (
    DEGREE_MODIFIERS,
    _activity_stem,
    _distribute_head,
    _head_alone,
    _modifier_like,
    _runs,
    _shared_modifiers,
    _singular_tail,
    _without_coordinated_predicate,
)
from agentr_dagster.llm.offline.concepts.variants import _variants
from agentr_dagster.llm.offline.concepts.vocabulary import (
    _BOUNDARY_RE,
    _COMPARATOR_CUE_RE,
    _EXAMPLE_RE,
    _EXCLUSION_ANY_RE,
    _EXCLUSION_START_RE,
    _FUNCTION,
    _JOIN,
    _NO_CONCEPT_ALONE,
    _OUTCOME_CUE_RE,
    _PREPOSITIONS,
    _SETTING_CUE_RE,
    _SPAN_CUE_RE,
    _STUDY_NOUNS,
    _WHO_FIRST,
    _WORD,
    DEMOGRAPHIC_WORDS,
    GENERIC_HEADS,
    GENERIC_ZIPF,
    META_WORDS,
    _content_words,
    _person_word,
    _plural,
    _sentences,
)
from agentr_dagster.llm.offline.concepts.who import _who_block, names_animals


def _optional_by_wording(blocks: list[ConceptBlock], dropped: list[str]) -> None:
    """Blocks the wording makes optional: demographic-only ones ("adults", "patients") when a more specific block
    exists, and a concept the question says not to require ("regardless of whether CAIM is mentioned")."""
    for block in blocks:
        words = {w.casefold() for w in _content_words(block.label)}
        if words <= DEMOGRAPHIC_WORDS:
            block.required = False
    if not any(b.required for b in blocks) and blocks:
        blocks[0].required = True
    for clause in dropped:
        if re.match(r"(?i)(regardless|irrespective)\b", clause):
            low = clause.casefold()
            for block in blocks:
                named = [w for i in [block.label, *block.items] for w in _content_words(i) if len(w) > 2]
                if any(re.search(r"\b" + re.escape(w.casefold()) + r"\b", low) for w in named):
                    block.required = False


def _first_person(sentence: str) -> bool:
    """An abstract's first sentence that says "we" or "our" is its aim or its method, not a title: its concepts are
    not the title's subjects to AND together."""
    return re.search(r"\b(?:we|our|us)\b", sentence, re.I) is not None


def _result_phrase(label: str) -> bool:
    """A phrase led by a graded adjective ("fewer abstracts", "higher accuracy"): an abstract's result, which its
    subject's studies need not name."""
    words = label.split()
    return bool(words) and is_graded_adjective(words[0])


_COORDINATION_RE = re.compile(r"\b([A-Za-z][\w-]+) (and|&) ([A-Za-z][\w-]+) ([A-Za-z][\w-]+)\b")


def _join_named_coordinations(text: str, acronyms: dict[str, str]) -> str:
    """A coordination inside a multi-word name ("acceptance and commitment therapy", "research and development
    spending") stays one phrase: it is one where the text defines an acronym for it, uses its initials as one
    ("ACT"), or says it verbatim twice or more (then it is a fixed name, not two concepts sharing a head). Other
    coordinations are left to the list split ("anxiety and depression" are two concepts)."""
    low = text.casefold()
    named = {long.casefold() for long in acronyms.values()}
    found: set[str] = set()
    for m in _COORDINATION_RE.finditer(text):
        words = [m.group(1), m.group(3), m.group(4)]
        if any(w.casefold() in _FUNCTION or w.casefold() in META_WORDS for w in words):
            continue
        phrase = m.group(0).casefold()
        # said twice, it is a name only when the word after "and" can be a noun of it: an adjective opens a
        # phrase of its own ("Mediterranean diet and cognitive decline", a title repeated by the aim: two concepts),
        # also one the lexicon knows as a noun too ("chronic", "social", "physical": "loneliness and chronic pain")
        twice = (low.count(phrase) >= 2 and "ADJ" not in word_classes(m.group(3).casefold())
                 and not _said_apart(low, m))
        # an acronym of its three words' initials said anywhere (undefined: "compare ACT with a waitlist")
        initials = "".join(w[0] for w in words).upper()
        if any(phrase in n for n in named) or twice or re.search(rf"\b{initials}s?\b", text):
            found.add(phrase)
    for phrase in sorted(found, key=len, reverse=True):
        first, conj, rest = phrase.split(" ", 2)
        text = re.sub(r"\b" + re.escape(f"{first} {conj} ") + r"(?=" + re.escape(rest) + r"\b)",
                      lambda m: m.group(0).replace(" ", _JOIN), text, flags=re.I)
    return text


def _said_apart(low: str, m: re.Match) -> bool:
    """The words after a coordination's "and" are said as a phrase of their own elsewhere in the lower-case text
    ("medication adherence and blood pressure" beside "systolic blood pressure"): two concepts, each named alone,
    not a fixed name ("commitment therapy" is never said without "acceptance and")."""
    rest = re.escape(f"{m.group(3)} {m.group(4)}".casefold())
    # after "and" or "or" it is the coordination again ("fruit or vegetable intake")
    return len(re.findall(rf"\b{rest}\b", low)) > len(re.findall(rf"\b(?:and|or|&) {rest}\b", low))


#: "N of N": a word, "of", a word, and what follows (a content word goes on the phrase: no compound).
_OF_COMPOUND_RE = re.compile(r"\b([A-Za-z]+) of ([a-z]+)\b(?![-'])(\W+[A-Za-z][\w-]*)?")


#: "the impact of X on Y", "the influence of X on Y": a noun of effect framing what X does to Y (a frame of
#: English, as "the effect of X on Y"), up to the "on" in the same sentence.
_EFFECT_FRAME_RE = re.compile(
    r"\b((?:the|an?|its|their|any)\s+(?:\w+\s+)?)(?:impacts?|influences?)(\s+of\s+[^.;:?!]*?\s+on\s)", re.I)


#: "to map the evidence", "we map how ...": the verb "map" of a review's aim (a scoping review's word), before
#: what is mapped.
_MAP_AIM_RE = re.compile(r"\b(to|we|and)\s+map\b(?=\s+(?:the|all|what|how|which|where|current|existing|available|"
                         r"published|research|evidence|literature|studies)\b)", re.I)


def _map_as_aim(text: str) -> str:
    """A review's aim "to map the X" read as "to identify the X": the verb is the review's act, not a topic word
    ("Objective: To map the evidence on peer mentoring" required ``map``)."""
    return _MAP_AIM_RE.sub(lambda m: m.group(1) + " identify", text)


#: What a question of a treatment's effect asks of it ("Are X effective ...", "How safe is X ...").
_EFFECT_ADJECTIVES = r"effective|efficacious|safe|beneficial|useful|helpful|accurate"


#: "How effective are X for Y?": the effect frame's adjective asked first; X runs to the first word that opens
#: what it is for, where or when (or to the question mark).
_HOW_ADJECTIVE_RE = re.compile(
    rf"(?:^|(?<=[.?!]\s))({_WHO_FIRST})how\s+((?:more\s+|less\s+)?(?:{_EFFECT_ADJECTIVES}))\s+"
    r"(are|is|were|was)\s+(.+?)(?=\s+(?:for|in|at|among|during|after|following|when|compared|versus|vs|than|to|on|"
    r"with)\b|\s*\?)", re.I)


#: "accurate for detecting Y", "effective at finding Y": the act a test or a technique is judged at (round 22's
#: ``_TEST_ACT_STEMS`` of an abstract); what it finds is the concept, whatever verb its studies use ("real faults
#: detected", "fault detection").
_ACCURATE_FOR_ACT_RE = re.compile(
    r"\b(accurate|effective|efficient|useful)\s+(?:for|in|at)\s+(?:detecting|diagnosing|identifying|finding|"
    r"locating|screening\s+for|distinguishing|discriminating|differentiating)\s+", re.I)


#: "What is the diagnostic accuracy of X for detecting Y?": the accuracy asked as a noun, of X, for an act.
_ACCURACY_OF_RE = re.compile(
    r"(?:^|(?<=[.?!]\s))what\s+(is|are|was|were)\s+the\s+(?:(?:diagnostic|discriminative|screening)\s+)?"
    r"accuracy\s+of\s+(.+?)\s+((?:for|in|at)\s+(?:detecting|diagnosing|identifying|screening\s+for|distinguishing|"
    r"discriminating|differentiating)\b)", re.I)


def _accuracy_of_as_how_accurate(text: str) -> str:
    """"What is the diagnostic accuracy of X for detecting Y?" said as "How accurate is X for detecting Y?", which
    the effect frame reads (``X AND Y``, :func:`_how_adjective_last`): read as it stood, "diagnostic accuracy" was
    a required block of the rest branch (``X OR (Y AND accurac*)``; accuracy studies say "sensitivity") and the
    act a term (``"distinguishing inflammatory bowel disease"``)."""
    return _ACCURACY_OF_RE.sub(lambda m: f"How accurate {m.group(1).casefold()} {m.group(2)} {m.group(3)}", text)


#: "How does the efficacy of X compare with (that of) Y for Z?": X's effect asked against a named Y (not "How do X
#: compare with Y?", which may ask of X's studies alone: round 20's rilpivirine regimens).
_HOW_COMPARE_RE = re.compile(
    r"(?:^|(?<=[.?!]\s))how\s+(?:does|do|did)\s+the\s+(?:efficacy|effectiveness|safety)\s+of\s+(.+?)\s+"
    r"compare\s+(?:with|to|against)\s+(?:that\s+of\s+|those\s+of\s+)?(.+?)(?=\s+(?:for|in|among|at|on)\b|\s*\?)",
    re.I)


def _how_compare_as_than(text: str) -> str:
    """"How does the efficacy of X compare with that of Y for Z?" said as "Is X more effective than Y for Z?", the
    compared frame (:func:`~agentr_dagster.llm.offline.concepts.frames._named_comparator_anded`: a rarely named Y
    is AND-ed with X): read as it stood, Y was a subject of the rest branch (``X OR (Y AND Z)``, every study of Y
    for Z)."""
    return _HOW_COMPARE_RE.sub(lambda m: f"Is {m.group(1)} more effective than {m.group(2)}", text)


def _how_adjective_last(text: str) -> str:
    """"How effective are X for Y?" said as "Are X effective for Y?": the same question, which the effect frame
    reads (:data:`_EFFECTIVE_FRAME_RE`: X what is done, Y what it is for), where the adjective asked first was
    read as a concept of its own (``X OR (bully* AND effect*)``)."""
    def reordered(m: re.Match) -> str:
        be = m.group(3).casefold() if m.group(1) else m.group(3).capitalize()  # who may come first ("Among X, ...")
        return f"{m.group(1)}{be} {m.group(4)} {m.group(2).casefold()}"
    # what a test is accurate for is the condition, not the act of testing ("accurate for detecting major
    # depression": ``"detecting major depression"`` was a term), said after "for" ("accurate at Y" made Y an
    # alternative of the test)
    return _ACCURATE_FOR_ACT_RE.sub(r"\1 for ", _HOW_ADJECTIVE_RE.sub(reordered, _accuracy_of_as_how_accurate(
        _how_compare_as_than(_HOW_COMMON_RE.sub("What is the prevalence of ", text)))))


#: "How common is X among Y?", "How prevalent are X in Y?": how often X occurs, asked by an adjective of frequency
#: (a general vocabulary of epidemiology, as "prevalence" is); read as it stood, the adjective was a block of its
#: own, everyday English ("common"), which kept the people in the rest branch (``X OR (nurse* AND common)``).
_HOW_COMMON_RE = re.compile(
    r"(?:^|(?<=[.?!]\s))how\s+(?:common|prevalent|frequent|widespread)\s+(?:is|are|was|were)\s+(?:the\s+)?", re.I)


#: "How robust are the findings of X?", "How consistent are the associations between X and Y?": an adjective asked
#: of what studies found (a general vocabulary of research results), no concept the studies name.
_APPRAISED_RESULTS_RE = re.compile(
    r"(?:^|(?<=[.?!]\s))how\s+([a-z-]+)\s+(?:is|are|were|was)\s+(?:the\s+(?:[\w-]+\s+)?(?:findings|results|evidence|"
    r"conclusions|estimates)\s+(?:of|from|on|in)\b|(the\s+(?:[\w-]+\s+)?(?:associations|relationships|"
    r"correlations)\b))", re.I)


def _appraised_results_known(text: str) -> str:
    """"How robust are the findings of X?" said as "What is the evidence on X?" ("... the associations between A
    and B?" as "What are the associations between A and B?"): the adjective asked first is what the review
    appraises of the results (``robust*``, ``consist*`` were main terms), and the results' noun (``finding*``) is
    no more a concept than "studies" is; only an adjective (the lexicon's) asked of a noun of results."""
    def known(m: re.Match) -> str:
        if "ADJ" not in word_classes(m.group(1).casefold()):
            return m.group(0)
        return f"What are {m.group(2)}" if m.group(2) else "What is the evidence on"
    return _APPRAISED_RESULTS_RE.sub(known, text)


#: A word and the word after it (looked ahead: every pair of neighbours).
_WORD_PAIR_RE = re.compile(r"\b([A-Za-z]+)\s+(?=([A-Za-z]+)\b)")


def _adverb_before_verb_dropped(text: str) -> str:
    """An adverb before a word that can only be a verb ("Which animal models of X best reproduce Y?", "... most
    improve", "... consistently predict") says how the verb holds, no concept: read with the subject it made a
    phrase of it (``"traumatic brain injury best"``) and the verb was no verb. Only a word the lexicon reads as an
    adverb and no noun, or as a graded form ("best", "better": a noun too, but not an adverb's plain form)."""
    def dropped(m: re.Match) -> str:
        low = m.group(1).casefold()
        adverbs = adverb_lemmas(low) if len(low) > 3 and low not in _FUNCTION else ()
        if not adverbs or not is_finite_verb(m.group(2)) or "NOUN" in word_classes(low) and low in adverbs:
            return m.group(0)
        return ""
    return _WORD_PAIR_RE.sub(dropped, text)


#: A question's leading "In <animals> model(s) of Y, ...": who the studies are done on, put first.
_MODELS_OF_FIRST_RE = re.compile(r"^(\s*(?:in|among|for)\s+((?:[\w-]+\s+){0,3}?models?))\s+of\s+(?=[^,;:?]+,)",
                                 re.I)


def _models_of_first_as_with(text: str) -> str:
    """"In rodent models of neuropathic pain, are X effective for Y?" said as "In rodent models with neuropathic
    pain, ...": Y is the animals' condition, as in "In rats with Y" (a population); read after "of" (the cue of
    what is given) it was a second intervention, first in the query (``neuropathic* OR (gabapentinoid* AND ...)``:
    every animal study of the condition). Only where the phrase names laboratory animals' models and a comma
    closes it; "Which animal models of Y ..." asks of the models of Y, which stay the subject."""
    m = _MODELS_OF_FIRST_RE.match(text)
    if m is None or not names_animals(m.group(2)):
        return text
    return f"{m.group(1)} with {text[m.end():]}"


#: Participles of trying a method out: what it was tried "on" is the material of the studies, not their topic
#: ("techniques evaluated on open-source projects", "models trained on hospital data").
_TRIED_ON_RE = re.compile(r"\b((?:evaluated|tested|validated|benchmarked|trained|assessed)\s+)on\b", re.I)


def _tried_on_as_in(text: str) -> str:
    """"... have been evaluated on open-source projects" said as "... evaluated in open-source projects": read as
    "on" (what X acts on: an outcome) the projects were a required block and, the rest branch's one block, a
    top-level alternative (every study of open-source projects); in "in" they are where the studies are."""
    return _TRIED_ON_RE.sub(r"\1in", text)


#: "What drives / motivates / leads X to V Y?": a verb asked of what makes people do something, its object (X)
#: who does it, and "V Y" the act the studies are about.
_CAUSATIVE_RE = re.compile(
    r"(?:^|(?<=[.?!]\s))what\s+([a-z]+s)\s+((?:[\w'-]+\s+){0,6}?[\w'-]+)\s+to\s+([a-z]+)\b([^?.]*)\?", re.I)


def _causative_known(text: str) -> str:
    """"What drives university students to cheat on online examinations?" said as "What is the evidence on
    cheating on online examinations among university students?": the verb's "-s" form (a noun too: "drives",
    "leads") was read as a noun of the phrase ("drives university students") and the act, a verb after "to", was
    lost; the act (its "-ing" form) is the subject, the people who do it who the studies are about."""
    def known(m: re.Match) -> str:
        verb, act = m.group(1).casefold(), m.group(3).casefold()
        if not verb_lemmas(verb) or verb in verb_lemmas(verb) or not is_plain_verb(act) \
                or m.group(2).split()[0].casefold() in _FUNCTION:
            return m.group(0)
        return f"What is the evidence on {gerund(act)}{m.group(4)} among {m.group(2)}?"
    return _prevented_act_known(_why_people_act_known(_CAUSATIVE_RE.sub(known, text)))


#: "What prevents X from V-ing Y?", "What factors deter X from V-ing Y?": what keeps people from an act.
_PREVENTED_RE, _PREVENTED_PLAIN_RE = (re.compile(
    r"(?:^|(?<=[.?!]\s))what\s+" + noun + r"([a-z]+)\s+((?:[\w'-]+\s+){0,6}?[\w'-]+)\s+from\s+([a-z]+ing)\b"
    r"([^?.]*)\?", re.I) for noun in (r"([a-z]+)\s+", "()"))


def _prevented_act_known(text: str) -> str:
    """"What prevents men from seeking help for depression?" said as "What is the evidence on seeking help for
    depression among men?", the reading of "What leads X to V Y?" (:func:`_causative_known`): the act kept from
    is the subject and the people who is kept from it; read as it stood, "seeking" went with the people
    (``(seeking* AND men)``) and the act's object stood alone (``depress*``). Only where the verb is a verb's
    form (the lexicon's; after a noun, "What factors deter ...", its plain form) and the word after "from" a
    gerund."""
    def known(m: re.Match) -> str:
        noun, verb, act = (m.group(1) or "").casefold(), m.group(2).casefold(), m.group(4).casefold()
        if noun and "NOUN" not in word_classes(noun) or not verb_lemmas(verb) or not verb_lemmas(act) \
                or (verb in verb_lemmas(verb)) != bool(noun) or m.group(3).split()[0].casefold() in _FUNCTION:
            return m.group(0)
        return f"What is the evidence on {act}{m.group(5)} among {m.group(3)}?"
    return _PREVENTED_PLAIN_RE.sub(known, _PREVENTED_RE.sub(known, text))


#: "Why do X V Y?": people (one to four words, the last a plural) and their act, a plain verb and what follows.
_WHY_DO_RE = re.compile(
    r"(?:^|(?<=[.?!]\s))why\s+do\s+((?:[\w'-]+\s+){0,3}?[\w'-]+s)\s+([a-z]+)\b([^?.]*)\?", re.I)


#: Endings of a noun of who does something ("firefighter", "officer", "pharmacist", "librarian", "paramedic",
#: "trainee"): English's agent suffixes.
_AGENT_ENDINGS = ("er", "or", "ist", "ian", "ic", "ee")


def _agent_noun(plural: str) -> bool:
    """``plural`` is a plural noun of an agent by its ending (:data:`_AGENT_ENDINGS`), the lexicon's noun: in "Why
    do X V Y?" with an object Y, who does the act ("Why do firefighters decline influenza vaccination?"), whatever
    list of roles knows them."""
    singular = plural[:-1] if plural.endswith("s") and not plural.endswith("ss") else ""
    ending = next((e for e in _AGENT_ENDINGS if singular.endswith(e)), "")
    if len(singular) < 5 or not ending or not word_classes(singular) <= {"NOUN"} or singular.startswith("anti"):
        return False  # "anti-" names what acts against something ("antibiotics", "antagonists"): a thing
    # a verb's "-er" or "-or" noun names a thing as often as a person ("blocker", "inhibitor", "stabilizer"): the
    # agent's base is a noun ("office", "library", "pharmacy") or a compound's ("firefight")
    base = singular[: -len(ending)]
    return not any("VERB" in word_classes(b) for b in (base, base + "e", base + "y", base[:-1]))


def _act_of_its_doers(items: list[str], label: str) -> bool:
    """``items`` name the act that the people of ``label`` are named after, apart from them ("shift work" beside
    "night shift workers", "cannabis use" beside "cannabis users"): what is studied among those who do it, another
    concept than the people, not a variant of them. Only where the label's head is an agent noun in "-er"/"-or"
    and the item's other words are the label's."""
    words = [w.casefold() for w in _content_words(label)]
    item = [w.casefold() for w in _content_words(items[0])] if len(items) == 1 else []
    if len(words) < 2 or not item or not set(item[:-1]) <= set(words[:-1]):
        return False
    singular = words[-1][:-1] if words[-1].endswith("s") and not words[-1].endswith("ss") else ""
    ending = next((e for e in ("er", "or") if singular.endswith(e)), "")
    base = singular[: -len(ending)]
    act = item[-1][:-3] if item[-1].endswith("ing") else item[-1]
    return len(base) >= 3 and bool(ending) and act in (base, base + "e") and "NOUN" in word_classes(singular)


def _change_in(text: str) -> bool:
    """The chunk after "in" opens with a change verb's "-ing" form ("effective in reducing readmissions"): what
    the change is in is an outcome, no place the studies are done in."""
    first = (re.findall(_WORD, text) or [""])[0].casefold()
    return first.endswith("ing") and any(lemma in _CHANGE_VERBS for lemma in verb_lemmas(first))


def _agents_among(plural: str) -> bool:
    """``plural``, the head of what follows "among", is a plural noun of an agent by its ending, the lexicon's noun
    only ("controllers", "dispatchers", "inspectors"): after "among" it names people, though a verb's "-er" noun
    names a thing as often elsewhere ("blockers"; :func:`_agent_noun` leaves those out where no place says so)."""
    singular = plural[:-1] if plural.endswith("s") and not plural.endswith("ss") else ""
    return len(singular) >= 5 and singular.endswith(_AGENT_ENDINGS) and bool(word_classes(singular)) \
        and word_classes(singular) <= {"NOUN"} and not singular.startswith("anti")


def _why_people_act_known(text: str) -> str:
    """"Why do teachers leave the profession?" said as "What is the evidence on leaving the profession among
    teachers?", the reading of "What leads X to V Y?" (:func:`_causative_known`): the act is the subject and the
    people who do it who the studies are about; read as it stood, the people and the verb made one phrase and the
    act was lost (``profess*`` alone). Only where the people's last word is a person noun and the act a plain
    verb."""
    def known(m: re.Match) -> str:
        people, act = m.group(1), m.group(2).casefold()
        head = people.split()[-1].casefold()
        if not is_plain_verb(act) or not (_person_word(head) or _agent_noun(head) and m.group(3).strip()) \
                or people.split()[0].casefold() in _FUNCTION:
            return m.group(0)
        return f"What is the evidence on {gerund(act)}{m.group(3)} among {people}?"
    return _WHY_DO_RE.sub(known, text)


#: "The concept of X", "concepts of X", "the notion of X": what a review of the idea says of X (a scoping review
#: of a concept); never "concept maps", "a new concept for X".
_CONCEPT_OF_RE = re.compile(r"\b(?:the\s+)?(?:concepts?|notions?)\s+of\s+(?=\w)", re.I)


def _concept_of_dropped(text: str) -> str:
    """"The concept of public value in X" is about public value: the frame's noun names no concept its studies
    share, and left alone it was the whole query (``concept``, every record that says the word)."""
    return _CONCEPT_OF_RE.sub("", text)


#: A realist review's question: "How does X work (, for whom and in what circumstances)?", "X: what works, for whom
#: and in what circumstances?", then often its own kind as a sentence ("? A realist review"): a general vocabulary
#: of realist synthesis (RAMESES), whose words name no concept of the studies.
_HOW_X_WORKS_RE = re.compile(
    r"\b(how)\s+(?:do|does|did|can|could|might)\s+((?:(?!\bworks?\b)[^,;:?.!])+?)\s+work\b(?=\s*[,;:?]|\s+(?:for|in|and)\b)",
    re.I)
_FOR_WHOM_RE = re.compile(
    r"(?::\s*what works)?,?\s*(?:and\s+)?\bfor whom\b,?\s*(?:and\s+)?(?:(?:in|under) what (?:circumstances|contexts?|"
    r"conditions)\b)?(?:,?\s*(?:and\s+)?(?:how|why)\b(?=\s*[?.]))?", re.I)
_OWN_KIND_SENTENCE_RE = re.compile(
    r"(?<=\?)\s+An?\s+(?:[\w-]+\s+){0,3}(?:review|study|meta-analysis|overview|synthesis|evaluation)"
    r"(?:\s+and\s+(?:an?\s+)?(?:[\w-]+\s+){0,2}(?:review|meta-analysis|synthesis))?\s*(?:\.|$)")


#: A title's question that names nothing ("X: what works?") and then the paper's own kind with what it gathers
#: ("A rapid review of nursing interventions").
_WHAT_WORKS_KIND_RE = re.compile(
    r"^(?P<x>[^:?.]+?):\s*what works\?\s+An?\s+(?:[\w-]+\s+){0,3}(?:review|overview|synthesis|meta-analysis)\s+"
    r"of\s+(?P<y>[^:?.]+?)\s*[.]?\s*$", re.I)


def _what_works_for(text: str) -> str:
    """"Fall prevention in hospitals: what works? A rapid review of nursing interventions" is a review of Y for X:
    read as a question and a second sentence, the kind's words were a term (``"rapid review"``) and Y an
    alternative to X (``"fall prevention" OR (nursing interventions AND "rapid review")``). Said as its title
    would be ("Nursing interventions for fall prevention in hospitals: a review"), X and Y are its two concepts."""
    m = _WHAT_WORKS_KIND_RE.match(text.strip())
    if not m:
        return text
    x, y = m.group("x").strip(), m.group("y").strip()
    x = x[0].lower() + x[1:] if x[1:2].islower() else x  # a capital only the title's ("Fall"), not a name's
    return f"{y[0].upper()}{y[1:]} for {x}: a review"


def _realist_frame_dropped(text: str) -> str:
    """"How does participatory budgeting work, for whom and in what circumstances? A realist review": the
    studies are of participatory budgeting; "work" was read into its phrase (``"budgeting work"``), the
    circumstances were a required block (``circumstanc*``) and the paper's own kind, a sentence after the
    question, a concept (``realist``, every realist paper). "How does X work" is said "What is the evidence on X"
    (as :func:`_prevented_act_known` says its reading), "for whom and in what circumstances" leaves, and so does
    the kind."""
    text = _OWN_KIND_SENTENCE_RE.sub(" ", _what_works_for(text))
    text = _FOR_WHOM_RE.sub("", text)
    return _HOW_X_WORKS_RE.sub(lambda m: ("W" if m.group(1)[0].isupper() else "w") + f"hat is the evidence on "
                               f"{m.group(2)}", text)


#: "Teachers' experiences of X", "service users' views of X": people's experiences (perceptions, views) of X.
_PEOPLES_EXPERIENCES_RE = re.compile(
    r"\b((?:[A-Za-z-]+\s+){0,2}[A-Za-z-]+?)(?:'s|s'|\u2019s|s\u2019)\s+((?:lived\s+)?(?:experiences?|perceptions?|"
    r"perspectives?|views?|accounts?)\s+of\s+)([^:;.?!,()]+)")


def _peoples_experiences_of(text: str) -> str:
    """"Teachers' experiences of burnout" said as "experiences of burnout among teachers": a qualitative
    synthesis is about X as its people live it; read as one phrase ("teacher experiences") the people and the meta
    noun were the main block and X, once a background judged the first narrow, left the query (``"teacher
    experience(s)"`` alone)."""
    def among(m: re.Match[str]) -> str:
        people = m.group(1) + ("s" if m.group(0)[len(m.group(1)):].startswith("s'") else "")
        words = people.split()
        cut = max((k + 1 for k, w in enumerate(words) if w.casefold() in _FUNCTION), default=0)
        if cut == len(words) or not _person_word(words[-1].casefold()):
            return m.group(0)
        lead = " ".join(words[:cut]) + " " if cut else ""
        people = " ".join(words[cut:])
        people = people[0].lower() + people[1:] if people[1:2].islower() else people
        said = f"{m.group(2)}{m.group(3).rstrip()} among {people}{m.group(3)[len(m.group(3).rstrip()):]}"
        return lead + (said[0].upper() + said[1:] if m.group(0)[:1].isupper() else said)
    return _PEOPLES_EXPERIENCES_RE.sub(among, text)


def _effect_frame_nouns(text: str) -> str:
    """"the impact of X on Y" and "the influence of X on Y" said as "the effect of X on Y": the frame's noun is
    what the review asks of X, no concept its studies name ("What is the impact of conditional cash transfers on
    school enrolment?" required ``impact*``); and "Does exposure to X V Y?" as "Does X V Y?"
    (:data:`_EXPOSURE_FRAME_RE`: "exposure to smoking ..." split at "to" before a gerund made ``exposur*`` a block
    of its own, and the main one)."""
    text = _EXPOSURE_FRAME_RE.sub(r"\1", _EFFECT_FRAME_RE.sub(lambda m: m.group(1) + "effect" + m.group(2), text))
    return _property_after_drug(text)


#: "lamotrigine pharmacokinetics": a drug's property named after the drug, as "the pharmacokinetics of X" names it.
_PROPERTY_AFTER_RE = re.compile(r"\b([A-Za-z][a-z-]{3,})\s+(pharmacokinetics|pharmacodynamics|bioavailability)\b")


def _property_after_drug(text: str) -> str:
    """"Changes in lamotrigine pharmacokinetics during pregnancy" said as "the pharmacokinetics of lamotrigine":
    the drug is what the studies give and measure (:data:`frames._DRUG_PROPERTY_RE`); read as one compound the
    drug was no term of its own (``"lamotrigine pharmacokinetics"``, which no study of its clearance writes). Only
    a word rare in general English (Zipf below :data:`NAME_ZIPF`: a drug's name, not "population" or "clinical")
    that the lexicon knows as no adjective."""
    def said(m: re.Match) -> str:
        word = m.group(1)
        if general_zipf(word.casefold()) >= NAME_ZIPF or "ADJ" in word_classes(word.casefold()):
            return m.group(0)
        return f"the {m.group(2)} of {word}"
    return _PROPERTY_AFTER_RE.sub(said, text)


#: "Does exposure to X increase Y?", "the effect of exposure to X on Y": "exposure to" with no modifier of its
#: own ("prenatal exposure to X" keeps it) only says X is what the studies expose people to.
_EXPOSURE_FRAME_RE = re.compile(
    r"(?:^|(?<=[.?!]\s))((?:does|do|did|is|are|was|were|can|could|how\s+does|how\s+do)\s+)exposure\s+to\s+(?=\w)|"
    r"(?<=\bof\s)()exposure\s+to\s+(?=\w)", re.I)


def _join_of_compounds(text: str) -> str:
    """A meta noun "of" a noun too common to name anything alone is one compound, written with hyphens ("quality
    of life" -> "quality-of-life", as "end-of-life" is): alone the meta noun says nothing and neither does the
    noun ("life"), so the phrase is the concept and is judged as one (:func:`phrase_zipf`). The meta noun is one
    the lexicon knows only as a noun, singular (an attribute: "quality", "safety"; not a relation that is a verb
    too, "effect of X on Y", "use of X", nor a quantity, "number of", "level of"), not a role head ("the role of
    X"); the noun after "of" is a noun of every field (general Zipf :data:`GENERIC_ZIPF` or more), no person
    word ("the quality of life of children") and no phrase's first word ("quality of care homes")."""
    def join(m: re.Match) -> str:
        meta, noun, after = m.group(1), m.group(2), m.group(3) or ""
        low = meta.casefold()
        nxt = after.strip(" \t").casefold()
        if (low in META_WORDS and low not in _FUNCTION and low not in _ROLE_HEADS and not low.endswith("s")
                and word_classes(low) == {"NOUN"} and noun not in META_WORDS and noun not in _FUNCTION
                and "NOUN" in word_classes(noun) and general_zipf(noun) >= GENERIC_ZIPF and not _person_word(noun)
                and not (nxt and nxt[0].isalpha() and after[:1].isspace() and nxt not in _FUNCTION
                         and nxt not in META_WORDS)):
            return f"{meta}-of-{noun}{after}"
        return m.group(0)

    return _OF_COMPOUND_RE.sub(join, text)


#: A suspended hyphen: "carbon-, helium- or other heavy-ion" says "carbon-ion", "helium-ion" (the word after the
#: last hyphen, shared by every word left hanging before the "and" / "or").
_SUSPENDED_HYPHEN_RE = re.compile(
    r"\b([A-Za-z]{2,})-(?=(?:,\s*[A-Za-z]{2,}-)*,?\s+(?:and|or)\s+(?:other\s+)?[A-Za-z]{2,}(?:/[A-Za-z]{2,})?-([A-Za-z]{2,}))")


#: Two words before one hyphenated tail ("heavy/light-ion"): each with the tail when the first is an adjective
#: (not "fault location/fault-proneness", two nouns' phrases).
_SLASHED_HYPHEN_RE = re.compile(r"\b([A-Za-z]{2,})/([A-Za-z]{2,})-([A-Za-z]{2,})\b")


#: An adjective glossed in brackets before the rest of its phrase: "atypical (second-generation) antipsychotic
#: drugs" (the gloss one or two lower-case words, the rest up to three words).
_GLOSS_RE = re.compile(r"\b([a-z]+) \(([a-z][a-z-]*(?: [a-z][a-z-]*)?)\) ([A-Za-z][\w-]*(?: [A-Za-z][\w-]*){0,2})")


def _unfold_glosses(text: str) -> str:
    """A glossed adjective's phrase said twice, once with each ("atypical antipsychotic drugs (second-generation
    antipsychotic drugs)"), so the gloss is no concept alone. The rest stops at a function or meta word."""
    def unfold(m: re.Match) -> str:
        rest = []
        for word in m.group(3).split():
            if word.casefold() in _FUNCTION or word.casefold() in META_WORDS:
                break
            rest.append(word)
        if not rest or "ADJ" not in word_classes(m.group(1)):
            return m.group(0)
        tail = m.group(3)[len(" ".join(rest)):]
        phrase = " ".join(rest)
        return f"{m.group(1)} {phrase} ({m.group(2)} {phrase}){tail}"
    return _GLOSS_RE.sub(unfold, text)


def _complete_suspended_hyphens(text: str) -> str:
    """Each word of a suspended-hyphen list with its shared tail ("carbon-, helium- or neon-ion" -> "carbon-ion,
    helium-ion or neon-ion"; "heavy/light-ion" -> "heavy-ion/light-ion"), so no hanging word becomes a term."""
    text = _SUSPENDED_HYPHEN_RE.sub(lambda m: f"{m.group(1)}-{m.group(2)}", text)
    return _SLASHED_HYPHEN_RE.sub(lambda m: f"{m.group(1)}-{m.group(3)}/{m.group(2)}-{m.group(3)}"
                                  if "ADJ" in word_classes(m.group(1)) else m.group(0), text)


#: "ultrasound guided nerve blocks", "computer assisted training": a noun and a participle of means written apart
#: before what they qualify (the participles that make such compounds; "delivered", "supported" are mostly verbs).
_MEANS_APART_RE = re.compile(r"\b([A-Za-z][\w-]*[A-Za-z]) (based|guided|assisted|led) (?=([A-Za-z][\w-]*))")


def _means_compounds(text: str) -> str:
    """A noun and a participle of means written apart before a word join as the compound they are ("Computer
    assisted cognitive training" -> "Computer-assisted cognitive training"), so the participle is no verb that cuts
    off what it qualifies (the training was lost). Not after a plural or before a function word or an adverb
    ("interventions based on CBT", "sessions led weekly" are verbs)."""

    def join(m: re.Match) -> str:
        before, after = m.group(1), m.group(3).casefold()
        last = before.casefold().rsplit("-", 1)[-1]
        plural = last.endswith("s") and not last.endswith(("ss", "us", "is"))
        noun = "NOUN" in word_classes(last) and last not in _FUNCTION
        if plural or not noun or after in _FUNCTION or after.endswith("ly"):
            return m.group(0)
        return f"{before}-{m.group(2)} "

    return _MEANS_APART_RE.sub(join, text)


#: "X and non-X H", "X or non-X H": both kinds of H, so all of H ("selective and non-selective inhibitors").
_OWN_NEGATION_RE = re.compile(r"\b([A-Za-z][\w-]{2,}) (?:and|or|&) non-?\1 (?=([A-Za-z][\w-]*))", re.I)


def _without_own_negation(text: str) -> str:
    """A modifier coordinated with its own negation leaves the phrase ("dihydropyridine and non-dihydropyridine
    channel blockers" -> "channel blockers"): the two together are every kind of the head, so the head's phrase
    is the concept, not the modifier alone AND-ed with it. Only before a content word (not "smokers and
    non-smokers were ...")."""

    def cut(m: re.Match) -> str:
        after = m.group(2).casefold()
        return m.group(0) if after in _FUNCTION or _BOUNDARY_RE.fullmatch(after) else ""

    return _OWN_NEGATION_RE.sub(cut, text)


def _join_examples(blocks: list[ConceptBlock], text: str, verbs: frozenset[str], acronyms: dict[str, str]) -> None:
    """Examples an abstract gives of a required block's concept in any sentence ("radiotherapy with charged
    particles such as protons and carbon ions", said in its background) join that block as variants: the phrase
    right before "such as" / "including" / "e.g." names the concept (each of its words begins a word of the
    block's label or terms), the list right after it its kinds. A question's examples are read with its topic."""
    for sentence in _sentences(_restore_headings(text)):
        if _EXCLUSION_START_RE.search(sentence) or _EXCLUSION_ANY_RE.search(sentence):
            continue
        said = sentence
        sentence = _BRACKETED_KINDS_RE.sub(r" such as \1,", sentence)
        for m in _EXAMPLE_RE.finditer(sentence):
            bracketed = m.group(0) == "such as" and "such as" not in said
            before = _chunks(sentence[: m.start()], verbs)
            after = _chunks(sentence[m.end():], verbs)
            if not before or not after or not before[-1].items or after[0].cue:
                continue
            words = [w.casefold() for w in _content_words(before[-1].items[-1])]
            # the block's own phrase before a head of its kinds ("intermittent fasting regimens, including ..."):
            # two words or more that name the block say which concept the list's kinds are of
            words = words[:-1] if len(words) >= 3 else words
            block = next((b for b in blocks if b.required and words and all(
                any(v.startswith(w[:5]) for v in _block_words(b)) for w in words)), None)
            items = [i for i in after[0].items if not _is_meta_item(i) and len(_content_words(i)) <= 3]
            if block is None or not items:
                continue
            # a kind of several words is its phrase, not its parts ("carbon ions": not carbon* alone)
            terms = [t for i in items for t in _variants(i, acronyms)
                     if len(_content_words(i)) == 1 or " " in t.strip('"')]
            block.kinds += [t for t in terms if t not in block.terms]
            block.terms = _dedupe(block.terms + terms)
            # kinds in brackets are examples only, not the class's named members (:func:`_join_class_members`)
            block.members = block.members or bool(terms) and not bracketed


#: A bracketed list of three or more kinds in lower-case words right after a phrase ("aerobic exercise (walking,
#: running, cycling, exergaming)"): its examples, as "such as" gives them; not a list of names or figures
#: ("(PubMed, Embase)", "(n = 12, 95% CI ...)").
_BRACKETED_KINDS_RE = re.compile(r"\s\(([a-z][a-z -]*(?:,\s*(?:or\s+|and\s+)?[a-z][a-z -]*){2,})\)")


def _block_words(block: ConceptBlock) -> set[str]:
    """The words of a block's label and terms, lower case."""
    return {w.casefold() for t in [block.label, *block.terms] for w in re.findall(r"[A-Za-z][\w-]*", t)}


#: A name of a specific thing: a word the lexicon does not know and general English hardly uses (a drug, a
#: compound, a gene: "atenolol", "glycine"), below this Zipf frequency.
NAME_ZIPF = 3.0


#: So many names in one list (commas, "and", "or", brackets) make it a list of named kinds.
MIN_NAMES_IN_LIST = 3


def _is_name(w: str) -> bool:
    """A rare word that names one thing: general Zipf below :data:`NAME_ZIPF`, unknown to the lexicon or a noun
    only there ("ibuprofen"), not shaped like a modifier ("atrial", "paroxysmal"), not an acronym or a number."""
    if _is_acronym(w) or not w[0].isalpha() or len(w) < 5 or "-" in w or w.casefold() in _FUNCTION:
        return False
    return word_classes(w) <= {"NOUN"} and not _modifier_like(w) and general_zipf(w.casefold()) < NAME_ZIPF


def _name_word(item: str, first: bool = False) -> str:
    """The item's name: its first word when that is a name (:func:`_is_name`) and the next word is not a noun
    it modifies ("atrial fibrillation"); for the ``first`` item of a list, also its last word ("trials of
    almotriptan, eletriptan, ..."). Else ""."""
    words = re.findall(_WORD, item)
    if not words:
        return ""
    nxt = words[1] if len(words) > 1 else ""
    if _is_name(words[0]) and not (nxt and "NOUN" in word_classes(nxt)):
        return words[0]
    last, before = words[-1], words[-2].casefold() if len(words) > 1 else ""
    # the head of a noun phrase is no name ("in atrial fibrillation", "supraventricular tachycardia"); after a
    # preposition or a verb it may be ("trials of almotriptan", "comparing amlodipine")
    modified = "ADJ" in word_classes(before) or _modifier_like(before) and "VERB" not in word_classes(before)
    # a list after "across" spans fields or settings ("patients across rheumatology, dermatology and oncology"),
    # not kinds of what the studies test
    spans = bool(_SPAN_CUE_RE.search(before))
    return last if first and before and not modified and not spans and _is_name(last) and not word_classes(last) \
        else ""


def _names_a_class(block: ConceptBlock) -> bool:
    """The block's phrase names a class in the plural ("beta blockers", "oral medications"), whose members a
    list can name; a mass or process noun ("sleep", "microdialysis") has no members."""
    words = [w for i in [block.label, *block.items] for w in _content_words(i)]
    return any(_plural(low) and len(low) > 3 and word_classes(_singular_tail(low)) <= {"NOUN", "VERB"}
               for low in (w.casefold() for w in words))


def _class_modifiers(block: ConceptBlock) -> list[str]:
    """The hyphenated modifiers of a class's phrase ("long-acting oral opioids": long-acting), which say the kind
    of the class; not a negation ("non-parenteral"), which only says what the kind is not."""
    words = _content_words(block.label)[:-1]
    return [w.casefold() for w in words if "-" in w.strip("-") and not w.casefold().startswith("non-")
            and all(p.isalpha() for p in w.split("-"))]


def _join_names_sharing_a_modifier(blocks: list[ConceptBlock], text: str, acronyms: dict[str, str]) -> None:
    """A name the abstract writes after the same kind-making modifier as the class the review is about ("long-acting
    opioids" ... "long-acting versus short-acting oxycodone") is a member of that class, which its trials name,
    not the class: it joins the first class block (:func:`_join_named_list`'s targets) as a variant. One name
    suffices: the modifier, not a list, says whose member it is."""
    block = _class_block(blocks)
    modifiers = _class_modifiers(block) if block is not None else []
    if block is None or not modifiers:
        return
    # the modifier right before the name, or before its compared opposite ("long-acting versus short-acting X")
    either = "|".join(re.escape(m) for m in modifiers)
    pattern = re.compile(rf"\b(?:{either})(?:\s+(?:versus|vs\.?|or|and|to)\s+[A-Za-z]+-[A-Za-z]+)?\s+([A-Za-z]+)\b",
                         re.I)
    # the class's own head after the opposite modifier ("long-acting versus short-acting bronchodilators") is the
    # comparator, no member
    own = {w.casefold().rstrip("s") for w in re.findall(r"[A-Za-z]+", block.label)}
    names = {m.group(1) for m in pattern.finditer(text)
             if _is_name(m.group(1)) and m.group(1).casefold().rstrip("s") not in own}
    _add_members(block, [t for n in sorted(names) for t in _variants(n, acronyms)])


def _class_block(blocks: list[ConceptBlock]) -> ConceptBlock | None:
    """The first required block that is what the studies do or are exposed to (not who, where, or a comparator)
    and names a class in the plural (:func:`_names_a_class`): where the class's members join."""
    return next((b for b in blocks if b.required and not _who_block(b) and not b.setting
                 and b.facet in ("intervention", "exposure") and _names_a_class(b)), None)


def _add_members(block: ConceptBlock, terms: list[str]) -> None:
    """The terms of a class's members join its block as kinds of it."""
    block.kinds += [t for t in terms if t not in block.terms]
    block.terms = _dedupe(block.terms + terms)
    block.members = block.members or bool(terms)


def _join_named_list(blocks: list[ConceptBlock], text: str, acronyms: dict[str, str]) -> None:
    """A list of named things anywhere in an abstract (:data:`MIN_NAMES_IN_LIST` or more names in a row: "trials
    of atenolol, bisoprolol and carvedilol", "sulfonylureas (glyburide, glipizide)") names kinds of what the
    review is about, the way its studies name it (a trial names its drug, seldom the drug's class): the names
    join the first required block that is what the studies do or are exposed to (not who, where, or a comparator)
    and names a class in the plural (:func:`_names_a_class`), as variants. Not from a sentence that excludes."""
    block = _class_block(blocks)
    if block is None:
        return
    names: list[str] = []
    for sentence in _sentences(_restore_headings(text)):
        if _EXCLUSION_START_RE.search(sentence) or _EXCLUSION_ANY_RE.search(sentence):
            continue
        # read as written, and with each item's bracketed aside read as that item (:func:`_asides_as_items`)
        for found in (_listed_names(sentence), _listed_names(_asides_as_items(sentence))):
            names += [n for n in found if n.casefold() not in {x.casefold() for x in names}]
    _add_members(block, [t for n in names for t in _variants(n, acronyms)])


def _listed_names(sentence: str) -> list[str]:
    """The names of the sentence's list when it has a run of :data:`MIN_NAMES_IN_LIST` names; else none."""
    run: list[str] = []
    runs: list[list[str]] = []
    for item in [*_split_items(sentence), ""]:
        name = _name_word(item) or (_name_word(item, first=True) if not run else "")
        if name:
            run.append(name)
            continue
        runs.append(run)
        # the item that ends a run may begin the next ("..., tachycardia) comparing amlodipine, felodipine")
        run = [n for n in [_name_word(item, first=True)] if n]
    # a list of names is one list however a class phrase interrupts it ("metformin, glinides (zorvanol,
    # quelmitase, draxofungin), or glucosidase inhibitors (acarbose, miglitol)"): once a sentence has a run
    # of MIN_NAMES_IN_LIST names, its runs of two join too
    if not any(len(r) >= MIN_NAMES_IN_LIST for r in runs):
        return []
    return [n for r in runs if len(r) >= 2 for n in r]


#: A list item closed by a bracketed aside: the item's words (back to the list's last comma, semicolon, colon,
#: "and" or "or") and what the brackets hold.
_ITEM_ASIDE_RE = re.compile(r"(^|[,;:]|\band\b|\bor\b)([^,;:()]*?)\s*\(([^()]*)\)", re.I)


def _asides_as_items(sentence: str) -> str:
    """The sentence with each list item's bracketed aside read as the item itself: a results list tells what
    each name stands for or how much of it there was ("mepolizumab (4 trials), reslizumab (3) and benralizumab
    (5)", "fluoxetine (FOCUS, AFFINITY), sertraline"), which is no item of the list, and a trial's own label is
    glossed by the one name it tested ("ARISTOTLE (apixaban), ROCKET AF (rivaroxaban)"): that name is the
    item."""
    def read(m: re.Match) -> str:
        inner = m.group(3).strip()
        named = bool(inner) and _is_name(inner) and not word_classes(inner)
        return f"{m.group(1)} {inner}" if named else f"{m.group(1)}{m.group(2)}"
    return _ITEM_ASIDE_RE.sub(read, sentence)


#: Unicode hyphens as the ASCII one ("high\u2010risk" is "high-risk"): a term must match how sources index it.
_HYPHENS = str.maketrans({"\u2010": "-", "\u2011": "-", "\u00ad": ""})


def _normalised(text: str) -> str:
    """One space between words, every hyphen and dash as a plain hyphen, a range of degrees as its upper end."""
    return _degree_range_narrowed(" ".join(text.translate(_HYPHENS).split()))


#: A range of two degree words ("mild to moderate", "moderate-to-severe"): split at "to", its lower end stood alone
#: as a term (`moderat*` for "moderate to severe traumatic brain injury": 6.5 % of the pool); its upper end is a
#: degree word before the concept, which the terms already read as one ("severe X": "X" too).
_DEGREES = "|".join(map(re.escape, sorted(DEGREE_MODIFIERS)))
_DEGREE_RANGE_RE = re.compile(rf"\b(?:{_DEGREES})(?:\s+to\s+|-to-)({_DEGREES})\b", re.I)


def _degree_range_narrowed(text: str) -> str:
    return _DEGREE_RANGE_RE.sub(r"\1", text)


#: Nouns of the part one thing plays in another ("hippocampal involvement in memory", "the role of X in Y").
_ROLE_HEADS = frozenset("involvement role roles contribution contributions participation implication".split())


#: Nouns whose "in" says what they are about: a comparison ("sex differences in fear extinction", "ethnic
#: disparities in X") or an interest ("girls' interest in STEM careers"); what follows is a subject, not where the
#: studies are (round 19).
_DIFFERENCE_HEADS = frozenset("difference differences disparity disparities gap gaps inequality inequalities "
                              "inequity inequities variation variations interest interests engagement".split()) | (
    # what changes are in ("changes in lamotrigine pharmacokinetics during pregnancy": no place studies are done in)
    frozenset("change changes".split())) | (
    # and what variants are in ("genetic variants in drug-metabolising enzymes", "mutations in BRCA1")
    frozenset("variant variants polymorphism polymorphisms mutation mutations allele alleles".split()))


#: Nouns of an attitude whose "in" says what it is held about ("belief in health misinformation", "trust in
#: local government", "confidence in vaccines"): what follows is the subject, not where the studies are.
_ATTITUDE_HEADS = frozenset("belief beliefs trust confidence faith".split())


#: A modifier this rare in general English (Zipf) names its concept alone once a role head is off
#: ("hippocampal" 2.5, "dopaminergic" 2.3); not "parental" 3.8 ("parental involvement" is a concept's name).
ROLE_MODIFIER_ZIPF = 3.0


def _starts_noun_phrase(item: str) -> bool:
    return item.split()[:1] != [] and item.split()[0].casefold() in ("the", "a", "an")


def _without_role_head(item: str) -> str:
    """"hippocampal involvement" (in Y) as "hippocampal": the part a structure plays is no word its studies share."""
    words = item.split()
    if (len(words) == 2 and words[1].casefold() in _ROLE_HEADS and words[0].isalpha()
            and general_zipf(words[0]) < ROLE_MODIFIER_ZIPF):
        return words[0]
    return item


#: A possessive determiner and one noun ("their involvement", "its uptake"): the noun of something named before,
#: which the item only points back to; alone (``involvem*``) it is every field's.
#: So does "related" / "similar" / "allied" before one noun ("schizophrenia or related disorders": ``"related
#: disorder"`` was every record that says it, of any disorder).
_ANAPHORIC_ITEM_RE = re.compile(r"^\s*(?:their|its|his|her|our|related|similar|allied)\s+[\w-]+\s*$", re.I)
#: What opens a definition of the concept before it ("red tape, defined as burdensome rules and procedures").
_DEFINITION_RE = re.compile(r"^\s*(?:defined|conceptuali[sz]ed|operationali[sz]ed)\s+as\b", re.I)


def _before_definition(items: list[str]) -> list[str]:
    """The items before a definition: what defines a concept ("burdensome rules and procedures that do not serve
    their purpose") describes it in every field's words, no name of it (``procedur*`` was a variant of the red
    tape); a synonym ("also known as X") is not cut."""
    for k, item in enumerate(items):
        if _DEFINITION_RE.match(item):
            return items[:k]
    return items


#: The closing item of a list of kinds: "A, B or other C" ("aminoglycosides, cisplatin or other ototoxic agents").
_OTHER_CLASS_RE = re.compile(r"^\s*(?:any\s+)?other\s+(?:[\w-]+\s+){0,3}([\w-]+)\s*$", re.I)


def _kinds_of_unnamed_class(items: list[str], blocks: list[ConceptBlock]) -> bool:
    """A list closed by "or other C" names kinds of C; when no block so far holds C's head ("agents" of "other
    ototoxic agents"), they are no variants of a block they share another word with (``cisplatin*`` joined a
    zebrafish model's block through "zebrafish larvae to aminoglycosides", the list's first item): the review
    names them only as examples (a list that shares no block's word is a concept of its own, as before: "chronic
    pain, osteoarthritis or other musculoskeletal conditions")."""
    m = _OTHER_CLASS_RE.match(items[-1]) if len(items) >= 2 else None
    if m is None:
        return False
    head = _singular_tail(m.group(1))
    return not any(_singular_tail(w) == head for b in blocks for i in [b.label, *b.items]
                   for w in re.findall(r"[A-Za-z][\w-]*", i))


def _shared_head_of_kinds(block: ConceptBlock, items: list[str]) -> set[str]:
    """The head a compared item shares with the block's label, each with a modifier of its own ("long-acting
    injectable antipsychotics", "oral antipsychotics")."""
    label = [w.casefold() for w in _content_words(block.label)]
    return {w[-1].casefold() for i in items if len(w := _content_words(i)) >= 2 and len(label) >= 2
            and w[-1].casefold() == label[-1] and w[0].casefold() not in label}


def _without_head_alone(block: ConceptBlock, heads: set[str]) -> None:
    """The block loses the stem of a head its compared kind shares (``antipsychotic*``): it names both kinds."""
    kept = [t for t in block.terms if not (t.endswith("*") and t[:1].isalpha() and " " not in t
                                           and any(h.startswith(t.rstrip("*")) for h in heads))]
    block.terms = kept or block.terms


def _repeat_merged(block: ConceptBlock, terms: list[str]) -> list[str]:
    """The block's terms with a repeat's: but a block named by people and what they have ("teacher burnout",
    searched ``(burnout* AND teacher*)``) takes no bare head from a repeat ("to reduce burnout among school
    teachers"): alone, ``burnout*`` is every study of burnout, whoever has it, and the AND meant nothing."""
    label = _content_words(block.label)
    anded = {t[1:].split(" AND ")[0] for t in block.terms if t.startswith("(") and " AND " in t} if len(
        label) == 2 and _person_word(label[0].casefold()) else set()
    return _dedupe(block.terms + [t for t in terms if t not in anded])


def _add_chunk(blocks: list[ConceptBlock], chunk: _Chunk, acronyms: dict[str, str], question: bool, *,
               side: bool = False, after_role: bool = False, doer: bool = False) -> None:
    """A chunk's items as a new block, or as variants of the block whose concept it repeats."""
    items = _distribute_head([i for i in _without_coordinated_predicate(_before_definition(chunk.items))
                              if not _is_meta_item(i) and not _ANAPHORIC_ITEM_RE.match(i)])
    if not items:
        return
    terms: list[str] = []
    for item in items:
        shared = _shared_modifiers(item, items)
        terms.extend((_head_alone([*shared, _content_words(item)[0]]) if shared else [])
                     or _variants(item, acronyms))
    terms = _dedupe(terms)
    if not terms:
        return
    words = {w.casefold() for i in items for w in _content_words(i)}
    # the animals studied ("of adult rodents", "rodent studies") are no variant of another concept's block
    animals = all(names_animals(i) for i in items)
    # a chunk that repeats a concept already found adds its variants there ("adults with ADHD")
    for block in blocks:
        if animals and not names_animals(block.label) or _act_of_its_doers(items, block.label):
            continue
        block_words = {w.casefold() for w in _content_words(block.label)} | {
            t.strip('"*').casefold() for t in block.terms}
        # or is one word of the same stem ("hippocampal" (involvement) and "the hippocampus": hippocamp*);
        # a word of everyday English shared is no repeat ("end-of-life care in intensive care units": two concepts)
        # unless one's phrase holds the other's whole ("sleep", "sleep duration"; "social media" twice)
        repeated = {w for w in words & block_words if general_zipf(w) < GENERIC_ZIPF}
        if _COMPARATOR_CUE_RE.search(chunk.cue):
            # what X is compared with shares no concept with X by a generic head ("CBT compared with face-to-face
            # therapy": another therapy, not a variant of CBT), nor by the head both kinds share ("long-acting
            # injectable versus oral antipsychotics": the oral ones are the comparator, and the head alone,
            # ``antipsychotic*``, every study of either kind)
            shared_head = _shared_head_of_kinds(block, items)
            _without_head_alone(block, shared_head)
            repeated -= GENERIC_HEADS | shared_head
        if _OUTCOME_CUE_RE.search(chunk.cue) and not any(
                {w.casefold() for w in _content_words(i)} <= block_words for i in items):
            # what X acts on shares no concept with X by a word of both ("Supported Employment on competitive
            # employment", "exercise training on exercise capacity"): the outcome, unless an item repeats X's
            # words ("relapse prevention" ... "on relapse")
            repeated = set()
        label_words = {w.casefold() for w in _content_words(block.label)}
        heads = {(_content_words(i) or [""])[-1].casefold() for i in (items[0], block.label)}
        cue = chunk.cue.strip()
        if len(items) == 1 and (question and _SETTING_CUE_RE.match(cue) or cue.casefold() == "for") \
                and not heads <= repeated:
            # where a question's X is done, or what X is for in a question or an abstract, that shares only a
            # modifier of one with X ("pair programming in undergraduate programming courses", "cognitive training
            # for mild cognitive impairment"): another concept, no variant of X; a repeat shares both heads
            # ("adults with ADHD"); (an abstract's chunk may list what else it names: "in spine surgery using the
            # FI")
            repeated = set()
        whole = words <= block_words or bool(label_words) and label_words <= words
        if repeated or whole or (len(terms) == 1 and terms[0].endswith("*") and terms[0] in block.terms):
            if _kinds_of_unnamed_class(items, blocks):
                return
            block.terms = _repeat_merged(block, terms)
            block.n_items += len(items)
            block.items += [i for i in items if i not in block.items]
            return
    label = (" ".join(w for r in _runs(items[0]) for w in r) or items[0]).replace(_JOIN, " ")
    facet = _facet_for(chunk.cue, items)
    # what "does" something to what follows ("Does salt reduction lower blood pressure"): what is done
    # (a population word modifying it is no population: "teacher feedback")
    head = (_content_words(items[0]) or [""])[-1].casefold()
    facet = "intervention" if doer and (facet == "exposure" or facet == "population" and not _person_word(head)) \
        else facet
    blocks.append(ConceptBlock(facet, label[:200], terms, n_items=len(items),
                               items=[(" ".join(w for r in _runs(i) for w in r) or i).replace(_JOIN, " ")
                                      for i in items],
                               # an abstract's aspect: one phrase right before "of" ("theories of X"),
                               # not a list ending in one ("X and the risk of Y")
                               # nor, after what acts on it, a named thing's phrase ("X on basal cell carcinoma of
                               # the skin": where it is, not an aspect)
                               required=not side, side=side, aspect=chunk.aspect and (question or len(items) == 1)
                               and not (_OUTCOME_CUE_RE.search(chunk.cue) and len(_content_words(items[0])) >= 2),
                               setting=bool(_SETTING_CUE_RE.match(chunk.cue)) and not after_role
                               and not _change_in(chunk.text),
                               agents=chunk.cue.casefold() in ("among", "amongst") and _agents_among(head)))


def _topic_blocks(topic: list[str], question: bool, verbs: frozenset[str],
                  acronyms: dict[str, str]) -> list[ConceptBlock]:
    """The blocks the topic sentences name, chunk by chunk (:func:`_chunks`), each chunk read beside its
    neighbours (what it follows, what follows it)."""
    blocks: list[ConceptBlock] = []
    for k, sentence in enumerate(topic):
        main_part, side_part = _side_clause(sentence, k, question)
        for part, side in ((main_part, False), (side_part, True)):
            chunks = _chunks(part, verbs) if part else []
            for j, chunk in enumerate(chunks):
                if _SPAN_CUE_RE.search(chunk.cue):
                    continue  # "across the lifespan", "across settings": the span, no concept
                if chunk.cue.strip().casefold() == "without" and not (j and not chunks[j - 1].items):
                    # "adults with obesity without diabetes": what the people studied do not have, which their
                    # studies seldom say; required, it found the studies of people who have it ("with or without
                    # X", an empty "with" before it, is both)
                    continue
                # "X involvement in Y", "the role of X in Y": Y is what X's part is in, no setting
                # so is what differences are in ("sex differences in fear extinction": what is compared, no setting)
                after_role = j > 0 and (re.findall(_WORD, chunks[j - 1].text) or [""])[-1].casefold() in (
                    _ROLE_HEADS | _DIFFERENCE_HEADS | _ATTITUDE_HEADS)
                if j + 1 < len(chunks) and chunks[j + 1].cue.casefold() == "in":
                    chunk.items = [_without_role_head(i) for i in chunk.items]
                if chunk.aspect and len(chunk.items) >= 2 and _starts_noun_phrase(chunk.items[-1]) \
                        and not _starts_noun_phrase(chunk.items[0]):
                    # "X and the primary prevention (of Y)": the last item is an aspect of what follows, no X
                    chunk.items, chunk.aspect = chunk.items[:-1], False
                if question:
                    chunk.items = _without_graded_lead(chunk, chunks[j + 1] if j + 1 < len(chunks) else None)
                if j > 0 and _people_of_studies(chunks[j - 1], chunk):
                    chunk.cue = "in"
                # the doer of an effect verb, past what it is compared with ("does X compared with Z reduce Y")
                after = next((c for c in chunks[j + 1:] if not _COMPARATOR_CUE_RE.search(c.cue)), None)
                doer = after is not None and bool(_OUTCOME_CUE_RE.search(after.cue))
                acted = None if question else _gerund_and_object(chunk)
                if acted:
                    _add_chunk(blocks, acted[0], acronyms, question, side=side)
                    blocks[-1].facet = "intervention"
                    chunk = acted[1]
                if _outcome_list(chunk, chunks[j - 1] if j else None) and _split_outcome_list(
                        blocks, chunk, acronyms, question, side):
                    continue
                if j and _split_what_it_is_for(blocks, chunks[j - 1], chunk, acronyms, question, side):
                    continue
                for each in _pair_then_list(chunk, question):
                    _add_chunk(blocks, each, acronyms, question, side=side, after_role=after_role, doer=doer)
    return blocks


def _people_of_studies(before: _Chunk, chunk: _Chunk) -> bool:
    """"... in genome-wide association studies of European populations", "in cohort studies of migrant women":
    after a kind of studies, "of" names who they were done on, as "in" would (a population, where the studies
    are), not what is given (the cue's default: "European populations" was the main block, every study of them).
    Only where the chunk's head names people (a person word, or "population(s)"); "trials of metformin" name
    what is tried."""
    if chunk.cue.strip().casefold() != "of" or not before.items:
        return False
    kind = (re.findall(_WORD, before.items[-1]) or [""])[-1].casefold()
    head = (re.findall(_WORD, chunk.items[-1]) or [""])[-1].casefold() if chunk.items else ""
    return kind in _STUDY_NOUNS and _plural(kind) and (_person_word(head) or head in ("population", "populations"))


def _without_graded_lead(chunk: _Chunk, nxt: _Chunk | None) -> list[str]:
    """A question's comparison said by a graded adjective before what is compared ("does X lead to greater weight
    loss than Z", "does X produce fewer sick days"): the degree is the answer asked for, no part of the outcome's
    name (``"greater weight loss" OR "greater weight"`` was required of every study, which say "weight loss").
    Only after a verb (not an auxiliary: "Do older adults ...") or before "than", and where two content words or
    more are left ("older adults", "higher education" stay)."""
    cue = (re.findall(_WORD, chunk.cue) or [""])[-1].casefold()
    by_verb = bool(cue) and bool(verb_lemmas(cue)) and cue not in _AUXILIARIES | _FUNCTION | _PREPOSITIONS
    if not (by_verb or nxt is not None and nxt.cue.strip().casefold() == "than"):
        return chunk.items
    out = []
    for item in chunk.items:
        words = item.split()
        lead = 1 if words and words[0].casefold() == "to" else 0
        if len(words) > lead + 2 and is_graded_adjective(words[lead]) and len(_content_words(
                " ".join(words[lead + 1:]))) >= 2:
            item = " ".join(words[lead + 1:])
        out.append(item)
    return out


#: Adjectives of English that say two conditions occur together ("comorbid insomnia and depression").
_CO_OCCURRENCE = frozenset("comorbid co-morbid co-occurring cooccurring coexisting co-existing concurrent".split())


def _co_occurring(chunk: _Chunk) -> list[_Chunk]:
    """A list opened by a word of co-occurrence ("with comorbid insomnia and depression") names conditions that go
    together, each a concept of its own (AND-ed), not variants of one (an OR of them is every study of either);
    the modifier is no part of their names ("comorbid fibromyalgia" is how few records say it). Other chunks
    are read whole."""
    first = (chunk.items[0].split() or [""])[0].casefold() if chunk.items else ""
    if first not in _CO_OCCURRENCE or len(chunk.items) < 2 or len(chunk.items[0].split()) < 2:
        return [chunk]
    items = [chunk.items[0].split(" ", 1)[1], *chunk.items[1:]]
    return [_Chunk(item, chunk.cue, [item], aspect=chunk.aspect) for item in items]


#: "A and B, C and D": an "and" before the commas of a list joins A to the whole list (two levels), as a plain list
#: is "A, B and C".
_PAIR_THEN_LIST_RE = re.compile(r"^\s*([^,;]+?)\s+and\s+([^,;]+,[^;]*\b(?:and|or)\b[^;]+)$", re.I)


#: A verb of comparing whose object is the two things compared ("reviews comparing A and B").
_COMPARING_CUE_RE = re.compile(r"\bcompar(?:ing|es?)\s*$", re.I)


def _pair_then_list(chunk: _Chunk, question: bool) -> list[_Chunk]:
    """An abstract's chunk "A and B, C and D" ("evidence on residential greenness and depression, anxiety and
    psychological distress") names A and a list of another concept, not four variants of one (``"residential
    greenness" OR depress*``): two chunks; so does "comparing A and B", B what A is compared with ("comparing LAI
    and oral antipsychotics": oral antipsychotics are no variant of LAI). Other chunks, and a question's, go to
    :func:`_co_occurring`."""
    if not question and _COMPARING_CUE_RE.search(chunk.cue) and len(chunk.items) == 2:
        one, other = chunk.items
        return [_Chunk(one, chunk.cue, [one]), _Chunk(other, "versus", [other], aspect=chunk.aspect)]
    m = None if question else _PAIR_THEN_LIST_RE.match(re.sub(r"\([^()]*\)", "", chunk.text))
    if (m is None or len(chunk.items) < 4 or not _content_words(m.group(1))
            or chunk.items[0] != " ".join(m.group(1).split())):
        return _co_occurring(chunk)
    first = _Chunk(m.group(1), chunk.cue, chunk.items[:1])
    return [first, _Chunk(m.group(2), chunk.cue, chunk.items[1:], aspect=chunk.aspect)]


def _gerund_and_object(chunk: _Chunk) -> tuple[_Chunk, _Chunk] | None:
    """An abstract's chunk that opens with a rare verb's "-ing" form acting on a noun phrase ("Nudging COVID-19 and
    influenza vaccination uptake", "Tapering benzodiazepines in older adults"): the activity (searched by its verb's
    stem, :func:`_activity_stem`) and what it acts on (the rest of the list), two chunks; what follows the verb is
    its object, no synonym of it (``COVID-19`` alone was an alternative of the nudging). The lexicon knows the word
    only as a verb ("training", "screening" are nouns too: "training programmes"), and the next word is no generic
    head ("nudging interventions" names the activity alone). None for any other chunk, and a question's are left
    whole: its main-or-rest query would make the activity alone an alternative (``taper*``)."""
    if not chunk.items:
        return None
    words = chunk.items[0].split()
    if len(words) < 2 or words[1].casefold() in _NO_CONCEPT_ALONE or words[1].casefold() in _FUNCTION \
            or words[1].casefold() in META_WORDS:
        return None
    gerund = words[0]
    if not (gerund.casefold().endswith("ing") and word_classes(gerund.casefold()) == {"VERB"}
            and _activity_stem([gerund])):
        return None
    rest = chunk.text.split(gerund, 1)[-1]
    return (_Chunk(gerund, chunk.cue, [gerund]),
            _Chunk(rest, chunk.cue, [" ".join(words[1:]), *chunk.items[1:]], aspect=chunk.aspect))


#: What "the X of" a list measures: the list is of outcomes ("the risk of A, B and C"; a general vocabulary).
_RISK_HEADS = frozenset("risk risks odds incidence occurrence rate rates".split())


def _outcome_list(chunk: _Chunk, before: _Chunk | None) -> bool:
    """The chunk lists what an effect is on or what a risk is of ("the effect of X on A, B and C", "the risk of A,
    B and C")."""
    head = (re.findall(_WORD, before.text) or [""])[-1].casefold() if before is not None else ""
    return bool(_OUTCOME_CUE_RE.search(chunk.cue)) or chunk.cue.casefold() == "of" and head in _RISK_HEADS


def _repeated_block(blocks: list[ConceptBlock], item: str) -> ConceptBlock | None:
    """The block the item names again (as :func:`_add_chunk` judges a repeat: a word under the Zipf bar in common,
    or one's words all the other's; or a word the block's stem opens onto: "depressive symptoms" of ``depress*``)."""
    words = {w.casefold() for w in _content_words(item)}
    for block in blocks:
        block_words = {w.casefold() for w in _content_words(block.label)} | {
            t.strip('"*').casefold() for t in block.terms}
        label_words = {w.casefold() for w in _content_words(block.label)}
        stems = [t.rstrip("*").casefold() for t in block.terms if t.endswith("*") and " " not in t and len(t) > 4]
        if {w for w in words & block_words if general_zipf(w) < GENERIC_ZIPF} or words and (
                words <= block_words or label_words and label_words <= words) or any(
                w.startswith(s) for w in words for s in stems):
            return block
    return None


#: Heads of what measures an outcome of any condition, never a kind of one (a general vocabulary of outcomes).
_OUTCOME_MEASURE_HEADS = frozenset(
    "mortality death deaths survival admission admissions hospitalisation hospitalization hospitalisations "
    "hospitalizations readmission readmissions severity event events cost costs satisfaction quality-of-life "
    "control utilisation utilization stay".split())


def _outcome_measure(item: str) -> bool:
    words = _content_words(item.replace(_JOIN, " "))
    return bool(words) and words[-1].casefold() in _OUTCOME_MEASURE_HEADS


def _split_outcome_list(blocks: list[ConceptBlock], chunk: _Chunk, acronyms: dict[str, str], question: bool,
                        side: bool) -> bool:
    """An outcome list (:func:`_outcome_list`) some items of which name a block found before, beside items that name
    none ("DBT for self-harm ... the effect of DBT on self-harm, suicidal ideation and symptom severity"; "Vitamin D
    and severity of COVID-19 ... the risk of severe COVID-19, intensive care admission and mortality"): each repeat
    joins its block, the other outcomes are a block of their own, optional; they are no variants of the subject
    (an admission to intensive care is no COVID-19). Only what measures an outcome leaves
    (:data:`_OUTCOME_MEASURE_HEADS`: mortality, admission, severity, quality of life): another item may be a kind of
    the subject and stays with it ("the risk of dementia, Alzheimer's disease and mild cognitive impairment"). False
    (nothing added) for any other list."""
    items = [i for i in chunk.items if not _is_meta_item(i)]
    repeats = [i for i in items if _repeated_block(blocks, i) is not None]
    apart = [i for i in items if i not in repeats and _outcome_measure(i)]
    if not repeats or not apart:
        return False
    for item in repeats:
        _add_chunk(blocks, _Chunk(chunk.text, chunk.cue, [item, *(i for i in items if i not in repeats + apart)]),
                   acronyms, question, side=side)
    n = len(blocks)
    _add_chunk(blocks, _Chunk(chunk.text, chunk.cue, apart), acronyms, question, side=True)
    if len(blocks) > n:
        blocks[-1].facet = "outcome"
    return True


def _split_what_it_is_for(blocks: list[ConceptBlock], before: _Chunk, chunk: _Chunk, acronyms: dict[str, str],
                          question: bool, side: bool) -> bool:
    """"X for A, B and C" one of whose items repeats X ("self-guided interventions for self-guidance, fatigue,
    insomnia and mood"): the list is what X is for, measured by X's name too, not kinds of X; the repeat joins X's
    block, the other items are a block of their own, optional (``fatigu* OR insomni*`` as alternatives of the
    intervention were every study of them). X is the block the chunk before "for" named. False (nothing added) for
    any other chunk."""
    if chunk.cue.strip().casefold() != "for" or not before.items:
        return False
    last = before.items[-1].casefold()
    named = next((b for b in blocks if last in {i.casefold() for i in b.items}), None)
    items = [i for i in chunk.items if not _is_meta_item(i)]
    repeats = [i for i in items if named is not None and _repeated_block(blocks, i) is named]
    others = [i for i in items if i not in repeats]
    if not repeats or not others:
        return False
    _add_chunk(blocks, _Chunk(chunk.text, chunk.cue, repeats), acronyms, question, side=side)
    n = len(blocks)
    _add_chunk(blocks, _Chunk(chunk.text, chunk.cue, others), acronyms, question, side=True)
    if len(blocks) > n:
        blocks[-1].facet = "outcome"
    return True


#: A question's side clause: a second question coordinated with the first ("..., and how is this behaviour
#: measured?", "...; which outcomes are reported?"). It asks about the main subject, it does not narrow it.
_SIDE_CLAUSE_RE = re.compile(
    r"(?:;\s*(?:and\s+|or\s+|but\s+)?|,\s*(?:and|or|but)\s+)"
    r"(?:how|what|which|whether|who|whom|where|when|why|to what extent)\b", re.I)


def _side_clause(sentence: str, index: int, question: bool) -> tuple[str, str]:
    """(main clause, side clause) of a question's topic sentence: a later sentence is all side (it adds variants
    to the concepts, never a required one), the first is cut at a coordinated second question. An abstract's
    sentences are all main."""
    if not question:
        return sentence, ""
    if index > 0:  # a later sentence (another question, context, eligibility not caught as such) adds variants
        return "", sentence
    cut = _SIDE_CLAUSE_RE.search(sentence)
    if cut is None or not _content_words(sentence[: cut.start()]):
        return sentence, ""
    return sentence[: cut.start()], sentence[cut.start():].lstrip(",; ")
