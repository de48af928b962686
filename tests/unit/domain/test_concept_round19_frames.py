"""Concept blocks, round 19 (invented questions from neuroscience, education, political science and clinical
pharmacology): a "Do / Does X ..." question's verb after its subject, a "which <generic head>" frame, a frame
noun before what it is about, and "Are X effective for Y in patients with Z" naming X first."""

from agentr_dagster.domain.boolean_query import matches, parse_boolean_query
from agentr_dagster.llm.offline.concepts import extract_concepts
from tests.unit.domain.concept_queries import hits as _hits
from tests.unit.domain.concept_queries import terms as _terms


def test_the_plain_verb_after_a_do_question_subject_is_its_verb():
    # "display" after a singular noun, "disorder display" read as one phrase, cut the condition's name
    question = "Do zebrafish models of obsessive-compulsive disorder display deficits in behavioural flexibility?"
    terms = " ".join(_terms(question))
    assert "disorder display" not in terms
    assert _hits(question, "Obsessive-compulsive disorder: a review of zebrafish models and behavioural flexibility")


def test_a_gerund_subject_is_cut_from_the_plain_verb_after_it():
    question = "Does mentoring boost graduates' employment in rural regions?"
    terms = " ".join(_terms(question))
    assert "mentoring boost" not in terms
    assert "mentor" in terms and "employment" in terms


def test_which_common_means_names_no_concept():
    question = "Which teaching strategies improve computational thinking in secondary school students?"
    assert not any("teaching" in t for t in _terms(question))
    assert _hits(question, "Computational thinking in secondary education: a quasi-experimental study")
    assert not _hits(question, "Teaching strategies for nursing students in clinical placements")
    # a compound modifier names the concept: general English counts its parts, not the compound
    assert "model-based" in " ".join(_terms("Which model-based techniques generate test cases for embedded software?"))


def test_exposure_to_a_hyphenated_kind_is_that_kind():
    # "to pro-diet content" read "pro-diet" as a verb (by its last part, before a word that can be an adjective):
    # "exposure" stood alone as the main block
    question = "How does exposure to pro-diet content on image platforms relate to body dissatisfaction in adolescents?"
    assert not any(t.startswith("exposur") for t in _terms(question))
    assert not _hits(question, "Occupational exposure to solvents and kidney disease")


def test_are_x_effective_for_y_in_patients_with_z_names_x_first():
    question = ("Are anticonvulsants effective for tinnitus in adults with hearing loss or Meniere disease "
                "compared with placebo?")
    plan = extract_concepts(question)
    assert plan.blocks[0].label == "anticonvulsants"
    # the listed conditions alone are no alternative: every study of hearing loss
    assert not _hits(question, "Cochlear implants for adults with hearing loss: a cohort study")
    assert _hits(question, "Gabapentin and other anticonvulsants for chronic tinnitus")


def test_an_eligibility_phrase_holding_the_concept_adds_none_of_its_words():
    question = ("What is the prevalence of compulsive buying among young adults? Include surveys using a "
                "validated compulsive buying questionnaire.")
    terms = " ".join(_terms(question))
    assert "validated" not in terms


def test_a_place_left_alone_in_the_rest_is_no_alternative_even_where_narrow():
    question = "Which barriers affect the adoption of telemedicine in rural clinics in sub-Saharan Africa?"

    def background(term: str) -> float:  # the place narrow, the frame's words common
        return 0.001 if "africa" in term.casefold() or "telemedicine" in term.casefold() else 0.2

    plan = extract_concepts(question, background=background)
    tree = parse_boolean_query(plan.boolean_query())
    assert matches(tree, "Telemedicine uptake in primary care: a survey")
    assert not matches(tree, "Staffing of rural clinics in sub-Saharan Africa")
