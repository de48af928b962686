"""Round 20 (helper h20s): judge-style questions outside medicine (software engineering, education, public
administration, health communication, nutrition, genetics, methodology, social science). Invented texts only."""

from agentr_dagster.domain.specificity import general_zipf
from tests.unit.domain.concept_queries import hits, query, terms, top_level_terms

# -- a relative clause's verb opens no concept's phrase ------------------------------------------------------------

TRANSPARENCY = (
    "What is the relationship between budget transparency and citizens' trust in municipalities? Include "
    "quantitative studies (surveys, panel data) that measure budget transparency and trust in local "
    "government."
)
BUG_LOCALISATION = (
    "Which bug localisation techniques use information retrieval? Include studies that train bug "
    "localisation models on bug reports."
)
INOCULATION = (
    "To what extent do inoculation videos protect voters against election misinformation? Include "
    "experiments that expose participants to an inoculation or prebunking video before misinformation "
    "about elections."
)


def test_the_verb_after_studies_that_is_no_word_of_the_concept():
    assert not [t for t in terms(TRANSPARENCY) if t.startswith("measure")]
    assert "budget transparency" in terms(TRANSPARENCY)


def test_the_verb_after_a_gloss_in_brackets_too():
    assert not [t for t in top_level_terms(TRANSPARENCY) if "measure" in t]


def test_a_noun_verb_after_that_opens_no_phrase():
    assert not [t for t in terms(BUG_LOCALISATION) if t.startswith("train")]
    assert "bug localisation" in terms(BUG_LOCALISATION)


def test_who_a_relative_verb_acts_on_is_no_variant_of_the_concept():
    # "expose participants" was a top-level alternative; read as a verb, "participants" alone must not become one
    top = top_level_terms(INOCULATION)
    assert not [t for t in top if "participant" in t or "expose" in t]
    assert "inocul*" in top
    assert not hits(INOCULATION, "Participants were exposed to three labels in a supermarket experiment.")


def test_a_word_of_the_joined_run_stays():
    text = (
        "Which methods detect measurement non-invariance across countries? Include simulation studies that "
        "compare approaches for detecting non-invariance."
    )
    assert "non-invariance" in terms(text)


# -- a compound opened by a letter ("e-government") -----------------------------------------------------------------


def test_general_english_counts_a_letter_compound_as_itself():
    # wordfreq combined "e" and "government": as common as "government"
    assert general_zipf("e-government") < 3.0
    assert general_zipf("email") > 4.0


def test_a_letter_compound_before_an_everyday_head_is_a_term_alone():
    text = "Which factors determine the adoption of e-government services by small firms?"
    assert hits(text, "Explaining e-government adoption: a survey of 300 small firms")
    assert hits(
        "Do m-health apps improve medication adherence in heart failure?",
        "A randomised trial of an m-health intervention for adherence",
    )


def test_a_letter_compound_is_never_spaced():
    # a term is matched as a substring: "e learning platform" sits inside "the learning platform"
    text = "Which barriers hinder the use of e-learning platforms by rural nurses?"
    assert not [t for t in terms(text) if t.startswith("e learning")]
    assert not hits(text, "We describe the learning platform of a retail bank.")
    assert "e-learning" in query(text)


# -- "X versus Y <modifiers> noun": the compared modifiers share the whole noun phrase --------------------------------


def test_compared_modifiers_share_a_noun_after_another_modifier():
    # "online" is no noun: "synchronous" alone was a side word and the outcome ("pass rates") the main block
    text = "How does synchronous versus asynchronous online tutoring affect pass rates in distance mathematics courses?"
    top = top_level_terms(text)
    assert "online tutoring" in top
    assert "pass rate" not in top


# -- a verb and its object pronoun ("fix them") name no concept ----------------------------------------------------


def test_a_verb_and_its_object_pronoun_are_no_required_block():
    text = (
        "What are the root causes of configuration drift in cloud deployments and which techniques have been "
        "proposed to detect or repair them?"
    )
    assert not [t for t in terms(text) if t.endswith(" them")]
    assert hits(text, "Root causes of drift in cloud deployments: an interview study")


# -- what a belief is "in" is a subject, not a place --------------------------------------------------------------


def test_what_a_belief_is_in_is_the_subject_a_generic_doer_pairs_with():
    # `correct*` was paired with `belief*` (the next block), so every branch required the word "belief"
    text = "Do corrections reduce belief in false nutrition claims on video platforms?"
    assert hits(text, "Correcting false nutrition claims: a randomised online experiment")
    assert not hits(text, "Correct beliefs about vaccines among nurses")


# -- "X outcomes" in an eligibility sentence is what is measured, no variant ----------------------------------------


def test_an_outcome_of_a_shared_word_joins_no_block():
    text = (
        "Does flipped classroom teaching improve exam pass rates in undergraduate chemistry? Include controlled "
        "studies of flipped classroom courses reporting attendance, satisfaction or classroom outcomes."
    )
    top = top_level_terms(text)
    assert "flipped classroom" in top
    assert not [t for t in top if t.startswith("classroom")]


# -- an eligibility sentence's "-ing" verb after a plural noun ----------------------------------------------------


def test_what_a_plural_nouns_gerund_reports_is_no_variant():
    # "courses reporting attendance": "reporting" is a noun too, so the phrase ran on and `attendanc*` joined
    text = (
        "Does flipped classroom teaching improve exam pass rates in undergraduate chemistry? Include controlled "
        "studies of flipped classroom courses reporting attendance or satisfaction."
    )
    top = top_level_terms(text)
    assert "flipped classroom" in top
    assert not [t for t in top if t.startswith("attend")]


def test_a_questions_plural_modifier_before_a_gerund_stays_a_compound():
    text = "Do sports training programmes reduce injuries in adolescent athletes?"
    assert "sports training" in top_level_terms(text)


# -- American "-llment" and British "-lment" -------------------------------------------------------------------------


def test_a_british_lment_word_is_also_searched_in_american_spelling():
    text = "Does automatic enrolment raise participation in occupational savings plans among low-wage workers?"
    assert hits(text, "Automatic enrollment and savings plan participation among low-wage workers")
    assert "ellement" not in " ".join(terms("Which design elements of enrolment forms reduce errors?"))


# -- British "-lling" / American "-ling" --------------------------------------------------------------------------


def test_a_british_doubled_l_is_also_searched_single():
    text = "Does school-based counselling reduce truancy among secondary pupils?"
    assert hits(text, "School-based counseling: a randomised trial in secondary schools")
    assert hits(
        "How has multilevel modelling been applied to classroom observation data?",
        "Multilevel modeling of teacher effects",
    )


def test_a_doubled_l_after_one_vowel_is_no_british_spelling():
    # "filled" is no "filed", "controlled" has no English "controled"
    text = "Are pre-filled syringes safer than vials in controlled trials of home injection?"
    assert not [t for t in terms(text) if "filed" in t or "controled" in t]
