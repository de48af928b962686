"""Concept blocks, round 19 (helper h19g; invented texts): the genetic frame ("polymorphisms", "genetic variants",
"candidate gene studies") is never a term alone beside the gene or the condition it is studied for."""

from tests.unit.domain.concept_queries import hits as _hits
from tests.unit.domain.concept_queries import query as _query
from tests.unit.domain.concept_queries import top_level_terms as _top_level_terms

# 1. the genetic frame


def test_polymorphisms_in_a_named_gene_that_predict_a_condition_search_the_gene():
    question = "Which polymorphisms in the TPMT gene predict thiopurine toxicity?"
    assert "polymorphism*" not in _top_level_terms(question)
    assert _hits(question, "TPMT genotyping before azathioprine in inflammatory bowel disease")
    assert not _hits(question, "Polymorphisms of the vitamin D receptor and bone density")


def test_a_title_of_genetic_variants_of_a_condition_searches_the_condition():
    abstract = ("Genetic variants associated with restless legs syndrome: a systematic review of genome-wide "
                "association and candidate gene studies. Restless legs syndrome is a common sensorimotor disorder. "
                "We aimed to identify genetic loci associated with restless legs syndrome susceptibility.")
    query = _query(abstract)
    assert "candidate gene" not in query and "gene studies" not in query
    assert _hits(abstract, "A BTBD9 polymorphism and restless legs syndrome in a Nordic cohort")
    # the condition alone is every study of it: the frame stays AND-ed with it
    assert not _hits(abstract, "Dopamine agonists for restless legs syndrome: a randomised trial")
    assert not _hits(abstract, "Genetic variants of the MTHFR gene and neural tube defects")


def test_a_condition_listed_with_the_genetic_frame_is_a_block_of_its_own():
    abstract = ("Genetic polymorphisms and susceptibility to leprosy: a meta-analysis. We pooled case-control "
                "studies of candidate gene polymorphisms and leprosy.")
    assert _hits(abstract, "TLR1 variants and leprosy in Nepal")
    assert not _hits(abstract, "Polymorphisms of the vitamin D receptor and bone density")


def test_what_variants_are_in_is_a_subject_not_a_place():
    abstract = "Genetic variants in drug transporters: a systematic review of pharmacogenomic studies."
    assert _hits(abstract, "ABCB1 polymorphisms in drug transporters and digoxin levels")
    assert not _hits(abstract, "Rare variants in cardiomyopathy genes")


# 2. a list of outcomes beside the subject it repeats


def test_outcomes_listed_after_the_risk_of_the_subject_are_no_variants_of_it():
    abstract = ("Zinc status and severity of influenza: a systematic review and meta-analysis. Objective: To examine "
                "the association between serum zinc concentrations and the risk of severe influenza, hospital "
                "admission and mortality. Methods: We searched three databases.")
    assert _hits(abstract, "Low serum zinc in adults hospitalised with severe influenza")
    assert not _hits(abstract, "Serum zinc concentrations and mortality in nursing home residents")


def test_outcomes_an_effect_is_on_beside_the_subject_are_no_variants_of_it():
    abstract = ("Acupuncture for insomnia in cancer survivors: a meta-analysis of randomised trials. Aims: To "
                "estimate the effect of acupuncture compared with sham on insomnia, treatment satisfaction and adverse "
                "events. Methods: We searched four databases.")
    assert _hits(abstract, "Acupuncture versus sham for chronic insomnia: a randomised trial")
    assert not _hits(abstract, "Adverse events of acupuncture: a prospective survey")


def test_kinds_of_the_subject_listed_after_it_stay_its_alternatives():
    # a list may name kinds of the subject (Alzheimer's disease is a dementia): only outcome measures leave it
    abstract = ("Hearing loss and the risk of dementia: a meta-analysis. Objective: To examine the association "
                "between hearing loss and the risk of dementia, Alzheimer's disease and mortality.")
    assert _hits(abstract, "Hearing loss and incident Alzheimer's disease: a cohort study")
    assert not _hits(abstract, "Hearing loss and mortality in older adults")


def test_outcomes_beside_two_repeats_of_the_subject_are_no_variants_of_it():
    abstract = ("Yoga for anxiety in older adults: a meta-analysis. Aims: To estimate the effect of yoga on anxiety, "
                "anxious symptoms and quality of life. Methods: We searched three databases.")
    assert _hits(abstract, "Yoga and anxiety in community-dwelling older adults: a randomised trial")
    assert not _hits(abstract, "Yoga and quality of life after breast cancer")


# 3. a rare verb's "-ing" form acting on a noun phrase


def test_a_gerund_acting_on_a_noun_phrase_is_the_intervention_and_the_phrase_its_object():
    abstract = ("Nudging hand hygiene compliance in hospital staff: a systematic review of field experiments. Nudges "
                "such as reminders and defaults are cheap. We reviewed randomised field experiments testing nudges.")
    assert _hits(abstract, "Nudges to improve hand hygiene compliance: a stepped-wedge trial")
    assert not _hits(abstract, "Alcohol-based hand rub and hand hygiene compliance on surgical wards")


def test_tapering_a_drug_class_is_no_study_of_the_class_alone():
    abstract = ("Tapering benzodiazepines in older adults: a systematic review. We reviewed trials of tapering "
                "schedules in people aged 65 years or older.")
    assert _hits(abstract, "Gradual benzodiazepine tapering in primary care: a randomised trial")
    assert not _hits(abstract, "Benzodiazepine use and falls in older adults: a cohort study")


# 4. what differences are in is a subject, not a setting


def test_what_sex_differences_are_in_is_a_subject_of_the_title():
    abstract = ("Sex differences in spatial memory in rodents: a systematic review and meta-analysis. We reviewed "
                "studies of the Morris water maze that included males and females.")
    assert _hits(abstract, "Sex differences in spatial memory in the water maze in adult rats")
    assert not _hits(abstract, "Sex differences in voluntary alcohol intake in mice")


def test_what_disparities_are_in_is_a_subject_of_the_title():
    abstract = "Ethnic disparities in access to kidney transplantation in the United States: a systematic review."
    assert _hits(abstract, "Racial and ethnic disparities in kidney transplantation waitlisting")
    assert not _hits(abstract, "Ethnic disparities in breast cancer screening uptake")
