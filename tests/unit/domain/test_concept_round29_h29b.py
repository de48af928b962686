"""Round 29 (h29b): two regressions of h29a's abstract rules — the list after "X for" that repeats X, and an
eligibility item sharing only a block's everyday head in a question."""

from tests.unit.domain.concept_queries import hits, query

GRATITUDE_ABSTRACT = (
    "Gratitude interventions and subjective well-being: a meta-analysis of randomised trials. Background: "
    "Gratitude, the habit of noticing and appreciating what is good in life, predicts better mental health, and "
    "many programmes now teach it. Objective: To estimate the efficacy of gratitude-based interventions for "
    "gratitude, depression, anxiety, loneliness and life satisfaction in adults. Methods: PsycINFO and MEDLINE "
    "were searched to June 2023. Randomised trials comparing a gratitude intervention with a neutral or waitlist "
    "control were eligible. Results: Thirty-eight trials with 4210 participants were included. Interventions "
    "improved gratitude (g = 0.45) and reduced depressive symptoms (g = 0.21). Conclusions: Gratitude "
    "interventions give small benefits.")


def test_what_an_intervention_is_for_is_no_kind_of_it_when_the_list_repeats_its_name():
    # "gratitude-based interventions for gratitude, depression, anxiety, ...": on b50faed the item "gratitude"
    # repeated the intervention's block and the whole list joined it (`depress* OR anxiet* OR loneli*` as
    # alternatives of the intervention: every study of depression)
    assert not hits(GRATITUDE_ABSTRACT, "Loneliness and depression in older adults: a cohort study")
    assert not hits(GRATITUDE_ABSTRACT, "Anxiety in adolescents during the pandemic")
    assert hits(GRATITUDE_ABSTRACT, "A gratitude intervention for hospital nurses: a randomised trial")


def test_a_questions_eligibility_item_sharing_the_blocks_everyday_head_still_joins():
    # h29a's rule that an abstract's inclusion item sharing only a block's everyday head ("engineering") names
    # another thing of the class applied to questions too; a question's "such as" list names the kinds its author
    # means
    q = query("How is machine learning used in chemical engineering? Relevant records are journal papers that "
              "apply machine learning to a chemical engineering problem, such as process control, reaction "
              "engineering or separation design.")
    assert '"reaction engineering"' in q
