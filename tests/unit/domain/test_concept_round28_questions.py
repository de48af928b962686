"""Round 28 (h28q): what round 27 left on questions (invented texts)."""

from agentr_dagster.domain.truncation import truncation
from tests.unit.domain.concept_queries import hits, query


def test_a_stem_opening_onto_another_verbs_gerund_takes_no_wildcard():
    # "carnosine" -> "carnosin*" would be fine; "creatine" -> "creatin*" finds every record "creating" anything
    text = "Does creatine improve repeated sprint ability in rugby players?"
    q = query(text)
    assert hits(text, "Creatine and repeated sprint ability in elite rugby players"), q
    assert not hits(text, "Creating a shared scoring rubric for school essays"), q
    assert truncation("creatine") == "creatine"
    assert truncation("routines") == "routines"
    # a verb keeps its stem ("examine": examined, examining), as does a stem opening onto no gerund
    assert truncation("examine") == "examin*"
    assert truncation("olanzapine") == "olanzapin*"


def test_a_plural_without_wildcard_keeps_its_singular():
    # "statins" -> "statin*" opened onto "stating"; without the wildcard the singular is said as well
    text = "Do statins lower the risk of venous thromboembolism after knee replacement?"
    q = query(text)
    assert hits(text, "Statin use and venous thromboembolism after knee replacement"), q
    # (a source matches "statin" as a whole word; the bench's substring matcher would still find "stating" in it)
    assert "statin*" not in q and "statin" in q.replace("statins", ""), q


def _narrow(term: str) -> float:
    """A background (a pool of other reviews' records) that shows every term narrow."""
    return 0.001


def test_people_the_studies_were_done_on_are_no_alternative_where_a_background_shows_them_narrow():
    # "... among kitchen staff": with a pool, the people stood alone beside the subject (every study of them)
    text = "What interventions improve handwashing compliance among kitchen staff?"
    q = query(text, background=_narrow)
    assert hits(text, "Handwashing compliance of food handlers: a trial", background=_narrow), q
    assert not hits(text, "Kitchen staff turnover in fast-food restaurants", background=_narrow), q


def test_people_whose_subject_it_is_stay_where_a_background_shows_them_narrow():
    # "midwives' cultural competence": whose the subject is; studies may name the people and not the phrase
    # (guard: passes before and after)
    text = "Which instruments measure midwives' cultural competence?"
    q = query(text, background=_narrow)
    assert hits(text, "Midwives caring for migrant women: a survey of attitudes", background=_narrow), q
