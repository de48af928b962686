"""Round 21 (helper h21a): published-style structured abstracts of reviews in fields outside the shared reviews'
(preclinical research, software engineering, education, psychology, public administration, genetics, nutrition,
environmental health, health communication, nursing). Invented texts only."""

from tests.unit.domain.concept_queries import hits, terms, top_level_terms

# -- a pair of words cut before a number names nothing ("incident type" of "incident type 2 diabetes") -------------

GOUT_ABSTRACT = (
    "Sugar-sweetened beverages and incident type 2 diabetes in women: a meta-analysis. Objective: To quantify the "
    "association between sugar-sweetened beverage intake and incident type 2 diabetes in women. Methods: We "
    "searched MEDLINE and Embase up to 2021 for prospective cohort studies. Results: Eleven cohorts were included "
    "(RR 1.21, 95% CI 1.10-1.33). Conclusions: Sugar-sweetened beverage intake is associated with incident type 2 "
    "diabetes."
)


def test_a_pair_closed_by_the_word_a_number_tells_is_no_term():
    found = terms(GOUT_ABSTRACT)
    assert "incident type" not in found
    assert "type 2 diabetes" in found


# -- a modal auxiliary and its verb are the predicate, no part of a phrase -----------------------------------------

STORYTELLING_ABSTRACT = (
    "Digital storytelling and student motivation in secondary history education: a systematic review. Objective: "
    "To review empirical evidence on the effects of digital storytelling on motivation and learning outcomes in "
    "secondary school history. Methods: ERIC and Scopus were searched to 2022. Results: Twenty studies were "
    "included. Conclusions: Digital storytelling can increase motivation in secondary history, but its effects on "
    "historical reasoning remain uncertain."
)


def test_a_verb_after_a_modal_opens_no_phrase():
    found = terms(STORYTELLING_ABSTRACT)
    assert not [t for t in found if "can " in t or t.startswith("increase")]
    assert "digital storytelling" in found and "student motivation" in found


# -- "X and Y Z" said twice is no fixed name when "Y Z" is also said alone ------------------------------------------

INHALER_ABSTRACT = (
    "Pharmacist-led counselling and inhaler technique in asthma: a systematic review. Objective: To evaluate the "
    "effect of pharmacist-led counselling on inhaler technique and symptom control in adults with asthma. Methods: "
    "We searched MEDLINE and CINAHL to 2022. Results: Twelve trials were included; counselling improved inhaler "
    "technique (OR 2.1) and symptom control. Poor symptom control was common at baseline. Conclusions: "
    "Pharmacist-led counselling improves inhaler technique and symptom control in asthma."
)


def test_a_coordination_whose_second_phrase_stands_alone_is_two_concepts():
    found = terms(INHALER_ABSTRACT)
    assert not [t for t in found if " and " in t]
    assert "inhaler technique" in found


def test_a_fixed_name_said_twice_stays_one_phrase():
    text = ("Acceptance and commitment therapy for chronic pain: a meta-analysis. Objective: To assess acceptance "
            "and commitment therapy in adults with chronic pain. Conclusions: Acceptance and commitment therapy "
            "reduces pain interference.")
    assert "acceptance and commitment therapy" in terms(text)


# -- "A and B, C and D": A and a list of another concept ------------------------------------------------------------

SHIFT_WORK_ABSTRACT = (
    "Shift work and metabolic health: a systematic review and meta-analysis. Objectives: To synthesise the "
    "epidemiological evidence on rotating night shift work and obesity, dyslipidaemia and insulin resistance. "
    "Methods: We searched PubMed and Embase to 2022 for cohort studies. Results: Thirty studies were included; "
    "night shift work was associated with obesity (OR 1.3). Conclusions: Night shift work is associated with "
    "adverse metabolic health."
)


def test_a_pair_before_a_list_is_no_list_of_variants():
    found = top_level_terms(SHIFT_WORK_ABSTRACT)
    assert "obesit*" not in found and "dyslipidaemia*" not in found
    assert "shift work" in terms(SHIFT_WORK_ABSTRACT)


def test_a_plain_list_stays_one_concept():
    text = ("Mindfulness for anxiety: a systematic review. Objectives: To review the effects of mindfulness on "
            "anxiety, worry, rumination and stress in university students.")
    found = terms(text)
    assert "rumin*" in found and "worry*" in found


# -- the animals studied are a filter, no variant of another concept ------------------------------------------------

FASTING_ABSTRACT = (
    "Intermittent fasting and cognitive ageing: a meta-analysis of rodent studies. Objective: To quantify the effect "
    "of intermittent fasting on spatial memory in ageing rodents. Methods: PubMed and Embase were searched to 2022. "
    "Results: Forty studies were included (SMD 0.51). Conclusions: Intermittent fasting improves spatial memory in "
    "aged rodents."
)
MYELINATION_ABSTRACT = (
    "Exercise and adult myelination: a systematic review. Objective: To review the effect of treadmill exercise on "
    "adult myelination in the corpus callosum of adult rodents. Methods: Embase was searched to 2022. Results: "
    "Thirty studies were included. Conclusions: Exercise increases adult myelination."
)


def test_the_animals_of_a_subtitle_filter_the_query():
    assert "rodent*" not in top_level_terms(FASTING_ABSTRACT)
    assert "rats" in terms(FASTING_ABSTRACT)


def test_the_animals_join_no_concept_by_a_shared_modifier():
    # "adult rodents" joined "adult myelination" by "adult": an alternative of the subject
    assert not [t for t in terms(MYELINATION_ABSTRACT) if t.startswith("adult rodent")]
    assert "adult myelination" in terms(MYELINATION_ABSTRACT)


def test_a_title_pair_before_the_animals_studied_is_two_subjects():
    # "X and Y: a meta-analysis of rodent studies": the aim relates X to Y, the animals are no further concept
    assert not hits(FASTING_ABSTRACT, "Intermittent fasting improves insulin sensitivity in obese rats")
    assert hits(FASTING_ABSTRACT, "Alternate-day intermittent fasting and cognitive ageing in aged mice")


# -- an acronym that spells a common word is no term ----------------------------------------------------------------

CAREGIVER_ABSTRACT = (
    "Telephone support programmes for family caregivers of people with dementia: a systematic review. Objective: To "
    "review telephone support programmes (such as CARE or REACH) for family caregivers of people with dementia. "
    "Methods: PsycINFO was searched to 2022. Results: Twelve trials were included. Conclusions: Telephone support "
    "reduces caregiver burden."
)


def test_an_acronym_spelling_an_everyday_word_is_no_term():
    # the matcher ignores case: CARE is every record that says "care"
    assert not hits(CAREGIVER_ABSTRACT, "Quality of care in nursing homes")
    assert "telephone support" in terms(CAREGIVER_ABSTRACT)


def test_an_everyday_acronym_is_no_term_where_the_background_seldom_says_it():
    def background(term: str) -> float:
        return 0.0001  # a background of another field: "care" seldom there

    assert not hits(CAREGIVER_ABSTRACT, "Quality of care in nursing homes", background)


# -- "studies testing X": the study nouns' verb; "X as a mediator": X is no modifier of a meta word ------------------

COMPASSION_ABSTRACT = (
    "Self-compassion as a mediator between perfectionism and burnout: a meta-analysis. Aims: To synthesise studies "
    "testing self-compassion as a mediator of the association between perfectionism and burnout. Method: PsycINFO "
    "and Scopus were searched to 2023. Results: Twenty-two studies were included (r = 0.31). Conclusions: "
    "Self-compassion partly explains the link between perfectionism and burnout."
)


def test_an_ing_form_after_studies_opens_no_phrase():
    assert not [t for t in terms(COMPASSION_ABSTRACT) if t.startswith("testing")]


def test_a_subject_before_as_a_role_keeps_its_terms():
    title = "Self-compassion as a mediator between perfectionism and burnout: a meta-analysis."
    assert "self-compassion" in terms(title)


# -- the role a concept plays ("as predictors") and the property appraised ("prognostic performance") ---------------

FRAILTY_ABSTRACT = (
    "Frailty scales in patients undergoing cardiac surgery: a systematic review of prognostic performance. "
    "Objective: To assess frailty scales as predictors of mortality after cardiac surgery. Methods: MEDLINE and "
    "Embase were searched to 2022. Results: Twenty studies were included; C statistics ranged from 0.60 to 0.75. "
    "Conclusions: Frailty scales modestly predict mortality after cardiac surgery."
)


def test_a_role_after_as_is_no_variant():
    assert "predictor*" not in terms(FRAILTY_ABSTRACT)
    assert "mediator*" not in terms(COMPASSION_ABSTRACT)


def test_the_property_a_review_appraises_is_no_subject():
    assert not [t for t in terms(FRAILTY_ABSTRACT) if "performance" in t]
    assert hits(FRAILTY_ABSTRACT, "The Clinical Frailty Scale and one-year mortality after cardiac surgery")


# -- a title's "X and Y" related by the aim, past a coordination inside Y --------------------------------------------

DESK_ABSTRACT = (
    "Sit-stand desks and sitting and standing time in office workers: a systematic review. Objective: To evaluate "
    "the effectiveness of sit-stand desks in reducing sitting time among office workers. Methods: MEDLINE and "
    "SPORTDiscus were searched to 2022. Eligibility criteria: Controlled trials of sit-stand desks with a measure of "
    "workers' sitting or standing time. Results: Fifteen trials were included; desks reduced sitting time by 80 "
    "minutes per day. Conclusions: Sit-stand desks reduce sitting time at work."
)


def test_a_title_pair_is_two_subjects_when_its_second_holds_a_coordination():
    assert not hits(DESK_ABSTRACT, "Prolonged standing time and varicose veins in retail staff")
    assert hits(DESK_ABSTRACT, "Sit-stand desks and sitting time in call-centre staff: a cluster trial")


# -- an effect verb after its subject; the review's sources; "the relationship between X and Y" ----------------------

SMOKE_ABSTRACT = (
    "Wildfire smoke and emergency hospital admissions in older adults: a systematic review. Objectives: To quantify "
    "the effect of wildfire smoke on emergency hospital admissions among adults aged 65 years and older. Methods: "
    "MEDLINE and GreenFILE were searched to 2022. Results: Twenty studies were included. Smoke episodes increased "
    "all-cause emergency admissions (RR 1.05). Conclusions: Wildfire smoke increases emergency hospital admissions "
    "in older adults."
)
BLADDER_ABSTRACT = (
    "Bladder training for urinary incontinence in women: a Cochrane review. Objectives: To determine the effects of "
    "bladder training for urinary incontinence in adult women. Search methods: We searched the Cochrane Incontinence "
    "Specialised Register to 2022. Selection criteria: Randomised trials of bladder training in women with urinary "
    "incontinence. Main results: We included 14 trials. Authors' conclusions: Bladder training may improve urinary "
    "incontinence."
)
PAIR_PROGRAMMING_ABSTRACT = (
    "Pair programming and defect rates in student projects: a systematic review. Objective: To synthesise studies on "
    "the relationship between pair programming and defects in student code. Methods: We searched Scopus and the ACM "
    "Digital Library to 2022. Results: Twenty studies were included. Conclusions: Pair programming is linked to "
    "fewer defects."
)


def test_an_effect_verb_after_its_subject_opens_no_phrase():
    assert not [t for t in terms(SMOKE_ABSTRACT) if t.startswith(("increase", "increased"))]
    assert "wildfire smoke" in terms(SMOKE_ABSTRACT)


def test_a_register_searched_names_no_kind():
    assert not [t for t in terms(BLADDER_ABSTRACT) if "cochrane" in t]


def test_the_relationship_between_x_and_y_relates_a_title_pair():
    assert not hits(PAIR_PROGRAMMING_ABSTRACT, "Defect rates of student projects in a capstone course")
    assert hits(PAIR_PROGRAMMING_ABSTRACT, "Pair programming and defect rates in an introductory course")


# -- what a review gathers (benchmarks, datasets) and a purpose's infinitive ----------------------------------------

TEST_GENERATION_ABSTRACT = (
    "Automated test generation: a systematic literature review of benchmarks and datasets. Automated test generation "
    "tools aim to detect software faults without manual test writing. We reviewed 96 papers published between 2010 "
    "and 2022 in software engineering venues to examine which benchmarks are used. Defects4J and SF110 were the most "
    "used benchmarks. We recommend shared evaluation datasets."
)


def test_the_benchmarks_a_review_gathers_are_no_subject():
    assert "benchmark*" not in terms(TEST_GENERATION_ABSTRACT)
    assert "dataset*" not in terms(TEST_GENERATION_ABSTRACT)


def test_a_purpose_infinitive_opens_no_phrase():
    assert not [t for t in terms(TEST_GENERATION_ABSTRACT) if "aim" in t.split()]
    assert "automated test generation" in terms(TEST_GENERATION_ABSTRACT)
