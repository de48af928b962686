"""Round 26 (h26a): published-style abstracts in unseen fields."""

from tests.unit.domain.concept_queries import hits, terms, top_level_terms

# -- a title that is only "X and Y" (and its own kind) names two subjects, not one concept's variants ----------

PAIR_ABSTRACT = (
    "Cocoa flavanols and arterial stiffness: a systematic review. Background: Cocoa is rich in flavanols. "
    "Objective: We reviewed trials that gave adults cocoa products and measured pulse wave velocity. Methods: "
    "MEDLINE and Embase were searched to 2024. Results: Twelve trials were included; stiffness fell in eight. "
    "Conclusions: Cocoa may help."
)


def test_a_title_of_two_phrases_joined_by_and_requires_both():
    # on be7946d the two were one OR block: every study of arterial stiffness was found
    assert not hits(PAIR_ABSTRACT, "Arterial stiffness in hypertensive adults: a cohort study")
    assert not hits(PAIR_ABSTRACT, "Cocoa flavanols and insulin sensitivity in adults")
    assert hits(PAIR_ABSTRACT, "Effect of cocoa flavanols on arterial stiffness: a randomised trial")


def test_a_list_of_one_concept_stays_one_block():
    # one word before the "and", or one head: a list of variants, as before
    text = ("Anxiety and depression: a systematic review. Background: Both are common. Methods: MEDLINE was "
            "searched. Results: Ten studies were included.")
    assert hits(text, "Depression in primary care")
    text = ("Vascular dementia and frontotemporal dementia: a systematic review. Methods: MEDLINE was searched. "
            "Results: Ten studies were included.")
    assert hits(text, "Frontotemporal dementia in a memory clinic")
    # a word of both: one kind of thing listed ("hepatitis B and hepatitis C infection")
    text = ("Hepatitis B and hepatitis C infection in prisons: a systematic review. Methods: MEDLINE was searched.")
    assert hits(text, "Hepatitis C infection among prisoners")
    text = ("Hepatitis B and hepatitis C infection: a systematic review. Methods: MEDLINE was searched.")
    assert hits(text, "Hepatitis C infection among blood donors")


# -- the kind of studies a subtitle gathers is no variant of the title's last concept ----------------------------

KIND_ABSTRACT = (
    "Liquorice intake and hypokalaemia: a systematic review of pharmacokinetic studies. Background: Liquorice "
    "contains glycyrrhizin. Methods: PubMed was searched to 2024. Results: Twenty studies were included; "
    "potassium fell in most. Conclusions: Liquorice can cause hypokalaemia."
)


def test_the_kind_of_studies_gathered_is_no_alternative():
    # on be7946d ``hypokal* OR pharmacokinetic*``: every pharmacokinetic study of liquorice was found
    assert not any(t.startswith("pharmacokinetic") for t in terms(KIND_ABSTRACT))
    assert hits(KIND_ABSTRACT, "Liquorice and hypokalaemia: a case series")
    assert "pharmacokinetic*" not in top_level_terms(KIND_ABSTRACT)


# -- an acronym's long form with a coordination inside gives no two-word parts -------------------------------------

GENE_ABSTRACT = (
    "Association of the GLUR rs4455 polymorphism with gout in adults: a meta-analysis. Background: The glucose "
    "uptake and urate-regulating (GLUR) gene is a locus for serum urate. Methods: PubMed was searched to 2024. "
    "Results: Nine studies were included."
)


def test_a_coordinated_long_form_gives_no_parts():
    # on be7946d "glucose uptake", "uptake and", "and urate-regulating" were alternatives for the gene
    found = terms(GENE_ABSTRACT)
    assert not any(t.startswith("and") or t.endswith(" and") for t in found)
    assert "glucose uptake" not in found
    assert hits(GENE_ABSTRACT, "The glucose uptake and urate-regulating gene in gout")
    assert not hits(GENE_ABSTRACT, "Glucose uptake in gout flares")


# -- the pair before a rare noun of a property names another thing ------------------------------------------------

def test_the_pair_before_a_rare_property_noun_is_no_term():
    text = ("Oral drug bioavailability of levothyroxine taken with coffee: a systematic review. Methods: MEDLINE "
            "was searched. Results: Eight studies were included.")
    # on be7946d ``"oral drug"`` was an alternative: every drug taken by mouth
    assert "oral drug" not in terms(text)
    assert hits(text, "Coffee reduces the bioavailability of levothyroxine")


# -- "A, B or other C": kinds of a class the review does not search for join no block ---------------------------

MODEL_ABSTRACT = (
    "Chick embryo models of drug-induced cardiotoxicity: a systematic review. We reviewed studies that exposed chick "
    "embryos to anthracyclines, trastuzumab or other cardiotoxic agents and measured heart rate. Methods: PubMed was "
    "searched to 2024. Results: Forty studies were included."
)


def test_examples_of_an_unnamed_class_are_no_variants_of_the_model():
    # on be7946d anthracyclin* and trastuzumab* were alternatives of the chick embryo model: every clinical
    # study of anthracycline cardiotoxicity was found
    assert not hits(MODEL_ABSTRACT, "Anthracycline cardiotoxicity in women with breast cancer")
    assert hits(MODEL_ABSTRACT, "Doxorubicin cardiotoxicity in the chick embryo model")
    # a class the review names keeps its kinds ("other beta-blockers" beside a beta-blocker block)
    text = ("Beta-blockers for heart failure: a review. This review assessed atenolol, bisoprolol or other "
            "beta-blockers in adults.")
    assert hits(text, "Bisoprolol in heart failure: a randomised trial")


# -- a noun that only ends like an adjective is no modifier ---------------------------------------------------------

def test_a_counted_noun_ending_in_able_leaves_no_head_alone():
    # on be7946d ``intak*`` stood alone: every intake study ("vegetable" read as an adjective by its ending)
    question = "Does vegetable intake lower the risk of hip fracture in older women?"
    assert "intak*" not in top_level_terms(question)
    assert not hits(question, "Protein intake in adolescents")
    assert hits(question, "Vegetable intake and bone health")
    text = ("Fruit and vegetable intake for hip fracture prevention: a meta-analysis. Methods: PubMed was searched "
            "to 2024. Results: Twelve cohorts were included.")
    assert "intak*" not in terms(text)
    assert not hits(text, "Calcium intake and hip fracture in older women")


def test_a_list_of_kinds_of_an_unnamed_class_is_still_a_concept():
    # what the fix above must leave: a list sharing no block's word is a concept of its own (the patients; the
    # first version of the fix, 102b471, dropped it)
    question = ("What are the harms of antiepileptic drugs, such as valproate and lamotrigine, in adults with "
                "migraine, cluster headache or other primary headache disorders?")
    assert hits(question, "Cluster headache in adults treated with valproate: harms")
    assert "cluster headache" in terms(question)


# -- "X models of Y": what a model models stays AND-ed with a background ------------------------------------------

def _narrow(term: str) -> float:
    """A stand-in background in which every term is rare (each block alone is narrow)."""
    return 0.000001


def test_what_a_model_models_stays_anded_with_a_background():
    text = ("Tadpole tail models of drug-induced neurotoxicity: a systematic review. Methods: PubMed was searched to "
            "2024. Results: Forty studies were included.")
    # on be7946d the neurotoxicity left the query with a background: every study of tadpole tails
    assert not hits(text, "Tadpole tail regeneration after amputation", _narrow)
    assert hits(text, "Drug-induced neurotoxicity in a tadpole tail model", _narrow)


def test_a_title_of_a_listed_x_and_y_requires_both():
    # "A and B H and Y": the first "and" is a list inside X, the last one joins the two subjects
    text = ("Fruit and vegetable intake and hip fracture: a meta-analysis of cohort studies. Background: Diets rich "
            "in fruit and vegetables may protect bone. Methods: PubMed was searched to 2024. Results: Twelve "
            "cohorts were included.")
    # on be7946d one OR list of the three: every hip fracture study
    assert not hits(text, "Surgery for hip fracture in older adults: a randomised trial")
    assert hits(text, "Fruit intake and the risk of hip fracture in women")
