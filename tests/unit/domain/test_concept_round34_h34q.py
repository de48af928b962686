"""Round 34 (h34q): review questions of fourteen fields written before any run (invented texts)."""

from tests.unit.domain.concept_queries import hits, query


def test_a_name_with_a_decimal_is_one_word():
    # "PM2.5" was read as the two words "PM2" and "5", whose phrase ``"PM2 5"`` never finds "PM2.5"
    text = "Is short-term exposure to PM2.5 associated with emergency visits for asthma in children?"
    q = query(text)
    assert "PM2.5" in q, q
    assert hits(text, "Daily PM2.5 concentrations and paediatric emergency visits for asthma: a time-series study"), q


def test_murine_models_are_studies_of_mice():
    # "in murine models of X" kept ``murin*`` alone: a mouse study says "mice"
    text = "Does aerobic exercise reduce insulin resistance in murine models of diet-induced obesity?"
    q = query(text)
    assert hits(text, "Treadmill exercise improves insulin resistance in high-fat diet-fed obese mice"), q


def test_an_everyday_food_taken_in_by_either_noun():
    # "tea consumption" kept its phrase alone; its studies also write "tea intake"
    text = "Is tea consumption associated with the risk of stroke?"
    q = query(text)
    assert hits(text, "Green tea intake and incident stroke in Japanese adults: a prospective cohort study"), q


def test_a_symbol_after_its_qualifier_is_a_term_of_its_own():
    # "germline MLH1 and MSH2 mutations": the first symbol stayed in the phrase ``"germline MLH1"`` only
    text = "What is the prevalence of germline MLH1 and MSH2 mutations in unselected patients with colorectal cancer?"
    q = query(text)
    assert hits(text, "Pathogenic MLH1 variants among colorectal cancer patients in a population-based series"), q


def test_an_ism_noun_reaches_its_istic_adjective():
    # ``autism*`` does not find "autistic": studies name the people by the adjective
    text = "How do parents of children with autism experience their child's diagnosis?"
    q = query(text)
    assert hits(text, "Mothers' experiences of the diagnosis of their autistic child: a qualitative study"), q


def test_an_ion_condition_after_its_qualifier_also_as_its_ive_adjective():
    # "major depression" kept its phrase alone; its studies write "major depressive disorder"
    text = "Is major depression in midlife associated with later dementia?"
    q = query(text)
    assert hits(text, "Major depressive disorder in midlife and the risk of dementia: a 20-year cohort study"), q


_LASER = "Does low-level laser therapy reduce pain after placement of orthodontic bands or brackets?"


def test_what_is_done_stays_beside_the_act_on_its_object():
    # "X reduce pain after placement of Z": the act ("placement") was AND-ed with its object and the laser, an
    # exposure by its facet, dropped: every study of placing bands, none of a laser study that does not say
    # "placement"
    q = query(_LASER)
    assert hits(_LASER, "Low-level laser therapy for pain caused by orthodontic brackets: a randomized trial"), q
    assert not hits(_LASER, "Pain and discomfort after placement of orthodontic bands in adolescents: a cohort"), q
