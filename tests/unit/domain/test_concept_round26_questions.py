"""Round 26 (h26q): causative and "What prevents X from V-ing Y?" questions, acts said as nouns (invented texts)."""

from tests.unit.domain.concept_queries import hits, query


def test_causative_act_is_searched_in_each_verb_form():
    # the gerund's stem (``leaving*``) missed "left" and "leave"; the pair was written twice
    text = "Why do social workers leave the profession?"
    q = query(text)
    assert hits(text, "Social workers who left the profession: a national survey"), q
    assert hits(text, "Intention to leave the profession among social workers"), q
    assert q.count("profess*") == 1, q


def test_quit_is_searched_as_a_whole_word():
    # ``quitt*`` missed "quit" (``quit*`` would find "quite"); the act is AND-ed with its object, not ``jobs`` alone
    text = "What leads pharmacists to quit their jobs?"
    assert hits(text, "Hospital pharmacists who quit their jobs: a survey")
    assert not hits(text, "Pharmacists' satisfaction with their jobs")


def test_act_is_anded_with_its_object():
    # ``"rotavirus vaccination"`` alone was every study of the vaccination: the refusal was lost
    text = "What drives parents to refuse rotavirus vaccination?"
    assert hits(text, "Parental refusal of rotavirus vaccination: a qualitative study")
    assert not hits(text, "Rotavirus vaccination coverage in infants of three countries")


def test_prevents_from_is_read_as_the_act_among_the_people():
    # "What prevents X from V-ing Y?": the act went with the people and the act's concern stood alone
    text = "What prevents farmers from seeking help for anxiety?"
    q = query(text)
    assert hits(text, "Help-seeking for anxiety among farmers: an interview study"), q
    assert hits(text, "Farmers who sought help for anxiety"), q
    assert not hits(text, "Anxiety and depression in a cohort of dairy farmers"), q



def test_barriers_prevent_from_is_read_too():
    # "What barriers prevent X from V-ing Y?": a noun before the verb
    text = "What barriers prevent fishermen from seeking help for back pain?"
    q = query(text)
    assert hits(text, "Help seeking for back pain among fishermen"), q
    assert not hits(text, "Back pain in fishermen: a cross-sectional study"), q


def test_act_noun_of_its_object_keeps_the_act():
    # "discontinuation of X": ``X`` alone was the main block, the discontinuation a rest-branch term
    text = "What factors are associated with discontinuation of biologic therapy in adults with psoriasis?"
    q = query(text)
    assert hits(text, "Discontinuation of biologic therapy among psoriasis patients: a registry study"), q
    assert not hits(text, "Biologic therapy for psoriasis: efficacy in a cohort of adults"), q


def test_refusal_of_a_vaccination_is_not_the_vaccination_alone():
    # the refusal was an optional block: every study of the vaccination matched
    text = "What are the reasons for refusal of pertussis vaccination among pregnant women?"
    q = query(text)
    assert hits(text, "Why pregnant women refuse pertussis vaccination: a refusal survey"), q
    assert not hits(text, "Pertussis vaccination in pregnancy: immunogenicity in infants"), q


def test_non_adherence_to_a_drug_is_searched_as_adherence_to_it():
    # ``non-adherence OR ... OR corticosteroid*``: every study of either; "poor adherence" is how it is said
    text = "What are the determinants of non-adherence to inhaled corticosteroids?"
    q = query(text)
    assert hits(text, "Poor adherence to inhaled corticosteroids in adults with asthma"), q
    assert not hits(text, "Inhaled corticosteroids and the risk of pneumonia"), q
    assert not hits(text, "Non-adherence to physiotherapy after knee surgery"), q


def _teachers_broad(term: str) -> float:
    """A background (a pool of education reviews) where the teachers' word is in a third of the records."""
    return 0.3 if term.strip('"').casefold().startswith("teacher") else 0.0


def test_anded_people_get_back_the_word_a_background_dropped():
    # with the pool ``teacher*`` left the people block (broad there): ``educator* OR faculty OR instructor*`` alone
    text = "Why do secondary school teachers leave the profession?"
    q = query(text, background=_teachers_broad)
    assert hits(text, "Teachers who left the profession: interviews in secondary education",
                background=_teachers_broad), q


def _profession_broad(term: str) -> float:
    """A background where "profession" is in a third of the records."""
    return 0.3 if term.strip('"').casefold().startswith("profess") else 0.0


def test_act_keeps_the_object_a_background_dropped():
    # with the pool ``profess*`` left the act's block: ``leaving* AND midwives`` was every midwife leaving anything
    text = "Why do midwives leave the profession?"
    assert hits(text, "Midwives who left the profession: a survey", background=_profession_broad)
    assert not hits(text, "Leaving the hospital early after birth: midwives' views", background=_profession_broad)


def test_adverb_before_a_verb_is_no_part_of_the_subject():
    # "X best reproduce Y": ``"spinal cord injury best"`` was a term and the verb no verb
    text = "Which animal models of spinal cord injury best reproduce chronic neuropathic pain?"
    q = query(text)
    assert "best" not in q.casefold(), q
    assert not hits(text, "Chronic neuropathic pain after spinal cord injury in veterans: a cohort study"), q
    assert hits(text, "Spinal cord injury in rats: a model of chronic neuropathic pain"), q


def test_people_where_something_is_seen_do_not_lift_the_animal_filter():
    # "... seen in patients": the animal models were no filter (people named), so every human study of X matched
    text = "Which rodent models of sepsis reproduce the organ failure seen in patients?"
    assert not hits(text, "Sepsis in intensive care patients: mortality in a national cohort")
    assert hits(text, "Caecal ligation and puncture sepsis in mice")


def test_what_a_method_was_evaluated_on_is_where_not_what():
    # "evaluated on open-source projects": the projects were a top-level alternative (every study of them)
    text = "Which techniques for detecting memory leaks have been evaluated on open-source projects?"
    assert not hits(text, "Onboarding newcomers in open-source projects: a survey")
    assert hits(text, "Detecting memory leaks in C programs with static analysis")


def test_diagnostic_accuracy_of_x_for_detecting_y_is_x_and_y():
    # "What is the diagnostic accuracy of X for detecting Y?": ``X OR (Y AND "diagnostic accuracy")``
    text = "What is the diagnostic accuracy of procalcitonin for detecting bacterial meningitis in children?"
    q = query(text)
    assert "detecting" not in q and "accura" not in q, q
    assert hits(text, "Procalcitonin and bacterial meningitis: sensitivity and specificity in febrile children"), q
    assert not hits(text, "Procalcitonin-guided antibiotic duration in adults with pneumonia"), q


def test_how_does_x_compare_with_y_ands_a_named_comparator():
    # "How does X compare with Y for Z?": ``X OR (Y AND Z)`` was every study of Y for Z
    text = "How does the efficacy of clozapine compare with that of olanzapine for treatment-resistant schizophrenia?"
    q = query(text)
    assert hits(text, "Clozapine versus olanzapine in resistant schizophrenia: a randomised trial"), q
    assert not hits(text, "Olanzapine for treatment-resistant schizophrenia: an open-label study"), q


def test_a_gene_named_then_given_its_symbol_is_the_gene():
    # "the X gene SYMBOL": no gene block, so the trait alone was a top-level alternative (every study of the drug)
    text = "Are variants in the dopamine transporter gene SLC6A3 associated with response to methylphenidate?"
    q = query(text)
    assert hits(text, "SLC6A3 genotype and methylphenidate response in children with ADHD"), q
    assert not hits(text, "Methylphenidate for adults with ADHD: a randomised trial"), q
    assert not hits(text, "Dopamine transporter imaging in early Parkinson's disease"), q
