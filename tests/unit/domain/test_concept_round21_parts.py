"""Concept blocks, round 21 (helper h21b: questions in the judge's style on what round 20 left): a thing a treatment
uses is no name of the treatment alone, the field an aspect of studies is measured in is AND-ed with it, ..."""

from tests.unit.domain.concept_queries import hits as _hits
from tests.unit.domain.concept_queries import query as _query
from tests.unit.domain.concept_queries import terms as _terms
from tests.unit.domain.concept_queries import top_level_terms as _top_level_terms


def test_a_counted_thing_before_therapy_is_no_term_alone():
    # "neutron therapy" searched neutron alone (every neutron star, neutron scattering study)
    question = "Is neutron therapy safe for adults with salivary gland tumours?"
    assert "neutron" not in _top_level_terms(question)
    assert not _hits(question, "Neutron scattering reveals the structure of lipid membranes")
    assert _hits(question, "Fast neutron therapy for salivary gland carcinoma: late effects")
    # "mirror therapy": mirror* alone is every mirror study; a practice named by its noun stays alone
    assert not _hits("Is mirror therapy effective for pain after stroke?", "Mirror neurons and empathy")
    # (the effect frame ANDs what X is for since round 23: mindful* stands alone in its block, no pair)
    mindfulness = _query("Are mindfulness interventions effective for anxiety in pilots?").casefold()
    assert "mindful*" in mindfulness and "(mindful* and" not in mindfulness


def test_a_word_of_every_field_before_therapy_is_no_term_alone():
    # "exposure therapy": exposur* alone is every exposure study (air pollution, radiation, drugs)
    question = "Is exposure therapy effective for spider phobia in children?"
    assert not _hits(question, "Exposure to air pollution and asthma in children")
    assert _hits(question, "One-session exposure therapy for spider phobia")


def test_the_field_an_aspect_of_studies_is_measured_in_is_anded_with_it():
    # "What is the robustness of trials in X": the field was optional and left out (the aspect alone: every field)
    question = (
        "What is the statistical fragility of randomised trials in shoulder arthroplasty? Include randomised "
        "trials with a dichotomous primary outcome. Exclude pilot trials."
    )
    assert not _hits(question, "The fragility index of randomised trials in critical care medicine")
    assert not _hits(question, "Shoulder arthroplasty outcomes in a national registry")
    assert _hits(question, "Statistical fragility of randomised controlled trials in shoulder arthroplasty")
    question = "What is the replicability of experiments in computational linguistics?"
    assert "replicabil*" not in _top_level_terms(question)
    assert _query(question).count(" AND ") >= 1


def test_an_eligibility_item_broader_than_its_block_adds_no_variant():
    # "Include trials in children ..." joined "stunted children" and brought pediatric*, infant* (every child)
    question = (
        "Does zinc supplementation improve growth in stunted children? Include randomised trials in children "
        "under five that report height-for-age."
    )
    assert not any(t.startswith(("pediatric", "paediatric", "infant")) for t in _terms(question))


def test_an_eligibility_items_part_without_the_blocks_word_is_no_variant():
    # "... or combined strength and balance exercise programmes" joined "balance training" with "exercise
    # programme" (every exercise programme)
    question = (
        "Does balance training prevent falls in older adults? Include randomised trials of group balance or "
        "combined strength and balance exercise programmes that report falls."
    )
    assert not any(t.startswith("exercise program") for t in _top_level_terms(question))
    assert not _hits(question, "A home exercise programme for adults after knee replacement")
    assert _hits(question, "Balance exercise programmes for older women: a randomised trial")
    # "periarticular dextrose injections" joined "dextrose prolotherapy" with periarticular* alone
    question = (
        "Does dextrose prolotherapy reduce pain in adults with hip osteoarthritis? Include randomised trials of "
        "periarticular dextrose injections that report pain."
    )
    assert not _hits(question, "Periarticular infiltration analgesia after hip arthroplasty")
    assert _hits(question, "Dextrose injections for hip osteoarthritis pain: a randomised trial")


def test_a_population_put_first_leaves_the_effect_frames_subject_main():
    # "In patients with X, is switching from A to B safe?": X was the main block, switch* a top-level term
    question = (
        "In patients with rheumatoid arthritis, is switching from an originator biologic to its biosimilar "
        "safe and effective?"
    )
    assert not _hits(question, "Methotrexate dose escalation in rheumatoid arthritis: a cohort study")
    assert _hits(question, "Switching to a biosimilar: outcomes in a registry")



def test_a_lone_condition_is_anded_with_a_treatment():
    # "Are X safe during pregnancy?": X OR pregnanc* was every pregnancy study
    question = "Are acupuncture treatments safe during pregnancy?"
    assert not {"pregnanc*", "pregnan*"} & set(_top_level_terms(question))
    assert not _hits(question, "Gestational diabetes and pregnancy outcomes in a national cohort")
    assert _hits(question, "Acupuncture for nausea in early pregnancy: a randomised trial")
    question = "Is art therapy effective for schizophrenia?"
    assert not _hits(question, "Clozapine dosing in treatment-resistant schizophrenia")
    assert _hits(question, "Group art therapy for people with schizophrenia: a randomised trial")


def test_a_condition_after_in_is_no_place_in_an_effect_question():
    # "Is X safe in <condition>?": the condition read as where the studies are was left out (X alone)
    question = "Is hydroxyurea safe and effective in sickle cell disease?"
    assert not _hits(question, "Hydroxyurea for polycythaemia vera: a cohort study")
    assert _hits(question, "Hydroxyurea in children with sickle cell disease: a randomised trial")


def test_the_noun_after_a_compound_of_content_is_no_term_alone():
    # "platelet-rich plasma": plasma* alone was every plasma level and plasma cell study
    question = "Is platelet-rich plasma effective for plantar fasciitis?"
    assert "plasma*" not in _terms(question)
    assert not _hits(question, "Plasma levels of vitamin D in plantar fasciitis and heel pain")
    assert _hits(question, "Platelet-rich plasma injection versus steroid for plantar fasciitis")


def test_what_is_switched_from_is_no_term_alone():
    # "switching from X to Y": X alone (every study of X) was an alternative of the switching block
    question = "What are the outcomes of switching from clopidogrel to ticagrelor after coronary stenting?"
    assert "clopidogrel*" not in _top_level_terms(question)
    assert not _hits(question, "Clopidogrel resistance and CYP2C19 genotype in stroke patients")
    assert _hits(question, "Switching from clopidogrel to ticagrelor: platelet reactivity in stented patients")


def test_an_ing_verb_after_people_with_a_condition_is_theirs():
    # "people with dementia living in care homes": the phrase "dementia living" was a required block
    question = "Does aromatherapy reduce agitation in people with dementia living in nursing homes?"
    assert not any("living" in t for t in _terms(question))
    assert _hits(question, "Lavender oil for agitation in people with dementia in nursing homes")


def test_the_word_after_a_questions_verb_opens_its_object():
    # "Does X preserve muscle mass": "muscle" (a verb too, before "mass", an adjective too) was cut as a verb
    question = "Does whey protein preserve muscle mass in women after menopause?"
    assert "mass" not in _terms(question)
    assert not _hits(question, "Body mass index and hot flushes in women after menopause")


def test_a_verbs_own_form_in_eed_closes_no_phrase():
    # "walking speed": "speed" read as an "-ed" participle was cut off, and walking* alone was the block
    question = "Does treadmill training improve gait speed after hip fracture?"
    assert "gait speed" in _terms(question)
    assert not _hits(question, "Gait analysis in children with cerebral palsy after hip surgery")


def test_a_lone_condition_is_anded_in_an_outcomes_of_question():
    # "What are the outcomes of X for Y?": X OR Y was every study of Y
    question = "What are the long-term outcomes of deep brain stimulation for Tourette syndrome?"
    assert not _hits(question, "Tic severity and quality of life in adults with Tourette syndrome")
    assert _hits(question, "Deep brain stimulation of the thalamus in Tourette syndrome: ten-year follow-up")
