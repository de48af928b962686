"""Round 29 (h29p): questions of preclinical, pharmacology, genetics, nutrition and software fields (invented
texts)."""

from tests.unit.domain.concept_queries import hits, query


def test_the_condition_of_animal_models_put_first_is_who_the_studies_are_on():
    # "In mouse models of colitis, ...": the colitis was read as a second intervention and led the query
    # (every mouse study of colitis, whatever was given)
    text = "In mouse models of colitis, is berberine effective at reducing intestinal inflammation?"
    q = query(text)
    assert hits(text, "Berberine attenuates dextran sulfate sodium-induced colitis in mice"), q
    assert not hits(text, "Gut microbiota composition in mice with dextran sulfate sodium colitis"), q


def test_the_verb_of_a_do_question_is_found_past_who_is_named_first():
    # "In adults with X, does A lead to B than C?": "lead" was read as a noun ("intermittent fasting lead"), one
    # block of A and B (either alone was enough)
    text = "In office workers with neck pain, does ergonomic training lead to fewer sick days than usual care?"
    q = query(text)
    assert "training lead" not in q, q
    assert not hits(text, "Ergonomic training versus usual care for office workers: effects on posture"), q
    assert hits(text, "Ergonomic training and sick days of office workers compared with usual care"), q


def test_a_graded_adjective_before_what_is_compared_is_no_part_of_its_name():
    # "greater fat loss than Z": the degree asked for; studies say "fat loss" (the phrase was required as said)
    text = "Does sprint interval training produce greater fat loss than moderate continuous training in adolescents?"
    q = query(text)
    assert '"greater fat' not in q, q
    assert hits(text, "Interval exercise versus moderate continuous training: fat loss in adolescents"), q
    # "older adults" (one content word left) keeps its adjective
    assert '"older adult' in query("Does sprint interval training lead to greater fat loss in older adults?")


def test_what_acts_on_a_drugs_levels_is_anded_with_the_drug():
    # "concentrations" reads as an act's noun ("concentrate"); AND-ing it with the drug dropped the juice
    # (``tacrolim* AND concentr*``: every study of the drug's levels)
    text = ("What is the effect of St John's wort on the plasma concentrations of cyclosporine in heart transplant "
            "recipients?")
    q = query(text)
    assert hits(text, "St John's wort lowers cyclosporine exposure: a case series"), q
    assert not hits(text, "Cyclosporine plasma concentrations after heart transplantation"), q


def test_a_short_route_adjective_before_a_rare_drug_name_leaves_the_name_alone_too():
    # "oral ketamine" was one quoted phrase, the drug's only term
    text = "Does oral ketamine reduce suicidal ideation in adults with treatment-resistant depression?"
    q = query(text)
    assert hits(text, "Ketamine for suicidal ideation: a randomised trial"), q
    assert '"oral hygiene"' in query("Does oral hygiene education reduce dental plaque in adolescents?")


def test_who_a_kind_of_studies_was_done_on_is_no_main_block():
    # "in genome-wide association studies of Asian populations": "of" read as what is given made the people the
    # main block (every study of them)
    text = ("Which genetic variants are associated with susceptibility to psoriasis in genome-wide association "
            "studies of Asian populations?")
    q = query(text)
    assert hits(text, "HLA-C*06:02 and psoriasis: a case-control study"), q
    assert not hits(text, "Vitamin D status in Asian populations: a cross-sectional survey"), q


def test_what_techniques_were_proposed_for_is_anded_with_them():
    # "What X have been proposed for Y?": ``X OR Y`` was every study of Y, whatever technique
    text = "Which mutation testing tools have been proposed for Android apps?"
    q = query(text)
    assert hits(text, "muDroid: a mutation testing tool for Android apps"), q
    assert not hits(text, "Energy consumption of Android apps: an empirical study"), q


def test_a_gene_symbol_before_plain_words_of_a_variant_kind_stands_alone():
    # "DPYD reduced-function variants": the phrase was the gene's only term (studies say "DPYD genotype"), and
    # its parts without the symbol were every gene's ("founder mutations")
    text = "Do DPYD reduced-function variants predict severe toxicity of fluoropyrimidine chemotherapy?"
    q = query(text)
    assert hits(text, "DPYD genotype-guided dosing of capecitabine: a prospective study"), q
    text = "Are BRCA2 founder mutations associated with prostate cancer mortality?"
    q = query(text)
    assert hits(text, "BRCA2 carriers among men with metastatic disease"), q
    assert not hits(text, "Founder mutations of the MLH1 gene in Finnish families"), q


def test_a_rare_hyphenated_class_before_its_head_is_no_head_alone():
    # "beta-lactam antibiotics": ``antibiotic*`` alone was every antibiotic; the class is the lead
    text = "Does prolonged infusion of beta-lactam antibiotics reduce mortality in febrile neutropenia?"
    q = query(text)
    assert "antibiotic*" not in q, q
    assert hits(text, "Prolonged infusion of beta-lactams in febrile neutropenia: a cohort study"), q
    # a participle's compound is a property, no class: the head stays ("less-sedating" alone names nothing)
    q = query("Are less-sedating antihistamines effective for chronic cough in children?")
    assert "antihistamin*" in q and "less-sedating OR" not in q, q
