"""Round 25 (h25q): "What leads <people> to <verb> <object>?" questions whose act is everyday (invented texts)."""

from tests.unit.domain.concept_queries import hits, query, top_level_terms


def test_everyday_act_is_searched_with_its_people():
    # "jobs" alone was the query's alternative (every study of any job); the people left as who
    text = ("What leads pharmacists to quit their jobs? Include surveys of hospital pharmacists that reported reasons "
            "for leaving employment.")
    q = query(text)
    assert "jobs" not in top_level_terms(text), q
    assert hits(text, "Pharmacists quitting their jobs: a survey of hospital pharmacists")
    assert not hits(text, "Reasons why factory workers quit their jobs")


def test_specific_act_keeps_its_people_out():
    # a specific act is wanted whoever does it (round 23's reading unchanged)
    text = "What drives parents to refuse meningococcal vaccination?"
    assert hits(text, "Refusal of meningococcal vaccination among adolescents")


def test_why_do_people_act_reads_the_act_with_its_people():
    # "Why do X V Y?" as "What leads X to V Y?": ``profess*`` alone was every study of any profession
    text = "Why do midwives leave the profession?"
    q = query(text)
    assert "profess*" not in top_level_terms(text), q
    assert hits(text, "Midwives leaving the profession: an interview study")
    assert not hits(text, "Professional identity of engineers")


def test_why_do_keeps_a_question_about_things():
    # no person noun before the verb: not this reading
    assert hits("Why do bridges fail under load?", "bridges fail under load in a field survey")


def test_act_with_its_own_object_block_keeps_the_object():
    # the object ("take-home examinations") narrows an everyday act; the people do not replace it
    text = "What drives college students to cheat on take-home examinations?"
    assert hits(text, "Cheating on take-home examinations in a nursing course")
