"""Round 34 (h34r): misses of round 34's written texts that the texts' own words reach (invented texts)."""

from agentr_dagster.domain.truncation import truncation
from tests.unit.domain.concept_queries import hits, query


def test_a_rule_in_acy_shares_its_stem_with_its_agent_in_at():
    # "street-level bureaucrats" gave ``bureaucrat*``, which no study of "public bureaucracies" says
    assert truncation("bureaucrats") == truncation("bureaucracy") == "bureaucra*"
    assert truncation("autocracies") == "autocra*"
    assert truncation("advocacy") == "advocac*" and truncation("diplomacy") == "diplomac*"  # no agent / "diploma"
    text = "How do technocrats shape monetary policy in emerging economies?"
    assert hits(text, "Technocracy and central bank monetary policy in emerging economies"), query(text)


def test_an_everyday_setting_before_a_participle_of_means_is_anded_with_the_rest():
    # "school-based physical activity interventions" kept "school-based" in every variant: the studies that say
    # where it was done apart ("a physical activity intervention in secondary schools") were missed
    text = "Home-based cardiac rehabilitation for adults with heart failure: a systematic review"
    q = query(text)
    assert hits(text, "Cardiac rehabilitation delivered at home versus in hospital for adults with heart failure"), q
    # a meta word is no setting: "evidence-based" keeps its phrase
    assert "evidenc* AND" not in query("Evidence-based nursing practice and patient outcomes in acute care wards")


def test_an_exposure_and_another_thing_are_two_subjects():
    # "Lead and cadmium exposure and hypertension in adults" read as one list: ``"cadmium exposure" OR hypertens*``
    # was every study of hypertension (10 % of the pool)
    text = "Arsenic and manganese exposure and type 2 diabetes in adults: a systematic review"
    q = query(text)
    assert hits(text, "Arsenic exposure from drinking water and type 2 diabetes in Bangladeshi adults"), q
    assert not hits(text, "Metformin and weight loss in adults with type 2 diabetes"), q
    q = query("Cannabis use and psychosis in adolescents")
    assert " AND " in q and not hits("Cannabis use and psychosis in adolescents",
                                     "Antipsychotic dose and relapse of psychosis in adolescents"), q
    # both sides a way of meeting a thing: a list
    assert " AND " not in query("Smoking exposure and alcohol use in adolescents")


def test_a_noun_of_every_field_listed_before_a_phrase_takes_its_head():
    # "Lead and cadmium exposure": "lead" alone is generic and was dropped, and with it every lead study
    text = "Water and milk intake and dental caries in preschool children"
    q = query(text)
    assert hits(text, "Daily water intake and caries experience in children aged 3 to 5 years"), q
    assert not hits(text, "Fluoride varnish and dental caries in preschool children"), q


def test_a_rare_word_before_exposure_names_it_alone():
    # "cadmium exposure" kept the phrase alone: "urinary cadmium and blood pressure" was missed
    text = "Benzene exposure and leukaemia in petrochemical workers: a systematic review"
    q = query(text)
    assert hits(text, "Urinary benzene metabolites and acute myeloid leukaemia among petrochemical workers"), q
    assert "benzen*" in q and not hits(text, "Chemotherapy and leukaemia in petrochemical workers"), q


def test_an_x_related_phrase_is_also_said_as_the_plain_compound():
    # "performance-related pay": its studies also write "performance pay schemes"
    text = "Performance-related pay for teachers and student achievement: a systematic review"
    q = query(text)
    assert hits(text, "Teacher performance pay and student achievement: evidence from a randomized experiment"), q


def test_an_adjective_before_what_is_taken_in_is_no_lead_that_makes_it():
    # "dietary iron intake" kept "dietary" in every variant: "heme iron intake" was missed
    text = "Dietary sugar intake and dental caries in children: a systematic review"
    q = query(text)
    assert hits(text, "Free sugar intake and dental caries in Finnish preschool children"), q
