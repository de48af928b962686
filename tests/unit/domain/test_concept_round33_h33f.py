"""Round 33 (h33f): no term of a query is a phrase English does not write (invented texts)."""

from tests.unit.domain.concept_queries import hits, query

_TBI = "Long-term employment outcomes of adults after traumatic brain injury: a systematic review."
_CHD = "Is periodontitis associated with coronary heart disease in adults?"


def test_the_leading_part_of_a_compound_gets_no_plural():
    # "traumatic brain" opens "traumatic brain injury": its plural "traumatic brains" is no phrase of English
    q = query(_TBI)
    assert '"traumatic brain injury"' in q and '"traumatic brain"' in q, q
    assert "brains" not in q, q
    assert hits(_TBI, "Return to work after traumatic brain injuries in adults: long-term employment outcomes"), q
    q = query(_CHD)
    assert '"coronary heart"' in q and "hearts" not in q, q
    assert '"heart diseases"' in q, q  # the plural of the whole compound stays
    # a count noun keeps its plural: "nurse practitioner" of "nurse practitioner care"
    nurses = "Nurse practitioner care versus physician care for adults with type 2 diabetes in primary care."
    assert '"nurse practitioners"' in query(nurses), query(nurses)
    # a part opened by a noun is a phrase of its own: studies write "software faults" (of "software fault
    # prediction")
    q = query("Software fault prediction models: a systematic review.")
    assert '"software faults"' in q and '"software fault prediction models"' in q, q
    # and so does a count noun after an adjective: studies write "charged particles", "peptic ulcers"
    q = query("Charged particle radiotherapy versus photon radiotherapy for skull base tumours: a systematic review.")
    assert '"charged particles"' in q, q
