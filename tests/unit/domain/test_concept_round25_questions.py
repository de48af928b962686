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
