"""Round 27 (h27a): published-style abstracts of new kinds (mapping studies, scoping reviews of a concept)."""

from tests.unit.domain.concept_queries import hits, terms, top_level_terms

# -- "Named testing of X": a technique applied to X, a subject of its own, not an aspect of X -------------------

TECHNIQUE_TITLE = "Combinatorial testing of configurable software systems: a systematic mapping study"


def test_a_rarely_named_technique_before_of_is_a_subject():
    # on 06c0354 "combinatorial testing" was an aspect of the systems and left the title's subjects: every study
    # of configurable software
    assert not hits(TECHNIQUE_TITLE, "Performance prediction for configurable software systems")
    assert hits(TECHNIQUE_TITLE, "Pairwise combinatorial testing of highly configurable software systems")


def test_a_common_aspect_before_of_stays_an_aspect():
    # "the pharmacokinetics of X", "the prevalence of X": no technique, X alone as before
    title = "The pharmacokinetics of vancomycin in neonates: a systematic review"
    assert top_level_terms(title) == top_level_terms("Pharmacokinetics of vancomycin in neonates")
    assert hits(title, "Population pharmacokinetics of vancomycin in preterm neonates")


TECHNIQUE_ABSTRACT = (
    "Metamorphic testing of machine learning classifiers: a systematic mapping study. Context: Classifiers lack "
    "test oracles. Objective: To map the research on metamorphic testing applied to machine learning and deep "
    "learning classifiers. Method: We searched IEEE Xplore and Scopus to 2024. Results: Ninety studies were "
    "selected."
)


def test_a_term_two_blocks_share_stays_with_the_block_its_label_names():
    # the aim's "metamorphic testing applied to machine learning and deep learning classifiers" joined the
    # classifiers' terms to the technique's block: the technique must not be a mere alternative of them
    assert "metamorphic testing" in " ".join(terms(TECHNIQUE_ABSTRACT))
    assert not hits(TECHNIQUE_ABSTRACT, "Deep learning classifiers for skin lesion images")
    assert not hits(TECHNIQUE_ABSTRACT, "Machine learning classifiers for fraud detection")
    assert hits(TECHNIQUE_ABSTRACT, "Metamorphic testing of machine learning classifiers for image recognition")


# -- "The concept of X": the concept is what the review says of X, never a block ------------------------------

def test_the_word_concept_is_no_block():
    # on 06c0354 "The concept of X in Y" with an everyday X gave the query `concept` (every record saying it)
    for title in ("The concept of public trust in policing research: a scoping review",
                  "The concept of good work in occupational health research: a scoping review"):
        assert "concept" not in top_level_terms(title)
        assert not hits(title, "A new concept for wound dressing in burns")
    assert hits("The concept of public trust in policing research: a scoping review",
                "Public trust in the police after a high-profile shooting")
    title = "Conceptualisations of grit in music education: a scoping review"
    assert not any("conceptuali" in t for t in top_level_terms(title))
    assert hits(title, "Grit and practice time among conservatory music students in music education")


# -- "P's experiences of X": X as its people live it, never the people and the meta noun as one phrase -----------

def test_peoples_experiences_of_x_are_about_x():
    # on 06c0354 "midwives' experiences" was the main block (`(experi* AND midwi*)`, "midwife experience"): a study
    # of moral distress among midwives that never says "experience" was missed; with a background the distress
    # itself could leave the query
    title = "Midwives' experiences of moral distress: a qualitative evidence synthesis"
    assert hits(title, "Moral distress and coping among hospital midwives: an interview study")
    assert not any(t.startswith("experi") for t in top_level_terms(title))
    assert not hits(title, "Midwives' experiences of continuity of care models")


def test_only_people_before_the_possessive_are_moved():
    from agentr_dagster.llm.offline.concepts.blocks import _peoples_experiences_of

    # no people before the possessive: unchanged ("Moore's views of value"); a verb before them stays
    assert _peoples_experiences_of("Moore's views of public value") == "Moore's views of public value"
    assert _peoples_experiences_of("We asked the nurses' views of triage, and more") == \
        "We asked the views of triage among nurses, and more"


# -- "Drug dosing": the drug alone is the concept, as before "dose" or "therapy" --------------------------------

def test_a_drug_before_a_noun_of_how_it_is_given_stands_alone():
    # on 06c0354 the drug's only terms were the phrase (`"tobramycin dosing"`): "once-daily tobramycin" was missed
    title = "Tobramycin dosing in cystic fibrosis: a systematic review"
    assert hits(title, "Once-daily versus thrice-daily tobramycin in cystic fibrosis exacerbations")
    title = "Tinzaparin prophylaxis in pregnancy: a systematic review"
    assert hits(title, "Tinzaparin for the prevention of venous thromboembolism in pregnancy")
    # an everyday word before the noun is no drug: not alone
    assert "oxygen*" not in top_level_terms("Oxygen administration in preterm infants: a systematic review")


# -- a realist review's question: "How does X work, for whom and in what circumstances? A realist review" -------

REALIST_ABSTRACT = (
    "How does social prescribing work, for whom and in what circumstances? A realist review. Background: Link "
    "workers refer patients to community activities. Methods: We searched MEDLINE and Scopus to 2024 and built "
    "context-mechanism-outcome configurations. Results: Sixty documents were included."
)


def test_a_realist_question_asks_for_x_alone():
    # on 06c0354: `("social prescribing work" OR ... OR "prescribing work") AND circumstanc*`, or `realist` a
    # top-level alternative (every realist paper); the studies name social prescribing
    assert hits(REALIST_ABSTRACT, "Social prescribing and loneliness in older adults: a cohort study")
    assert not any("circumstanc" in t or "realist" in t or t.endswith(" work") for t in terms(REALIST_ABSTRACT))
    title = "How do peer support programmes work, for whom and in what circumstances? A realist review"
    assert not any("realist" in t or t.endswith(" work") for t in terms(title))
    assert not hits(title, "A realist evaluation of hospital discharge planning")


# -- a "-sion" noun of an act is searched with its verb: "lifespan extension" finds "X extends lifespan" ---------

def test_a_sion_noun_finds_its_verb():
    # on 06c0354 `"lifespan extension"` was one required phrase: "spermidine extends lifespan" was missed
    # (:func:`_process_noun` knows no "-sion" <- "-d"; "extens*" is no "extend")
    title = "Lifespan extension by spermidine in fruit flies: a systematic review"
    assert hits(title, "Dietary spermidine extends lifespan in Drosophila fruit flies")
    assert not hits(title, "Temperature and the lifespan of fruit flies")
    # a verb of every text is not searched beside its noun ("service provision": not provid*)
    assert not any(t.startswith("provid") for t in terms("Primary care service provision in rural areas"))


# -- "...: a review of correction experiments": the kind of studies gathered is no variant ---------------------

def test_experiments_are_a_kind_of_studies():
    # on 06c0354 "correction experiments" joined the misinformation's block (`"correction experiment(s)"`,
    # `"correctional experiment(s)"`), an alternative as broad as any correction experiment
    title = "Debunking climate misinformation: a systematic review of correction experiments"
    assert not any("experiment" in t for t in terms(title))
    assert hits(title, "Debunking climate misinformation with fact-checks: an online study")


# -- "X and Y in Z": who the studies are about after the pair leaves it two subjects ------------------------------

def test_x_and_y_in_animals_or_people_names_two_subjects():
    # on 06c0354 anything after Y kept the title one OR list: every study of bone density in rats was found
    title = "Probiotic supplementation and bone density in ovariectomized rats: a meta-analysis"
    assert not hits(title, "Bone density after ovariectomy in rats treated with zoledronic acid")
    assert hits(title, "Lactobacillus probiotic supplementation preserves bone density in ovariectomized rats")
    # a list of one kind stays a list ("anxiety and depression in adolescents")
    assert hits("Anxiety and depression in adolescents: a meta-analysis", "Depression among adolescents in Kenya")
