"""Round 34 (h34t): review titles and one- or two-sentence aims as the only input (written texts)."""

import re

from tests.unit.domain.concept_queries import hits, query, top_level_terms


def _background(records: list[str]):
    """A background of a few records: a term's share of them (a phrase whole, a stem by its words' starts)."""
    low = [r.casefold() for r in records]

    def share(term: str) -> float:
        core = term.strip().strip('"').casefold()
        pattern = r"\b" + re.escape(core.rstrip("*")) + (r"\w*" if core.endswith("*") else r"\b")
        return sum(1 for r in low if re.search(pattern, r)) / len(low)

    return share


def test_a_rare_property_after_an_everyday_adjective_names_the_concept_alone():
    # "residential greenness" was the exact phrase alone: "Neighbourhood greenness and psychological distress" and
    # "NDVI-based greenness around the residence" were missed
    aim = "To assess the effect of residential greenness on mental health in urban adults."
    assert hits(aim, "Neighbourhood greenness and psychological distress among city dwellers in Australia")
    assert hits(aim, "We linked NDVI-based greenness around the residence of adults to depression diagnoses.")
    # the word whole, not its stem (green* is every green thing); not after a noun ("gut permeability")
    assert "green*" not in query(aim)
    assert "permeability" not in top_level_terms("Gut permeability in children with autism: a systematic review")


def test_a_stage_of_life_before_a_condition_reads_as_its_people():
    # "childhood asthma" was the phrase alone: "the incidence of asthma in children" was missed
    title = "Air pollution and childhood asthma: an umbrella review of systematic reviews"
    assert hits(title, "Traffic-related air pollution and the incidence of asthma in children: a birth cohort study")
    assert not hits(title, "Air pollution and adult-onset asthma in a cohort of nurses")
    # a "-hood" noun whose root names no people keeps its phrase ("neighbourhood", "likelihood")
    assert "neighbour*" not in query("Neighbourhood deprivation and obesity in adults: a systematic review")


def test_a_subtitle_listing_everyday_nouns_names_no_alternative():
    # "Flaky tests: causes, detection and repair" was ``"flaky test*" OR detectio* OR repair*``: 6.7 % of the pool
    title = "Flaky tests: causes, detection and repair. A scoping review"
    assert not hits(title, "Automated program repair with large language models")
    assert not hits(title, "Early detection of sepsis in the emergency department")
    assert hits(title, "DeFlaker: automatically detecting flaky tests")
    # a subtitle of rarer words names concepts and stays
    assert "melatonin" in query("Sleep in older adults: melatonin and insomnia")


def test_a_word_never_written_with_the_phrase_head_after_and_is_a_subject_of_its_own():
    # "Loneliness and suicidal ideation among older people" was ``loneli* OR "suicidal ideation"``: no record says
    # "loneliness ideation", so the "and" lists no kinds of ideation; the two are AND-ed where loneliness is broad
    # loneliness broad (0.5 % of the records: over TITLE_AND_SHARE) but no generic word (under GENERIC_SHARE, where
    # its stem, lonel* since round 34 h34a, would be judged too common to name a concept)
    background = _background(["Loneliness in older adults living alone."] * 5
                             + ["Suicidal ideation among adolescents in school."] * 50
                             + ["Metformin and glycaemic control in type 2 diabetes."] * 945)
    title = "Loneliness and suicidal ideation among older people: a systematic review"
    assert not hits(title, "Suicidal ideation among adolescents in secondary schools", background)
    assert not hits(title, "Loneliness and social isolation in nursing home residents", background)
    assert hits(title, "Loneliness and suicidal ideation in community-dwelling older adults in Hong Kong", background)
    # a word the records write with the head ("fruit intake") lists two kinds of it; and a narrow word finds its
    # studies alone ("procrastination": the AND of "academic performance" lost "exam performance", "grades")
    from agentr_dagster.llm.offline.concepts.frames import _head_never_shared

    listed = _background(["Fruit intake in older adults."] * 50 + ["Vegetable intake in older adults."] * 50
                         + ["Metformin and glycaemic control in type 2 diabetes."] * 900)
    assert not _head_never_shared("Fruit", "vegetable intake", None, listed)
    assert _head_never_shared("Loneliness", "suicidal ideation", None, background)
    narrow = _background(["Procrastination in students."] + ["Academic performance in students."] * 99
                         + ["Metformin and glycaemic control in type 2 diabetes."] * 9900)
    assert not _head_never_shared("Procrastination", "academic performance", None, narrow)
    # without a background nothing tells: the list stays
    assert hits(title, "Loneliness and social isolation in nursing home residents")


def test_a_place_after_in_is_no_main_block_beside_people_and_their_process():
    # "nurse staffing" (people and a process noun) ranked after the setting, which became the main block:
    # ``"acute care hospital*" AND "nurse staffing"``, and "Nurse staffing and inpatient hospital mortality" was
    # missed
    for text in ("To synthesise the evidence on nurse staffing levels and patient mortality in acute care hospitals.",
                 "Nurse staffing levels and patient mortality in acute care hospitals: a systematic review"):
        assert hits(text, "Nurse staffing and inpatient hospital mortality"), (text, query(text))
        assert "care hospital" not in query(text), (text, query(text))
    # what people take part in stays first ("climate activism" is no place)
    assert query("Youth participation in climate activism: a scoping review").startswith('"climate activism"')


def test_what_works_then_a_review_of_y_is_a_title_of_y_for_x():
    # "X: what works? A rapid review of Y" was read as a question and a sentence: ``"rapid review"`` became a term
    # and Y an alternative to X
    text = "Fall prevention in hospitals: what works? A rapid review of nursing interventions"
    assert "rapid review" not in query(text)
    assert not hits(text, "Nursing interventions for pressure ulcer prevention: a rapid review")
    assert hits(text, "Effect of nursing interventions on fall prevention in acute care hospitals")
