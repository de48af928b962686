"""Round 23 (helper h23a): published-style abstracts in the issue's unseen fields, and what earlier rounds left on
abstracts (a head alone after an everyday noun, a title subject of everyday words, title pairs, gene-environment
frames, who takes part). Invented texts only."""

from tests.unit.domain.concept_queries import hits, query, terms, top_level_terms

# -- the head after an everyday noun is a kind of the pair: no head alone, no pair of gene heads ------------------

SKIN_ABSTRACT = (
    "Citrus fruit intake and basal cell carcinoma of the skin: a meta-analysis. Background: Furocoumarins in citrus "
    "fruit are photosensitising. Methods: PubMed and Embase were searched to 2024 for cohort studies of citrus intake "
    "and basal cell carcinoma. Results: Seven cohorts were included; the highest intake was associated with a higher "
    "risk (RR 1.18). Conclusions: Citrus intake may raise the risk of basal cell carcinoma."
)
GUM_ABSTRACT = (
    "Interleukin-1 beta gene polymorphisms and chronic periodontitis: a meta-analysis. Background: Interleukin-1 "
    "beta drives inflammation of the gums. Methods: We searched PubMed and Scopus to 2023 for case-control studies "
    "of interleukin-1 beta gene polymorphisms in chronic periodontitis. Results: Twenty studies were included; the "
    "T allele raised the risk (OR 1.41). Conclusions: The variant modestly raises susceptibility."
)


def test_no_head_alone_after_an_everyday_noun():
    found = terms(SKIN_ABSTRACT)
    assert "basal cell carcinoma" in found and "carcinoma*" not in found
    assert not hits(SKIN_ABSTRACT, "Citrus fruit intake and hepatocellular carcinoma: a cohort study")


def test_no_pair_of_gene_heads_without_the_gene():
    found = terms(GUM_ABSTRACT)
    assert "polymorphism*" not in found and "gene polymorphism" not in found and "gene polymorphisms" not in found
    assert not hits(GUM_ABSTRACT, "Vitamin D receptor gene polymorphisms and chronic periodontitis")
    assert "incontin*" in terms("Urge urinary incontinence in older women: a systematic review. Background: Urge "
                                "urinary incontinence is common. Methods: MEDLINE was searched.")


# -- a title's first subject of everyday words is a subject all the same -----------------------------------------

GAMING_ABSTRACT = (
    "Board game play and working memory in older adults: a systematic review. Background: Playing board games is "
    "a popular pastime in later life. Objective: To assess whether board game play is associated with working "
    "memory in adults over 65 years. Methods: PsycINFO and MEDLINE were searched to 2024. Results: Fourteen studies "
    "were included; regular players had better working memory (SMD 0.31). Conclusions: Board game play may support "
    "working memory in older age."
)
FRIENDS_ABSTRACT = (
    "Social support and burnout in midwives: a meta-analysis. Background: Midwives report high levels of burnout. "
    "Objective: To quantify the association between perceived or received social support and burnout among "
    "midwives. Methods: CINAHL and MEDLINE were searched to 2023. Results: Nineteen studies were included; low "
    "social support was associated with emotional exhaustion (r = -0.29). Conclusions: Support at work matters."
)


def test_a_first_title_subject_of_everyday_words_stays_required():
    assert "board game" in terms(GAMING_ABSTRACT) or "board game play" in terms(GAMING_ABSTRACT)
    assert not hits(GAMING_ABSTRACT, "Aerobic exercise and working memory in older adults: a randomised trial")
    assert hits(GAMING_ABSTRACT, "Board game play and working memory: a cohort of retired teachers")


def test_a_first_title_subject_keeps_its_own_phrase():
    assert "social support" in terms(FRIENDS_ABSTRACT)
    assert hits(FRIENDS_ABSTRACT, "Social support from colleagues and burnout in hospital midwives")


# -- a title's "X and Y" related by another sentence: by an acronym, by first words, past a preposition ----------

MEALS_ABSTRACT = (
    "School feeding programmes and class attendance in East Africa: a meta-analysis of impact evaluations. School "
    "feeding programmes (SFPs) give free meals to pupils. We synthesised evaluations of the effect of SFPs on class "
    "attendance among primary pupils. EconLit and Scopus were searched to 2023. Twenty evaluations were included. "
    "SFPs increased class attendance by 6 percentage points (95% CI 4-8). Free school meals raise attendance."
)
WORK_ABSTRACT = (
    "Transitional Employment and competitive employment among people with psychosis: a systematic review. "
    "Background: Transitional Employment places people in temporary jobs before they seek their own. Methods: "
    "PsycINFO and MEDLINE were searched to 2024 for controlled studies. Results: Nine studies were included; "
    "Transitional Employment increased rates of competitive employment (RR 1.52, 95% CI 1.20-1.93). Conclusions: "
    "Temporary placements help people with psychosis into regular work."
)
MOULD_ABSTRACT = (
    "Indoor mould from water damage and childhood asthma in Europe: a systematic review. Background: Damp homes "
    "are common in northern Europe. Objective: To assess the association between household water damage and "
    "childhood asthma. Methods: MEDLINE and Embase were searched to 2023 for cohort studies. Results: Fifteen "
    "cohorts were included; visible mould raised the odds of childhood asthma (OR 1.49). Conclusions: Damp homes harm "
    "children's lungs."
)


def test_a_title_pair_related_through_an_acronym_is_two_blocks():
    assert not hits(MEALS_ABSTRACT, "School feeding programmes and child growth in Kenya: a cluster trial")
    assert not hits(MEALS_ABSTRACT, "Class attendance and examination results among university students")
    assert hits(MEALS_ABSTRACT, "Free school feeding programmes raised class attendance in rural Uganda")


def test_a_title_pair_sharing_a_head_is_two_blocks_when_related():
    assert not hits(WORK_ABSTRACT, "Competitive employment after a first episode of psychosis: a cohort study")
    assert hits(WORK_ABSTRACT, "Transitional Employment and competitive employment in psychosis: a trial")


def test_a_title_pair_after_a_preposition_is_two_blocks_in_a_between_frame():
    assert not hits(MOULD_ABSTRACT, "Traffic pollution and childhood asthma in European cities: a cohort study")
    assert hits(MOULD_ABSTRACT, "Indoor mould and childhood asthma in Finland: a birth cohort")


# -- "Gene-environment interaction between X and Y in Z": the frame is no concept, Z is the outcome ---------------

GXE_ABSTRACT = (
    "Gene-environment interaction between NR3C1 and early life stress in bipolar disorder: a systematic review. "
    "Background: Variants of the glucocorticoid receptor gene NR3C1 may moderate the effect of early life stress. "
    "Methods: PubMed and PsycINFO were searched to 2023 for studies testing an interaction between NR3C1 variants "
    "and early life stress on bipolar disorder. Results: Eleven studies were included; three reported a significant "
    "interaction (pooled OR 1.10, 95% CI 0.90-1.34). Conclusions: The evidence for an interaction is weak."
)


def test_a_gene_environment_frame_leaves_and_the_outcome_stays():
    found = terms(GXE_ABSTRACT)
    assert "gene-environment interaction" not in found
    assert not hits(GXE_ABSTRACT, "NR3C1 methylation and early life stress in major depression: a cohort study")
    assert hits(GXE_ABSTRACT, "NR3C1 rs41423247, childhood abuse and early life stress in bipolar disorder patients")


# -- who takes part is not the subject before what they take part in; "A in B and C in D" ------------------------

ACTIVISM_ABSTRACT = (
    "Student participation in campus divestment campaigns: a scoping review. Background: Student participation "
    "in protest has a long history. Objective: To map research on student participation in campus divestment "
    "campaigns, its drivers and outcomes. Methods: Scopus and ERIC were searched to 2023. Results: Thirty studies "
    "were included; student participation was driven by peer networks and moral concern. Conclusions: Student "
    "participation in divestment campaigns is growing."
)
BUDGET_ABSTRACT = (
    "Citizen participation in participatory budgeting and trust in local councils: a systematic review. "
    "Municipalities invite citizens to decide how part of the budget is spent. We reviewed studies of whether "
    "taking part in participatory budgeting changes citizens' trust in local councils. Scopus was searched to "
    "2023; 21 studies were included. Participation was associated with higher trust in 12 studies."
)
CHILDREN_ABSTRACT = (
    "Anxiety in children and adolescents in refugee camps: a systematic review. Background: Displacement exposes "
    "young people to trauma. Methods: PsycINFO was searched to 2023. Results: Twenty studies were included; "
    "anxiety was common in children and adolescents in camps. Conclusions: Screening for anxiety is needed."
)


def test_who_takes_part_comes_after_what_they_take_part_in():
    from agentr_dagster.llm.offline.concepts import extract_concepts

    plan = extract_concepts(ACTIVISM_ABSTRACT)
    assert "divestment" in plan.blocks[0].label.casefold()


def test_a_in_b_and_c_in_d_shares_no_modifier():
    assert "(trust AND participator*)" not in query(BUDGET_ABSTRACT)
    assert "trust" not in top_level_terms(BUDGET_ABSTRACT)
    assert hits(CHILDREN_ABSTRACT, "Anxiety among adolescents living in refugee camps in Jordan")


# -- "studies that gave X to rats or mice and measured Y": the second past form is the clause's second verb ------

BURYING_ABSTRACT = (
    "Fluoxetine and marble burying: a meta-analysis of rodent studies. We systematically reviewed studies that gave "
    "fluoxetine to rats or mice and recorded marble burying in a standard cage, to estimate the size of the effect "
    "and its dependence on dose. MEDLINE and Embase were searched to 2024. Sixty experiments were included. "
    "Fluoxetine reduced marble burying (SMD -1.1). The test detects fluoxetine reliably."
)


def test_a_second_past_predicate_adds_no_variant():
    assert "recorded marble" not in terms(BURYING_ABSTRACT)
    assert not hits(BURYING_ABSTRACT, "Marble burying in mice lacking the serotonin transporter")
    assert hits(BURYING_ABSTRACT, "Fluoxetine and marble burying in mice: a dose-response study")


# -- a kind of unit of care after "in" is a subject: its studies name it ----------------------------------------

WARD_ABSTRACT = (
    "Nurses' experiences of compassion fatigue in the paediatric oncology day unit: a qualitative evidence synthesis. "
    "Background: Burns care exposes nurses to suffering. Aim: To synthesise qualitative research on compassion "
    "fatigue among nurses working in paediatric oncology day units. Methods: CINAHL and MEDLINE were searched to 2024. "
    "Results: Fourteen studies were included; four themes were developed. Conclusions: Peer support may help."
)


def test_a_unit_of_care_after_in_is_anded():
    assert not hits(WARD_ABSTRACT, "Compassion fatigue among hospice nurses: a cross-sectional survey")
    assert hits(WARD_ABSTRACT, "Compassion fatigue in nurses of a paediatric oncology day unit: interviews")


# -- a definition is no variant ------------------------------------------------------------------------------------

SLUDGE_ABSTRACT = (
    "Administrative sludge and caseworkers' work engagement: a meta-analysis. Administrative sludge, defined as "
    "excessive paperwork and procedures that defeat their stated purpose, is a central concept in public "
    "administration research. Many studies have linked perceived administrative sludge to lower work motivation "
    "among public servants, but estimates vary widely. This meta-analysis synthesised the correlation between "
    "perceived administrative sludge and work engagement among public sector employees. We searched Scopus to 2023 "
    "and coded 40 samples. The pooled correlation was r = -0.18. Cutting sludge may help."
)


def test_a_definition_adds_no_variant():
    found = terms(SLUDGE_ABSTRACT)
    assert "procedur*" not in found and "paperwork*" not in found
    assert not hits(SLUDGE_ABSTRACT, "Surgical procedures and benefit take-up among veterans")


# -- "their involvement" points back: no term of its own ---------------------------------------------------------

MENTOR_ABSTRACT = (
    "Peer mentor involvement in stroke rehabilitation: a scoping review. Background: Stroke survivors trained as "
    "peer mentors support people after a stroke. Objective: To map the roles of peer mentors in stroke "
    "rehabilitation, how they are trained, and what outcomes of their involvement have been reported. Methods: "
    "MEDLINE and CINAHL were searched to 2023. Results: Forty studies were included. Conclusions: Peer mentors "
    "contribute in many ways, but their impact is rarely evaluated."
)


def test_a_possessive_item_adds_no_bare_noun():
    assert "involvem*" not in top_level_terms(MENTOR_ABSTRACT)
    assert not hits(MENTOR_ABSTRACT, "Family involvement in stroke rehabilitation: a qualitative study")


# -- "between the A, B and C of G and D": D apart; no AND-ed block holds another's terms -------------------------------

SEPSIS_ABSTRACT = (
    "Mannose-binding lectin gene polymorphisms and susceptibility to pulmonary sarcoidosis: an updated "
    "meta-analysis. Background: Mannose-binding lectin modulates macrophage responses to Propionibacterium acnes, "
    "and variants of the mannose-binding lectin (MBL2) gene have been studied as markers of sarcoidosis risk. "
    "Objective: To assess the association between the codon 54, codon 57 and promoter polymorphisms of the MBL2 "
    "gene and pulmonary sarcoidosis. Methods: PubMed and Embase were searched to 2023 for case-control studies. "
    "Results: Twenty studies were included; the codon 54 variant raised the risk (OR 1.41). Conclusion: MBL2 "
    "variants modestly increase susceptibility to pulmonary sarcoidosis."
)


def test_a_list_inside_between_keeps_the_condition_apart():
    assert not hits(SEPSIS_ABSTRACT, "Serum ACE levels for the diagnosis of pulmonary sarcoidosis: a cohort study")
    assert hits(SEPSIS_ABSTRACT, "MBL2 codon 54 polymorphism in pulmonary sarcoidosis: a case-control study")


# -- "A H versus B H": the shared head alone and the other kind are no variants of the first -------------------

DEPOT_ABSTRACT = (
    "Injectable hormonal contraceptives versus oral contraceptives for bone health in adolescents: a meta-analysis. "
    "Background: Injectable hormonal contraceptives may lower bone mineral density. Objective: To compare "
    "injectable and oral contraceptives on bone mineral density in adolescent girls. Methods: MEDLINE and Embase "
    "were searched to 2023. Results: Twelve studies were included; bone density fell more with injections (SMD "
    "-0.41). Conclusions: Bone health should be monitored in adolescents using injectable contraception."
)


def test_a_compared_kind_and_the_shared_head_are_no_variants():
    found = terms(DEPOT_ABSTRACT)
    assert "contraceptive*" not in found and "oral contraceptive" not in found
    assert not hits(DEPOT_ABSTRACT, "Oral contraceptives and bone mineral density in adolescent girls: a cohort")
