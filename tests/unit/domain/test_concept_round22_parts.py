"""Concept blocks, round 22 (helper h22a: questions in the judge's style on what round 21 left): a state after the
treatment is AND-ed with it whatever the background, a pair's partner must be narrower than a word of every
field, ..."""

from tests.unit.domain.concept_queries import hits as _hits
from tests.unit.domain.concept_queries import query as _query
from tests.unit.domain.concept_queries import terms as _terms
from tests.unit.domain.concept_queries import top_level_terms as _top_level_terms


def _narrow_background(term: str) -> float:
    return 0.001  # a background of other fields: every term of the question is seldom there


def test_a_state_after_the_treatment_is_anded_with_it_whatever_the_background():
    # "Is X effective after Y?": Y is when the treatment is given; ``X OR Y`` is every study of Y
    question = (
        "Is hydrotherapy effective after rotator cuff repair? Include randomised trials of aquatic exercise in "
        "adults after arthroscopic rotator cuff repair that report shoulder function. Exclude trials of injections."
    )
    for background in (None, _narrow_background):
        assert not _hits(question, "Retear rates after arthroscopic rotator cuff repair", background)
        assert _hits(question, "Hydrotherapy after rotator cuff repair: a randomised trial", background)


def test_a_word_of_every_field_is_no_partner_of_a_broad_word():
    # "(switch* AND drug)": every study that switched any drug
    question = (
        "Is switching from brand-name to generic anticoagulant drugs associated with bleeding in atrial "
        "fibrillation? Include cohort studies of adults with atrial fibrillation that report major bleeding after a "
        "generic substitution. Exclude studies of first prescriptions."
    )
    assert not _hits(question, "Patients who switched drug because of adverse effects")
    assert _hits(question, "Generic substitution of anticoagulants and bleeding in atrial fibrillation")
    assert "(switch* and drug)" not in _query(question).casefold()
    assert "drug" not in _top_level_terms(question)


def test_a_class_adjective_of_every_field_is_no_term_alone():
    # "cognitive behavioural therapy": behaviour* alone is every behaviour study
    question = "Is cognitive behavioural therapy effective for tinnitus?"
    assert "behaviour*" not in _terms(question)
    assert not _hits(question, "Health behaviour change and tinnitus: a cohort study")
    assert _hits(question, "Internet-based cognitive behavioral therapy for tinnitus distress")
    # a class adjective that is no everyday word stays alone
    # (the effect frame ANDs what X is for since round 23: antipsychotic* stands alone in its block, no pair)
    drugs = _query("Are antipsychotic drugs effective for delirium in older adults?").casefold()
    assert "antipsychotic*" in drugs and "(antipsychotic* and" not in drugs


def test_remedies_alone_are_no_term():
    # "homeopathic remedies": remed* alone is every remedy (and every remediation)
    question = "Are homeopathic remedies effective for eczema in children?"
    assert "remed*" not in _top_level_terms(question)
    assert not _hits(question, "Soil remediation of heavy metals in urban gardens")
    assert _hits(question, "Homeopathic remedies for atopic eczema: a randomised trial")


def test_a_kind_head_brings_no_noun_back_alone():
    # "switched insulin type" in an eligibility sentence brought insulin* back beside the switch (every insulin study)
    question = (
        "What are the outcomes of switching from bovine heparin to porcine heparin in haemodialysis? Include cohort "
        "studies of adults who switched heparin type that report clotting or bleeding. Exclude studies of children."
    )
    assert "heparin*" not in _top_level_terms(question)
    assert not _hits(question, "Low-dose heparin for anticoagulation during haemodialysis")
    assert _hits(question, "Switching from bovine to porcine heparin in haemodialysis units")
