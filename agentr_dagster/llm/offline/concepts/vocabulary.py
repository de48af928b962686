"""The general vocabularies, cue patterns and settings the concept reader shares (no field's words), and
the small word helpers every part uses."""

from __future__ import annotations

import re

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


#: Who or where may come first in a question ("In adults with X, is Y safe ...?").
_WHO_FIRST = r"(?:(?:in|among|for)\s[^,;:?]+,\s*)?"
_WORD = r"[A-Za-z0-9][\w'\u2019-]*(?:(?<=[A-Za-z]\d)\.\d+)?"


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
    known conceptualisation conceptualisations conceptualization conceptualizations
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
    # one role by its British and American names (and its activity: "caregiving for a spouse")
    "carer": ("carer*", "caregiv*"),
    "caregiver": ("caregiv*", "carer*"),
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
    # the adjective of the mouse: a "murine model" study says "mice" ("DSS colitis was induced in BALB/c mice")
    "murine": ("mouse", "mice", "murine"),
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


_COMPARATOR_CUE_RE = re.compile(r"\b(?:versus|vs\.?|than|compared (?:with|to))\s*$", re.I)


#: A chunk's whole cue that says where ("X in software engineering"); after a verb ("favour in X") it is the
#: verb's complement, not a setting.
_SETTING_CUE_RE = re.compile(r"^(?:in|among|amongst|within)$", re.I)


#: A cue whose chunk says the span the studies cover ("across the lifespan"), never a concept of its own.
_SPAN_CUE_RE = re.compile(r"\bacross$", re.I)


_POPULATION_CUE_RE = re.compile(r"\b(?:in|among|amongst|for|of)\s*$|\bwith\s*$", re.I)

#: A participle after people that says what they undergo ("patients undergoing PCI", "adults receiving dialysis"):
#: who the studies are about, as "patients with X" says (a clause cut after a plural noun opens with it).
_UNDERGOING_CUE_RE = re.compile(r"^(?:undergoing|receiving)$", re.I)


_OUTCOME_CUE_RE = re.compile(
    r"\b(?:associated with|related to|affect|affects|benefit|on|predict|predicting|reduce|reduces|improve|improves|"
    r"prevent|prevents|increase|increases|decrease|decreases|lower|lowers|influence|influences|impact|impacts)\s*$",
    re.I)


_INTERVENTION_CUE_RE = re.compile(
    r"\b(?:of|treated with|to treat|for the treatment of|in the treatment of|used in|use of|using)\s*$", re.I
)


_ACRONYM_PAREN_RE = re.compile(r"([A-Za-z][\w\-/ ]{2,80}?)\s*\(([A-Z][A-Za-z0-9\-]{1,9}s?)\)")


#: Heads that say "a kind of treatment or thing" (the modifier before them is the concept).
GENERIC_HEADS = frozenset(
    "drug drugs agent agents medication medications medicine medicines therapy therapies treatment treatments "
    "condition conditions model models approach approaches intervention interventions inhibitor inhibitors "
    "blocker blockers enzyme enzymes antagonist antagonists agonist agonists receptor receptors".split()
)


#: A compound opened by a single letter anywhere in a term ("e-learning platform", "m-health").
_LETTER_OPENED_RE = re.compile(r"(?<![\w-])[A-Za-z]-[A-Za-z]")


#: What a study says of a gene after its symbol (a general vocabulary of genetics).
_GENE_HEADS = frozenset(
    "gene genes polymorphism polymorphisms variant variants mutation mutations genotype genotypes allele alleles "
    "expression".split())


_FUNCTION = frozenset(
    "a an the and or of in on for to with by from at as into onto via per than then their its his her our your "
    "a' any all some no not nor both either neither this that these those such which who whose whom if so yet "
    "whether when while because since unless until none more less most least than but".split()
)


def _sentences(text: str) -> list[str]:
    from agentr_dagster.domain.text import split_sentences

    return split_sentences(text) or [text]


#: What a review gathers rather than what it is about ("a review of barriers and facilitators", "of techniques").
_EVIDENCE_KINDS = frozenset(
    "barriers facilitators determinants measures instruments tools techniques applications methods approaches "
    "interventions strategies prospective retrospective experimental evidence benchmarks datasets antecedents "
    "consequences".split())


#: A subject names a topic by a word at most this common in general English (Zipf): "paradigm" 3.6.
TOPIC_WORD_ZIPF = 4.0


#: Heads of the kinds of answer a "Which X predict Y" question asks for (a general vocabulary of study findings).
_ANSWER_KINDS = frozenset(
    "factor factors predictor predictors determinant determinants correlate correlates variant variants polymorphism "
    "polymorphisms biomarker biomarkers marker markers characteristic characteristics feature features gene genes "
    "variable variables indicator indicators".split())


def _plural(word: str) -> bool:
    low = word.casefold()
    return low in _IRREGULAR_PLURALS or low.endswith("s") and not low.endswith(("ss", "us", "is"))


#: Plurals without an "-s" (English grammar): "women living with HIV" is a plural noun and its verb.
_IRREGULAR_PLURALS = frozenset("women men children people mice geese feet teeth".split())


#: Nouns for the reports a review gathers: a verb's "-ing" form after one starts a clause ("studies examining X").
_STUDY_NOUNS = frozenset("studies study trials trial articles papers reports research publications experiments".split())


#: A finite verb never follows one of these directly ("patients without urge urinary incontinence": a noun).
_PREPOSITIONS = frozenset(
    "with without of for in on from by among between versus vs than into about after before during under over via "
    "per across against beyond despite upon amid unlike alongside following".split())


#: Verbs of effect a question asks about ("Does X reduce Y", "How does X influence Y"); nouns too, so only read as
#: the verb right after the subject of such a question. Not "limit", "address", "treat": compounds' heads too.
_EFFECT_VERBS = frozenset(
    "reduce improve prevent increase decrease promote enhance raise mitigate alleviate relieve affect influence "
    "impact alter modify moderate mediate predict cause explain lower slow delay worsen shorten prolong protect "
    "change".split())


def _content_words(item: str) -> list[str]:
    return [w for w in re.findall(_WORD, item) if w.casefold() not in META_WORDS and w.casefold() not in _FUNCTION]


#: Prefixes papers also write closed up ("non-cancer" / "noncancer"); other compounds only hyphenated or spaced.
_JOINING_PREFIXES = frozenset(
    "anti non self co pre post multi inter intra semi sub over under re mid extra ultra micro".split()
)


#: Joins the words of a coordination that is one name ("acceptance and commitment therapy") into one word, so
#: that no list split or phrase cut takes it apart; a term shows it as a space.
_JOIN = "_"


#: The kinds of evidence synthesis a review of reviews gathers (a general vocabulary of research synthesis).
REVIEW_KIND_TERMS = ('"systematic review"', '"systematic reviews"', '"systematic literature review*"',
                     '"literature review*"', "meta-analysis", "meta-analyses", '"meta analys*"', "metaanalys*",
                     '"scoping review*"',
                     '"mapping stud*"', '"umbrella review*"', '"evidence synthes*"')


#: Measures that close a phrase of their subject ("gaming disorder prevalence"; not "rate": "heart rate").
_CLOSING_MEASURES = frozenset("prevalence incidence epidemiology occurrence".split())


#: Words that name no concept standing alone in a run ("drugs", "techniques", "prevalence"): :func:`item_terms`.
_NO_CONCEPT_ALONE = GENERIC_HEADS | _EVIDENCE_KINDS | _CLOSING_MEASURES


#: What a genetic study examines of a gene or a genome, or its kind ("genetic variants", "susceptibility loci",
#: "candidate gene studies", "genome-wide association studies"): a general vocabulary of genetics that names no
#: concept alone beside the gene or the condition it is studied for (round 19).
_GENETIC_FRAME_WORDS = _GENE_HEADS | frozenset(
    "genetic genomic loci locus candidate genome-wide gwas snp snps single-nucleotide nucleotide germline "
    "susceptibility".split())
