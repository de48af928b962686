"""Concept blocks, round 19 (invented review titles and abstracts from education, psychiatry, pharmacology and
gastroenterology): a phrase's parts that name another, broader thing are no terms of it — the common English
left when its rare leading word goes (also inside an acronym's long form), the words before a rare plural head,
an everyday head without the participle that makes its kind — and trial-design words are no concept's terms."""

from tests.unit.domain.concept_queries import hits as _hits
from tests.unit.domain.concept_queries import terms as _terms


def test_an_acronyms_long_form_keeps_its_rare_leading_word_in_its_parts():
    text = ("Dialectical behaviour therapy for adolescents who self-harm: a meta-analysis. We pooled trials of "
            "dialectical behaviour therapy (DBT) against usual care for repeated self-harm in adolescents.")
    terms = _terms(text)
    assert 'behaviour therapy' not in terms and 'behavior therapy' not in terms
    assert not _hits(text, "Cognitive behavior therapy for self-harm in adolescents: a randomised trial")
    assert _hits(text, "Dialectical behavior therapy for adolescents with repeated self-harm: a randomized trial")


def test_the_words_before_a_rare_plural_head_name_another_thing():
    text = ("Skeletal muscle relaxants for acute neck pain: a systematic review. We reviewed trials of skeletal "
            "muscle relaxants (SMRs) for acute neck pain in adults.")
    assert 'skeletal muscle' not in _terms(text)
    assert not _hits(text, "Skeletal muscle mass and neck pain in older adults")
    assert _hits(text, "Muscle relaxants for acute neck pain: a placebo-controlled trial")
    # before a class word the pair is the concept itself ("long-acting opioid" of "... opioid analgesics")
    question = "What are the harms of long-acting opioid analgesics in older adults with chronic pain?"
    assert 'long-acting opioid' in _terms(question)


def test_a_common_head_is_no_term_without_the_participle_that_makes_its_kind():
    text = ("Flipped classroom teaching in pharmacy education: a systematic review. We reviewed studies of the "
            "flipped classroom in pharmacy education.")
    assert "classroom*" not in _terms(text)
    assert not _hits(text, "Classroom noise and pharmacy students' attention")
    assert _hits(text, "A flipped classroom for a pharmacy calculations course")
    # a rare head stays a term alone after its participle ("inhaled corticosteroids": corticosteroid*)
    assert "corticosteroid*" in _terms("Do inhaled corticosteroids reduce exacerbations in bronchiectasis?")


def test_trial_design_words_are_no_terms_of_a_concept():
    text = ("Peppermint oil for functional dyspepsia: a meta-analysis of randomized placebo-controlled trials. "
            "We pooled double-blind trials of peppermint oil in adults with functional dyspepsia.")
    terms = _terms(text)
    assert not any("placebo" in t or "double-blind" in t for t in terms)
    assert not _hits(text, "A randomized placebo-controlled trial of a statin in functional dyspepsia")


def test_a_compound_of_who_and_what_finds_the_two_written_apart():
    text = ("Yoga for nurse burnout: a systematic review and meta-analysis. We pooled controlled trials of yoga "
            "programmes for burnout in hospital nurses.")
    assert _hits(text, "A yoga programme for burnout among intensive care nurses: a randomised trial")
    assert not _hits(text, "Yoga for burnout in physicians: a pilot study")


def test_a_cohorts_design_words_are_no_concept_either():
    question = "Is a higher intake of green tea associated with lower stroke incidence in prospective cohorts?"
    assert not any("prospective" in t or "cohort" in t for t in _terms(question))
