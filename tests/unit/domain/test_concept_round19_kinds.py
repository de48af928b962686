"""Concept blocks, round 19 (invented texts of review kinds the earlier rounds did not read: scoping reviews,
meta-regressions in economics, diagnostic accuracy of machine learning, requirements engineering): the paper's
own "meta-regression analysis", "the impact / influence of X on Y" as a frame, a scoping review's aim "to map the
X", and an everyday noun that is no term alone inside a phrase."""

from tests.unit.domain.concept_queries import hits as _hits
from tests.unit.domain.concept_queries import terms as _terms


def test_a_meta_regression_analysis_is_the_papers_own_kind():
    text = ("Housing vouchers and residential mobility of low-income families: a meta-regression analysis. "
            "We pool 312 estimates from 41 studies of housing voucher programmes.")
    assert not any("regression" in t for t in _terms(text))
    assert _hits(text, "Housing vouchers and the residential mobility of low-income families in Chicago")


def test_the_impact_of_x_on_y_asks_for_no_impact():
    question = "What is the impact of microfinance loans on household consumption in rural villages?"
    assert not any(t.startswith("impact") for t in _terms(question))
    assert _hits(question, "Microfinance loans and household consumption: evidence from rural villages in Bangladesh")


def test_the_influence_of_x_on_y_asks_for_no_influence():
    question = "What is the influence of shift rotation on sleep quality in firefighters?"
    assert not any(t.startswith("influ") for t in _terms(question))


def test_a_scoping_reviews_aim_to_map_names_no_concept():
    text = "Objective: To map the evidence on peer mentoring for pharmacy students. Methods: We searched CINAHL."
    assert "map" not in _terms(text)
    assert "concept map" in " ".join(_terms("Do concept maps improve critical thinking in nursing students?"))


def test_an_everyday_head_is_no_term_alone_after_a_rare_compound():
    # "algorithm" is an everyday word (Zipf 4.0): alone it was every algorithm of every field, a top-level
    # alternative beside the retinopathy
    question = "How accurate are convolutional network algorithms for grading cataract from slit-lamp photographs?"
    assert "algorithm*" not in _terms(question)
    assert not _hits(question, "A genetic algorithm for timetabling in secondary schools")


def test_an_everyday_class_noun_before_a_rare_name_is_no_term_alone():
    # "requirements" (4.6) before "traceability": each word was a term alone
    question = "What is known about the use of large language models for requirements traceability?"
    terms = _terms(question)
    assert "requirem*" not in terms
    assert "traceabil*" in terms
    assert not _hits(question, "Nutritional requirements of preterm infants in the first month of life")


def test_a_rare_head_after_its_modifiers_still_stands_alone():
    # guard: "urge urinary incontinence" keeps incontinen* (the head is no everyday word)
    assert any(t.startswith("incontin") for t in _terms("Is mirabegron effective for urge urinary incontinence?"))


def test_a_titles_x_as_a_prognostic_factor_for_y_names_no_factor():
    text = ("Sarcopenia as a prognostic factor for anastomotic leak after oesophagectomy: a systematic review. "
            "Cohort studies reporting adjusted associations were eligible.")
    terms = " ".join(_terms(text))
    assert "prognostic" not in terms
    assert not _hits(text, "Prognostic factors for anastomotic leak after oesophagectomy: a cohort study")
    assert _hits(text, "Low skeletal muscle mass (sarcopenia) predicts anastomotic leak after oesophagectomy")


def test_a_questions_modifiable_risk_factor_frame_names_no_concept():
    question = "Is periodontitis a modifiable risk factor for preterm birth?"
    assert not any("risk" in t for t in _terms(question))


def test_a_compound_closed_by_an_irregular_participle_is_a_modifier():
    # "-worn" was read as a verb: "body-worn" cut the sentence and the cameras stood alone (camera*)
    question = "Do body-worn sensors detect freezing of gait in Parkinson's disease?"
    assert any("body-worn sensor" in t for t in _terms(question))


def test_a_questions_closing_evidence_synthesis_sentence_names_no_concept():
    # "A qualitative evidence synthesis." after the question added `synthesi*` as a required word of a branch
    question = ("What are the experiences of adult children caring for parents receiving home oxygen therapy? "
                "A qualitative evidence synthesis.")
    assert not any(t.startswith("synthes") for t in _terms(question))


def test_a_noun_in_s_that_is_its_own_lemma_has_no_singular():
    question = "Does fluoride varnish prevent root caries in older adults living in care homes?"
    assert not any("cary" in t for t in _terms(question))
    assert _hits(question, "Fluoride varnish for root caries in nursing home residents: a randomised trial")
