"""Round 33 (h33t): a review's title or one-sentence aim as the only input (invented texts)."""

from tests.unit.domain.concept_queries import hits, query


def test_factors_a_title_or_aim_identifies_name_no_concept_of_their_own():
    # "factors associated with Y" required ``factor*`` of every study of Y: a cohort study of one factor names
    # the factor and Y, seldom "factors"
    for text in ("Factors associated with burnout among public sector social workers: a systematic review",
                 "The objective of this review was to identify factors associated with burnout among public sector "
                 "social workers.",
                 "To identify the factors influencing medication adherence in heart failure."):
        q = query(text)
        assert "factor" not in q.casefold(), (text, q)
    assert hits("Factors associated with burnout among public sector social workers: a systematic review",
                "Burnout among child welfare workers: the role of caseload and supervisory support")
    # a concept of its own that holds the word stays ("human factors" is a field, not the frame)
    assert "human factor" in query("Human factors training for surgical teams: a systematic review").casefold()


def test_an_ic_adjective_reaches_its_ia_noun_and_back():
    # "ischaemic stroke" gave ischaemic*: the rat studies of "focal cerebral ischaemia" were missed
    title = ("Neuroprotective effects of resveratrol in rodent models of ischaemic stroke: a systematic review and "
             "meta-analysis")
    assert hits(title, "Resveratrol pretreatment reduces infarct size after focal cerebral ischemia in mice")
    assert hits("Erythropoietin in rodent models of ischemic stroke: a meta-analysis",
                "Erythropoietin reduces infarct volume after transient cerebral ischaemia in rats")
    # not an adjective of another sense ("academic achievement" is no "academia"), nor one the lexicon reads as a
    # noun of its own ("oral hypoglycemic drugs" are no studies of hypoglycaemia)
    assert "academia" not in query("Academic achievement of children with epilepsy: a systematic review")
    assert "hypoglycemia" not in query("Oral hypoglycemic drugs in type 2 diabetes: a systematic review")


def test_a_title_alone_ands_the_condition_it_names_after_in():
    # "X in autism spectrum disorder" was X alone: every gene-environment (or exercise) study of any condition
    title = "Gene-environment interactions in autism spectrum disorder: a scoping review protocol"
    assert hits(title, "Maternal infection, MET genotype and autism spectrum disorder: a gene-environment "
                       "interaction study")
    assert not hits(title, "Gene-environment interactions in asthma: a birth cohort study")
    # a subject named by everyday words before "in" is kept with it ("music therapy" had left the query)
    music = "Music therapy in dementia: a systematic review"
    assert hits(music, "Group music therapy for agitation in people with dementia: a randomised trial")
    assert not hits(music, "Cholinesterase inhibitors for dementia: a network meta-analysis")
    # a field, a place or who the studies are of stays a setting
    for text, record in (
            ("Machine learning in software engineering: a systematic mapping study",
             "A machine learning approach to effort estimation"),
            ("Mobile health interventions in sub-Saharan Africa: a scoping review",
             "A mobile health intervention for antiretroviral adherence in Kenya"),
            ("Artificial intelligence in dentistry: a scoping review",
             "Artificial intelligence for caries detection on dental bitewing radiographs"),
            ("Probiotics for necrotising enterocolitis in preterm infants: a systematic review",
             "Probiotics and necrotising enterocolitis in very low birth weight newborns")):
        assert hits(text, record), (text, query(text))


def test_a_rare_lead_names_its_concept_with_the_head_alone():
    # "polygenic risk scores" kept the middle word: "genome-wide polygenic scores for coronary artery disease"
    # was missed
    title = "Polygenic risk scores and coronary artery disease: a scoping review"
    assert hits(title, "Genome-wide polygenic scores for common diseases identify individuals at risk of coronary "
                       "artery disease")
    # the pair without the rare lead is still no term ("risk scores" of every field)
    assert not hits(title, "Clinical risk scores for coronary artery disease in primary care")
