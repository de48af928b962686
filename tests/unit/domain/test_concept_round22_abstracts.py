"""Round 22 (helper h22b): published-style structured abstracts of review kinds not yet covered (diagnostic
accuracy, prognostic factors and models, qualitative syntheses, scoping reviews, network meta-analyses, umbrella
reviews) and what round 21 left on abstracts. Invented texts only."""

from tests.unit.domain.concept_queries import hits, terms, top_level_terms

# -- a noun that can be a verb, before a preposition the lexicon also calls an adjective, is no verb ---------------

BLEEDING_ABSTRACT = (
    "Brain haemorrhage after thrombolysis for pulmonary embolism: a systematic review. Background: Brain "
    "haemorrhage is the most feared complication of thrombolysis. Objective: To estimate how often brain "
    "haemorrhage follows thrombolysis for pulmonary embolism. Methods: MEDLINE and Embase were searched to 2022 for "
    "cohort studies. Results: Eighteen cohorts were included. Conclusions: Brain haemorrhage after thrombolysis is "
    "uncommon."
)
FRACTURE_ABSTRACT = (
    "Stress fracture after marathon training: a systematic review. Background: Runners preparing for a marathon "
    "often report bone pain. Objective: To estimate the incidence of stress fracture in marathon training. Methods: "
    "SPORTDiscus and MEDLINE were searched to 2023. Results: Twelve cohorts were included. Conclusions: Stress "
    "fracture is common in novice marathon runners."
)


def test_a_noun_before_after_keeps_its_phrase():
    found = terms(BLEEDING_ABSTRACT)
    assert "brain haemorrhage" in found and "brain*" not in found
    assert not hits(BLEEDING_ABSTRACT, "Brain perfusion after thrombolysis for pulmonary embolism")
    assert "stress fracture" in terms(FRACTURE_ABSTRACT)
    assert "stres*" not in top_level_terms(FRACTURE_ABSTRACT)


# -- "Risk factors for Y": Y is the main block, the frame names no concept -----------------------------------------

FALLS_ABSTRACT = (
    "Risk factors for falls in community-dwelling people with Parkinson's disease: a systematic review. "
    "Background: Falls are frequent in Parkinson's disease. Objective: To identify risk factors for falls in "
    "community-dwelling people with Parkinson's disease. Methods: MEDLINE, CINAHL and Embase were searched to 2023 "
    "for prospective cohort studies. Results: Twenty-two cohorts were included; freezing of gait and previous falls "
    "predicted future falls. Conclusions: Fall prevention should target people who freeze."
)


def test_risk_factors_for_y_needs_no_risk_factor_words():
    assert "risk factor" not in terms(FALLS_ABSTRACT) and "risk factors" not in terms(FALLS_ABSTRACT)
    assert hits(FALLS_ABSTRACT, "Freezing of gait predicts falls in Parkinson's disease: a prospective cohort")


def test_risk_factors_for_y_keeps_y_required():
    assert not hits(FALLS_ABSTRACT, "Modifiable risk factors in Parkinson's disease: a cohort study")


# -- "A versus B H" whose abstract never says "A H": the block takes A with the compared "B H" ---------------------

COMPARED_ABSTRACT = (
    "Narrative versus statistical evidence in sunscreen promotion: a meta-analysis. Background: Skin cancer "
    "campaigns can tell stories of patients or report figures. Methods: We searched PsycINFO and PubMed for "
    "experiments that compared narrative with statistical evidence in sunscreen promotion. Results: Forty "
    "experiments were included; narrative and statistical evidence did not differ in their effect on sunscreen "
    "intentions. Conclusions: Stories and figures persuade equally."
)


def test_a_compared_phrase_never_said_still_finds_its_own_abstract():
    assert hits(COMPARED_ABSTRACT, COMPARED_ABSTRACT)
    assert hits(COMPARED_ABSTRACT, "Patient narratives and statistical evidence in skin cancer prevention messages")
    assert not hits(COMPARED_ABSTRACT, "A narrative review of sunscreen use in adolescents")


# -- in a review of a test's accuracy, what the test is used for is no concept ---------------------------------------

ACCURACY_ABSTRACT = (
    "Serum procalcitonin for distinguishing bacterial meningitis from viral meningitis: a diagnostic test accuracy "
    "meta-analysis. Background: Telling bacterial from viral meningitis early guides antibiotic use. Methods: We "
    "searched MEDLINE and Embase to 2023 for studies reporting serum procalcitonin against cerebrospinal fluid "
    "culture. Results: Twenty-two studies were included; sensitivity was 0.90 and specificity 0.88. Conclusions: "
    "Serum procalcitonin helps clinicians in suspected meningitis."
)


def test_what_a_test_is_used_for_is_not_required_of_its_accuracy_studies():
    assert "distinguish*" not in terms(ACCURACY_ABSTRACT)
    assert hits(ACCURACY_ABSTRACT, "Serum procalcitonin in children with bacterial meningitis: a prospective cohort")
