"""Round 23 (helper h23a): published-style abstracts in the issue's unseen fields, and what earlier rounds left on
abstracts (a head alone after an everyday noun, a title subject of everyday words, title pairs, gene-environment
frames, who takes part). Invented texts only."""

from tests.unit.domain.concept_queries import hits, terms

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
