"""Round 34 (h34a): published-style review abstracts of nine named fields and four others (invented texts)."""

from agentr_dagster.domain.truncation import truncation
from tests.unit.domain.concept_queries import hits, query


def test_what_changes_are_in_and_a_drug_named_before_its_pharmacokinetics_are_the_drug():
    # "Changes in lamotrigine pharmacokinetics during pregnancy": "in" read as where the studies are done dropped
    # the drug, and ``pregnan*`` alone was every pregnancy study (0.50 % of the pool); "X pharmacokinetics" is the
    # pharmacokinetics of X, and its studies name the drug, not the compound
    text = ("Changes in tacrolimus pharmacokinetics after bariatric surgery: a systematic review. We reviewed cohort "
            "studies reporting tacrolimus trough concentrations or dose requirements in transplant recipients before "
            "and after bariatric surgery.")
    q = query(text)
    assert hits(text, "Tacrolimus exposure before and after Roux-en-Y gastric bypass in kidney transplant "
                      "recipients after bariatric surgery"), q
    assert not hits(text, "Weight loss and remission of diabetes five years after bariatric surgery"), q


def test_a_condition_in_ia_shares_its_stem_with_its_ic_adjective():
    # "cerebral ischaemia" gave ``ischaemia*``: the rat studies of "ischemic injury" were missed
    assert truncation("ischaemia") == "ischaemi*" and truncation("hypothermia") == "hypothermi*"
    assert truncation("dementia") == "dementia*"  # no "dementic"
    text = ("Statins in animal models of focal cerebral ischemia: a systematic review and meta-analysis. We pooled "
            "controlled studies of statins given to rats or mice with focal cerebral ischemia.")
    q = query(text)
    assert hits(text, "Atorvastatin reduces ischemic brain injury after arterial occlusion in rats"), q
    assert hits(text, "Simvastatin protects against ischaemic brain damage in mice"), q


def test_a_state_in_iness_shares_its_stem_with_its_y_adjective():
    # "loneliness" gave ``loneli*``, which no study that asked whether people felt lonely says
    assert truncation("loneliness") == "lonel*"
    text = ("Loneliness and sleep quality in older adults: a systematic review and meta-analysis. We pooled "
            "observational studies of loneliness and sleep quality in adults aged 60 years or older.")
    assert hits(text, "Feeling lonely and poor sleep quality among older adults in rural China"), query(text)


def test_an_adjective_of_every_field_leaves_the_rest_a_name():
    # "modern code review" (MCR) kept ``"modern code"`` but not ``"code review"``: "modern" (Zipf 5.1) was taken
    # as the phrase's rare lead, and the rest as common English that names nothing
    text = ("Modern code review and knowledge sharing: a systematic mapping study. Modern code review (MCR) is a "
            "lightweight, tool-based form of peer review of source code. We mapped primary studies of MCR and "
            "knowledge sharing among developers.")
    assert hits(text, "Knowledge sharing through code review: a study of two open-source projects"), query(text)


def test_related_disorders_point_back_to_the_disorder_named():
    # "schizophrenia or related disorders" made ``"related disorder"`` a variant: every record that says it
    text = ("Cognitive remediation for schizophrenia or related disorders: a meta-analysis. We pooled randomised "
            "trials of cognitive remediation in adults with schizophrenia or related disorders.")
    q = query(text)
    assert not hits(text, "Cognitive remediation in bipolar and related disorders: a pilot trial"), q
    assert hits(text, "Cognitive remediation for schizophrenia: a randomised trial"), q


def test_the_aim_restates_a_title_block_on_its_own_stem():
    # "Aerobic exercise for cognitive impairment in people with schizophrenia", aim "on global cognition": the
    # trials that report improved cognition, never impairment, were missed
    text = ("Resistance training for cognitive impairment in older adults: a systematic review. Objectives: To "
            "assess the effects of resistance training on global cognition in older adults. Methods: We searched "
            "MEDLINE and Embase for randomised controlled trials.")
    assert hits(text, "Twelve months of resistance training improves cognition in older women: a randomised trial"), \
        query(text)


def test_the_outcomes_listed_restate_the_titles_one_outcome():
    # "Effects of expressive writing on psychological distress": "Outcomes were depressive symptoms, anxiety and
    # post-traumatic stress symptoms", and the trial reporting anxiety and depression never said distress
    text = ("Effects of music therapy on psychological distress in adults with cancer: a meta-analysis. Methods: We "
            "searched PubMed and CINAHL for randomised trials. Outcomes were anxiety, depressive symptoms and mood "
            "at the end of treatment. Results: Twenty trials were included.")
    q = query(text)
    assert hits(text, "Music therapy reduces anxiety in patients receiving chemotherapy for cancer: a randomised "
                      "trial"), q
    # a secondary outcome is another concept
    text2 = text.replace("Outcomes were", "Secondary outcomes were")
    assert not hits(text2, "Music therapy reduces anxiety in patients receiving chemotherapy for cancer: a "
                           "randomised trial"), query(text2)


def test_kinds_in_brackets_after_a_block_are_its_examples():
    # "aerobic exercise (walking, running, cycling, exergaming)": the trials of treadmill walking or exergames
    # never say "aerobic exercise"; the bracket gives kinds as "such as" does, but names no class's members
    text = ("Aerobic exercise for depressive symptoms in older adults: a meta-analysis. Selection criteria: randomised "
            "trials comparing aerobic exercise (walking, cycling, swimming) with usual care in adults aged 65 or "
            "older. Data sources: PubMed, Embase (to 2024).")
    q = query(text)
    assert hits(text, "A supervised walking exercise programme and depressive symptoms in nursing home residents"), q
    assert hits(text, "Aquatic swimming sessions reduce depressive symptoms in community-dwelling older women"), q
    assert not hits(text, "Walking speed and falls in older adults: a cohort study"), q
