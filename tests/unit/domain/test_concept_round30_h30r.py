"""Round 30 (h30r): a relation question naming one X whose rest branch would be Y alone (invented texts)."""

from tests.unit.domain.concept_queries import hits, query


def test_a_lone_object_of_a_relation_is_anded_with_its_subject():
    # "Is X associated with Y?": ``X OR Y`` was every study of Y, whatever it related it to
    text = "Is shift work associated with breast cancer?"
    q = query(text)
    assert hits(text, "Night shift work and breast cancer risk in nurses: a cohort study"), q
    assert not hits(text, "Adjuvant endocrine therapy for breast cancer: a randomised trial"), q
    assert not hits(text, "Shift work and sleep quality among factory workers"), q
    # "Does X predict Y?", "X a risk factor for Y" (the frame's words in X's label), "the relationship between"
    for text, off in (("Does handgrip strength predict mortality?", "Mortality after hip surgery in Denmark"),
                      ("Is loneliness a risk factor for dementia?", "Amyloid imaging in early dementia"),
                      ("What is the relationship between noise exposure and tinnitus?",
                       "Sound therapy for chronic tinnitus")):
        assert not hits(text, off), query(text)


def test_a_relation_asked_of_kinds_of_x_or_with_more_beside_y_keeps_its_shape():
    # "Which X ...": the kinds of X are named by their own names; "in Z" beside Y keeps ``X OR (Y AND Z)``
    text = "Which code smells are associated with change-proneness?"
    assert hits(text, "God classes and change-proneness in open-source systems"), query(text)
    text = "Is coffee consumption associated with atrial fibrillation in adults?"
    assert hits(text, "Caffeine and atrial fibrillation in adults: a cohort study"), query(text)
