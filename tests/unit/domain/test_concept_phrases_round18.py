"""Round 18: a concept's phrase of common words ("end-of-life care") survives as a concept, judged with a long
phrase's own rarity; two-word phrases that are really generic stay generic; a chunk sharing only an everyday word
with a block is a concept of its own (invented texts)."""

from __future__ import annotations

from agentr_dagster.domain.specificity import general_zipf, phrase_zipf
from agentr_dagster.llm.offline.concepts import GENERIC_ZIPF, extract_concepts


def _block_with(plan, term):
    return next((b for b in plan.blocks if term in b.terms), None)


def test_a_long_phrase_of_common_words_is_rarer_than_its_words():
    assert general_zipf('"end-of-life care"') >= GENERIC_ZIPF > phrase_zipf('"end-of-life care"')
    assert phrase_zipf('"quality of life"') < GENERIC_ZIPF
    # no function word inside: wordfreq's combination, as the generic bar was tuned with
    for term in ('"health problems"', "well-being", "follow-up", '"test case"'):
        assert phrase_zipf(term) == general_zipf(term) >= GENERIC_ZIPF


def test_end_of_life_care_is_a_concept_of_a_question():
    plan = extract_concepts("Does advance care planning improve end-of-life care for people with heart failure?")
    block = _block_with(plan, '"end-of-life care"')
    assert block is not None and not block.generic
    assert '"end-of-life care"' in plan.boolean_query()


def test_a_setting_sharing_an_everyday_word_is_its_own_block():
    plan = extract_concepts("What are nurses' experiences of end-of-life care in intensive care units?")
    eol = _block_with(plan, '"end-of-life care"')
    icu = _block_with(plan, '"intensive care unit"')
    assert eol is not None and icu is not None and eol is not icu
    assert '"end-of-life care"' in plan.boolean_query()


def test_end_of_life_care_is_kept_from_an_abstracts_title():
    plan = extract_concepts("Nurses' experiences of end-of-life care in intensive care units: a qualitative evidence "
                            "synthesis. We aimed to synthesise qualitative studies.")
    query = plan.boolean_query()
    # round 27: "nurses' experiences of X" is X among nurses, so "nurse experience" is no block any more (it was
    # required of every study; with a background X itself could leave the query)
    assert '"end-of-life care"' in query and "experience" not in query


def test_end_of_life_care_beside_dementia_in_an_abstract():
    plan = extract_concepts("End-of-life care in nursing homes for residents with dementia: a scoping review. We "
                            "mapped studies of palliative care practices for nursing home residents with advanced "
                            "dementia.")
    assert '"end-of-life care"' in plan.boolean_query()


def test_a_generic_two_word_phrase_stays_generic():
    plan = extract_concepts("What are the health problems of migrant farm workers?")
    block = _block_with(plan, '"health problems"')
    assert block is None or block.generic
    assert "migrant farm" in plan.boolean_query()


def test_a_repeat_of_a_concept_still_joins_its_block():
    plan = extract_concepts("Sleep and memory in adolescence: a systematic review. Adolescents often sleep less than "
                            "recommended. Objective: To synthesise evidence on the association between sleep "
                            "duration and memory performance in adolescents.")
    labels = [b.label.casefold() for b in plan.blocks]
    assert sum("sleep" in label for label in labels) == 1
    assert "sleep" in plan.boolean_query()


def test_quality_of_life_is_one_concept_not_life():
    plan = extract_concepts("Is regular swimming associated with quality of life in adults with chronic back pain?")
    block = _block_with(plan, '"quality of life"')
    assert block is not None and not block.generic
    assert all(b.terms != ["life"] for b in plan.blocks)
    assert '"quality of life"' in plan.boolean_query()


def test_a_compound_around_of_keeps_the_other_hyphens_in_a_spelling():
    plan = extract_concepts("Does yoga improve health-related quality of life in stroke survivors?")
    assert '"health-related quality of life"' in plan.boolean_query()


def test_a_relation_or_a_role_before_of_is_no_compound():
    for text in ("What is the effect of music on anxiety in surgical patients?",
                 "What is the role of family in recovery from first-episode psychosis?"):
        plan = extract_concepts(text)
        assert not any("-of-" in t or " of " in t for b in plan.blocks for t in b.terms), text
