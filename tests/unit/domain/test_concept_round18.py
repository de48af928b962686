"""Concept blocks, round 18 (invented questions from psychology, nutrition, genetics, nursing and software
engineering): the frame of a question relating two subjects names no concept, a British stem is as broad as its
American spelling, and a phrase's parts keep its rarest leading word."""

from agentr_dagster.llm.offline.concepts import extract_concepts
from tests.unit.domain.concept_queries import hits as _hits
from tests.unit.domain.concept_queries import terms as _terms
from tests.unit.domain.concept_queries import top_level_terms as _top_level_terms


def test_the_frame_of_a_relation_names_no_concept():
    question = "What is the relationship between sleep duration and working memory in adolescents?"
    assert not any("relationship" in t for t in _terms(question))
    # the frame's word was AND-ed into the second subject's branch, which then missed its studies
    assert _hits(question, "Working memory capacity in adolescents: a longitudinal study")


def test_a_risk_factor_frame_names_no_concept():
    question = "Is loneliness a risk factor for cognitive decline in older adults?"
    assert "risk factor" not in " ".join(_terms(question))
    assert _hits(question, "Loneliness and cognitive decline in a population-based cohort of older people")
    assert not _hits(question, "Risk factors for hip fracture in younger women")


def test_a_gene_is_named_by_its_symbol_not_by_its_variants():
    question = "Are variants in the APOE gene associated with the rate of cognitive decline after stroke?"
    assert "apoe" in _terms(question)
    # never alone (round 24: the trait's branch is its genetic studies, ``(... AND (variant* OR ...))``)
    assert "variant*" not in _top_level_terms(question)
    assert not _hits(question, "Genetic variants of the MTHFR gene and neural tube defects")


def test_a_degree_word_of_the_related_outcome_is_not_required():
    question = "Is mindfulness training associated with lower stress in health care workers?"
    assert _hits(question, "Occupational stress and burnout among health care workers: a survey")
    assert 'lower stress' not in _terms(question)


def test_a_british_stem_is_as_broad_as_its_american_spelling():
    question = "How effective is cognitive behavioural therapy for insomnia in patients with chronic pain?"
    assert not _hits(question, "Behaviour problems of preschool children in day care")
    assert _hits(question, "Cognitive behavioural therapy for insomnia delivered online: a randomised trial")
    # a rare class adjective still stands alone ("antipsychotic drugs" -> antipsychotic*)
    assert _hits("What are the harms of antipsychotic drugs in older people with dementia?",
                 "Antipsychotics and mortality in nursing home residents")


def test_a_phrase_part_keeps_its_rarest_leading_word():
    question = "What is the association between dietary fibre intake and colorectal cancer risk?"
    assert 'cancer risk' not in _terms(question)
    assert _hits(question, "Dietary fiber intake and colorectal cancer: a prospective cohort")
    assert not _hits(question, "Alcohol consumption and breast cancer risk")
    icu = extract_concepts("What are the experiences of nurses caring for dying patients in intensive care units?")
    assert not any(t.strip('"').startswith("care unit") for b in icu.blocks for t in b.terms)
    # a degree word in front leaves the rest a concept ("acute low back pain": "back pain")
    assert _hits("Are muscle relaxants effective for acute low back pain compared with placebo?",
                 "Muscle relaxants for back pain: a randomised trial")


def test_a_title_pair_repeated_by_the_aim_is_two_concepts_when_an_adjective_opens_the_second():
    text = ("Ketogenic diet and cognitive decline: a systematic review. We reviewed prospective studies of a "
            "ketogenic diet and cognitive decline in adults.")
    assert not any(" and " in t for t in _terms(text))
    # the two are both the review's subjects (round 26: a title of two phrases joined by "and" requires both)
    assert _hits(text, "A ketogenic diet in adults with epilepsy: slower cognitive decline")
    # a name said twice stays one phrase ("acceptance and commitment therapy")
    named = ("Acceptance and commitment therapy for chronic pain: a meta-analysis. We reviewed trials of "
             "acceptance and commitment therapy.")
    assert "acceptance and commitment therapy" in _terms(named)


def test_individual_participant_data_is_the_review_s_method():
    text = ("Vitamin K supplementation to prevent fractures: a meta-analysis of individual participant data. We "
            "included randomised placebo-controlled trials of vitamin K supplementation.")
    assert not any("participant" in t for t in _terms(text))


def test_a_rare_word_joined_to_a_participle_of_means_names_the_concept():
    text = ("Ketamine-assisted psychotherapy for alcohol use disorder: a systematic review. We reviewed trials of "
            "ketamine given with psychological support to adults with alcohol use disorder.")
    assert _hits(text, "Ketamine and motivational enhancement therapy for alcohol use disorder: a pilot trial")
    # a participle of cause leaves the concept with its head ("NSAID-associated ulcers" are ulcers)
    assert "nsaid*" not in _terms("What is the efficacy of proton pump inhibitors for NSAID-associated ulcers?")


def test_a_study_design_is_no_term_of_a_concept():
    question = ("Do acute doses of psilocybin reduce anxiety in patients with life-threatening cancer? Include "
                "randomised trials reporting anxiety scores.")
    assert not any("trial" in t for t in _terms(question))


def test_which_techniques_names_no_concept_alone():
    question = ("Which techniques have been proposed for the automated generation of unit tests for Java programs, "
                "and how were they evaluated?")
    assert not any(t.startswith("techniqu") for t in _terms(question))
    assert not _hits(question, "A machine learning technique for detecting pneumonia in chest radiographs")


def test_women_living_with_a_condition_are_women():
    question = ("How do protease inhibitors alter the pharmacokinetics of hormonal contraceptives in women living "
                "with HIV?")
    assert 'women living' not in _terms(question)


def test_an_age_range_is_no_term():
    question = ("What is the effect of school-based nutrition education on fruit intake among children aged 6 to 12 "
                "years?")
    assert not any(any(ch.isdigit() for ch in t) for t in _terms(question))


def test_the_doer_of_an_effect_verb_is_the_main_block_past_its_comparator():
    question = ("In adults with chronic low back pain, does yoga compared with usual care reduce pain and "
                "disability?")
    assert _hits(question, "Yoga for chronic low back pain: a randomised trial")
    assert not _hits(question, "Work disability after spinal fusion surgery")


def test_a_measure_closing_a_phrase_is_no_part_of_its_subject():
    text = ("Gaming disorder prevalence in adolescents: a systematic review and meta-analysis. We aimed to "
            "estimate its prevalence among adolescents.")
    assert not any(t.startswith("preval") or "prevalence" in t for t in _terms(text))
    assert not _hits(text, "Prevalence of hypertension in rural adolescents")


def test_a_design_phrase_of_the_aim_is_no_variant_of_the_condition():
    text = ("Comparing experimental design of animal and human ketoprofen studies for osteoarthritis: a systematic "
            "review. This paper describes a systematic review of ketoprofen for osteoarthritis, comparing trial "
            "design between 40 animal and 90 human studies.")
    assert not any("design" in t for t in _terms(text))


def test_a_noun_after_an_adjective_is_no_verb():
    question = "How are serious games used in nursing education?"
    assert _hits(question, "Serious games for teaching clinical reasoning: a pilot study")


def test_where_the_studies_are_is_no_alternative_of_its_own():
    question = "What is known about the use of chatbots in mental health care?"
    assert _hits(question, "A chatbot for depression in young adults: a randomised trial")
    assert not _hits(question, "Waiting times in mental health care services")
    # a gene named "in the X gene" is no place: it stays beside the condition
    assert _hits("Which polymorphisms in the HFE gene are associated with iron overload?",
                 "The HFE C282Y polymorphism and serum ferritin in blood donors")


def test_the_field_of_a_review_of_reviews_stays_an_alternative():
    text = ("Systematic literature reviews in nursing education: a tertiary study. We collected the systematic "
            "reviews published on nursing education and mapped their topics.")
    assert _hits(text, "Simulation-based learning in nursing education: an overview of the evidence")


def test_a_supplementation_is_no_supplement_alone():
    question = "Is vitamin D supplementation associated with reduced risk of respiratory infections?"
    assert "supplement*" not in _terms(question)
    assert not _hits(question, "Calcium supplements and fracture risk in older women")
    assert _hits(question, "Vitamin D and influenza in schoolchildren: a randomised trial")
