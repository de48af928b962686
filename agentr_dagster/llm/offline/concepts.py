"""Concept facets of a review question, and the Boolean query built from them (offline, no LLM).

A librarian's search is a few concept blocks - population, exposure or intervention, comparator, outcome,
setting - each an OR-group of the concept and its variants; the study design is at most an optional block of
its own. Here the query is the main block OR (the other required blocks AND-ed), an optional block AND-ed in
unless the required ones already name a narrow topic (:data:`QUERY_SHAPE`), which recalls the includes better
than ANDing them on the labelled reviews. This module finds those blocks in the
question text by its clause structure:

* sentences that only say where the records come from (provenance, "prepared by", "test collection") and
  exclusion sentences ("Exclude ...", "... are not relevant") are dropped, and so is an exclusion clause
  inside a sentence ("excluding X", "regardless of whether X"): what a review excludes is never a required term;
* eligibility sentences ("Include ...", "Relevant studies are ...") give the study design block, and variants
  for concepts already found, never a new required block;
* the question sentence is cut into chunks at prepositions and clause words ("of", "in ... with", "among",
  "on", "for", "associated with", a possessive) and at verbs (a lexicon's word classes: "does isolation impair
  recognition memory"), never inside a hyphenated word ("object-in-context"); a coordinated second question
  ("..., and how is this behaviour measured?") and later sentences only add variants or optional blocks, and
  a block of who the studies are about ("in rats and mice") is never the main one;
  a chunk's list items ("A, B or C", "such as", "including",
  parentheses) are one concept's variants; meta words ("comparative effectiveness", "literature", "role",
  "age group", "leading causes") are dropped;
* each item becomes truncated search terms ("soft skills" -> "soft skill*", "adolescents" -> adolescen*),
  an acronym and its long form both, plus close terms from a small general vocabulary of populations.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from agentr_dagster.domain.specificity import (
    GENERIC_SHARE,
    Background,
    any_share,
    general_completions,
    general_zipf,
    is_generic,
    opens_onto_zipf,
    phrase_zipf,
)
from agentr_dagster.domain.truncation import is_acronym as _is_acronym
from agentr_dagster.domain.truncation import truncation
from agentr_dagster.domain.word_class import (
    can_be_verb,
    is_finite_verb,
    is_graded_adjective,
    is_irregular_past_participle,
    is_past_participle,
    is_plain_verb,
    noun_lemmas,
    past_forms,
    plural_forms,
    verb_lemmas,
    word_classes,
)

#: Facet names (the most specific first).
FACET_ORDER = ("intervention", "exposure", "population", "outcome", "setting", "comparator")
#: How the blocks combine into the Boolean query (A: the main block, the first required one; B, C...: every
#: other block, required or optional; the study design is never in it):
#: ``main`` A; ``main_or_rest`` A OR (B AND C ...); ``two_of`` any two blocks AND-ed, OR-ed over the pairs;
#: ``main_and_any`` A AND (B OR C ...); ``any`` A OR B OR C ...; ``main_or_two_of_rest`` A OR (any two of B, C ...).
#: ``main_unless_broad`` A alone while the share of records expected to name it is at most :data:`BROAD_SHARE`,
#: else A AND (B OR C ...): the main subject always required.
#: ``main_or_required_rest`` A OR (the other required blocks AND-ed): an optional block (a demographic word, a
#: concept the question says not to require) left out.
#: ``main_or_specific_rest`` A OR (B AND C ...) without the optional blocks marked ``in_query=False`` at extraction
#: (:func:`_mark_rest`: left out when the required ones AND-ed already name a narrow topic, or when no required
#: block is left and they are broad): ``A OR adult*`` never, ``A OR (diabetes AND adult*)`` -> ``A OR diabetes``.
#: Whatever the shape, blocks marked ``independent`` (an abstract's title naming two subjects: "X and the risk
#: of Y") are AND-ed with the main block: A AND B, never A OR B.
QUERY_SHAPES = ("main", "main_or_rest", "two_of", "main_and_any", "any", "main_or_two_of_rest", "main_unless_broad",
                "main_or_required_rest", "main_or_specific_rest")
#: The shapes that put every concept of the question in the query.
SHAPES_WITH_EVERY_CONCEPT = tuple(s for s in QUERY_SHAPES if s not in ("main", "main_or_required_rest",
                                                                        "main_or_specific_rest"))
#: Chosen leave-one-review-out on the 18 shared labelled reviews (`agentr bench queries`): the shape under which
#: the most of the other reviews meet both of the issue's bars (recall >= 0.9, off-topic <= 5 %), then the best
#: mean recall. ``main_or_specific_rest`` in all 18 folds (docs/search-strategies.md, third round);
#: ``main_or_rest`` (every concept, optional blocks AND-ed in) is what the "fewest records reaching 0.9" rule
#: picks. A study naming the main concept, or every other required one, is found.
QUERY_SHAPE = "main_or_specific_rest"
MAX_TERMS_PER_BLOCK = 40
#: ``main_or_specific_rest``: the optional blocks leave the rest branch when the required ones AND-ed are expected
#: in at most this share of a background's records (judged leave-one-review-out, `agentr bench queries`).
REST_SHARE = 0.03
#: A term this frequent in general English (Zipf scale, ``wordfreq``: "effect" 5.0, "human" 5.4, "cancer" 4.9,
#: "dementia" 3.8) is too common to stand as an alternative of a concept.
GENERIC_ZIPF = 5.0
#: An abstract's query ANDs at most this many concepts of its title (the main one included): "X and the risk of
#: Y", "X based on Y for Z"; a setting ("in office workers"), who ("in rodents"), an aspect or a comparator is never
#: AND-ed (:func:`_title_subjects`), so the cap no longer has to keep a setting out (it was 2).
MAX_INDEPENDENT_BLOCKS = 3
#: ``main_unless_broad``: the main block alone when the share of records expected to name it (general English)
#: is at most this, else the main block AND any other concept.
BROAD_SHARE = 0.02

_WORD = r"[A-Za-z0-9][\w'\u2019-]*"

#: Sentences that say where records come from, not what the question is.
_PROVENANCE_RE = re.compile(
    r"\b(records? (?:come|came|are|were) from|test collection|prepared by|review project|practice cent(?:er|re)|"
    r"drug class review|this (?:tertiary|secondary|scoping|systematic) (?:study|review) (?:looks|searches|covers)|"
    r"the review covered|published (?:between|from|in) \d{4}|papers published \d{4})",
    re.I,
)
_EXCLUSION_START_RE = re.compile(r"^\s*(?:we\s+)?(?:exclude[sd]?|excluding|not relevant|exclusion)\b", re.I)
_EXCLUSION_ANY_RE = re.compile(r"\b(?:are|is|were) not (?:relevant|eligible|included)\b|\bwere excluded\b", re.I)
#: Clause starts inside a sentence after which the rest is an exclusion or a non-requirement.
_CLAUSE_CUT_RE = re.compile(
    r"[,;]?\s*\b(?:exclud(?:e|es|ed|ing)|except(?: for)?|regardless of|irrespective of|but not|other than|"
    r"unless)\b.*$",
    re.I,
)
_ELIGIBILITY_RE = re.compile(
    r"^\s*(?:(?:we\s+)?include[sd]?\b|inclusion\b|relevant (?:studies|records|papers|articles)\b|eligible\b|"
    r"only\b.*\b(?:were|are|was|is) (?:considered|included|eligible)\b|(?:studies|trials|articles|papers) (?:were|are) "
    r"eligible\b|(?:studies|trials|articles|papers) (?:must|should|had to|have to|were required to)\b|"
    r"at title/abstract stage|studies (?:were|are) (?:included|eligible))",
    re.I,
)
_OUTCOMES_SENTENCE_RE = re.compile(r"^\s*outcomes? (?:of interest|measured|considered)\b", re.I)

#: Words that describe the review, its questions or its reporting, never a topic concept.
META_WORDS = frozenset(
    """
    what which who whom whose how why when where whether is are was were be been do does did have has had
    can could may might should would will shall there exist exists existing
    comparative comparison compare compared comparing compares effectiveness efficacy effect effects harm harms
    benefit benefits
    safety literature evidence research studies study article articles paper papers record records report
    reports reported reporting review reviews reviewed systematic systematically scoping tertiary secondary primary
    quantitative qualitative mixed-methods mixed method methods methodology definition definitions example
    examples instrument instruments result results main role roles form forms types kind kinds number
    many much several numerous outcome outcomes concern concerns interest importance issue issues mention
    mentions mentioned
    explore explored exploring explores investigate investigated evaluate evaluated evaluating build builds building
    associated association associations use used using usage apply applied applicable applicability
    leading cause causes age group groups catalogue topic topics quality good large newer new older recent
    other others various different specific specifically particular include including includes included
    focus focuses focused regard regarding respect level levels play plays extent often over time increasing
    carry carries carried out also both either such as well their its his her our they them it this that these
    those who each any all some same between within across about among
    aim aims aimed objective objectives purpose goal goals identify identified determine determined assess
    assessed assessing assesses examine examined examines investigates summarize summarise summarizes summarises
    synthesize synthesise quantify estimate estimates describe describes characterize characterise establish
    statistically significant significance insufficient sufficient available current potential possible
    we us propose proposes proposed present presents introduce introduces exhibit exhibits combine combines
    combining challenging accurate novel paper views perspectives attitude attitudes umbrella overview overviews
    known
    """.split()
)
#: Phrases that are boilerplate as a whole (a topic can still contain one of their words).
META_PHRASES = (
    "leading causes", "age group", "age groups", "systematic review", "systematic reviews", "literature review",
    "comparative effectiveness", "class head", "head to head", "drug class", "quality of life",
    "main results", "over time", "title/abstract stage", "primary research", "original research",
    "empirical research", "empirical studies", "original empirical research", "literature search",
    "literature searches", "individual participant data", "individual patient data", "aggregate data",
    "evidence synthesis", "evidence syntheses", "thematic synthesis", "narrative synthesis", "qualitative synthesis",
    "meta-synthesis", "meta-regression", "meta-regression analysis",
)  # fmt: skip
#: Study-design vocabulary: these terms make the optional design block and never a topic block.
DESIGN_TERMS = (
    "randomized controlled trial", "randomised controlled trial", "controlled trial", "clinical trial",
    "cohort study", "case-control", "observational study", "cross-sectional", "systematic review",
    "meta-analysis", "mixed-methods", "quantitative", "qualitative", "survey", "experiment", "empirical",
    "clinical studies", "clinical study", "trial", "trials", "cohort", "longitudinal", "prospective",
    "retrospective", "case series", "mixed methods",
)  # fmt: skip
_DESIGN_WORDS = frozenset(
    "randomized randomised controlled trial trials cohort case-control observational cross-sectional meta-analysis "
    "meta-analyses quantitative qualitative mixed-methods survey surveys experiment experiments empirical "
    "clinical control placebo-controlled double-blind double-blinded single-blind open-label crossover "
    "quasi-experimental prospective retrospective longitudinal".split()
)
#: Who a study is about, when that is all a chunk says ("in adults", "patients"): too generic to require
#: when a more specific chunk (a condition) exists.
DEMOGRAPHIC_WORDS = frozenset(
    "adult adults patient patients people person persons individual individuals human humans subject subjects "
    "participant participants men women man woman user users".split()
)
#: People by what they do or are to others (a general vocabulary of roles, not a field's): a block of them says
#: who the studies are about ("among emergency physicians", "how do developers use X").
_ROLES = ("physician doctor clinician practitioner pharmacist dentist surgeon psychiatrist psychologist therapist "
          "midwife midwive resident trainee worker employee manager caregiver carer parent mother father family "
          "citizen consumer smoker athlete survivor professional provider prisoner inmate migrant immigrant refugee "
          "client customer developer engineer programmer tester volunteer").split()
ROLE_WORDS = frozenset([*_ROLES, *(w + "s" for w in _ROLES), "families", "staff", "personnel"])
#: Close terms for common populations (a general vocabulary, not a field's).
POPULATION_VARIANTS: dict[str, tuple[str, ...]] = {
    "adolescen": ("adolescen*", "teen*", "youth*", '"young people"', "juvenile*", '"high school*"'),
    "child": ("child*", "pediatric*", "paediatric*", "kid", "kids", "infant*"),
    "student": ("student*", "pupil*", "learner*"),
    "teacher": ("teacher*", "educator*", "faculty", "instructor*"),
    "older adult": ('"older adult*"', "elderly", '"older people"', "aged", "geriatric*"),
    "elderly": ("elderly", '"older adult*"', '"older people"', "geriatric*"),
    "nurse": ("nurse*", "nursing"),
    "women": ("women", "woman", "female*", "maternal"),
    "veteran": ("veteran*", "military"),
}
_POPULATION_TERMS = frozenset(t for extra in POPULATION_VARIANTS.values() for t in extra)
#: The species an animal study names, by what a question or title says ("in rodents", "animal models"): a study
#: of a rodent says "rats" or "mice", seldom "rodents" (a general vocabulary of laboratory animals).
_RODENTS = ("rodent*", "rat", "rats", "mouse", "mice", "murine")
ORGANISM_VARIANTS: dict[str, tuple[str, ...]] = {
    "animal": ("animal*", *_RODENTS), "rodent": _RODENTS, "rat": ("rat", "rats"), "rats": ("rat", "rats"),
    "mouse": ("mouse", "mice", "murine"), "mice": ("mouse", "mice", "murine"),
}
#: Who or what a study is done on, when a block names nothing else ("in rats and mice", "among adolescents"):
#: people by age, role or sex, and the organisms of animal research (a general vocabulary, not a field's).
ORGANISM_WORDS = frozenset(
    "animal animals rodent rodents rat rats mouse mice murine primate primates monkey monkeys macaque macaques "
    "zebrafish pig pigs piglet piglets dog dogs cat cats sheep rabbit rabbits hamster hamsters guinea fish "
    "species strain strains wild-type transgenic knockout".split()
)


#: Organisms a study is done on, as a modifier before what it studies ("human trials", "rat liver").
#: Words of organisms that are a species (not "strain", "knockout" or "human").
_SPECIES_WORDS = frozenset(ORGANISM_WORDS - {"species", "strain", "strains", "wild-type", "transgenic", "knockout"})
_ORGANISM_MODIFIERS = (_SPECIES_WORDS - {"guinea"}) | {"human", "humans"}


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
    if not _PEOPLE_RE.search(text):
        for block in blocks:
            if _organism_block(block):
                _as_organisms(block, acronyms)


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
    return bool(words) and all(_person_word(w) or w in ORGANISM_WORDS for w in words)


def _person_word(word: str) -> bool:
    """A lower-case head noun that names people: by age, role or sex ("adults", "nurses", "adolescents")."""
    return word in DEMOGRAPHIC_WORDS or word in ROLE_WORDS or any(word.startswith(k) for k in POPULATION_VARIANTS)


#: Words after which a list of items are examples of the concept before them.
_EXAMPLE_RE = re.compile(
    r"(?<![\w-])(?:such as|including|includes|e\.g\.|i\.e\.|for example|for instance|like|notably)(?![\w-])", re.I)
#: Chunk boundaries in a question sentence.
_BOUNDARY_RE = re.compile(
    r"(?<![\w-])(?:(?:in relation to|with regard to|with respect to|"  # before "in" / "with": one cue, not a noun
    r"in|among|amongst|for|on|of|with|without|about|within|throughout|towards?|versus|vs\.?|than|that|which|whether|how|what|"
    # a preposition of time or route starts another concept ("depression during pregnancy", "delirium after
    # surgery"); "as" does not: "X as monotherapy" is a role, "X and Y as soft traits" their umbrella
    r"during|after|before|across|via|through|against|(?<!the )following|"
    # other prepositions that end a noun phrase ("prediction of X beyond clinical factors", "insight into X")
    r"beyond|despite|into|under|upon|amid|amidst|unlike|alongside|besides|"
    # "by" says who does it or how it is split ("adoption of X by citizens", "X stratified by age")
    r"by|between|"
    # "to" before a verb's "-ing" form is a preposition ("barriers to implementing X"), not an infinitive's
    r"(?:to|at)(?=\s+[a-z]+ing\b)|"
    r"compared (?:with|to)|associated with|related to|used (?:in|to|for)|to treat|treated with|"
    r"for the treatment of|in the treatment of|benefit|benefits|affect|affects|predict|predicting|"
    r"been|be|is|are|was|were|have|has|do|does)(?![\w-]))",
    re.I,
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
    # name nothing; a phrase after it ("teachers' soft skills") is its own concept, the possessor who has it
    after = re.match(r"([A-Za-z][\w-]*)(?:\s+([A-Za-z][\w-]*))?", match.string[match.end():])
    if after and (after.group(2) is None or after.group(2).casefold() in _FUNCTION | _PREPOSITIONS
                  or after.group(2).casefold() in ("and", "or") or after.group(2).casefold() in _EFFECT_VERBS
                  or is_finite_verb(after.group(2))) and "NOUN" in word_classes(after.group(1)) \
            and "ADJ" not in word_classes(after.group(1)) and not after.group(1).endswith("ing"):
        return word + " "
    return word + " of "


def _eponym(word: str) -> bool:
    """A capitalised word that is not an acronym and that the lexicon does not know: a person's name."""
    return word[:1].isupper() and not _is_acronym(word) and word.isalpha() and not word_classes(word)


_COMPARATOR_CUE_RE = re.compile(r"\b(?:versus|vs\.?|than|compared (?:with|to))\s*$", re.I)
#: A chunk's whole cue that says where ("X in software engineering"); after a verb ("favour in X") it is the
#: verb's complement, not a setting.
_SETTING_CUE_RE = re.compile(r"^(?:in|among|amongst|within)$", re.I)
#: A cue whose chunk says the span the studies cover ("across the lifespan"), never a concept of its own.
_SPAN_CUE_RE = re.compile(r"\bacross$", re.I)
_POPULATION_CUE_RE = re.compile(r"\b(?:in|among|amongst|for|of)\s*$|\bwith\s*$", re.I)
_OUTCOME_CUE_RE = re.compile(
    r"\b(?:associated with|related to|affect|affects|benefit|on|predict|predicting|reduce|reduces|improve|improves|"
    r"prevent|prevents|increase|increases|decrease|decreases|lower|lowers|influence|influences|impact|impacts)\s*$",
    re.I)
_INTERVENTION_CUE_RE = re.compile(
    r"\b(?:of|treated with|to treat|for the treatment of|in the treatment of|used in|use of|using)\s*$", re.I
)
_ACRONYM_PAREN_RE = re.compile(r"([A-Za-z][\w\- ]{2,80}?)\s*\(([A-Z][A-Za-z0-9\-]{1,9}s?)\)")


@dataclass
class ConceptBlock:
    """One facet: its name, a label (the concept as the question says it) and its search terms."""

    facet: str
    label: str
    terms: list[str] = field(default_factory=list)
    required: bool = True
    n_items: int = 1  # how many variants the question itself lists
    generic: bool = False  # every term common English: never the main block, never required
    items: list[str] = field(default_factory=list)  # those variants, as the question writes them
    independent: bool = False  # a second subject of an abstract's title: AND-ed with the main block
    side: bool = False  # named only by a question's side clause ("..., and how is it measured?"): optional
    aspect: bool = False  # "the prevalence of X", "the pharmacokinetics of X": never the main block before X
    in_query: bool = True  # an optional block the ``main_or_specific_rest`` shape leaves out (:func:`_mark_rest`)
    setting: bool = False  # after "in" / "among" ("... in small samples", "... in rodents"): where, not what
    kinds: list[str] = field(default_factory=list)  # terms of kinds the text names elsewhere (:func:`_join_kinds`)
    # an abstract names the class's members: a list of names or examples ("X such as A, B") joined the block
    members: bool = False
    # the animals the studies are done on ("in rodents", "animal models of X"): AND-ed with the whole query, as an
    # animal-study filter is; a study of the topic in people is not one of them
    organism: bool = False

    def query(self, max_terms: int = MAX_TERMS_PER_BLOCK) -> str:
        terms = _dedupe(_sendable(t) for t in self.terms)[:max_terms]
        return terms[0] if len(terms) == 1 else "(" + " OR ".join(terms) + ")"


@dataclass
class ConceptPlan:
    blocks: list[ConceptBlock]
    design: ConceptBlock | None = None
    dropped: list[str] = field(default_factory=list)  # sentences or clauses left out, for the record

    def main(self) -> ConceptBlock | None:
        return next((b for b in self.blocks if b.required), self.blocks[0] if self.blocks else None)

    def boolean_query(self, shape: str = QUERY_SHAPE, max_chars: int = 2000, broad_share: float | None = None) -> str:
        """The blocks combined as ``shape`` (see :data:`QUERY_SHAPES`), within ``max_chars`` (the contract's
        bound: fewer terms per block)."""
        if shape not in QUERY_SHAPES:
            raise ValueError(f"unknown query shape {shape!r}; one of {QUERY_SHAPES}")
        for max_terms in (MAX_TERMS_PER_BLOCK, 25, 15, 8, 4, 2, 1):
            query = self._query(shape, max_terms, BROAD_SHARE if broad_share is None else broad_share)
            if len(query) <= max_chars:
                return query
        return query[:0]

    def _query(self, shape: str, max_terms: int, broad_share: float = BROAD_SHARE) -> str:
        main = self.main()
        if main is None:
            return ""
        organisms = [b for b in self.blocks if b.organism and b is not main]
        if organisms:  # a filter when required, else no part of the query (never "X OR rats")
            inner = ConceptPlan([b for b in self.blocks if b not in organisms], self.design, self.dropped)
            organisms = [b for b in organisms if b.required]
            query = inner._query(shape, max_terms, broad_share)
            animals = ConceptBlock("population", "organisms", _dedupe(t for b in organisms for t in b.terms))
            return f"{_grouped(query)} AND {animals.query(max_terms)}" if query and organisms else query
        rest = [b for b in self.blocks if b is not main]
        a = main.query(max_terms)
        independent = [b for b in rest if b.independent]
        if independent:  # the title's subjects, each an OR-group of its variants, AND-ed
            return " AND ".join([a, *(b.query(max_terms) for b in independent)])
        if shape == "main_or_required_rest":
            rest = [b for b in rest if b.required]
        if shape == "main_or_specific_rest":
            rest = [b for b in rest if b.required or b.in_query]
        if shape == "main" or not rest:
            return a
        parts = [b.query(max_terms) for b in rest]

        def all_of(qs: list[str]) -> str:
            return qs[0] if len(qs) == 1 else "(" + " AND ".join(qs) + ")"

        if shape in ("main_or_rest", "main_or_required_rest", "main_or_specific_rest"):
            return f"{a} OR {all_of(parts)}" if parts else a
        if shape == "two_of":
            everyone = [a, *parts]
            return " OR ".join(f"({x} AND {y})" for i, x in enumerate(everyone) for y in everyone[i + 1:])
        if shape == "main_unless_broad" and any_share(main.terms[:max_terms]) <= broad_share:
            return a
        if shape in ("main_and_any", "main_unless_broad"):
            others = _dedupe(t for b in rest for t in b.terms)
            return a + " AND " + ConceptBlock("other", "other concepts", others).query(max_terms * len(rest))
        if shape == "any":
            return " OR ".join([a, *parts])
        # main_or_two_of_rest
        if len(parts) < 2:
            return " OR ".join([a, *parts])
        return a + " OR " + " OR ".join(f"({x} AND {y})" for i, x in enumerate(parts) for y in parts[i + 1:])


# ------------------------------------------------------------------------------------------------------------
# Terms
# ------------------------------------------------------------------------------------------------------------

def _grouped(query: str) -> str:
    """``query`` as one operand of an AND: in brackets unless it is one term or one bracketed group already."""
    if " " not in query or query.startswith('"') and query.endswith('"') and query.count('"') == 2:
        return query  # one term, or one phrase
    depth = 0
    for i, ch in enumerate(query):
        depth += (ch == "(") - (ch == ")")
        if depth == 0 and i < len(query) - 1:
            return f"({query})"
    return query if query.startswith("(") else f"({query})"


def _sendable(term: str) -> str:
    """``term`` with a wildcard only where every source's engine takes one: after 4 letters or more of a plain
    word. The translation leaves a stem it cannot send unconstrained, which drops the whole OR it sits in (in
    ``A OR (B AND C)``: the whole query); so ``kid*`` goes as ``kid`` and ``non-stimulant*`` as ``non-stimulant``.
    A bare phrase (a seed study's mined "allergic rhinitis") goes quoted: unquoted, its words would be AND-ed."""
    if " " in term and not term.startswith(('"', "(")):
        term = '"' + term.replace('"', " ").strip() + '"'
    if "*" not in term or term.startswith("("):  # a term of words AND-ed: its stems are long ones already
        return term
    words = [w if re.fullmatch(r"\w{4,}\*", w.strip('"')) else w.replace("*", "") for w in term.split(" ")]
    return " ".join(words)


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
    return terms


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
    return ""


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
    stems = [truncation(word)]
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
    other = _paired_form(word)
    if other and not other.startswith(stems[0].rstrip("*")):
        stems.append(truncation(other))
    return stems


#: Heads that say "a kind of treatment or thing" (the modifier before them is the concept).
GENERIC_HEADS = frozenset(
    "drug drugs agent agents medication medications medicine medicines therapy therapies treatment treatments "
    "condition conditions model models approach approaches intervention interventions inhibitor inhibitors "
    "blocker blockers enzyme enzymes antagonist antagonists agonist agonists receptor receptors".split()
)


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
            return True
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


#: A question that opens with its verb "to be" ("Are X safe for Y?", "Is X common among Y?").
_COPULA_QUESTION_RE = re.compile(r"^\W*(?:is|are|was|were)\b", re.I)


def _without_predicate_adjective(piece: str) -> tuple[str, bool]:
    """A copular question's subject closed by its predicate ("non-opioid analgesics safe", "X safe and
    effective"): the piece without the adjectives (:func:`_mostly_adjective`), and whether one was there; a
    one-word piece is kept."""
    words = piece.rstrip(" ,;:?.").split()

    def predicate(word: str) -> bool:
        return _adjective(word) or _mostly_adjective(word)

    kept = list(words)
    while len([w for w in kept if w.casefold() not in _FUNCTION]) >= 2 and predicate(kept[-1]):
        kept.pop()
        if len(kept) >= 2 and kept[-1].casefold() in ("and", "or") and predicate(kept[-2]):
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


def item_terms(item: str) -> list[str]:
    """Search terms for one concept item: each run of content words; a single word truncated, a phrase quoted
    with its tail truncated, and for a phrase of three words or more its two-word parts."""
    out: list[str] = []
    words = [w.casefold() for w in re.findall(_WORD, item)]
    for run in _runs(item):
        if len(run) == 1 and (run[0].casefold() in _NO_CONCEPT_ALONE
                              or (len(run[0]) < 3 and not _is_acronym(run[0]))
                              or _adverb(run[0]) or _lone_modifier(run[0], words)):
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


def _adverb(word: str) -> bool:
    return word.casefold().endswith("ly") and word_classes(word) == {"ADV"}


#: A run that closes with an object pronoun is a verb and its object ("... to detect or fix them"): the pronoun
#: stands for a concept named before, so the run names none (lower case only: "IT" is information technology).
_OBJECT_PRONOUNS = frozenset({"them", "it", "him", "us"})


def _concept_words(words: list[str]) -> list[str]:
    """A run's words without what names no concept around them: meta and function words at either end, a
    closing measure or design word, an age or a duration; [] when nothing is left."""
    if words and words[-1] in _OBJECT_PRONOUNS:  # "fix them", "measure it": a verb and what it stands for
        return []
    # drop leading/trailing meta and function words ("a recent myocardial infarction" -> "myocardial infarction")
    while words and (words[0].casefold() in META_WORDS or words[0].casefold() in _FUNCTION):
        words = words[1:]
    while words and (words[-1].casefold() in META_WORDS or words[-1].casefold() in _FUNCTION) and not (
            len(words) >= 2 and _meta_closes_compound(words[-2], words[-1])):
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
            and not _everyday_noun(head) and not _everyday_modifiers(words)):
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
            and (len(words[1]) <= 4 or words[1].casefold() in GENERIC_HEADS)
            and not _meta_closes_compound(words[0], words[1]) and not _process_noun(words[0], conversion=False)):
        # not a process ("management interventions": managem*); a thing the treatment uses, AND-ed with it
        terms.append(_means_of_treatment(words) or _render(truncation(words[0])))
    terms.extend(_letter_compound_alone(words))
    terms.extend(_activity_stem(words))
    terms.extend(_compound_of_a_role(words))
    # a rare word before a participle of means joined to it ("psilocybin-assisted therapy"): the word names the
    # concept; not one of cause ("NSAID-associated ulcers", "opioid-induced constipation": the ulcers are)
    terms.extend(_render(truncation(left)) for w in words for left, _, right in [w.casefold().partition("-")]
                 if right in _MEANS_PARTICIPLES and left.isalpha() and general_zipf(left) < RARE_PART_ZIPF)
    # a rare word before a verb's "-ation" done with it ("probiotic supplementation", "melatonin administration"):
    # the word names the concept; its studies also write "probiotics given to ..."
    if len(words) == 2 and _done_noun(words[1]) and words[0].isalpha() and general_zipf(words[0]) < RARE_PART_ZIPF:
        terms.append(_render(truncation(words[0])))
    # a gene's symbol before what is studied of it ("ATP7B gene", "CYP2C19 polymorphisms"): the symbol names it
    if len(words) == 2 and _is_acronym(words[0]) and words[1].casefold() in _GENE_HEADS:
        terms.append(words[0])
    # a class noun before a name ("antimuscarinics oxybutynin"): each word names the concept
    if (len(words) == 2 and _plural(words[0]) and len(words[0]) >= 8 and len(words[1]) >= 6
            and words[1].casefold() not in GENERIC_HEADS and not _modifier_like(words[0])
            and not _modifier_like(words[1])):
        # an everyday class noun alone is every field's ("requirements traceability": traceabil*, not requirem*)
        terms.extend(_render(truncation(w)) for w in words if not _everyday_noun(w))
    # a noun acted on by a process ("fault prediction"): papers write the process of it ("predicting faults")
    for a, b in zip(words, words[1:], strict=False) if not _kind_of_everyday_thing(words) else ():
        if (not _modifier_like(a) and "NOUN" in word_classes(a.casefold()) and not _process_noun(a)
                and _process_noun(b, conversion=False)):
            terms.extend(t for t in _head_alone([a, b]) if t.startswith("("))
    # a phrase made one word before its head ("object-in-place paradigms"): the compound alone names the kind,
    # whatever the head the studies use ("object-in-place task")
    if len(words) == 2 and _phrase_compound(words[0]):
        terms.extend(_run_terms(words[:1]))
    terms.extend(_modifier_in_front_terms(words))
    return terms


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


#: Everyday nouns for any treatment ("herbal remedies", "home remedies"): the head alone (``remed*``) is every
#: remedy and every remediation, never the concept its modifier names.
_REMEDY_HEADS = frozenset("remedy remedies".split())


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
    named = any(c.isdigit() for c in words[0]) and "-" in words[0]
    everyday_stem = general_zipf(truncation(head)) >= EVERYDAY_WORD_ZIPF
    kind_of_common = len(words) == 2 and not degree and (
        _done_noun(head) and everyday_stem or named and _everyday_noun(head) and can_be_verb(head)
        # a "non-X" modifier: the head alone holds the X it leaves out ("non-opioid analgesics": analgesic*)
        or words[0].casefold().startswith("non-"))
    if (len(words) >= 2 and (_modifier_like(words[0]) or degree) and len(head) >= (4 if degree else 6)
            and head not in GENERIC_HEADS | _REMEDY_HEADS
            and (len(words) > 2 or general_zipf(truncation(head)) < HEAD_ALONE_ZIPF)
            and not _kind_of_everyday_thing(words) and not kind_of_common and not _phrase_compound(words[0])
            and not ((_means_compound(words[0]) or _content_compound(words[0])) and not _process_noun(head))):
        rest = words[1:]
        # the rest without a rare leading modifier, common English alone, names nothing the phrase does
        # ("posttraumatic stress symptoms": "stress symptoms"; after a compound lead, "ultra-processed food
        # intake": "food intake"), as the phrase parts of :func:`_phrase_parts`
        if len(rest) == 1:
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


#: One letter, a hyphen and a word of four letters or more, the whole word ("e-government", "m-health").
_LETTER_HYPHEN_WORD_RE = re.compile(r"[A-Za-z]-[A-Za-z]{4,}")
#: A compound opened by a single letter anywhere in a term ("e-learning platform", "m-health").
_LETTER_OPENED_RE = re.compile(r"(?<![\w-])[A-Za-z]-[A-Za-z]")


def _letter_compound_alone(words: list[str]) -> list[str]:
    """A compound opened by a single letter ("e-government", "m-health", "e-learning": the electronic or mobile
    form of a thing) before an everyday noun ("services", "apps", "platforms"): the compound alone names the
    concept, as its studies write it without the head ("e-government adoption"), and the head adds nothing.
    As a stem, never spaced: a term is matched as a substring, and "e-learning" sits inside "machine-learning",
    "e learning" inside "the learning"; a stem starts at a word's start."""
    if len(words) != 2 or not _LETTER_HYPHEN_WORD_RE.fullmatch(words[0]) or not _everyday_noun(words[1]):
        return []
    return [words[0].casefold() + "*"]


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


def _compound_of_a_role(words: list[str]) -> list[str]:
    """A compound of who and what ("teacher burnout", "caregiver burden"): its studies write the two apart
    ("burnout among secondary school teachers"), so the two AND-ed are a term too."""
    if len(words) != 2:
        return []
    who, what = words[0].casefold(), words[1].casefold()
    role = who in ROLE_WORDS or any(who == key for key in POPULATION_VARIANTS if " " not in key)
    if not (role and not _plural(who) and what.isalpha() and len(what) >= 5 and what not in GENERIC_HEADS
            and what not in ROLE_WORDS and "NOUN" in word_classes(what) and not _process_noun(what, conversion=False)):
        return []  # a process done by them ("citizen adoption") is AND-ed with them already (:func:`_head_alone`)
    people = POPULATION_VARIANTS[who][0] if who in POPULATION_VARIANTS else who + "*"  # teachers, parents
    return [f"({_sendable(truncation(what))} AND {people})"]


#: The part before a hyphenated participle is a term alone below this general-English frequency (Zipf):
#: "psilocybin" 2.5, "ketamine" 2.9; not "mindfulness" 3.4, "school" 5.7 ("school-based"), "exercise" 4.7.
RARE_PART_ZIPF = 3.0
#: Participles that join a means to what it serves ("X-assisted therapy", "X-based intervention", "X-guided").
_MEANS_PARTICIPLES = frozenset("assisted based guided delivered led facilitated supported enhanced augmented".split())


_TIME_UNITS = frozenset("year month week day hour minute".split())


#: What a study says of a gene after its symbol (a general vocabulary of genetics).
_GENE_HEADS = frozenset(
    "gene genes polymorphism polymorphisms variant variants mutation mutations genotype genotypes allele alleles "
    "expression".split())


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
    for part in (words[:-1], words[1:]) if len(words) >= 4 else ():
        if not (part[0][0].isdigit() or part[-1][0].isdigit() or _modifier_end(part[-1])
                or _common_without_lead(words, part)):
            terms.extend(_phrase_terms(" ".join(part)))
    rare_head = _rare_plural_head(words)
    for i in range(len(words) - 1):
        a, b = words[i], words[i + 1]
        if i + 1 < len(words) - 1 and _modifier_end(b):
            continue  # a pair closed by a modifier of the head ("cerebral small" of "... small vessel disease")
        if _common_without_lead(words, [a, b]):
            continue
        if rare_head and i + 2 == len(words) - 1:
            continue  # the pair before a rare head names another thing ("skeletal muscle" of "... relaxants")
        if i > 0 and _process_noun(a, conversion=False) and "NOUN" in word_classes(words[i - 1]):
            # the noun before a verb's noun is what it acts on ("fault prediction performance"): the pair without
            # it ("prediction performance") is every field's prediction
            continue
        if not (a[0].isdigit() or b[0].isdigit() or _index_word(a) or _numbered_next(words, i + 1)):
            terms.extend(_phrase_terms(f"{a} {b}"))
    return terms


def _numbered_next(words: list[str], k: int) -> bool:
    """A number follows the word: the word and the number name one thing ("type 2", "stage 3", "grade II"), so a
    pair ending in the word ("incident type" of "incident type 2 diabetes") is cut inside a name."""
    return k + 1 < len(words) and (words[k + 1][:1].isdigit() or re.fullmatch(r"I{1,3}|IV|VI{0,3}", words[k + 1])
                                   is not None)


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
    rare_lead = all(general_zipf(first) < general_zipf(w.casefold()) for w in words[1:])
    return rare_lead and general_zipf(" ".join(part)) >= COMMON_PAIR_ZIPF


def _rare_lead_makes_it(words: list[str]) -> bool:
    """The phrase's leading modifier is rare in English (under :data:`RARE_MODIFIER_ZIPF`, a hyphenated one as one
    word: "post-traumatic" as "posttraumatic" 2.4) and the rest is common English alone
    (:func:`_common_without_lead`): "posttraumatic stress symptoms", whose "stress symptoms" are every stress
    study's. A commoner lead leaves its rest a name ("cerebral small vessel disease": "small vessel disease")."""
    first = words[0].casefold()
    lead = min(general_zipf(first), general_zipf(first.replace("-", "")) if "-" in first else 9.0)
    return lead < RARE_MODIFIER_ZIPF and _common_without_lead(words, words[1:])


def _rare_plural_head(words: list[str]) -> bool:
    """The phrase's head is a rare plural noun (below :data:`RARE_PART_ZIPF`), rarer than every word before it
    ("skeletal muscle relaxants", "relaxants" 2.0; not "software testing tools", "tools" 4.6), after an everyday
    word: the head is what makes it the concept, and the words before it name something else without it
    ("skeletal muscle", "white matter" of "white matter hyperintensities"; not "long-acting opioid" of "...
    analgesics", a class of them)."""
    head = words[-1].casefold()
    return (len(words) >= 3 and _plural(head) and head.isalpha() and general_zipf(head) < RARE_PART_ZIPF
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
            # "inherit", "restrict"; "recurr" -> "recur"; "compet" -> "compete"
            bases = [base, base + "e"] + ([base[:-1]] if base[-1] == base[-2] else [])
            if any("VERB" in word_classes(b) for b in bases):
                return True
    return False


def _bare_modifier(item: str) -> bool:
    """The item is one word that modifies a noun: an adjective of the lexicon ("atypical", "acute"; not a
    compound, which may be a noun's: "heavy-ion"). A name (unknown to the lexicon) is none."""
    words = _content_words(item)  # a title's capital is no name's ("Topical or systemic agents")
    return len(words) == 1 and words[0].isalpha() and words[0][1:].islower() and "ADJ" in word_classes(words[0])


def _distribute_head(items: list[str]) -> list[str]:
    """A list's bare modifiers with the noun phrase listed after them, less that phrase's own first modifier
    ("acute and chronic pain" -> "acute pain"; "atypical or second-generation antipsychotic drugs" -> "atypical
    antipsychotic drugs"): a modifier alone (``atypic*``) is every field's."""
    out = list(items)
    tail = [w.casefold() for w in re.findall(_WORD, items[-1])] if items else []
    for k, item in enumerate(items):
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
    return rare or [f"({_sendable(truncation(head))} AND {group})"]


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
    return "-" in low.strip("-") or (low.endswith(_MODIFIER_ENDINGS) and len(low) > 4 and not _is_acronym(word))


def _render(term: str) -> str:
    if _JOIN in term and "*" in term:  # a stem cut inside a name of several words ("acceptance and commitm*")
        return ""
    term = term.replace('"', "").replace(_JOIN, " ").strip()
    if not term:
        return ""
    return f'"{term}"' if " " in term else term


def _dedupe(terms: Iterable[str]) -> list[str]:
    out: list[str] = []
    for t in terms:
        if t and t.casefold() not in {o.casefold() for o in out}:
            out.append(t)
    # a term whose wildcard prefix covers another makes that one redundant ("teacher*" covers "teachers")
    def prefix(t: str) -> str:
        return t.strip('"').rstrip("*").casefold()

    kept = []
    for t in out:
        covered = any(o is not t and o.strip('"').endswith("*") and prefix(t).startswith(prefix(o))
                      and (" " in prefix(o)) == (" " in prefix(t)) for o in out)
        if not covered:
            kept.append(t)
    return kept


_FUNCTION = frozenset(
    "a an the and or of in on for to with by from at as into onto via per than then their its his her our your "
    "a' any all some no not nor both either neither this that these those such which who whose whom if so yet "
    "whether when while because since unless until none more less most least than but".split()
)


# ------------------------------------------------------------------------------------------------------------
# Sentences and chunks
# ------------------------------------------------------------------------------------------------------------


def _sentences(text: str) -> list[str]:
    from agentr_dagster.domain.text import split_sentences

    return split_sentences(text) or [text]


#: Section headings of a structured abstract, also glued to the next word ("ObjectiveThis paper ...").
_HEADINGS = (
    "background", "context", "introduction", "importance", "objectives?", "aims?", "purpose", "goals?",
    "methods?", "methodology", "design", "data sources", "sources", "study selection", "eligibility criteria",
    "data extraction", "data synthesis", "evidence review", "review methods", "settings?", "participants",
    "main outcome measures?", "results?", "findings", "conclusions?", "interpretation", "implications",
    "limitations", "discussion", "significance", "registration", "funding", "trial registration",
)  # fmt: skip
_GLUED_HEADING_RE = re.compile(r"\b(" + "|".join(h.capitalize() for h in _HEADINGS) + r")(?=[A-Z][a-z])")
#: "Methods: We ...", and the dash style of some journals ("Background.- Triptans ...", "Methods.—We ...").
_COLON_HEADING_RE = re.compile(r"(?:^|(?<=[.\s]))(" + "|".join(_HEADINGS) + r")\s*(?::\s+|\.\s?[-\u2013\u2014]\s*)",
                               re.I)
#: Headings after which the text reports what the review did or found, not what it is about.
_AFTER_TOPIC_HEADING_RE = re.compile(
    r"^(?:methods?|methodology|design|data sources|sources|study selection|eligibility criteria|data extraction|"
    r"data synthesis|evidence review|review methods|results?|findings|conclusions?|interpretation|implications|"
    r"limitations|discussion|significance|registration|funding|trial registration)$", re.I)
_AIM_HEADING_RE = re.compile(r"^(?:objectives?|aims?|purpose|goals?)$", re.I)
#: What the review itself did: registration, databases searched, screening, statistics. Never a topic.
_REVIEW_METHOD_RE = re.compile(
    r"\b(?:PROSPERO|CRD\s?\d{5,}|registered|registration|pre-?registered|protocol|searched|search(?:es|ed)? "
    r"(?:of|in|was|were|strateg\w*)|databases?|MEDLINE|Embase|PubMed|Cochrane|CINAHL|PsycINFO|PsycNET|"
    r"Web of Science|Scopus|Google Scholar|ERIC|reference lists?|hand-?search\w*|grey literature|"
    r"random[- ]effects?|fixed[- ]effects?|meta-?regression|meta-?analy[sz]\w*|pooled|heterogeneity|"
    r"risk of bias|GRADE|PRISMA|odds ratios?|hazard ratios?|risk ratios?|relative risks?|confidence intervals?|"
    r"\d+\s?% CI|\bCI\b|standardi[sz]ed mean differences?|mean differences?|effect sizes?|regression|"
    r"two (?:independent )?reviewers|independently|data (?:were|was) extracted|screened|quality assessment|"
    r"were included|studies included|included studies|were eligible|inclusion criteria|exclusion criteria|"
    r"English|language|peer-reviewed|full[- ]text|conference|abstracts? only|grey|dissertations?)\b",
    re.I,
)
_URL_RE = re.compile(r"https?://|\bdoi(?:\.org)?\b|\bwww\.", re.I)
#: Results and conclusions: numbers, or the review's verdict.
_RESULT_RE = re.compile(
    r"\d+(?:\.\d+)?\s?%|\b[Nn]\s?=\s?\d|\bp\s?[<=>]|\b\d+ (?:studies|trials|articles|papers|records|"
    r"participants|patients|cohorts)\b|\b(?:we found|results (?:show|suggest|indicate)|findings (?:show|suggest)|"
    r"evidence (?:is|was|suggests)|(?:further|more|future) research|there (?:is|was) (?:no|some|limited|little)|"
    r"was associated|were associated|did not|no (?:significant )?(?:difference|association)|"
    r"(?:in )?conclusion)\b",
    re.I,
)
#: Numbers an abstract reports and a question does not (a percentage, a statistic, a count of studies).
_REPORTED_NUMBERS_RE = re.compile(
    r"\d\s?%|\b(?:OR|RR|HR|CI|SMD|MD|k|n|N|I2|p)\s?[=<>]\s?\d|\b\d+ (?:studies|trials|articles|papers|records|"
    r"publications) (?:were|was|met|are)\b|\b(?:identified|included|selected) \d+\b")
#: A sentence that says what the review or paper is about (its aim), in an abstract.
_AIM_RE = re.compile(
    r"\b(?:aims?|aimed|objectives?|purpose|goals?|we (?:sought|set out|wanted|asked)|research questions?|"
    r"(?:this|the present|our) (?:systematic |scoping |literature )?(?:review|meta-analysis|study|paper|article|"
    r"work)|to (?:determine|assess|evaluate|examine|investigate|identify|explore|compare|quantify|summari[sz]e|"
    r"review|synthesi[sz]e|estimate|describe|characteri[sz]e|establish|map)|we (?:\w+ly )?(?:investigated|examined|"
    r"reviewed|assessed|evaluated|explored|compared|propose|present|introduce|study|studied))\b",
    re.I,
)
#: A title's tail that names the kind of publication ("...: a systematic review and meta-analysis").
_TITLE_DESIGN_TAIL_RE = re.compile(
    r"[:\u2013\u2014-]\s*(?:an?\s+|the\s+)?(?:[\w-]+\s+){0,3}(?:review|meta-?analy\w+|overview|evidence map|"
    r"survey|protocol|update)\b.*$", re.I)


#: What a review's kind in a title is of ("...: a systematic review of the X paradigm"): the subject, kept.
_KIND_OF_RE = re.compile(r"\b(?:review|meta-?analy\w+|overview|survey)\s+(?:of|on|into)\s+(?:the\s+)?(.+?)[.]?$", re.I)
_SYNTHESES_RE = re.compile(r"^(?:\w+\s+)?(?:reviews|meta-?analyses|overviews|literature)\b", re.I)


def _title_without_design(title: str) -> str:
    """A title without its closing "...: a systematic review" (its own kind), but with what a "review of X" names
    ("Animal models of depression: a systematic review of the chronic mild stress paradigm": the paradigm is the
    subject); not "of reviews" (a review of reviews) nor "of the literature"."""
    m = _TITLE_DESIGN_TAIL_RE.search(title)
    if m is None:
        return title
    of = _KIND_OF_RE.search(m.group(0))
    head = title[: m.start()].rstrip()
    if of and not _SYNTHESES_RE.match(of.group(1)) and head and _names_a_topic(of.group(1)):
        # the animals studied ("...: a meta-analysis of rodent studies") are a subtitle still, a chunk of their own
        # (:data:`_SUBTITLE_RE`), no variant of the head's last concept
        kept = of.group(1)
        return f"{head}: {kept[:1].upper()}{kept[1:]}" if names_animals(kept) else f"{head}: {kept}"
    return head or title


#: What a review gathers rather than what it is about ("a review of barriers and facilitators", "of techniques").
_EVIDENCE_KINDS = frozenset(
    "barriers facilitators determinants measures instruments tools techniques applications methods approaches "
    "interventions strategies prospective retrospective experimental evidence benchmarks datasets".split())
#: A subject names a topic by a word at most this common in general English (Zipf): "paradigm" 3.6.
TOPIC_WORD_ZIPF = 4.0


#: What a review appraises of its subject, never a topic ("...: a systematic review of predictive performance").
_APPRAISED_PROPERTIES = frozenset(
    "performance accuracy validity reliability utility feasibility acceptability properties".split())


def _names_a_topic(phrase: str) -> bool:
    """The phrase names a topic, not the kind of studies or evidence reviewed ("candidate gene studies",
    "prospective cohort studies", "techniques and applications") nor a property appraised ("prognostic
    performance", "diagnostic accuracy": :data:`_APPRAISED_PROPERTIES`): a word rarer than
    :data:`TOPIC_WORD_ZIPF` that is no design, meta or evidence-kind word."""
    words = [w.casefold() for w in re.findall(_WORD, phrase)]
    if words[-1:] and words[-1] in _APPRAISED_PROPERTIES:
        return False
    topical = [w for w in words if w not in META_WORDS and w not in _DESIGN_WORDS and w not in _EVIDENCE_KINDS
               and w not in _ANSWER_KINDS and w not in _STUDY_NOUNS and w not in GENERIC_HEADS
               and w not in _FUNCTION and not any(w in t.split() for t in DESIGN_TERMS)
               and w not in _GENETIC_FRAME_WORDS]  # "genome-wide association and candidate gene studies"
    return any(general_zipf(w) < TOPIC_WORD_ZIPF for w in topical)


def _restore_headings(text: str) -> str:
    """Structured-abstract headings as sentences of their own ("ObjectiveThis paper" -> "Objective. This
    paper"; "Methods: We ..." -> "Methods. We ..."), and a sentence glued to the next ("dementia.We")."""
    text = _GLUED_HEADING_RE.sub(r"\1. ", text)
    text = _COLON_HEADING_RE.sub(lambda m: f" {m.group(1).capitalize()}. ", text)
    return re.sub(r"(?<=[A-Za-z0-9)\]]{2})([.?!])(?=[A-Z][a-z])", r"\1 ", text).strip()


def _heading(sentence: str) -> str | None:
    word = sentence.strip().rstrip(".:").casefold()
    return word if any(re.fullmatch(h, word) for h in _HEADINGS) else None


def classify_sentences(text: str) -> tuple[list[str], list[str], list[str]]:
    """(topic sentences, eligibility sentences, dropped sentences/clauses) of a question or an abstract.

    What the review itself did (registration, databases searched, screening, statistics) is dropped in either.
    A question's topic is its question and other plain sentences; an abstract's topic is its first sentence
    (the title, or the opening) and the sentences that state its aim, never its methods, results or
    conclusions."""
    text = _restore_headings(" ".join(text.split()))
    question = is_review_question(text)
    topic: list[str] = []
    eligibility: list[str] = []
    dropped: list[str] = []
    after_topic = False
    aim_heading = False  # under "Objective:" / "Aim:" the next sentence states the aim, whatever its words
    aims = 0
    for n, sentence in enumerate(_sentences(text)):
        heading = _heading(sentence)
        if heading is not None:
            after_topic = bool(_AFTER_TOPIC_HEADING_RE.match(heading))
            aim_heading = bool(_AIM_HEADING_RE.match(heading))
            continue
        if _PROVENANCE_RE.search(sentence) or _EXCLUSION_START_RE.search(sentence) or _EXCLUSION_ANY_RE.search(
            sentence
        ) or _URL_RE.search(sentence):
            dropped.append(sentence)
            continue
        if not question:
            if n == 0:
                sentence = _title_without_design(sentence)
            method = _REVIEW_METHOD_RE.search(sentence) and not (n == 0 and not _RESULT_RE.search(sentence))
            # the first aim sentence only
            # (under an aim heading only when the text has no title: a title already names the subject)
            aim = n > 0 and not aims and ((aim_heading and not topic) or bool(_AIM_RE.search(sentence)))
            if after_topic or method or _RESULT_RE.search(sentence) or not (n == 0 or aim):
                dropped.append(sentence)
                continue
            aims += aim
        elif _REVIEW_METHOD_RE.search(sentence) and not sentence.rstrip().endswith("?") and not (
            _ELIGIBILITY_RE.search(sentence)
        ):
            dropped.append(sentence)
            continue
        cut = _CLAUSE_CUT_RE.search(sentence)
        if cut and cut.start() > 0:
            dropped.append(sentence[cut.start():].strip(" ,;"))
            sentence = sentence[: cut.start()]
        if _ELIGIBILITY_RE.search(sentence) or _OUTCOMES_SENTENCE_RE.search(sentence):
            eligibility.append(sentence)
        else:
            topic.append(sentence)
    if not topic and eligibility:
        topic, eligibility = eligibility[:1], eligibility[1:]
    return topic, eligibility, dropped


_PAPER_VOICE_RE = re.compile(
    r"\b(?:we|our) (?:propose|present|introduce|show|find|found|evaluate|report|results|approach|method)\b|"
    r"\b(?:this|the present) (?:paper|article|work)\b|\bresults (?:show|suggest|indicate)\b",
    re.I,
)


#: What a review reports having done, in the first person: an abstract's voice, never a question's.
_DONE_RE = re.compile(r"\bwe (?:\w+ly )?(?:searched|screened|included|identified|conducted|performed|extracted|"
                      r"pooled|synthesi[sz]ed)\b", re.I)


def is_review_question(text: str) -> bool:
    """A review question (a question, or Include / Exclude sentences), not an abstract: an abstract that says
    where its papers come from ("papers published between 1991 and 2011") is still an abstract."""
    text = " ".join(text.split())
    sentences = _sentences(text)
    if _GLUED_HEADING_RE.search(text) or _COLON_HEADING_RE.search(text) or _REPORTED_NUMBERS_RE.search(text):
        return False
    if _DONE_RE.search(text):
        return False  # a report of what was done ("we searched ...") is an abstract, whatever its eligibility
    if sentences and sentences[0].rstrip().endswith("?") and not _PAPER_VOICE_RE.search(text):
        return True
    return any(_ELIGIBILITY_RE.search(s) or _EXCLUSION_START_RE.search(s) for s in sentences)


@dataclass
class _Chunk:
    text: str
    cue: str  # the boundary word(s) before it
    items: list[str]
    aspect: bool = False  # followed by "of": an aspect of what comes next ("the pharmacokinetics of vancomycin")


def _acronym_pairs(text: str) -> dict[str, str]:
    """Acronym -> long form, from "long form (LF)"."""
    pairs = {}
    for long, acro in _ACRONYM_PAREN_RE.findall(text):
        words = long.split()
        letters = acro.rstrip("s").replace("-", "")
        n = len(letters)
        # the long form is the last words whose count is near the acronym's letter count
        for k in range(min(len(words), n + 2), 0, -1):
            cand = words[-k:]
            initials = "".join(w[0] for w in re.split(r"[\s\-]+", " ".join(cand)) if w).upper()
            if initials.startswith(letters[:1].upper()) and (initials == letters.upper() or abs(k - n) <= 1):
                pairs[acro] = " ".join(cand)
                break
    return pairs


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
    # "animal and human methotrexate studies": two organisms sharing what follows, not an item "animal"
    text = re.sub(r"\b(" + "|".join(sorted(_ORGANISM_MODIFIERS)) + r")\s+(?:and|or)\s+(?=(?:"
                  + "|".join(sorted(_ORGANISM_MODIFIERS)) + r")\s+\w)", "", text, flags=re.I)
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


#: Heads of the kinds of answer a "Which X predict Y" question asks for (a general vocabulary of study findings).
_ANSWER_KINDS = frozenset(
    "factor factors predictor predictors determinant determinants correlate correlates variant variants polymorphism "
    "polymorphisms biomarker biomarkers marker markers characteristic characteristics feature features gene genes "
    "variable variables indicator indicators".split())
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
    sentence = _BETWEEN_RE.sub(_between, sentence)
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
            aspect = (m.group(0).casefold() == "of" and not _rare_kind_of(piece)
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
    return low(k - 1) == "to" and low(k - 2) in _PURPOSE_WORDS and is_plain_verb(low(k))


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


def _plural(word: str) -> bool:
    low = word.casefold()
    return low in _IRREGULAR_PLURALS or low.endswith("s") and not low.endswith(("ss", "us", "is"))


#: Plurals without an "-s" (English grammar): "women living with HIV" is a plural noun and its verb.
_IRREGULAR_PLURALS = frozenset("women men children people mice geese feet teeth".split())


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


def _between(m: re.Match) -> str:
    """"the association between X and Y" as "X on Y": two concepts, the second what the first is related to; but
    "switching between X and Y" or "choosing between X and Y" names alternatives of one concept, a list."""
    before = sentence_words[-1].casefold() if (sentence_words := re.findall(_WORD, m.string[: m.start()])) else ""
    if before.endswith("ing") or before in ("switch", "switches", "transition", "transitions", "choice", "choices"):
        return f"between {m.group(1)} and "
    return f"between {m.group(1)} on "


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


#: Nouns for the reports a review gathers: a verb's "-ing" form after one starts a clause ("studies examining X").
_STUDY_NOUNS = frozenset("studies study trials trial articles papers reports research publications".split())
#: A finite verb never follows one of these directly ("patients without urge urinary incontinence": a noun).
_PREPOSITIONS = frozenset(
    "with without of for in on from by among between versus vs than into about after before during under over via "
    "per across against beyond despite upon amid unlike alongside following".split())


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
    return frozenset(m.group(3).casefold() for sentence in sentences for m in _RELATIVE_CLAUSE_RE.finditer(sentence)
                     if _relative_verb(m.group(1), m.group(3)) == "text")


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
#: Verbs of effect a question asks about ("Does X reduce Y", "How does X influence Y"); nouns too, so only read as
#: the verb right after the subject of such a question. Not "limit", "address", "treat": compounds' heads too.
_EFFECT_VERBS = frozenset(
    "reduce improve prevent increase decrease promote enhance raise mitigate alleviate relieve affect influence "
    "impact alter modify moderate mediate predict cause explain lower slow delay worsen shorten prolong protect "
    "change".split())


#: "Which X change Y" (no auxiliary after "Which"): the verb follows its plural subject in the plain form.
_WHICH_SUBJECT_RE = re.compile(r"^\s*(?:which|what)\s+(?!(?:is|are|was|were|do|does|did|have|has|can)\b)", re.I)


def _effect_verb_at(sentence: str, words: list[re.Match]) -> int:
    """The position of a question's verb of effect when it is a noun too: after "Does X" / "How do X" (or "Which
    X") the verb is in its plain form whatever X's number, right after a noun ("How does teacher feedback
    influence students' writing?"); of several, the last ("Does climate change affect X": affect), -1 when none."""
    if not (_AUX_OPENING_RE.match(sentence) or _WHICH_SUBJECT_RE.match(sentence)):
        return -1
    at = -1
    for k in range(2, len(words) - 1):
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
    # are used ...": "are" is the verb, "test" a noun)
    which = bool(_WHICH_SUBJECT_RE.match(sentence)) and not any(m.group(0).casefold() in _AUXILIARIES for m in words)
    if not (_DO_OPENING_RE.match(sentence) or which) or any(is_finite_verb(m.group(0)) for m in words[2:]):
        return -1

    def candidate(k: int) -> bool:
        if k < 2 or k + 1 >= len(words):
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
                # after an adjective it is that adjective's noun ("are serious games used in X")
                and word_classes(words[k - 1].group(0).casefold()) != {"ADJ"}
                and sentence[words[k - 1].end(): m.start()].strip() == "" and sentence[m.end(): words[k + 1].start()]
                .strip() == ""))
        # a verb's "-ing" form that the lexicon has no noun for, before "to" ("measurements relating to sleep")
        # or right after "studies" / "trials" ("studies investigating X": a clause, not a phrase "investigating X")
        # or after a plural noun before what it acts on ("interventions targeting X", "patients receiving X")
        prev = words[k - 1].group(0) if k > 0 else ""
        plural_noun_before = (_plural(prev) and "NOUN" in word_classes(prev) and "AUX" not in word_classes(prev)
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
        if not inside and verb:
            cuts.append(m)
    return sorted(cuts, key=lambda m: m.start())


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


def _content_words(item: str) -> list[str]:
    return [w for w in re.findall(_WORD, item) if w.casefold() not in META_WORDS and w.casefold() not in _FUNCTION]


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


def _facet_for(cue: str, items: list[str]) -> str:
    words = {w.casefold() for i in items for w in _content_words(i)}
    if words and words <= DEMOGRAPHIC_WORDS | {"children", "adolescents", "child", "adolescent"}:
        return "population"
    if any(w.startswith(key) for w in words for key in POPULATION_VARIANTS):  # "teachers", "older adults"
        return "population"
    if _COMPARATOR_CUE_RE.search(cue):
        return "comparator"
    if _OUTCOME_CUE_RE.search(cue):
        return "outcome"
    if _INTERVENTION_CUE_RE.search(cue):
        return "intervention"
    if _POPULATION_CUE_RE.search(cue):
        return "population"
    return "exposure"


#: "switching from X to Y", "transition from X to Y": what is left is named after "from".
_SWITCH_FROM_RE = re.compile(r"\b(switch|transition)(?:ing|ed|es|s)?\s+from\s+(.+?)\s+to\s+\S", re.I)


def _switched_from(terms: list[str], item: str) -> list[str]:
    """An item "switching from X to Y": X's own terms are no alternatives of the concept (``warfarin*`` alone is
    every warfarin study; the switch is the subject), only AND-ed with the switch, ``(switch* AND warfarin*)``;
    Y's terms stay (what is switched to is what the studies give)."""
    m = _SWITCH_FROM_RE.search(item)
    if m is None:
        return terms
    target = set(item_terms(item[m.end(2):]))
    origin = [t for t in item_terms(m.group(2)) if t in terms and t not in target and not t.startswith("(")]
    if not origin:
        return terms
    group = _sendable(origin[0]) if len(origin) == 1 else "(" + " OR ".join(_sendable(t) for t in origin) + ")"
    return [t for t in terms if t not in origin] + [f"({m.group(1).casefold()}* AND {group})"]


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
                if len(long_words) >= 3:  # its two-word parts and its first and last word
                    pairs = list(zip(long_words, long_words[1:], strict=False)) + [(long_words[0], long_words[-1])]
                    if _rare_plural_head(long_words):
                        pairs = [p for p in pairs if p != (long_words[-3], long_words[-2])]
                    terms.extend(t for x, y in pairs if not _common_without_lead(long_words, [x, y])
                                 for t in _phrase_terms(f"{x} {y}"))
            # alone only when it is long enough not to sit inside other words ("ACE" in "surface"), or stands alone
            if len(a) >= 4 or item.strip().rstrip("s") == a:
                terms.append(a)
    return [v for t in terms if t for v in _spellings(t)] + paired


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


#: American -> British spellings (and back), as (pattern, replacement) on lower-case text.
_EMIA_RULE = r"(?<=[^aeiou])emi(?=[ac])"
#: "fiber" / "fibre", "center" / "centre", "liter" / "litre"; "prioritisation" / "prioritization" (British "-is-"
#: back to "-iz-"): checked word by word against general English, since "water" or "promise" have no other form.
_AMERICAN_ER_RULE = r"(?<=[a-z]{2}[bt])er(?=s?\b|s?\*)"
_BRITISH_RE_RULE = r"(?<=[a-z]{2}[bt])re(?=s?\b|s?\*)"
_BRITISH_IS_RULE = r"(?<=[a-z]{3})is(?=e|es|ed|ing|ation|ations|\*)"
#: "enrollment" / "enrolment", "installment" / "instalment", "fulfillment" / "fulfilment": American doubles the "l"
#: before "-ment" (checked word by word too: "element", "almond" have no other form).
_AMERICAN_LLMENT_RULE = r"(?<=[aeiou])llm(?=ent|\*)"
_BRITISH_LMENT_RULE = r"(?<=[aeiou])lm(?=ent|\*)"
#: "modelling" / "modeling", "counselling" / "counseling", "labelled" / "labeled": British doubles a closing "l"
#: after an unstressed vowel (a vowel, consonants and a vowel before it) before "-ing", "-ed", "-er"; checked word by
#: word ("filled" is no "filed": one vowel before it; "controlled" has no English "controled").
_BRITISH_LL_RULE = r"([aeiou][^aeiou\W\d]{1,3}[aeiou])ll(?=(?:ing|ed|er|ers)\b)"
_AMERICAN_L_RULE = r"([aeiou][^aeiou\W\d]{1,3}[aeiou])l(?=(?:ing|ed|er|ers)\b)"
#: The respelled word must be this common in general English (Zipf): "fibre" 3.6, "centre" 4.9; not "watre".
RESPELLING_KNOWN_ZIPF = 2.5
#: An American "-emia" / "-emic" word whose general-English Zipf is at least this, and whose British form English
#: does not know, is another word ("systemic", "academic", "epidemic", "chemical"), not a blood word ("anemia").
EMIA_KNOWN_ZIPF = 2.5
_SPELLING_RULES = (
    (_EMIA_RULE, "aemi"), (r"\besophag", "oesophag"), (r"(?<=gastro)esophag", "-oesophag"),
    (r"\bedema", "oedema"), (r"\bpediatr", "paediatr"), (r"\banesth", "anaesth"), (r"\bhem(?=[ao])", "haem"),
    (r"\bhemorrh", "haemorrh"), (r"(?<=[a-z])or\b", "our"), (r"(?<=behavi)or", "our"), (r"(?<=tum)or", "our"),
    # "-ize" words only ("organization", "randomized"; not "citizen")
    (r"(?<=[a-z]{3})iz(?=(?:e|es|ed|ing|ation|ations|ational|er|ers)\b|(?:e|ation)?\*)", "is"),
    (r"(?<=random)iz", "is"), (r"\bsulf", "sulph"),
    (r"\bestr(?=ogen|adiol|iol|ous)", "oestr"), (r"\bfet(?=al\b|us\b|uses\b|al\*|us\*)", "foet"),
    (r"(?<=rrh)ea\b", "oea"), (r"(?<=pn)ea\b", "oea"), (r"\bgynec", "gynaec"), (r"\borthoped", "orthopaed"),
    (r"\bceliac", "coeliac"), (r"\betiolog", "aetiolog"), (r"\bcesarean", "caesarean"),
    (_AMERICAN_ER_RULE, "re"), (r"\baging", "ageing"), (_AMERICAN_LLMENT_RULE, "lm"),
    (_AMERICAN_L_RULE, r"\1ll"),
)  # fmt: skip
_BRITISH_BACK = (
    (r"aemi", "emi"), (r"\boesophag", "esophag"), (r"-oesophag", "esophag"), (r"\boedema", "edema"),
    (r"\bpaediatr", "pediatr"), (r"\banaesth", "anesth"), (r"\bhaem", "hem"), (r"(?<=behavi)our", "or"),
    (r"(?<=tum)our", "or"), (r"(?<=random)is", "iz"), (r"\bsulph", "sulf"),
    (r"\boestr", "estr"), (r"\bfoet", "fet"), (r"(?<=rrh)oea\b", "ea"), (r"(?<=pn)oea\b", "ea"),
    (r"\bgynaec", "gynec"), (r"\borthopaed", "orthoped"), (r"\bcoeliac", "celiac"), (r"\baetiolog", "etiolog"),
    (r"\bcaesarean", "cesarean"), (_BRITISH_RE_RULE, "er"), (_BRITISH_IS_RULE, "iz"), (r"\bageing", "aging"),
    (r"\bprogramme(?=s?\b|s?\*)", "program"), (_BRITISH_LMENT_RULE, "llm"),
    (_BRITISH_LL_RULE, r"\1l"),
)  # fmt: skip
#: The rules applied word by word, only where English knows the other form (:func:`_known_respelling`).
_CHECKED_RULES = frozenset(
    {_AMERICAN_ER_RULE, _BRITISH_RE_RULE, _BRITISH_IS_RULE, _AMERICAN_LLMENT_RULE, _BRITISH_LMENT_RULE,
     _BRITISH_LL_RULE, _AMERICAN_L_RULE})
_SPELLING_SAFE_OR = frozenset("behavior tumor color colour humor labor labour favor neighbor".split())


#: Prefixes papers also write closed up ("non-cancer" / "noncancer"); other compounds only hyphenated or spaced.
_JOINING_PREFIXES = frozenset(
    "anti non self co pre post multi inter intra semi sub over under re mid extra ultra micro".split()
)


def _spelling_variants(core: str) -> list[str]:
    low = core.casefold() if not any(_is_acronym(w) for w in core.split()) else core
    out = []
    for rules in (_SPELLING_RULES, _BRITISH_BACK):
        variant = low
        for pattern, repl in rules:
            if pattern == r"(?<=[a-z])or\b" and not any(w.rstrip("*s") in _SPELLING_SAFE_OR for w in low.split()):
                continue
            if pattern == _EMIA_RULE:
                variant = " ".join(re.sub(pattern, repl, w) if _blood_word(w) else w for w in variant.split(" "))
                continue
            if pattern in _CHECKED_RULES:
                variant = " ".join(_known_respelling(w, pattern, repl) for w in variant.split(" "))
                continue
            variant = re.sub(pattern, repl, variant)
        if variant != low:
            out.append(variant)
    return out


def _known_respelling(word: str, pattern: str, repl: str) -> str:
    """``word`` respelled by one rule where general English knows the result (a stem: one of its usual endings),
    else as written."""
    other = re.sub(pattern, repl, word)
    if other == word:
        return word
    core = other.rstrip("*")
    forms = [core + e for e in ("", "e", "s", "ation", "ing", "ed", "ent")] if other.endswith("*") else [core]
    return other if max(general_zipf(f) for f in forms) >= RESPELLING_KNOWN_ZIPF else word


def _blood_word(word: str) -> bool:
    """``word`` spelled "-aemia" / "-aemic" in British English: English knows that form ("anaemia", "ischaemic"),
    or the American one is rare (a technical word: "hypoxemia"); not "systemic" or "academic"."""
    core = word.strip('"*-')
    british = re.sub(_EMIA_RULE, "aemi", core)
    return british != core and (general_zipf(british) > 0 or general_zipf(core) < EMIA_KNOWN_ZIPF)


_ROMAN = {"1": "I", "2": "II", "3": "III", "4": "IV"}


def _spellings(term: str) -> list[str]:
    """A term with its other spellings: a hyphenated compound spaced and joined ("charged-particle" ->
    "charged particle", chargedparticle; "COX-2" -> "COX 2", COX2), and American / British forms
    (hypoglycemic / hypoglycaemic, esophagitis / oesophagitis, behavior / behaviour, randomized / randomised)."""
    core = term.strip('"')
    if core.startswith("("):  # words AND-ed, each spelled already (:func:`_head_alone`)
        return [term]
    forms = [core]
    if "-" in core.strip("-*"):
        # the spaced form is a phrase: no wildcard inside quotes ("non stimulant" still matches its plural); not
        # after a single letter ("e-learning": "e learning" sits inside "the learning" for a substring matcher)
        if not _LETTER_OPENED_RE.search(core):
            forms.append(" ".join(core.replace("-", " ").split()).rstrip("*"))
        left, _, right = core.partition("-")
        if right[:1].isdigit():  # "COX2"
            forms.append(core.replace("-", ""))
        # "nonstimulant", not "betaadrenergic": a prefix closes up with its own word only ("nonsuicidal
        # self-injury", not "nonsuicidal selfinjury")
        parts = core.split(" ")
        # a compound around a function word is spaced on its own ("health-related quality of life")
        spaced = [w.replace("-", " ") if any(p.casefold() in _FUNCTION for p in w.split("-")[1:-1]) else w
                  for w in parts]
        if spaced != parts and any("-" in w for w in spaced):
            forms.append(" ".join(spaced).rstrip("*"))
        prefixed = [i for i, w in enumerate(parts) if w.partition("-")[0].casefold() in _JOINING_PREFIXES]
        for i in prefixed:
            forms.append(" ".join([*parts[:i], parts[i].replace("-", "", 1), *parts[i + 1:]]))
        if len(prefixed) > 1:  # "nonsteroidal antiinflammatory drugs"
            forms.append(" ".join(w.replace("-", "", 1) if i in prefixed else w for i, w in enumerate(parts)))
    words = core.split(" ")
    if '"' in term and "*" not in core:
        # a small number after a word is also written hyphenated and as a Roman numeral ("type 2 diabetes",
        # "type-2 diabetes", "type II diabetes"; "phase 3" / "phase III")
        for i in range(1, len(words)):
            if words[i] in _ROMAN and words[i - 1].isalpha() and words[i - 1].islower():
                before, after = words[: i - 1], words[i + 1:]
                forms += [" ".join([*before, f"{words[i - 1]}-{words[i]}", *after]),
                          " ".join([*before, words[i - 1], _ROMAN[words[i]], *after])]
                break
    if (len(words) == 2 and words[1].casefold().endswith("ing") and words[0].isalpha()
            and not words[0].casefold().endswith("ing") and _JOIN not in core):
        # a noun and a gerund are written hyphenated as often as not ("decision making" / "decision-making")
        forms.append("-".join(words))
    forms += [v for f in list(forms) for v in _spelling_variants(f)]
    if len(words) >= 2 and '"' in term and "*" not in core and _JOIN not in core:
        # a noun modifier is also written as its "-al" adjective ("spine surgery" / "spinal surgery")
        for i, w in enumerate(words[:-1]):
            low = w.casefold()
            adjective = next((a for a in (low + "al", low[:-1] + "al" if low.endswith("e") else "")
                              if a and "ADJ" in word_classes(a)), "")
            if adjective and word_classes(low) == {"NOUN"}:
                forms.append(" ".join([*words[:i], adjective, *words[i + 1:]]))
    return _dedupe_plain([term] + [_render(f) for f in forms[1:]])


def _dedupe_plain(terms: list[str]) -> list[str]:
    out: list[str] = []
    for t in terms:
        if t and t.casefold() not in {o.casefold() for o in out}:
            out.append(t)
    return out


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


def _demote_non_subjects(blocks: list[ConceptBlock], text: str, title: str, acronyms: dict[str, str]) -> None:
    """Blocks that name no subject of the studies: a modifier whose noun is elsewhere ("statistical"), and (for an
    abstract, which has a ``title``) what the review computed itself ("FI was calculated for each trial") and, past
    the first block, a result phrase ("so reviewers read fewer abstracts")."""
    for block in blocks:
        if _modifier_only(block.label):
            block.generic, block.required = True, False
    if not any(b.required for b in blocks) and blocks:
        min(blocks, key=lambda b: general_zipf(b.label)).required = True
    if title:
        built = _built_from_literature(title)
        for block in blocks:
            if built and _named_in(block, built.casefold().replace(_JOIN, " ")):
                block.generic, block.required = True, False
                continue
            if _own_measure(block, text, acronyms):
                block.generic, block.required = True, False
            elif block is not blocks[0] and _result_phrase(block.label):
                block.required = False


#: Joins the words of a coordination that is one name ("acceptance and commitment therapy") into one word, so
#: that no list split or phrase cut takes it apart; a term shows it as a space.
_JOIN = "_"
_COORDINATION_RE = re.compile(r"\b([A-Za-z][\w-]+) (and|&) ([A-Za-z][\w-]+) ([A-Za-z][\w-]+)\b")


def _join_named_coordinations(text: str, acronyms: dict[str, str]) -> str:
    """A coordination inside a multi-word name ("acceptance and commitment therapy", "research and development
    spending") stays one phrase: it is one where the text defines an acronym for it or says it verbatim twice or
    more (then it is a fixed name, not two concepts sharing a head). Other coordinations are left to the list
    split ("anxiety and depression" are two concepts)."""
    low = text.casefold()
    named = {long.casefold() for long in acronyms.values()}
    found: set[str] = set()
    for m in _COORDINATION_RE.finditer(text):
        words = [m.group(1), m.group(3), m.group(4)]
        if any(w.casefold() in _FUNCTION or w.casefold() in META_WORDS for w in words):
            continue
        phrase = m.group(0).casefold()
        # said twice, it is a name only when the word after "and" can be a noun of it: an adjective opens a
        # phrase of its own ("Mediterranean diet and cognitive decline", a title repeated by the aim: two concepts)
        twice = (low.count(phrase) >= 2 and word_classes(m.group(3).casefold()) != {"ADJ"}
                 and not _said_apart(low, m))
        if any(phrase in n for n in named) or twice:
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


#: Who or where may come first in a question ("In adults with X, is Y safe ...?").
_WHO_FIRST = r"(?:(?:in|among|for)\s[^,;:?]+,\s*)?"
#: What a question of a treatment's effect asks of it ("Are X effective ...", "How safe is X ...").
_EFFECT_ADJECTIVES = r"effective|efficacious|safe|beneficial|useful|helpful"

#: "How effective are X for Y?": the effect frame's adjective asked first; X runs to the first word that opens
#: what it is for, where or when (or to the question mark).
_HOW_ADJECTIVE_RE = re.compile(
    rf"(?:^|(?<=[.?!]\s))({_WHO_FIRST})how\s+((?:more\s+|less\s+)?(?:{_EFFECT_ADJECTIVES}))\s+"
    r"(are|is|were|was)\s+(.+?)(?=\s+(?:for|in|at|among|during|after|following|when|compared|versus|vs|than|to|on|"
    r"with)\b|\s*\?)", re.I)


def _how_adjective_last(text: str) -> str:
    """"How effective are X for Y?" said as "Are X effective for Y?": the same question, which the effect frame
    reads (:data:`_EFFECTIVE_FRAME_RE`: X what is done, Y what it is for), where the adjective asked first was
    read as a concept of its own (``X OR (bully* AND effect*)``)."""
    def reordered(m: re.Match) -> str:
        be = m.group(3).casefold() if m.group(1) else m.group(3).capitalize()  # who may come first ("Among X, ...")
        return f"{m.group(1)}{be} {m.group(4)} {m.group(2).casefold()}"
    return _HOW_ADJECTIVE_RE.sub(reordered, text)


def _effect_frame_nouns(text: str) -> str:
    """"the impact of X on Y" and "the influence of X on Y" said as "the effect of X on Y": the frame's noun is
    what the review asks of X, no concept its studies name ("What is the impact of conditional cash transfers on
    school enrolment?" required ``impact*``)."""
    return _EFFECT_FRAME_RE.sub(lambda m: m.group(1) + "effect" + m.group(2), text)


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
        for m in _EXAMPLE_RE.finditer(sentence):
            before = _chunks(sentence[: m.start()], verbs)
            after = _chunks(sentence[m.end():], verbs)
            if not before or not after or not before[-1].items or after[0].cue:
                continue
            words = [w.casefold() for w in _content_words(before[-1].items[-1])]
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
            block.members = block.members or bool(terms)


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


def _join_named_list(blocks: list[ConceptBlock], text: str, acronyms: dict[str, str]) -> None:
    """A list of named things anywhere in an abstract (:data:`MIN_NAMES_IN_LIST` or more names in a row: "trials
    of atenolol, bisoprolol and carvedilol", "sulfonylureas (glyburide, glipizide)") names kinds of what the
    review is about, the way its studies name it (a trial names its drug, seldom the drug's class): the names
    join the first required block that is what the studies do or are exposed to (not who, where, or a comparator)
    and names a class in the plural (:func:`_names_a_class`), as variants. Not from a sentence that excludes."""
    targets = [b for b in blocks if b.required and not _who_block(b) and not b.setting
               and b.facet in ("intervention", "exposure") and _names_a_class(b)]
    if not targets:
        return
    names: list[str] = []
    for sentence in _sentences(_restore_headings(text)):
        if _EXCLUSION_START_RE.search(sentence) or _EXCLUSION_ANY_RE.search(sentence):
            continue
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
        if any(len(r) >= MIN_NAMES_IN_LIST for r in runs):
            names += [n for r in runs if len(r) >= 2 for n in r if n.casefold() not in {x.casefold() for x in names}]
    if not names:
        return
    terms = [t for n in names for t in _variants(n, acronyms)]
    block = targets[0]
    block.kinds += [t for t in terms if t not in block.terms]
    block.terms = _dedupe(block.terms + terms)
    block.members = True


#: Unicode hyphens as the ASCII one ("high\u2010risk" is "high-risk"): a term must match how sources index it.
_HYPHENS = str.maketrans({"\u2010": "-", "\u2011": "-", "\u00ad": ""})


def _normalised(text: str) -> str:
    """One space between words, every hyphen and dash as a plain hyphen."""
    return " ".join(text.translate(_HYPHENS).split())


#: Nouns of the part one thing plays in another ("hippocampal involvement in memory", "the role of X in Y").
_ROLE_HEADS = frozenset("involvement role roles contribution contributions participation implication".split())


#: Nouns whose "in" says what they are about: a comparison ("sex differences in fear extinction", "ethnic
#: disparities in X") or an interest ("girls' interest in STEM careers"); what follows is a subject, not where the
#: studies are (round 19).
_DIFFERENCE_HEADS = frozenset("difference differences disparity disparities gap gaps inequality inequalities "
                              "inequity inequities variation variations interest interests engagement".split()) | (
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


def _add_chunk(blocks: list[ConceptBlock], chunk: _Chunk, acronyms: dict[str, str], question: bool, *,
               side: bool = False, after_role: bool = False, doer: bool = False) -> None:
    """A chunk's items as a new block, or as variants of the block whose concept it repeats."""
    items = _distribute_head([i for i in _without_coordinated_predicate(chunk.items) if not _is_meta_item(i)])
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
        if animals and not names_animals(block.label):
            continue
        block_words = {w.casefold() for w in _content_words(block.label)} | {
            t.strip('"*').casefold() for t in block.terms}
        # or is one word of the same stem ("hippocampal" (involvement) and "the hippocampus": hippocamp*);
        # a word of everyday English shared is no repeat ("end-of-life care in intensive care units": two concepts)
        # unless one's phrase holds the other's whole ("sleep", "sleep duration"; "social media" twice)
        repeated = {w for w in words & block_words if general_zipf(w) < GENERIC_ZIPF}
        if _COMPARATOR_CUE_RE.search(chunk.cue):
            # what X is compared with shares no concept with X by a generic head ("CBT compared with face-to-face
            # therapy": another therapy, not a variant of CBT)
            repeated -= GENERIC_HEADS
        label_words = {w.casefold() for w in _content_words(block.label)}
        whole = words <= block_words or bool(label_words) and label_words <= words
        if repeated or whole or (len(terms) == 1 and terms[0].endswith("*") and terms[0] in block.terms):
            block.terms = _dedupe(block.terms + terms)
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
                               required=not side, side=side, aspect=chunk.aspect and (question or len(items) == 1),
                               setting=bool(_SETTING_CUE_RE.match(chunk.cue)) and not after_role))


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
                for each in _pair_then_list(chunk, question):
                    _add_chunk(blocks, each, acronyms, question, side=side, after_role=after_role, doer=doer)
    return blocks


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


def _pair_then_list(chunk: _Chunk, question: bool) -> list[_Chunk]:
    """An abstract's chunk "A and B, C and D" ("evidence on residential greenness and depression, anxiety and
    psychological distress") names A and a list of another concept, not four variants of one (``"residential
    greenness" OR depress*``): two chunks. Other chunks, and a question's, go to :func:`_co_occurring`."""
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


def extract_concepts(text: str, generic_zipf: float | None = None, background: Background | None = None,
                     generic_share: float | None = None, rest_share: float | None = None,
                     broad_share: float | None = None) -> ConceptPlan:
    """The concept blocks of a review question or an abstract (see the module docstring); a term of
    ``generic_zipf`` or more in general English (default :data:`GENERIC_ZIPF`) is too common to be one, or with a
    ``background`` (a term's share of its records: the lake, other records), a term in ``generic_share`` of them
    or more (default :data:`GENERIC_SHARE`); ``broad_share`` (default :data:`BROAD_TERM_SHARE`): from which
    background share a bare word is not a top-level alternative alone (:func:`_pair_broad_alone`)."""
    generic_zipf = GENERIC_ZIPF if generic_zipf is None else generic_zipf
    generic_share = GENERIC_SHARE if generic_share is None else generic_share
    text = _without_own_negation(_unfold_glosses(_complete_suspended_hyphens(_normalised(text))))
    text = _join_named_coordinations(text, _acronym_pairs(text))
    text = _join_of_compounds(_effect_frame_nouns(_map_as_aim(_how_adjective_last(text))))
    topic, eligibility, dropped = classify_sentences(text)
    question = is_review_question(text)
    if topic and not question and not _first_person(topic[0]):
        topic[0] = _related_pair(_without_own_method(_without_own_kind(topic[0]), text), text)
    acronyms = _acronym_pairs(text)  # an abstract defines its acronyms anywhere ("Wilson disease (WD) is ...")
    acronyms.update(_undefined_acronyms(text, acronyms))
    verbs = _verbs_in_text(_sentences(text)) | _relative_clause_verbs(_sentences(text))
    blocks = _topic_blocks(topic, question, verbs, acronyms)
    design_terms = _read_eligibility(eligibility, blocks, verbs, acronyms)
    _optional_by_wording(blocks, dropped)
    _join_kinds(blocks, text, verbs, acronyms)
    if not question:
        _join_examples(blocks, text, verbs, acronyms)
    _related_stems(blocks)
    _drop_generic_terms(blocks, generic_zipf, background, generic_share)
    title = "" if question or not topic or _first_person(topic[0]) else topic[0]
    _demote_non_subjects(blocks, text, title, acronyms)
    if question:
        _effective_frame(blocks, topic)
    _order_blocks(blocks, text, title)
    if question:
        _drug_of_property_first(blocks, " ".join(topic))
    blocks = _genetic_frame(blocks, question, acronyms)
    if not title:
        blocks = _read_relation(_common_subject_first(blocks), " ".join(topic))
    _mark_organisms(blocks[1:], title or " ".join(topic), acronyms)
    if title:
        blocks = _read_title(blocks, title, topic[1:], text, verbs, acronyms, generic_zipf, background, generic_share)
    blocks = _reviews_first(blocks, acronyms) if blocks and _studies_reviews(" ".join(topic)) else blocks
    if question and topic and (frame := _EFFECTIVE_FRAME_RE.match(topic[0])) and (
            background is None or _AFTER_STATE_RE.match(topic[0][frame.end():])):
        _lone_condition_anded(blocks, ("population", "exposure"))
    elif question and background is None and topic and _OUTCOMES_FRAME_RE.match(topic[0]):
        _lone_condition_anded(blocks, ("population",))  # not a state after it ("after coronary stenting")
    _mark_rest(blocks, background, REST_SHARE if rest_share is None else rest_share)
    _pair_broad_alone(blocks, background, BROAD_TERM_SHARE if broad_share is None else broad_share)
    design = ConceptBlock("study_design", "study design", _dedupe(design_terms), required=False) if design_terms \
        else None
    return ConceptPlan(blocks=blocks, design=design, dropped=dropped)


#: A review whose studies are reviews says so where it states its topic: an umbrella review, an overview or a review
#: of reviews, a tertiary study, or reviews in the plural as its subject ("the methodological quality of systematic
#: reviews in X", "Systematic literature reviews in X"; its own kind is singular: "a systematic review of X").
_REVIEWS_STUDIED_RE = re.compile(
    r"\b(?:umbrella reviews?|overviews? of (?:systematic )?reviews|reviews? of (?:systematic |literature )?reviews|"
    r"reviews? of meta-analyses|tertiary stud(?:y|ies)|systematic (?:literature )?reviews|meta-analyses|SLRs)\b",
    re.I)
#: The kinds of evidence synthesis a review of reviews gathers (a general vocabulary of research synthesis).
REVIEW_KIND_TERMS = ('"systematic review"', '"systematic reviews"', '"systematic literature review*"',
                     '"literature review*"', "meta-analysis", "meta-analyses", '"meta analys*"', "metaanalys*",
                     '"scoping review*"',
                     '"mapping stud*"', '"umbrella review*"', '"evidence synthes*"')


def _studies_reviews(topic: str) -> bool:
    """The topic sentences say the review's studies are reviews (:data:`_REVIEWS_STUDIED_RE`), not that it updates
    or follows earlier ones ("to update previous systematic reviews of X")."""
    return any(not re.search(r"\b(?:previous|prior|earlier|existing|recent|updat\w*|several|many|other)\W+(?:\w+\W+)?$",
                             topic[max(0, m.start() - 40): m.start()], re.I)
               for m in _REVIEWS_STUDIED_RE.finditer(topic))


def _reviews_first(blocks: list[ConceptBlock], acronyms: dict[str, str]) -> list[ConceptBlock]:
    """The studies of a review of reviews are reviews: the kinds of synthesis, and the acronym the text gives one
    ("SLRs"), are its main block (a block that already names one takes them), the subject the rest: a record with a
    title only names one or the other ("A systematic review of cost estimation studies"). Their words are meta words
    everywhere else, so no other block holds them."""
    own = [f for a, long in acronyms.items() if re.search(r"\breview", long, re.I)
           for f in ([a[:-1], a] if a.endswith("s") else [a, a + "s"])]
    kinds = {t.casefold().strip('"*') for t in [*own, *REVIEW_KIND_TERMS]}
    named = next((b for b in blocks if any(t.casefold().strip('"*') in kinds for t in b.terms)), None)
    block = named or ConceptBlock("population", "systematic reviews", [])
    block.terms = _dedupe([*block.terms, *own, *REVIEW_KIND_TERMS])
    block.required, block.independent, block.generic = True, False, False
    rest = [b for b in blocks if b is not block]
    for b in rest:
        b.independent = False
    return [block, *rest]


def _read_title(blocks: list[ConceptBlock], title: str, aims: list[str], text: str, verbs: frozenset[str],
                acronyms: dict[str, str], generic_zipf: float, background: Background | None,
                generic_share: float) -> list[ConceptBlock]:
    """An abstract's blocks as its title orders them (:func:`_title_subjects`), what its aim says the studies
    investigate first, with what the title's subjects are associated with and the lists of named kinds joined."""
    _drop_factor_frame(blocks, title)
    studied = _studied_subject(blocks, aims, verbs)
    blocks = _title_subjects(blocks, title)
    if studied is not None:
        blocks = _studies_subject_first(blocks, studied)
    _join_associated(blocks, text, verbs, acronyms, generic_zipf, background, generic_share)
    _join_named_list(blocks, text, acronyms)
    if studied is None:
        blocks = _purpose_not_anded(blocks, title, text, verbs)
    blocks = _factors_of_first(blocks, title)
    _accuracy_acts_off(blocks, title, text)
    _compared_never_said(blocks, title, text)
    _and_only_when_broad(blocks, background)
    return blocks


#: A title that appraises a test's accuracy ("Diagnostic accuracy of X for Y", "Accuracy of X for screening for
#: Y", "X for distinguishing A from B: a diagnostic test accuracy meta-analysis").
_ACCURACY_TITLE_RE = re.compile(r"\b(?:accuracy|sensitivity and specificity)\b", re.I)
#: An abstract that says it appraises a test's accuracy (its design subtitle is not in the title read).
_ACCURACY_TEXT_RE = re.compile(r"\b(?:diagnostic (?:test )?accuracy|sensitivity and specificity)\b", re.I)
#: What a test is used to do, which its accuracy studies seldom all say (a general vocabulary of test use).
_TEST_ACT_STEMS = ("diagnos", "screen", "distinguish", "detect", "discriminat", "differentiat", "identif")


def _accuracy_acts_off(blocks: list[ConceptBlock], title: str, text: str) -> None:
    """In a review of a test's accuracy, a block named only by what the test is used for ("diagnosis",
    "screening", "distinguishing") names no concept: the accuracy studies name the test and the condition, not
    always the act (``distinguish*`` was required of every calprotectin study). It leaves the query, as a
    property the title appraises does (:data:`_APPRAISED_PROPERTIES`)."""
    if not (_ACCURACY_TITLE_RE.search(title) or _ACCURACY_TEXT_RE.search(text)) or len(blocks) < 2:
        return
    acts = [b for b in blocks if b.terms and all(
        all(w.casefold().startswith(_TEST_ACT_STEMS) for w in re.findall(_WORD, t)) for t in b.terms)]
    if not acts or len(acts) == len(blocks):
        return
    for b in acts:
        b.required = b.in_query = b.independent = False
    if acts[0] is blocks[0]:
        rest = [b for b in blocks if b not in acts]
        rest[0].independent = False
        blocks[:] = [*rest, *acts]


def _compared_never_said(blocks: list[ConceptBlock], title: str, text: str) -> None:
    """A title "A versus B H" is read "A H versus B H" (:func:`_compared_modifiers`), and "A H" names the main
    block; when the abstract never says "A H" (it says "A with B H", "A and B H", "As"), that phrase finds none of
    the studies, which compare the two: the block also takes A with the compared "B H" (``(narrat* AND
    "statistical evidence")``), never A alone (every narrative review)."""
    head_part = re.split(r"(?<=\w):\s", title, maxsplit=1)[0]
    m = _COMPARED_MODIFIERS_RE.search(head_part)
    if m is None:
        return
    read = _compared_modifiers(m)
    cue = m.group(2)
    if read == m.group(0) or f" {cue} " not in read:
        return
    first_phrase, rest = read.split(f" {cue} ", 1)
    head = first_phrase.split(" ", 1)[1]
    second_phrase = f"{m.group(3)} {head}".casefold()
    body = text.replace(title, " ", 1) if title in text else text
    if re.search(r"\b" + re.escape(first_phrase) + r"\b", body, re.I) or not re.search(
            r"\b" + re.escape(second_phrase) + r"\b", body, re.I):
        return
    quoted = f'"{first_phrase.casefold()}"'
    block = next((b for b in blocks if quoted in (t.casefold() for t in b.terms)), None)
    if block is None or any(second_phrase in t.casefold() for t in block.terms):
        return
    first = (item_terms(m.group(1)) or [m.group(1).casefold()])[0]
    block.terms = _dedupe([*block.terms, f'({first} AND "{second_phrase}")'])


#: A title that opens with the kind of finding it gathers about what follows ("Risk factors for suicide in ...",
#: "Predictors of relapse after ...", "Determinants of X"): the frame names no concept of its own.
_FACTORS_OF_TITLE_RE = re.compile(
    r"^\W*(?:(?:risk|prognostic|predictive)\s+(?:factors?|markers?)|predictors?|determinants?|correlates?)"
    r"\s+(?:for|of)\b", re.I)


def _factors_of_first(blocks: list[ConceptBlock], title: str) -> list[ConceptBlock]:
    """A title "Risk factors for Y" gathers whatever is found to raise the risk of Y: Y is the main block, and a
    block named only by the frame's words (``"risk factor(s)"``) leaves the query, as a question's frame does
    (:func:`_read_relation`): a cohort study of one factor names the factor and Y, seldom "risk factor"."""
    if not _FACTORS_OF_TITLE_RE.match(title.replace(_JOIN, " ")):
        return blocks
    words = _RELATION_WORDS | {"determinant", "determinants", "correlate", "correlates"}
    frame = [b for b in blocks if b.terms and all(
        {w.casefold() for w in re.findall(_WORD, t)} <= words for t in b.terms)]
    if not frame or len(frame) == len(blocks):
        return blocks
    for b in frame:
        b.required = b.in_query = b.independent = False
    rest = [b for b in blocks if b not in frame]
    rest[0].independent = False
    return [*rest, *frame]


def _title_purpose(blocks: list[ConceptBlock], title: str, verbs: frozenset[str]) -> tuple[
        ConceptBlock | None, list[ConceptBlock]]:
    """A title "X for Y" (before any subtitle): the block X names (the head phrase right before "for", past a
    comparison that names no block: "X compared with each other for Y") and the blocks the purpose "for Y ..."
    names (up to the next "in" / "among" or the end). (None, []) when the title has no such head."""
    head = re.split(r"(?<=\w):\s", title, maxsplit=1)[0]
    chunks = _chunks(head, verbs)
    at = next((k for k, c in enumerate(chunks) if k and c.cue.casefold().split()[-1:] == ["for"]), None)
    if at is None:
        return None, []
    named = [b for b in blocks if b.required and not b.generic and b.facet != "comparator"]
    x = None
    for chunk in reversed(chunks[:at]):
        x = next((b for b in named if _named_in(b, chunk.text.casefold().replace(_JOIN, " "))), None)
        # "X compared with each other for Y": a comparison within X (common words only) is passed over; one
        # with another concept ("X versus Z for Y") is no head of Y
        within = _COMPARATOR_CUE_RE.search(chunk.cue) and all(
            general_zipf(w) >= GENERIC_ZIPF for w in _content_words(chunk.text))
        if x is not None or not within:
            break
    purpose = []
    for chunk in chunks[at:]:
        if chunk is not chunks[at] and (_SETTING_CUE_RE.match(chunk.cue) or chunk.cue.startswith(":")):
            break
        low = chunk.text.casefold().replace(_JOIN, " ")
        purpose += [b for b in named if b is not x and b not in purpose and _named_in(b, low)]
    return x, purpose


_RECIPROCAL_RE = re.compile(r"\b(?:each other|one another)\b", re.I)


def _compared_within(block: ConceptBlock, text: str) -> bool:
    """The abstract compares the members of the block's class with each other: a sentence that names the block
    (one of its terms) says "each other" / "one another" ("individual X compared to each other")."""
    stems = [t.strip('"*').casefold() for t in block.terms if len(t.strip('"*')) > 3]
    return any(_RECIPROCAL_RE.search(s) and any(t in s.casefold() for t in stems) for s in _sentences(text))


def _purpose_not_anded(blocks: list[ConceptBlock], title: str, text: str,
                       verbs: frozenset[str]) -> list[ConceptBlock]:
    """In a title "X for Y" X is what the review is about, Y what X is for: when the abstract reviews X as a
    class (it names X's members: a list of names or examples joined X; or it compares them "with each other"),
    X is the main block, however often the abstract names Y, and Y is not AND-ed with it (optional, out of the
    query): a study of one member names the member, not always the use the title names (the trials of a drug
    class cover other indications, healthy volunteers, pharmacokinetics). One intervention for one use ("X for
    Y", no members) keeps its AND (round 12, docs/search-strategies.md)."""
    x, purpose = _title_purpose(blocks, title, verbs)
    if x is None or not purpose or not (x.members or _compared_within(x, text)):
        return blocks
    for b in purpose:
        b.independent = b.required = b.in_query = False
    x.independent = False
    return [x, *(b for b in blocks if b is not x)]


#: An abstract's title subjects are AND-ed only when its main block alone is broader than this share of the
#: background's records (:func:`_and_only_when_broad`): "X for Y", where X alone is narrow, keeps Y optional (the
#: includes of a drug-class review cover any indication). Chosen leave-one-review-out on the written abstracts
#: among the values under which no real abstract of ``review_abstracts.json`` loses its AND (every fold picks
#: 0.0005; docs/search-strategies.md, round 11): those main blocks sit from 0.0024 of the pool up, the drug
#: classes named with their members at 0.0002-0.0003. The share alone does not tell the two apart above that.
TITLE_AND_SHARE = 0.0005


def _and_only_when_broad(blocks: list[ConceptBlock], background: Background | None) -> None:
    """The title's other subjects (and the animals it names) are AND-ed with the main block only when the main
    block alone is not specific enough: its share of the background's records above :data:`TITLE_AND_SHARE`.
    Else they leave the query
    (optional, out of the rest branch): ``X AND Y`` would lose the studies of X that never name Y, and X alone is
    already narrow. Without a background the AND stays: general English calls any technical word rare
    ("spatio-temporal"), and no threshold of it gained anything held out (round 11)."""
    if background is None or not blocks or not any(b.independent or b.organism for b in blocks[1:]):
        return
    if any_share(blocks[0].terms[:MAX_TERMS_PER_BLOCK], background) > TITLE_AND_SHARE:
        return
    for b in blocks[1:]:
        if b.independent or b.organism:  # the animals a title names are no filter either
            b.independent = b.required = b.in_query = b.organism = False


def _read_eligibility(eligibility: list[str], blocks: list[ConceptBlock], verbs: frozenset[str],
                      acronyms: dict[str, str]) -> list[str]:
    """The study designs the eligibility sentences name (for the optional design block); their other phrases
    only add variants to blocks already found, never a block of their own (screening decides eligibility)."""
    design_terms: list[str] = []
    for sentence in eligibility:
        low = sentence.casefold()
        for term in DESIGN_TERMS:
            if re.search(r"\b" + re.escape(term), low):
                design_terms.extend(item_terms(term))
        for chunk in _chunks(sentence, verbs | _gerunds_after_plurals(sentence)):
            _join_class_members(blocks, chunk.items, acronyms)
            for item in chunk.items:
                _join_variant(blocks, item, acronyms)
            heads = {_content_words(i)[-1].casefold() for b in blocks for i in b.items if _content_words(i)}
            for item in _distributed_heads(chunk.items, heads):
                _join_phrase(blocks, item)
    return design_terms


#: A class word and a member's name share a stem this long or longer ("gabapentin" in "gabapentinoids", "statin"
#: in "atorvastatin"; not "ine" of "amine" and "lysine").
MEMBER_STEM_LEN = 6


def _member_of(name: str, word: str) -> bool:
    """``name`` (a rare word the lexicon does not know) and a block's rare ``word`` hold one stem, one inside the
    other: the class named after its first member ("gabapentinoids": gabapentin, and so pregabalin beside it) or
    by the stem its members end in ("statins": atorvastatin)."""
    n, w = name.casefold(), _singular_tail(word.casefold())
    if n == w or min(len(n), len(w)) < MEMBER_STEM_LEN or general_zipf(w) >= NAME_ZIPF:
        return False
    return n in w or w in n


def _join_class_members(blocks: list[ConceptBlock], items: list[str], acronyms: dict[str, str]) -> None:
    """An eligibility list of names ("studies of gabapentin or pregabalin") one of which shares its stem with the
    word of a required block (:func:`_member_of`) names that class's members, the way its studies name them (a
    trial names its drug, seldom the class): every name of the list joins the block as a kind. The other names
    hold no stem of the class ("pregabalin"), so the list, not each word, is what joins."""
    # items closed by a name the lexicon does not know ("pregabalin", "intranasal esketamine"; "postmenopausal
    # women" and "venous thromboembolism" are no names)
    named = {i.strip(): w[-1] for i in items if (w := _content_words(i)) and len(w) <= 2 and w[-1].isalpha()
             and _is_name(w[-1]) and not word_classes(w[-1])}
    if not named:
        return
    for block in blocks:
        if not block.required or _who_block(block) or block.setting:
            continue
        words = [w for i in [block.label, *block.items] for w in _content_words(i)]
        if any(_member_of(n, w) for n in named.values() for w in words):
            terms = [t for i in named for t in _variants(i, acronyms)]
            block.kinds += [t for t in terms if t not in block.terms]
            block.terms = _dedupe(block.terms + terms)
            return


def _join_phrase(blocks: list[ConceptBlock], phrase: str) -> None:
    """A phrase that shares a word with a block joins it as a kind (:func:`_join_kinds`): the phrase and its
    spellings only, not its parts or its head alone, and its words are no partner of a broad word."""
    words = _shared_words(_content_words(phrase))
    for block in blocks:
        if words & _shared_words([w for i in block.items for w in _content_words(i)]):
            terms = [v for t in _phrase_terms(phrase) for v in _spellings(t)]
            block.kinds += [t for t in terms if t not in block.terms]
            block.terms = _dedupe(block.terms + terms)
            return


def _distributed_heads(items: list[str], heads: set[str]) -> list[str]:
    """A list's bare modifiers with the head of a phrase listed after them when that head is the head of a
    block's phrase ("software metrics (e.g. object-oriented, size or process metrics)": "object-oriented
    metrics"); the first such phrase after the modifier, not the list's last item (a list runs on into the
    sentence's next phrase: "... to extract findings from clinical notes"). The head is a noun of the lexicon,
    not a generic or meta word; the modifier is no name ("Chidamber-Kemerer": capitalised)."""
    out = []
    for k, item in enumerate(items):
        words = _content_words(item)
        if len(words) != 1 or not words[0].replace("-", "").isalpha() or not words[0].islower():
            continue
        later = [_content_words(i)[-1].casefold() for i in items[k + 1:] if len(_content_words(i)) >= 2]
        head = next((h for h in later if h in heads), "")
        if head and "NOUN" in word_classes(head) and head not in GENERIC_HEADS and head not in META_WORDS:
            out.append(f"{words[0]} {head}")
    return out


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


_NOT_SHARED = GENERIC_HEADS | DEMOGRAPHIC_WORDS | _DESIGN_WORDS | frozenset("study studies".split())


def _shared_words(words: list[str]) -> set[str]:
    """The words an item can share with a block: each word, and a hyphenated word's parts but a joining prefix
    ("non-suicidal" shares "suicidal" with "suicidal thoughts"; "self-" or "non-" alone shares nothing)."""
    out = {w.casefold() for w in words}
    out |= {p for w in out if "-" in w for p in w.split("-") if len(p) >= 4 and p not in _JOINING_PREFIXES}
    return out - _NOT_SHARED


def _join_variant(blocks: list[ConceptBlock], item: str, acronyms: dict[str, str]) -> None:
    """An eligibility sentence's item that names a variant of a block's concept (shares a distinctive word
    with its items: "process metrics" with "software metrics") joins that block; it never makes a new one."""
    if _is_meta_item(item) or _measured_of(item):
        return
    words = _shared_words(_content_words(item))
    if not words:
        return
    for block in blocks:
        block_words = _shared_words([w for i in block.items for w in _content_words(i)])
        if words & block_words:
            if not _holds_name(item, block) and not _head_of_block(words, block):
                parts = _shared_runs(item, block_words)
                block.terms = _dedupe(block.terms + [t for part in parts for t in _variants(part, acronyms)
                                                     if _variant_of_block(t, part, block_words)])
            return


def _head_of_block(words: set[str], block: ConceptBlock) -> bool:
    """An item that is the head of a block's phrase alone ("children" of "anaemic children"): the class the
    phrase narrows, no variant of it (its synonyms, ``pediatric*``, ``infant*``, are every child)."""
    heads = {_content_words(i)[-1].casefold() for i in block.items if len(_content_words(i)) >= 2}
    return len(words) == 1 and words <= heads


def _variant_of_block(term: str, part: str, block_words: set[str]) -> bool:
    """A term an eligibility item's part gives that still names the block's concept: it holds a word the block
    shares ("resistance exercise" of "resistance training"), a name ("crohn*" of "Crohn's disease", "CT-P13"; not
    "periarticular*" of "periarticular dextrose injections") or a hyphenated word of the part, or the part shares
    none (a run of names, :func:`_shared_runs`). The part's other pieces are other things ("exercise programmes"
    of "resistance exercise programmes": every exercise study; a pair's first word is what it names)."""
    if not _shared_words(_content_words(part)) & block_words:
        return True
    words = [w.strip("*").casefold() for w in re.findall(_WORD, term.replace(_JOIN, " "))]
    # a pair names what its first word does ("(inject* AND (intra-articular OR ozone))" is every injection there)
    words = sorted(_shared_words(words[:1] if term.startswith("(") else words))  # "non-violent": "violent"
    # a name is written with a capital or a digit ("Crohn's", "CT-P13"; not "periarticular")
    names = [n.casefold() for n in re.findall(_WORD, part) if n[:1].isupper() or any(c.isdigit() for c in n)]
    # a hyphenated word of the part, however spelled, is one word of it ("self injury" of "non-suicidal self-injury")
    compounds = {w.casefold().replace("-", "") for w in re.findall(_WORD, part) if "-" in w.strip("-")}
    return any(b[:5] in w for w in words for b in block_words) or all(
        any(n.startswith(w) for n in names) for w in words) or re.sub(r"[\s\"*-]", "", term.casefold()) in compounds


#: Heads that close an eligibility item naming what is measured of a thing ("learning outcomes", "consumption
#: outcomes", "performance outcome"): the item is a measure of its modifier, no kind of a concept that shares it.
_MEASURED_HEADS = frozenset("outcome outcomes result results".split())


def _measured_of(item: str) -> bool:
    """The item is a word and an outcome head ("reporting engagement, satisfaction or learning outcomes": "learning
    outcomes" shares "learning" with "online learning" but names what is measured); a longer one ("organisational
    performance outcome") still holds a variant ("organisational performance")."""
    words = re.findall(_WORD, item)
    return len(words) == 2 and words[-1].casefold() in _MEASURED_HEADS and words[0].casefold() not in _FUNCTION


def _shared_runs(item: str, block_words: set[str]) -> list[str]:
    """The runs of an item (:func:`_runs`) that share a word with the block it joins: "participants to an
    inoculation" joins the inoculation block by "inoculation", and "participants" is another thing (every study's
    people), no variant; a run of names stays ("from reference infliximab to CT-P13": what is switched to). An
    item of one run is whole."""
    runs = [r for r in _runs(item) if r]
    if len(runs) <= 1:
        return [item]

    def names(run: list[str]) -> bool:
        return all(not word_classes(w) or general_zipf(w.casefold()) < NAME_ZIPF for w in run)

    return [" ".join(r) for r in runs if _shared_words(r) & block_words or names(r)] or [item]


def _holds_name(item: str, block: ConceptBlock) -> bool:
    """The item holds the block's whole name, words in a row ("using a validated smartphone addiction scale" for
    "smartphone addiction"): the name already finds every record its phrase does, and its parts ("validated
    smartphone") are the sentence's words, no name of the concept."""
    name = tuple(w for w in _phrase_key(" ".join(_content_words(block.label))) if w)
    words = _phrase_key(" ".join(_content_words(item)))
    n = len(name)
    return bool(name) and len(words) > n and any(words[k: k + n] == name for k in range(len(words) - n + 1))


#: A modifier the lexicon knows only as an adjective or adverb, this common in English or more, grades or
#: judges its noun ("significant differences", "relevant metrics"): it names no kind of it.
EVALUATIVE_ZIPF = 4.0
#: At most this many kinds of a block's head join it (the ones the text names most).
MAX_KIND_PHRASES = 4


def _kind_modifiers(run: list[str]) -> list[str]:
    """The run's modifiers without the leading evaluative ones ("traditional source code metrics" -> source,
    code); a hyphenated compound ("object-oriented") or a word that can be a noun stays. None when a modifier
    is no noun, adjective or name ("before relapse", "termed X", "during sleep"): not a kind's name."""
    mods = run[:-1]
    while mods and "-" not in mods[0] and (c := word_classes(mods[0])) and c <= {"ADJ", "ADV"} and (
            general_zipf(mods[0].casefold()) >= EVALUATIVE_ZIPF):
        mods = mods[1:]
    def named(m: str) -> bool:  # a word the lexicon does not know is a name when it is rare ("zebrafish")
        c = word_classes(m)
        return "-" in m or bool(c & {"NOUN", "ADJ", "PROPN"}) or not c and general_zipf(m.casefold()) < EVALUATIVE_ZIPF

    if not all(named(m) for m in mods):
        return []
    return mods


#: "X-related disorders", "X-associated symptoms", "X-induced problems": a modifier that names the concept X.
_RELATION_RE = re.compile(r"([A-Za-z][A-Za-z']{2,})-(?:related|associated|induced)", re.I)


def _generic_head(word: str) -> bool:
    """A head of every field ("disorders", "outcomes", "problems"): what its modifier names is the concept."""
    low = word.casefold()
    return low in GENERIC_HEADS or low in META_WORDS or general_zipf(truncation(low)) >= HEAD_ALONE_ZIPF


def _related_stems(blocks: list[ConceptBlock]) -> None:
    """A block whose own phrase is "X-related H" with a generic head ("anxiety-related disorders") is the
    concept X: its studies name X's kinds ("panic disorder", "social anxiety"), hardly ever the umbrella
    phrase, so X's stem joins the block (then it passes the usual generic and broad checks). Only the block's
    label: a later item of a list ("A and obesity-related outcomes") is not the block's concept; and not before
    a specific head ("NSAID-associated ulcers" are ulcers, "noise-induced hearing loss" a hearing loss)."""
    for block in blocks:
        for run in _runs(block.label):
            for i, word in enumerate(run):
                m = _RELATION_RE.fullmatch(word)
                # the head right after it, or none left (a meta head, "outcomes", closed the run)
                if m and (i == len(run) - 1 or i == len(run) - 2 and _generic_head(run[-1])):
                    stem = _render(truncation(m.group(1).casefold()))
                    block.terms = _dedupe(block.terms + _spellings(stem))


def _stem_parts(words: list[str]) -> list[str]:
    """The parts of a phrase's modifiers that can name its concept: hyphenated parts split, without degree,
    graded, meta or function words and the relation words of :data:`_RELATION_RE` ("high-risk" -> risk)."""
    parts = [p.casefold() for w in words for p in w.split("-")]
    return [p for p in parts if len(p) >= 4 and p not in DEGREE_MODIFIERS and p not in META_WORDS
            and p not in _FUNCTION and p not in ("related", "induced") and not is_graded_adjective(p)]


#: A sentence that says where the review searched (its sources are named there, never a kind of a concept).
_SEARCH_SENTENCE_RE = re.compile(r"\b(?:searched|search(?:es)? (?:of|in|was|were)|specialised register|"
                                 r"specialized register|search methods)\b", re.I)


def _join_kinds(blocks: list[ConceptBlock], text: str, verbs: frozenset[str], acronyms: dict[str, str]) -> None:
    """A phrase anywhere in the text whose head noun is the head of a required block's phrase names a kind of
    that concept ("oxidative stress assays" beside "toxicity assays", said in a results sentence): it joins the block
    as a variant, when its modifiers are specific (no evaluative adjective, not common English alone). Under a
    generic head ("behaviours", "disorders") only a phrase whose modifier shares a stem with the block's own
    modifier ("risk-taking behaviour", "risky behaviours" beside "high-risk behaviours"): the same concept,
    written as its studies write it."""
    heads: dict[str, ConceptBlock] = {}
    stems: dict[str, list[str]] = {}  # a generic head -> the block phrase's modifier parts a kind must share
    for block in blocks:
        if not block.required:
            continue
        for item in block.items:
            words = _content_words(item)
            if not words or _is_acronym(words[-1]) or words[-1].casefold() in _NOT_SHARED:
                continue
            # a head of every field ("disease", "performance") groups unrelated things; a rare one ("metrics")
            # names one class of them, as a head alone names the concept (:data:`HEAD_ALONE_ZIPF`)
            if general_zipf(truncation(words[-1].casefold())) < HEAD_ALONE_ZIPF:
                heads.setdefault(_singular_tail(words[-1]), block)
            elif (parts := _stem_parts(words[:-1])) and _singular_tail(words[-1]) not in heads:
                heads[_singular_tail(words[-1])] = block
                stems[_singular_tail(words[-1])] = parts
    if not heads:
        return
    found: dict[int, dict[str, int]] = {}
    for sentence in _sentences(_restore_headings(text)):
        if _EXCLUSION_START_RE.search(sentence) or _EXCLUSION_ANY_RE.search(sentence):
            continue  # a kind the text leaves out is not one to search for
        if _SEARCH_SENTENCE_RE.search(sentence):
            continue  # where the review searched ("the Cochrane Incontinence Specialised Register"): no kind
        for chunk in _chunks(sentence, verbs):
            for item in chunk.items:
                if _is_meta_item(item):
                    continue
                for run in _runs(item):
                    head = _singular_tail(run[-1]) if len(run) >= 2 else ""
                    owner = heads.get(head)
                    mods = _kind_modifiers(run) if owner is not None else []
                    if owner is None or not mods or any(m[0].isdigit() or m.casefold() in _NOT_SHARED for m in mods):
                        continue
                    if head in stems:
                        # a generic head's other kinds ("animal behaviour") are other concepts; the kind starts at
                        # its modifier that shares the stem ("undertaking risky behaviours" -> "risky behaviours")
                        shared = [j for j, m in enumerate(mods) if any(p.startswith(s) or s.startswith(p)
                                                                       for p in _stem_parts([m]) for s in stems[head])]
                        if not shared:
                            continue
                        mods = mods[shared[0]:]
                        low = " ".join([*mods, run[-1]]).casefold()
                        if any(" " in t.strip('"') and t.strip('"').casefold() in low for t in owner.terms):
                            continue  # "refractory chronic pain" adds nothing to "chronic pain"
                    phrase = " ".join([*mods, run[-1]])
                    if _generic_label(" ".join(mods)) or {t.casefold() for t in _phrase_terms(phrase)} <= {
                            t.casefold() for t in owner.terms}:
                        continue  # common words, or a phrase the block has already
                    kinds = found.setdefault(id(owner), {})
                    kinds[phrase.casefold()] = kinds.get(phrase.casefold(), 0) + 1
    for block in blocks:
        kinds = found.get(id(block), {})
        ranked = sorted(kinds, key=lambda k: -kinds[k])[:MAX_KIND_PHRASES]  # stable: text order among ties
        for phrase in ranked:
            # only the kind's own phrase: its parts without the head ("source code") are other concepts
            # (its other spellings too: "risky behaviour" and "risky behavior")
            heads_spelled = {_singular_tail(h.strip('"')) for h in _spellings(_singular_tail(phrase.split()[-1]))}
            terms = [t for t in _variants(phrase, acronyms)
                     if " " in t.strip('"') and _singular_tail(t.strip('"*').split()[-1]) in heads_spelled]
            block.kinds += [t for t in terms if t not in block.terms]
            block.terms = _dedupe(block.terms + terms)


#: "Are X effective for Y", "Is X more effective than Z for Y", "Is X safe in Y": X is what is done.
_EFFECTIVE_FRAME_RE = re.compile(
    rf"^\s*{_WHO_FIRST}(?:are|is|were|was)\s+(.+?)\s+(?:(?:more|less|as|equally|still)\s+)?"
    rf"(?:{_EFFECT_ADJECTIVES}|superior|inferior|non-inferior)\b", re.I)


#: "Is X effective after / following Y?": Y is a state the treatment is given in (after surgery, a stent, a
#: stroke); every study of X there says Y, and ``X OR Y`` is every study of Y, whatever a background shows of Y.
_AFTER_STATE_RE = re.compile(r"\s*(?:after|following)\s", re.I)


#: "What are the (long-term) outcomes of X for Y", "What is the safety of X in Y": what a treatment does, asked
#: by its outcomes' noun.
_OUTCOMES_FRAME_RE = re.compile(
    r"^\s*what\s+(?:are|is|were|was)\s+the\s+(?:[\w-]+\s+){0,2}?(?:outcomes|effects?|effectiveness|efficacy|"
    r"safety|harms|benefits)\s+of\s", re.I)


def _effective_frame(blocks: list[ConceptBlock], topic: list[str]) -> None:
    """A question "Are X effective for Y in patients with Z" asks what X does: X's block is what is done (an
    intervention), so it comes before what it is for and who it is given to (:func:`_order_blocks`), however many
    conditions the question lists for them."""
    m = _EFFECTIVE_FRAME_RE.match(topic[0]) if topic else None
    if m is None:
        return
    named = m.group(1).casefold().replace(_JOIN, " ")
    for block in blocks:
        if block.required and block.facet == "exposure" and not block.aspect and _named_in(block, named):
            block.facet = "intervention"
            return


def _order_blocks(blocks: list[ConceptBlock], text: str = "", title: str = "") -> None:
    """Required blocks first, never a generic one (every term common English) as the main block. In a
    question the main block is the concept it spells out most (the most listed variants): the one a relevant
    study is likeliest to name in some form. In an abstract (``title``: its first sentence) it is the concept of
    the title that the most sentences name (an abstract names its subject again and again)."""
    if not title:
        # who the studies are about ("in rats and mice", "in adolescents") is the main block only when the
        # question names nothing else: a population is every study of it, whatever the topic
        # an aspect asked about ("the prevalence of", "the pharmacokinetics of") or a comparator ("more effective
        # than X", "versus X") is not the subject either
        # nor, beside what is done, what it is done for ("the effect of X on A, B and C": the outcomes listed are
        # every study of them)
        doing = any(b.required and b.facet == "intervention" and not b.aspect for b in blocks)
        blocks.sort(key=lambda b: (not b.required, b.generic, _who_block(b) or _organism_block(b),
                                   b.aspect or b.facet == "comparator" or b.setting,
                                   doing and b.facet in ("outcome", "population"), -b.n_items))
        return
    sentences = [s.casefold().replace(_JOIN, " ") for s in _sentences(text)]
    title_low = title.casefold().replace(_JOIN, " ")
    # who the studies are about ("in rodents"), where ("in small samples") and a comparator ("versus X") come
    # after what the studies are about, and so does a concept of common words alone
    # "Effects of X on Y": what is done comes before what it is done to, however often the abstract says Y
    doing = bool(_EFFECT_OF_ON_RE.search(title_low)) and any(
        b.required and b.facet == "intervention" and not b.aspect and _named_in(b, title_low) for b in blocks)
    blocks.sort(key=lambda b: (not b.required, b.generic, not _named_in(b, title_low),
                               _who_block(b) or _organism_block(b), _measure_aspect(b),
                               _generic_block(b), b.setting or b.facet == "comparator",
                               doing and b.facet == "outcome",
                               -sum(_named_in(b, s) for s in sentences), -len(_content_words(b.label))))


#: A property only a drug (or another substance given) has: "the pharmacokinetics of X" names X as what the studies
#: give and measure, whatever state changes the property ("How does pregnancy affect the pharmacokinetics of X").
_DRUG_PROPERTY_RE = re.compile(
    r"\b(?:pharmacokinetics?|pharmacodynamics?|bioavailability|bioequivalence|plasma (?:levels?|concentrations?))\s+"
    r"of\s+((?:(?!\b(?:in|among|during|with|for|after|before|by|on|and|or)\b)[^,;:?.])+)", re.I)


def _drug_of_property_first(blocks: list[ConceptBlock], topic: str) -> None:
    """A question about a drug's pharmacokinetics (:data:`_DRUG_PROPERTY_RE`) is about that drug: its block is the
    main one, before the state that the question says changes it (pregnancy, obesity: every study of them, most
    of which give no drug). The state stays a required block of the rest."""
    m = _DRUG_PROPERTY_RE.search(topic)
    if not m:
        return
    drug = next((b for b in blocks if b.required and not b.aspect and not _who_block(b) and not _organism_block(b)
                 and _named_in(b, m.group(1).casefold())), None)
    if drug is not None and blocks and drug is not blocks[0]:
        blocks.remove(drug)
        blocks.insert(0, drug)


#: Measures that close a phrase of their subject ("gaming disorder prevalence"; not "rate": "heart rate").
_CLOSING_MEASURES = frozenset("prevalence incidence epidemiology occurrence".split())
#: Words that name no concept standing alone in a run ("drugs", "techniques", "prevalence"): :func:`item_terms`.
_NO_CONCEPT_ALONE = GENERIC_HEADS | _EVIDENCE_KINDS | _CLOSING_MEASURES
#: What a review measures of its subject ("The prevalence of X"): a general vocabulary of epidemiology.
_MEASURE_HEADS = frozenset(
    "prevalence incidence frequency epidemiology burden occurrence rate rates trends trend".split())


def _measure_aspect(block: ConceptBlock) -> bool:
    """An aspect block that names a measure or a kind of finding of what follows ("The prevalence of X", "risk
    factors of X"): never an abstract's main block; other aspects ("Mitochondrial inheritance of X") may be."""
    words = _content_words(block.label)
    return block.aspect and bool(words) and words[-1].casefold() in _MEASURE_HEADS | _ANSWER_KINDS


def _names_subject(block: ConceptBlock) -> bool:
    """The block names what the studies are about: not who they are about, an aspect asked about, a setting or a
    comparator."""
    return not (block.aspect or block.setting or block.facet == "comparator" or _who_block(block)
                or _organism_block(block))


def _common_subject_first(blocks: list[ConceptBlock]) -> list[ConceptBlock]:
    """A question whose subject is a common word and whose other blocks only say who, where or which aspect ("the
    prevalence of depression among medical students", where a background holds much depression): the subject is
    still the main block, AND-ed with who or where (never "prevalence OR medical students"), the aspect left out."""
    required = [b for b in blocks if b.required]
    if not required or any(_names_subject(b) for b in required):
        return blocks
    subject = next((b for b in blocks if b.generic and _names_subject(b) and not _generic_label(b.label)), None)
    if subject is None:
        return blocks
    subject.required, subject.generic = True, False
    for b in required:
        if b.aspect:
            b.required = b.in_query = False
        else:
            b.independent = True
    return [subject, *(b for b in blocks if b is not subject)]


#: A question that asks how two concepts go together: "the relationship / association / link between X and Y",
#: "Is X associated / related / linked with Y", "How does X relate to Y", "Is X a risk factor / predictor for Y",
#: "Does X predict Y".
_RELATION_RES = tuple(re.compile(p, re.I) for p in (
    r"\b(?:relationships?|associations?|links?|correlations?|relations?)\s+between\s+(?P<x>.+?)\s+and\s+(?P<y>.+)",
    r"\b(?:is|are|was|were)\s+(?P<x>.+?)\s+(?:(?:positively|negatively|independently)\s+)?"
    r"(?:associated|related|linked|correlated)\s+(?:with|to)\s+(?P<y>.+)",
    r"\bhow\s+(?:does|do)\s+(?P<x>.+?)\s+(?:relate|correlate)\s+(?:to|with)\s+(?P<y>.+)",
    r"\b(?:is|are)\s+(?P<x>.+?)\s+(?:an?\s+)?(?:independent\s+)?"
    r"(?:(?:risk|prognostic|predictive)\s+(?:factors?|markers?)|predictors?)\s+(?:for|of)\s+(?P<y>.+)",
    r"\b(?:does|do)\s+(?P<x>.+?)\s+predict\s+(?P<y>.+)",
))
#: The words of such a frame, which name no concept of their own ("relationship*", "risk factor").
_RELATION_WORDS = frozenset("relationship relationships association associations link links correlation "
                            "correlations relation relations risk factor factors predictor predictors prognostic "
                            "predictive marker markers independent possible potential novel modifiable".split())
#: A title's "X as a risk / prognostic factor for Y" ("Frailty as a prognostic factor for postoperative delirium"):
#: the frame between X and Y.
_FACTOR_FRAME_RE = re.compile(
    r"\bas\s+an?\s+(?:(?:independent|possible|potential|novel|modifiable)\s+)?"
    r"(?:(?:risk|prognostic|predictive)\s+(?:factor|marker)|predictor)\s+(?:for|of)\b", re.I)


def _drop_factor_frame(blocks: list[ConceptBlock], title: str) -> None:
    """A title "X as a prognostic factor for Y" names no concept by its frame: the frame's terms leave the
    blocks (``"prognostic factor"`` was an alternative of X's block), as :func:`_read_relation` does for a
    question's."""
    if not _FACTOR_FRAME_RE.search(title.replace(_JOIN, " ")):
        return
    for b in blocks:
        frame = [t for t in b.terms if {w.casefold() for w in re.findall(_WORD, t)} <= _RELATION_WORDS]
        if frame and len(frame) < len(b.terms):
            b.terms = [t for t in b.terms if t not in frame]


def _read_relation(blocks: list[ConceptBlock], topic: str) -> list[ConceptBlock]:
    """A question relating two subjects (:data:`_RELATION_RES`) keeps its shape (the first subject, or the second
    alone with what else it names: a relation's studies name its constructs many ways, so neither is required
    of the other), but the frame names no concept: its words leave the blocks ("relationship*", "risk factor"),
    a gene is its symbol, not what is studied of it ("variants in the APOE gene": never ``variant*`` alone), and
    an outcome is not graded ("associated with lower stress": any study of stress)."""
    sentence = topic.replace(_JOIN, " ")
    match = next((m for r in _RELATION_RES for m in [r.search(sentence)] if m), None)
    if match is None or not blocks:
        return blocks
    for b in blocks:
        frame = [t for t in b.terms if {w.casefold() for w in re.findall(_WORD, t)} <= _RELATION_WORDS]
        if frame and len(frame) < len(b.terms):
            b.terms = [t for t in b.terms if t not in frame]
        elif frame:
            b.required = b.in_query = False
    y = match.group("y").casefold()
    for b in blocks:
        words = _content_words(b.label)
        if len(words) >= 2 and words[0].casefold() in _COMPARED_DEGREES and not b.aspect and _named_in(b, y):
            b.terms = _dedupe(v for t in _run_terms(words[1:]) for v in _spellings(t)) or b.terms
    main = next((b for b in blocks if b.required), blocks[0])
    gene = next((b for b in blocks if _gene_block(b)), None)
    if gene is None or not _only_gene_heads(main):
        return blocks
    main.required = main.in_query = False
    gene.required, gene.setting = True, False
    return [gene, *(b for b in blocks if b is not gene)]


#: Degree words a relation's outcome is named with ("associated with lower stress", "with reduced risk of"): its
#: studies report the outcome whichever way it went.
_COMPARED_DEGREES = DEGREE_MODIFIERS | frozenset("lower higher greater better worse poorer fewer more less".split())


def _only_gene_heads(block: ConceptBlock) -> bool:
    """The block names only what is studied of a gene ("variants", "polymorphisms"), not the gene."""
    words = [w.casefold() for w in _content_words(block.label)]
    return bool(words) and all(w in _GENE_HEADS for w in words)


def _gene_block(block: ConceptBlock) -> bool:
    """A gene by its symbol and a gene head ("the APOE gene", "CYP2C19 polymorphisms")."""
    words = _content_words(block.label)
    return len(words) >= 2 and _is_acronym(words[0]) and words[-1].casefold() in _GENE_HEADS


#: What a genetic study examines of a gene or a genome, or its kind ("genetic variants", "susceptibility loci",
#: "candidate gene studies", "genome-wide association studies"): a general vocabulary of genetics that names no
#: concept alone beside the gene or the condition it is studied for (round 19).
_GENETIC_FRAME_WORDS = _GENE_HEADS | frozenset(
    "genetic genomic loci locus candidate genome-wide gwas snp snps single-nucleotide nucleotide germline "
    "susceptibility".split())


def _genetic_frame_only(block: ConceptBlock | str) -> bool:
    """The block (or phrase) names only the genetic frame ("polymorphisms", "genetic variants", "susceptibility
    loci"): no gene, no condition."""
    label = block if isinstance(block, str) else block.label
    # "gene expression" is a concept of its own; an adverb is no word of a concept ("genetic loci consistently")
    words = [w.casefold() for w in _content_words(label) if not _adverb(w)]
    return bool(words) and "expression" not in words and all(w in _GENETIC_FRAME_WORDS for w in words) and any(
        w != "susceptibility" for w in words)


def _split_genetic_frame(block: ConceptBlock, acronyms: dict[str, str]) -> ConceptBlock | None:
    """A frame block that a list joined to the condition ("Genetic polymorphisms and susceptibility to
    tuberculosis": ``polymorphism* OR tuberculosi*``): the condition's items and their own terms as a block of
    their own, out of the frame's; None when the block holds nothing but the frame."""
    other = [i for i in block.items if not _genetic_frame_only(i)]
    if not other or len(other) == len(block.items) or not _genetic_frame_only(block):
        return None
    frame_terms = {t for i in block.items if i not in other for t in _variants(i, acronyms)}
    own = {t for i in other for t in _variants(i, acronyms)} - frame_terms
    moved = [t for t in block.terms if t in own]
    if not moved:
        return None
    block.terms = [t for t in block.terms if t not in moved]
    block.items = [i for i in block.items if i not in other]
    block.n_items = len(block.items)
    return ConceptBlock(block.facet, other[0], moved, n_items=len(other), items=other)


#: What genetic studies of a condition say they examine ("MTHFR C677T polymorphism and migraine", "susceptibility
#: loci for X", "HLA-B*58:01 allele"): the terms an abstract's frame block holds, AND-ed with the condition.
GENETIC_FINDING_TERMS = ("polymorphism*", "variant*", "allel*", "genotyp*", "locus", "loci", "mutation*", "SNP*",
                         "haplotyp*", "GWAS")


def _genetic_frame(blocks: list[ConceptBlock], question: bool, acronyms: dict[str, str]) -> list[ConceptBlock]:
    """A text that names a gene by its symbol or the condition its variants are studied for ("Which polymorphisms
    in the SLCO1B1 gene predict X", "Genetic variants associated with migraine") searches those, never the frame
    alone (:func:`_genetic_frame_only`: ``polymorphism*``, ``variant*``, every genetics study's words): with a gene
    the frame leaves the query and the gene is the main block; with a condition a question's frame leaves (its
    studies name the condition, not always the frame: "HLA-C*06:02 and psoriasis"), an abstract's follows the
    condition, holding what genetic studies say they examine (:data:`GENETIC_FINDING_TERMS`; AND-ed where its
    title names it: the condition alone is every study of it). A frame with nothing else named stays; a condition
    listed with it leaves its block first (:func:`_split_genetic_frame`)."""
    for b in [b for b in blocks if b.required]:
        split = _split_genetic_frame(b, acronyms)
        if split is not None:
            blocks = [*blocks[: blocks.index(b) + 1], split, *blocks[blocks.index(b) + 1:]]
    frame = [b for b in blocks if b.required and _genetic_frame_only(b)]
    gene = next((b for b in blocks if _gene_block(b)), None)
    subjects = [b for b in blocks if b.required and b not in frame and not b.generic and _names_subject(b)]
    if not frame or gene is None and not subjects:
        return blocks
    if gene is not None or question:
        for b in frame:
            b.required = b.in_query = b.independent = False
    else:
        frame[0].terms = _dedupe(frame[0].terms + list(GENETIC_FINDING_TERMS))
    if gene is None:
        return [*subjects[:1], *(b for b in blocks if b not in frame and b not in subjects[:1]), *frame]
    gene.required, gene.setting = True, False
    return [gene, *(b for b in blocks if b is not gene and b not in frame), *frame]


#: A title "Effects of X on Y" (also impact, influence): X is done, Y what it is done to.
_EFFECT_OF_ON_RE = re.compile(r"\b(?:effects?|impacts?|influences?)\s+of\b.+?\bon\b")


def _named_in(block: ConceptBlock, sentence: str) -> bool:
    """The lower-case ``sentence`` names the block's concept: every word of its label (by its first five
    letters), or one of its acronyms."""
    words = [w.casefold() for w in _content_words(block.label)]
    return bool(words) and all(re.search(r"\b" + re.escape(w[:5]), sentence) for w in words) or any(
        _is_acronym(t) and re.search(r"\b" + re.escape(t.casefold()) + r"\b", sentence) for t in block.terms)


def _title_subjects(blocks: list[ConceptBlock], title: str) -> list[ConceptBlock]:
    """An abstract's blocks are its title's subjects, AND-ed: the main block and each other required concept the
    title names (up to :data:`MAX_INDEPENDENT_BLOCKS` in all) are independent concepts, each an OR-group of its
    variants ("Cerebral small vessel disease and the risk of dementia": SVD AND dementia). A concept only the
    aim sentence names, or one past the cap, is left out: it would add an alternative or a narrowing the title
    does not ask for."""
    if not blocks:
        return blocks
    low = whole = title.casefold().replace(_JOIN, " ")
    # a subtitle ("...: lessons for translation") says what the review concludes or why; the subjects to AND are
    # those before it, where the main one is named there
    head = re.split(r"(?<=\w):\s", low, maxsplit=1)[0]
    if _named_in(blocks[0], head):
        low = head
    kept = [blocks[0]]
    for block in blocks[1:]:
        # a comparator ("versus X") or a concept of generic words alone ("common therapies", "health") is no subject;
        # nor who the studies are about ("in rodents": its studies say "rats" or "mice"), nor an aspect of a
        # subject ("psychological theories of X": its studies test the theories' factors, never name them), nor
        # where ("X in software engineering": its studies name X, seldom the field)
        subject = (block.facet != "comparator" and not _generic_label(block.label) and not _who_block(block)
                   and not block.aspect and not block.setting and not _umbrella_outcome(block))
        if not (subject and block.required and not block.generic and len(kept) < MAX_INDEPENDENT_BLOCKS):
            continue
        if _named_in(block, low):
            block.independent = True
            kept.append(block)
        elif _stem_in_title(block, low, kept[0]):
            # named by a word of its own ("suicide-related" for "self-harm, suicidality"), not by its label: an
            # alternative when specific, never AND-ed (the label's words are the aim's, not the title's)
            block.required = block.in_query = False
            block.side = True
            kept.append(block)
    # the animals a title names, wherever in it ("Animal models of X", "...: X in stressed rodents"): a filter on
    # the whole query, beyond the cap
    kept += [b for b in blocks[1:] if b.organism and b not in kept and _named_in(b, whole)]
    for block in kept[1:]:
        if block.organism:
            block.required = True
    return kept


def _umbrella_outcome(block: ConceptBlock) -> bool:
    """An outcome named by a common head ("effects of X on cardiometabolic health", "on mental health"): its studies
    name the particular outcomes (obesity, diabetes), seldom the umbrella, so it is no subject to AND."""
    words = _content_words(block.label)
    return block.facet == "outcome" and bool(words) and words[-1].casefold() in _UMBRELLA_HEADS


#: Heads that gather many outcomes under one name (a general vocabulary, not a field's).
_UMBRELLA_HEADS = frozenset("health outcome outcomes wellbeing well-being functioning development".split())


def _stem_in_title(block: ConceptBlock, title: str, main: ConceptBlock) -> bool:
    """The title names the block by one of its word stems, outside the main block's label: the aim says "in
    relation to self-injury and suicidality", the title "X and suicide-related outcomes". A stem of four letters
    or more that the block kept (its common words were dropped before) and the main block does not hold."""
    main_words = {w.casefold()[:5] for w in _content_words(main.label)}
    main_terms = {t.casefold() for t in main.terms}
    stems = [t.rstrip("*").casefold() for t in block.terms if t.endswith("*") and t[:1].isalpha()
             and " " not in t and len(t.rstrip("*")) >= 4 and t.casefold() not in main_terms]
    return any(w.casefold()[:5] not in main_words and any(w.casefold().startswith(s) for s in stems)
               for w in re.findall(_WORD, title))


#: "(to identify) studies investigating X": what the included studies are about, in an abstract's aim sentence.
_STUDIES_OF_RE = re.compile(
    r"\b(?:studies|trials|articles|papers|research)\s+(?:that\s+(?:have\s+)?)?"
    r"(?:investigat|examin|explor|analy[sz]|studied|studying)\w*\s+(.+)$", re.I)


def _studied_subject(blocks: list[ConceptBlock], aims: list[str], verbs: frozenset[str]) -> ConceptBlock | None:
    """The block of what an abstract's aim sentence says its studies investigate ("to identify studies
    investigating X on Y and to count those that mention Z": X), when a block names it; else None."""
    for sentence in aims:
        m = _STUDIES_OF_RE.search(sentence)
        chunks = _chunks(m.group(1), verbs) if m else []
        if not chunks or chunks[0].cue:
            continue
        words = {w.casefold() for i in chunks[0].items for w in _content_words(i)}
        scored = [(len(words & {w.casefold() for w in _content_words(b.label)}), k) for k, b in enumerate(blocks)]
        best = max(scored, default=(0, 0))
        if best[0]:
            return blocks[best[1]]
    return None


def _studies_subject_first(blocks: list[ConceptBlock], studied: ConceptBlock) -> list[ConceptBlock]:
    """What the studies investigate is the main block (required, even where the title names it as a setting:
    "Z in X on Y"); the title's other subjects are what the review looks for within those studies, so they are
    no longer AND-ed with it (they stay in the rest of the query)."""
    if studied.generic:
        return blocks
    rest = [b for b in blocks if b is not studied]
    for b in rest:
        b.independent = False
    studied.required, studied.independent, studied.setting, studied.aspect = True, False, False, False
    return [studied, *rest]


#: "associations of A, B and C with (the risk of) D": what is associated with what (an exposure and an outcome).
_ASSOCIATION_RE = re.compile(r"\bassociations? of\s+(.+?)\s+with\s+(.+)$", re.I)


def _join_associated(blocks: list[ConceptBlock], text: str, verbs: frozenset[str], acronyms: dict[str, str],
                     zipf_floor: float, background: Background | None, share_floor: float | None) -> None:
    """An abstract whose title ANDs two subjects ("X and the risk of Y") and whose aim or method says "associations
    of A, B and C with Y": A, B, C are what its studies name for X (an umbrella, "small vessel disease", whose
    studies name its markers), so they join X's block as variants, through the usual generic checks. Not from a
    results sentence (its figures and "was associated" say what was found), and only with two subjects: Y
    names one, the list is the other's."""
    if len(blocks) != 2 or not blocks[1].independent:
        return
    for sentence in _sentences(_restore_headings(text)):
        m = _ASSOCIATION_RE.search(sentence)
        if m is None or _RESULT_RE.search(sentence):
            continue
        listed, other = m.group(1), m.group(2).casefold().replace(_JOIN, " ")
        named = [b for b in blocks if _named_in(b, other) or any(
            " " not in t.strip('"') and t.endswith("*") and re.search(r"\b" + re.escape(t.rstrip("*").casefold()),
                                                                      other) for t in b.terms)]
        if len(named) != 1:
            continue
        target = blocks[1] if named[0] is blocks[0] else blocks[0]
        items = [i for c in _chunks(listed, verbs) for i in c.items if not _is_meta_item(i)]
        new = _dedupe(t for i in items for t in _variants(i, acronyms))
        if len(items) < 2 or not new:
            continue  # one phrase is a restatement, a list names the kinds
        extra = ConceptBlock(target.facet, target.label, [t for t in new if t not in target.terms])
        _drop_generic_terms([extra], zipf_floor, background, share_floor)
        if not extra.generic:
            target.kinds += extra.terms
            target.terms = _dedupe(target.terms + extra.terms)


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


_COMPUTED_AFTER_RE = r"\s+(?:was|were|is|are)\s+(?:calculated|computed|derived|recalculated)\b"
_COMPUTED_BEFORE_RE = r"\b(?:calculated|computed|calculating|computing|derived|deriving)\s+(?:the\s+|a\s+|an\s+)?"


_WE_CLAUSE_RE = re.compile(r"\bwe\b[^.;:?!]*", re.I)


#: A title's closing part after a colon that says what kind of paper it is ("...: a systematic mapping study",
#: "...: an umbrella review", "...: a systematic review and meta-analysis"): a few words, no preposition, ending
#: in a paper kind's noun.
_OWN_KIND_RE = re.compile(
    r"\s*:\s+(?:an?\s+)?(?:(?!(?:of|for|in|on|to|with|from|among|between)\s)[\w-]+\s+){0,3}"
    r"(?:review|study|meta-analysis|meta-regression(?:\s+analysis)?|overview|synthesis)"
    r"(?:\s+(?:and|with)\s+(?:an?\s+)?(?:[\w-]+\s+){0,2}(?:review|study|meta-analysis|meta-regression|synthesis))?"
    r"\s*[.]?\s*$", re.I)


#: A title's "X and Y" before its subtitle or setting ("Vitamin D supplementation and respiratory infections in
#: children: a meta-analysis"): X, Y and what follows.
_TITLE_PAIR_RE = re.compile(
    r"^([^,;:]+?)\s+and\s+([^,;:]+?)(\s+(?:in|among|of|during|after|for)\s+[^:]*)?(:.*)?$", re.I)
#: Words that relate two concepts in a sentence ("X for the prevention of Y", "X during Y", "X improved Y").
_RELATING_RE = re.compile(r"\b(?:on|in|during|for|with|after|to|of|by|from|improv\w*|reduc\w*|increas\w*|"
                          r"decreas\w*|prevent\w*|affect\w*|predict\w*|promot\w*|impair\w*)\b", re.I)


#: "the relationship between X and Y": a frame that relates its two terms (X's head, then Y's first words).
_BETWEEN_FRAME = r"\bbetween\s+(?:[\w-]+\s+){{0,3}}{x}\w*\s+and\s+(?:[\w-]+\s+){{0,2}}{y}"


def _related_pair(title: str, text: str) -> str:
    """A title's "X and Y" as two concepts ("X on Y", as "the effect of X on Y" reads) when another sentence of
    the abstract relates them: names both with a preposition or a verb of effect between ("trials of vitamin D
    supplementation for the prevention of respiratory infections", "microdialysis during sleep"), not as a list
    ("anxiety and depression", "anxiety, stress and depression"). Its studies name both, so both are required."""
    m = _TITLE_PAIR_RE.match(title)
    # a subtitle names more concepts ("Sleep and X: a review of Y and Z"): left as it is; not the animals studied
    if not m or m.group(4) and not names_animals(m.group(4).lstrip(": ")):
        return title
    first, second = (_content_words(g) for g in m.group(1, 2))
    if not first or not second or re.search(r"\b(?:for|of|in|on|with|among|to|by|from|during|after|versus|vs)\b",
                                            m.group(1), re.I):
        return title  # "X for A and B": the pair is A and B inside a phrase, not the title's two subjects
    a, b = first[-1].casefold()[:5], second[-1].casefold()[:5]
    if a == b:
        return title
    # from one's head to the other's head, or to its first word: a coordination inside the other ("fruit and
    # vegetable intake") is no list between the two
    pairs = ((a, b), (b, a), (a, second[0].casefold()[:5]), (b, first[0].casefold()[:5]))
    for sentence in _sentences(text)[1:]:
        low = sentence.casefold()
        for x, y in pairs:
            gap = re.search(r"\b" + re.escape(x) + r"\w*\s+(.{1,80}?)\s*\b" + re.escape(y), low)
            related = gap and not re.search(r"[,;]|\b(?:and|or|nor)\b", gap.group(1)) and _RELATING_RE.search(
                gap.group(1))
            if related or re.search(_BETWEEN_FRAME.format(x=re.escape(x), y=re.escape(y)), low):
                return f"{m.group(1)} on {m.group(2)}{m.group(3) or ''}{m.group(4) or ''}"
    return title


def _without_own_kind(title: str) -> str:
    """A title without its closing "...: a <kind of> review / study": the paper's own kind is no topic
    ("Object-oriented mutation testing: a systematic mapping study" gave the term ``mapping*``)."""
    return _OWN_KIND_RE.sub("", title) or title


def _without_own_method(title: str, text: str) -> str:
    """A title without the words that name what the paper itself did, by what its abstract says in the first
    person: a phrase's closing noun that is the noun of a verb "we" did ("... Trajectory Analysis" where "we ...
    analyze trajectories": the analysis is the paper's, the trajectories the studies'), and a modifier leading a
    phrase that "we" name as what we used ("using the Bayesian framework": "Bayesian ..."). A word kept when it is
    all its phrase says."""
    words = re.findall(r"\S+", title)
    # the title's nouns that only name an activity or its product ("analysis", not "sleep")
    nouns = {w.strip(".,:;()").casefold()[:5] for w in words if word_classes(w.strip(".,:;()")) == {"NOUN"}}
    done: set[str] = set()
    used: set[str] = set()
    for clause in _WE_CLAUSE_RE.findall(text):
        # right after "we" a word is a verb; after "and" only one the lexicon has as nothing else
        pairs = re.findall(r"\b(we|and)\s+(?:\w+ly\s+)?([a-z]+)", clause, re.I)
        verbs = {verb.casefold()[:5] for conj, verb in pairs if len(verb) >= 5 and "VERB" in (c := word_classes(verb))
                 and (conj.casefold() == "we" or c == {"VERB"})}
        done |= verbs & nouns
        if verbs & nouns:  # what the paper's own activity used ("we ... analyze X using the Bayesian framework"),
            # not what its studies used ("we included trials using mindfulness apps")
            used.update(w.casefold() for w in re.findall(r"\busing\s+(?:the\s+|an?\s+)?([A-Za-z][\w-]+)", clause))
    if not done:
        return title
    keep = [True] * len(words)
    for i, w in enumerate(words):
        core = w.strip(".,:;()").casefold()
        prev_content = i > 0 and words[i - 1].strip(".,:;()").casefold() not in _FUNCTION | META_WORDS
        next_content = i + 1 < len(words) and words[i + 1].strip(".,:;()").casefold() not in _FUNCTION | META_WORDS
        if (core[:5] in done and word_classes(core) == {"NOUN"} and prev_content
                and (i + 1 == len(words) or not next_content)):
            keep[i] = False  # the phrase's closing noun: "trajectory analysis" -> "trajectory"
        elif core in used and next_content and (i == 0 or not prev_content):
            keep[i] = False  # the phrase's leading modifier: "Bayesian trajectory" -> "trajectory"
    return " ".join(w for w, k in zip(words, keep, strict=True) if k)


_BASED_ON_RE = re.compile(r"\bbased (?:on|upon)\b", re.I)


def _built_from_literature(title: str) -> str:
    """What a title says the paper built from the literature and its own method ("X with Informed Priors Based on
    a Systematic Literature Search and Expert Elicitation"): the phrase right before "based on" and what follows
    it, when what follows names a review method; that is the paper's product and its sources, not what its
    studies are about. Empty otherwise ("interventions based on exercise" are about exercise)."""
    m = _BASED_ON_RE.search(title)
    if m is None:
        return ""
    basis = title[m.end():]
    if not (_REVIEW_METHOD_RE.search(basis) or any(p in basis.casefold() for p in META_PHRASES)):
        return ""
    before = title[: m.start()]
    cuts = [c.end() for c in _BOUNDARY_RE.finditer(before)]
    return before[max(cuts, default=0):] + " " + basis


def _own_measure(block: ConceptBlock, text: str, acronyms: dict[str, str]) -> bool:
    """An abstract says the review computed this concept itself ("the Fragility Index (FI) ... FI was calculated
    for each RCT"): it is the review's own statistic, which its studies do not name."""
    names = [block.label, *block.items]
    names += [a for a, long in acronyms.items() if any(long.casefold() in n.casefold() or n.casefold() in
                                                        long.casefold() for n in names if n.strip())]
    for name in {n.strip() for n in names if len(n.strip()) >= 2}:
        esc = re.escape(name)
        if re.search(r"\b" + esc + _COMPUTED_AFTER_RE, text, re.I) or re.search(
                _COMPUTED_BEFORE_RE + esc + r"\b", text, re.I):
            return True
    return False


#: A single word standing as a top-level alternative of the query is broad from this share of a background's
#: records ("recurr*", "predict*" in papers of many topics): it stays only AND-ed with its concept's other words,
#: or with the next subject (:func:`_pair_broad_alone`). Judged leave-one-review-out (docs/search-strategies.md,
#: round 5).
BROAD_TERM_SHARE = 0.03
#: ... and without a background, from this general-English frequency of a word the lexicon reads only as a verb
#: ("predict*": its commonest form "predicted", 4.1): a verb of general use is said by papers of every topic;
#: general English cannot tell a broad noun ("cancer" 4.9) from a topic ("suicide" 4.6).
BROAD_VERB_ZIPF = 4.0
#: ... and without a background, a truncated stem that opens onto this much of general English (the summed
#: Zipf frequency of every word it begins: :func:`~agentr_dagster.domain.specificity.opens_onto_zipf`;
#: "alternat*" 4.95, "communic*" 5.07, "empath*" 3.9), whatever its word class. Leave-one-review-out on the
#: questions and written abstracts without a background (16 of 18 folds pick it; docs/search-strategies.md,
#: round 11).
BROAD_STEM_ZIPF = 4.8


def _broad_alone(term: str, background: Background | None, share_floor: float) -> bool:
    """A single word (no phrase, no AND-ed pair, no acronym) too broad to stand alone as a top-level alternative:
    in ``share_floor`` of the background's records or more, or without a background a truncated stem that opens
    onto much of general English (:data:`BROAD_STEM_ZIPF`) or a common word that is only a verb in its commonest
    form."""
    core = term.strip('"')
    if " " in core or core.startswith("(") or _is_acronym(core.rstrip("*")):
        return False
    if background is not None:
        return background(term) >= share_floor
    if "-" in core:  # a compound ("help-seek*") is no plain verb, whatever its last part is
        return False
    # a stem is as broad as its commonest spelling ("behaviour*" as "behavior*": general English is mostly American)
    if core.endswith("*") and max(opens_onto_zipf(s) for s in _spellings(core)) >= BROAD_STEM_ZIPF:
        return True
    stem = core.rstrip("*").casefold()
    forms = [stem + e for e in ("", "s", "e", "es", "ed", "ing")] if core.endswith("*") else [stem]
    commonest = max(forms, key=general_zipf)
    return general_zipf(core) >= BROAD_VERB_ZIPF and word_classes(commonest) == {"VERB"}


def _top_level(blocks: list[ConceptBlock]) -> list[tuple[ConceptBlock, ConceptBlock | None]]:
    """The blocks whose terms are top-level alternatives of the shipped query, each with the next subject (the
    block a broad term of it is AND-ed with): the main block when nothing is AND-ed with it (its next subject:
    the next required block), and a lone block of the rest branch (``A OR B``: its next subject is A)."""
    if not blocks:
        return []
    main = next((b for b in blocks if b.required), blocks[0])
    rest = [b for b in blocks if b is not main]
    if any(b.independent for b in rest):
        return []
    in_rest = [b for b in rest if b.required or b.in_query]
    nxt = next((b for b in rest if b.required and not b.generic), None)
    out: list[tuple[ConceptBlock, ConceptBlock | None]] = [(main, nxt)]
    if len(in_rest) == 1:
        out.append((in_rest[0], main))
    return out


def _pair_broad_alone(blocks: list[ConceptBlock], background: Background | None, share_floor: float) -> None:
    """No broad single word stands alone as a top-level alternative (:func:`_broad_alone`): it is AND-ed with the
    other words of its concept's phrases ("depressive relapse and recurrence": ``(recurr* AND depress*)``), else
    with the next subject's terms; with neither it stays."""
    blocks_main = next((b for b in blocks if b.required), blocks[0]) if blocks else None
    for block, nxt in _top_level(blocks):
        broad = [t for t in block.terms if _broad_alone(t, background, share_floor)]
        if not broad:
            continue
        kept = [t for t in block.terms if t not in broad]
        for term in broad:
            stem = term.strip('"').rstrip("*").casefold()
            # a kind named elsewhere in the text ("static code metrics") is no word of the concept's own phrase
            phrases = [p for p in [*block.terms, block.label, *block.items] if " " in p.strip('"')
                       and p not in block.kinds and not p.startswith("(")]
            words = [w.casefold() for p in phrases for w in re.findall(_WORD, p.replace(_JOIN, " "))]
            # a partner may be broad itself (the pair is narrow), not common English, nor a word a term of the
            # block already finds alone (``relaps*`` makes ``(recurr* AND relaps*)`` redundant)
            alone = [t.strip('"').rstrip("*").casefold() for t in kept if " " not in t.strip('"')]
            # nor a generic head whose class the block names alone ("generic antiepileptic drugs" with
            # ``antiepileptic*``: ``(switch* AND drug)`` is every study that changed any drug)
            named_heads = {ws[-1] for p in phrases if len(ws := p.strip('"').casefold().split()) >= 2
                           and ws[-1] in GENERIC_HEADS and _render(truncation(ws[-2])) in kept}
            partners = _dedupe(_sendable(truncation(w)) for w in words if not w.startswith(stem[:4])
                               and len(w) >= 4 and w.isalpha() and w not in META_WORDS and w not in _FUNCTION
                               and general_zipf(w) < GENERIC_ZIPF and not any(w.startswith(a) for a in alone)
                               and w not in named_heads)
            if not partners and nxt is not None:
                if nxt.required and nxt is blocks_main:  # A OR (b AND A) is A: the term goes
                    continue
                partners = _dedupe(_sendable(t) for t in nxt.terms if not t.startswith("("))[:MAX_TERMS_PER_BLOCK // 4]
            if not partners:
                kept.append(term)
                continue
            group = partners[0] if len(partners) == 1 else "(" + " OR ".join(partners) + ")"
            kept.append(f"({_sendable(term)} AND {group})")
        if kept:
            block.terms = _dedupe(kept)
        else:  # a lone rest block of broad words alone: ``A OR b`` is no narrower than b; the rest branch drops it
            block.required = block.in_query = False


def _mark_rest(blocks: list[ConceptBlock], background: Background | None, rest_share: float) -> None:
    """Which optional blocks ``main_or_specific_rest`` leaves out of the rest branch (``in_query=False``). With
    required blocks besides the main one: all optional ones when the required ones AND-ed are expected in at most
    ``rest_share`` of the ``background``'s records (their shares multiplied: "type 2 diabetes" alone is narrow,
    "hypertension" alone is not and keeps "adults" AND-ed with it); without a background, none (general English
    cannot tell a broad condition from a narrow one). With none, only a side clause's specific concept stays
    ("..., and how applicable are they for predicting fault location?": A OR fault location); a block that says
    who the studies are about, a generic one, one the question says not to require ("regardless of whether X")
    leave: never ``A OR adult*``."""
    if not blocks:
        return
    main = next((b for b in blocks if b.required), blocks[0])
    rest = [b for b in blocks if b is not main]
    required = [b for b in rest if b.required]
    optional = [b for b in rest if not b.required]
    if _field_of_an_aspect(main, required):
        return
    if _rest_names_no_subject(required, optional, background, rest_share, reviews=_holds_review_kinds(main)):
        for b in required + optional:
            if not b.organism:
                b.required = b.in_query = False
        return
    if required:
        if background is None:
            return
        if _shares_product(required, background) <= rest_share:
            for b in optional:
                b.in_query = False
        return
    for b in optional:
        b.in_query = b.side and not (b.generic or _who_block(b)) and any_share(
            b.terms[:MAX_TERMS_PER_BLOCK], background) <= rest_share


def _lone_condition_anded(blocks: list[ConceptBlock], facets: tuple[str, ...]) -> None:
    """A question of what a treatment does (:data:`_EFFECTIVE_FRAME_RE`: "Are X safe during pregnancy?", "Is X
    effective for Y?", and :data:`_OUTCOMES_FRAME_RE`, "What are the outcomes of X for Y?", there ``facets``
    population only; not "Does X predict Y", whose Y is an outcome however it reads) whose rest branch would be
    one block, of whom, when or what for it is given (a population or a state), with no other concept beside it:
    ``X OR pregnanc*`` is every pregnancy study, so the block is AND-ed with X (``X AND pregnanc*``), as
    independent concepts are; so is a condition after "in", read as where the studies are ("Is X safe in
    inflammatory bowel disease?", which left the query as X alone). Without a background only: a background that
    shows the block narrow keeps it as the rest branch (:func:`_mark_rest`); but a state the treatment follows
    (:data:`_AFTER_STATE_RE`, "Is X effective after coronary stenting?") is AND-ed whatever the background."""
    main = next((b for b in blocks if b.required), None)
    if main is None or main.facet != "intervention" or main.aspect:
        return
    rest = [b for b in blocks if b is not main and (b.required or b.in_query) and not b.organism]
    # who the studies are about alone leaves instead (:func:`_rest_names_no_subject`: never ``X OR adult*``)
    if (len(rest) == 1 and rest[0].required and rest[0].facet in facets
            and not _who_block(rest[0])):
        rest[0].independent = True


def _field_of_an_aspect(main: ConceptBlock, required: list[ConceptBlock]) -> bool:
    """A main block that is an aspect asked of studies ("the statistical fragility of randomised trials in spine
    surgery", "the replicability of experiments in software engineering") with only where the studies are beside
    it: the place is what the aspect is measured in, so it is AND-ed with it (``fragil* AND "spine surgery"``);
    the aspect alone is every field's, the place alone (``A OR "spine surgery"``) every study there."""
    if not (main.aspect and required and all(b.setting and not b.organism and not _gene_block(b) for b in required)):
        return False
    for b in required:
        b.independent = True
    return True


def _holds_review_kinds(block: ConceptBlock) -> bool:
    """The block is a review of reviews' main block: the kinds of evidence synthesis (:func:`_reviews_first`)."""
    return any(t in REVIEW_KIND_TERMS for t in block.terms)


def _rest_names_no_subject(required: list[ConceptBlock], optional: list[ConceptBlock],
                           background: Background | None, rest_share: float, reviews: bool = False) -> bool:
    """The rest branch holds only who the studies are about ("smartphone addiction among adolescents") or an aspect
    asked about ("the prevalence of X among students"), with no optional subject beside them ("sleep" in "Is
    insufficient sleep associated with X in adolescents?"; a setting is none): it would be an alternative of every
    study of them (``A OR adolesc*``, ``A OR (preval* AND student*)``), so it leaves, unless a background shows the
    people narrow (an aspect alone, ``A OR variant*``, always leaves). The animals named are a filter, never this."""
    if not required or any(b.in_query and is_subject(b) and not (b.organism or b.setting) for b in optional):
        return False
    # where the studies are ("chatbots in mental health care", "X in radiology"), all the rest names, is no
    # subject either: alone it is every study there (beside an aspect it may be the subject: "are X predictive
    # of response to Y in breast cancer"; and where the studies are reviews, the field is what they review)
    places = not reviews and all(b.setting and not _gene_block(b) and not b.organism for b in required)
    if not places and not all((_who_block(b) or b.aspect) and not b.organism for b in required):
        return False
    only_aspects = all(b.aspect and not _who_block(b) for b in required)
    # a place alone is every study there however narrow a background shows it ("... in low-income countries"
    # left alone once the optional blocks are out): only who the studies are about may stay where narrow
    only_places = places and not any(_who_block(b) for b in required)
    return only_aspects or only_places or background is None or _shares_product(required, background) > rest_share


def _shares_product(blocks: list[ConceptBlock], background: Background | None) -> float:
    """The share of a background's records expected to name every one of the blocks (their shares multiplied)."""
    share = 1.0
    for b in blocks:
        share *= any_share(b.terms[:MAX_TERMS_PER_BLOCK], background)
    return share


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
        if specific:
            # a generic word of the concept's own phrase stays, AND-ed with each of its neighbours there:
            # "predict*" of "software fault prediction" -> (fault* AND predict*), which finds "predicting faults"
            paired = [p for t in block.terms if t not in specific for p in _paired(t, block.terms, zipf_floor)]
            block.terms = _dedupe(specific + paired)
        else:
            block.generic = True
            block.required = False


def content_words_baseline(text: str, stopwords: Sequence[str] = ()) -> str:
    """The mechanical baseline: an OR of the question's content words (for the bench)."""
    from agentr_dagster.domain.text import is_stopword, tokenize

    words: list[str] = []
    for tok in tokenize(text):
        if len(tok) > 2 and not is_stopword(tok) and tok not in stopwords and tok not in words:
            words.append(tok)
    return " OR ".join(f'"{w}"' if "-" in w or "'" in w else w for w in words) or '"research"'
