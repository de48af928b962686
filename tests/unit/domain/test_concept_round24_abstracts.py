"""Round 24 (h24a): published-style abstracts in unseen fields, and the weak spots round 23 left."""

from tests.unit.domain.concept_queries import hits, query, terms


def _narrow(term: str) -> float:
    """A stand-in background in which every term is rare (each block alone is narrow)."""
    return 0.000001


# -- with a background, a narrow main block does not stand alone when the title names two subjects -------------

GENE_ABSTRACT = (
    "PAI-1 4G/5G polymorphism and risk of placental abruption: a meta-analysis of case-control studies. "
    "Background: The 4G allele of the plasminogen activator inhibitor-1 gene raises PAI-1 levels. Objective: To "
    "assess the association between the PAI-1 4G/5G polymorphism and placental abruption. Methods: PubMed and "
    "Embase were searched to 2024. Results: Fourteen studies were included; the 4G/4G genotype raised the risk "
    "(OR 1.62). Conclusions: The variant is a modest risk factor for placental abruption."
)
COUNCIL_ABSTRACT = (
    "Neighbourhood councils and satisfaction with street lighting: a systematic review. Background: Neighbourhood "
    "councils let residents advise city officials. Objective: To review studies of neighbourhood councils and "
    "residents' satisfaction with street lighting. Methods: Scopus was searched to 2024. Results: Nine studies were "
    "included; six found higher satisfaction. Conclusions: Councils may raise satisfaction with lighting."
)


def test_a_variant_and_the_risk_of_a_condition_stay_anded_with_a_background():
    q = query(GENE_ABSTRACT, _narrow)
    assert "pai-1 4g" in q.casefold() and "placental abruption" in q.casefold()
    assert not hits(GENE_ABSTRACT, "Placental abruption after trauma in pregnancy: a cohort study", _narrow)


def test_two_title_subjects_joined_by_and_stay_anded_with_a_background():
    assert not hits(COUNCIL_ABSTRACT, "Neighbourhood councils and the politics of zoning: a case study", _narrow)
    assert hits(COUNCIL_ABSTRACT, "Neighbourhood councils and satisfaction with street lighting: a survey", _narrow)


# -- "X and recovery from Y": two subjects, and the everyday head alone is no term ------------------------------

RECOVERY_ABSTRACT = (
    "Peer mentoring and recovery from cannabis use disorder: a systematic review. Background: Peer mentors support "
    "people after treatment. Methods: PsycINFO was searched to 2024. Results: Twelve studies were included; "
    "mentoring was associated with abstinence (OR 1.6). Conclusions: Peer mentoring may support recovery."
)


def test_a_title_pair_whose_second_holds_a_from_phrase_is_two_subjects():
    assert not hits(RECOVERY_ABSTRACT, "Cannabis use disorder in adolescents: prevalence in a national survey")
    assert not hits(RECOVERY_ABSTRACT, "Peer mentoring of novice nurses: a qualitative study")
    assert hits(RECOVERY_ABSTRACT, "A peer mentoring programme for young adults with cannabis use disorder")


def test_an_everyday_head_of_a_from_phrase_is_no_term_alone():
    found = terms(RECOVERY_ABSTRACT)
    assert "recover*" not in found
    assert not hits(RECOVERY_ABSTRACT, "Peer mentoring and recovery after hip fracture surgery")


# -- "X and achievement in <field>": the field after an everyday outcome is a subject ---------------------------

FIELD_ABSTRACT = (
    "Worked examples and achievement in undergraduate statistics: a meta-analysis. Background: Worked examples "
    "show each step of a solution. Objective: To estimate the effect of worked examples on achievement in "
    "undergraduate statistics courses. Methods: ERIC was searched to 2024. Results: Twenty studies were included "
    "(g = 0.41). Conclusions: Worked examples help students learn statistics."
)


def test_the_field_of_an_everyday_outcome_is_anded_and_the_outcome_word_is_no_block():
    assert "achievem*" not in terms(FIELD_ABSTRACT)
    assert not hits(FIELD_ABSTRACT, "Worked examples in secondary school geometry: a randomised trial")
    assert hits(FIELD_ABSTRACT, "Learning statistics from worked examples: exam scores of psychology undergraduates")


# -- "How <people> V and V with X": the words after the people are verbs, the people a subject ------------------

HOW_ABSTRACT = (
    "How paramedics experience and cope with the sudden death of a child: a qualitative evidence synthesis. Aim: To "
    "synthesise qualitative studies of how paramedics experience and cope with the sudden death of a child, and "
    "the support they receive afterwards. Methods: CINAHL was searched to 2024. Findings: Twelve studies were "
    "included; paramedics described guilt and sleeplessness. Conclusions: Structured debriefing is needed."
)


def test_a_how_people_title_reads_its_verbs_as_verbs_and_keeps_the_people():
    found = terms(HOW_ABSTRACT)
    assert not any("experience" in t or "cope" in t or "they" in t for t in found)
    assert any(t.startswith("paramedic") for t in found)
    assert not hits(HOW_ABSTRACT, "Sudden death of a child: parents' accounts of the first week")


# -- an adjective's everyday pair opening a longer phrase is no term alone -------------------------------------

POLICE_ABSTRACT = (
    "Mental health literacy training for police officers: a scoping review. Background: Officers are often the "
    "first to meet people in crisis. Objective: To map evaluations of mental health literacy training for police "
    "officers. Methods: Scopus was searched to 2024. Results: Thirty studies were charted. Conclusions: "
    "Evaluations are short."
)


def test_an_everyday_adjective_pair_before_the_rarest_word_is_no_term_alone():
    assert "mental health" not in terms(POLICE_ABSTRACT)
    assert not hits(POLICE_ABSTRACT, "Mental health of police officers after shootings: a cohort study")
    assert hits(POLICE_ABSTRACT, "Mental health literacy training for police officers in Leeds: a pilot")
