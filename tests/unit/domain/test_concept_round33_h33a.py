"""Round 33 (h33a): published-style review abstracts from fields nobody tuned on (invented texts)."""

from tests.unit.domain.concept_queries import hits, query


def test_an_acronyms_long_form_is_the_words_its_initials_spell():
    # "the prevalence of obsessive-compulsive disorder (OCD)" read the long form as "of obsessive-compulsive
    # disorder" (its count near the letters', its first initial the acronym's), whose parts ``"of disorders"``
    # found any record of any disorder
    text = ("Prevalence of obsessive-compulsive disorder in university students: a systematic review and "
            "meta-analysis. We aimed to estimate the prevalence of obsessive-compulsive disorder (OCD) among "
            "university students worldwide. Pooled prevalence was 9%.")
    assert not hits(text, "Sleep problems and the burden of disorders of sleep in primary care"), query(text)
    assert hits(text, "OCD symptoms among first-year university students in Brazil"), query(text)


def test_an_acronym_contracting_its_long_form_is_a_term():
    # "apolipoprotein E (APOE)": the initials "AE" spell no APOE, so the acronym was not paired with its long form
    # and its studies that say only APOE were missed
    text = ("Apolipoprotein E epsilon4 and postoperative delirium: a systematic review. The apolipoprotein E (APOE) "
            "epsilon4 allele is a genetic risk factor for Alzheimer's disease; we pooled cohort studies of surgical "
            "patients.")
    assert hits(text, "APOE genotype and delirium after hip fracture surgery: a cohort study"), query(text)


def test_what_the_people_studied_do_not_have_is_no_required_block():
    # "in older adults without dementia" AND-ed ``dementia*``: the studies of people who have it, never the
    # trials whose participants simply have no dementia
    text = ("Cognitive behavioural therapy for insomnia in older adults without dementia: a systematic review and "
            "meta-analysis. We pooled randomised trials of cognitive behavioural therapy for insomnia in older people.")
    q = query(text)
    assert hits(text, "Cognitive behavioural therapy for insomnia in community-dwelling older adults: a randomised "
                      "controlled trial"), q
    assert not hits(text, "Cognitive behavioural therapy for depression in older adults: a randomised trial"), q


_INTERACTIONS = ("Drug-drug interactions between statins and macrolide antibiotics: a systematic review. We reviewed "
                 "evidence on interactions between atorvastatin, simvastatin or lovastatin and macrolide antibiotics "
                 "in adults.")


def test_a_drug_interaction_title_frames_the_two_drugs_and_is_no_block():
    # "Drug-drug interactions between X and Y" AND-ed ``interact*``: a pharmacokinetic study of X given with Y
    # seldom says "interaction"
    q = query(_INTERACTIONS)
    assert hits(_INTERACTIONS, "Effect of macrolide antibiotics on the pharmacokinetics of statins in healthy "
                               "volunteers"), q
    assert not hits(_INTERACTIONS, "Macrolide antibiotics for community-acquired pneumonia: a randomised trial"), q


def test_between_a_list_closed_by_or_and_y_the_and_is_ys():
    # "between A, B or C and Y": the lone "and" after the "or" list was read as the list's, so A, B and C joined
    # Y's block (the statins became macrolides) and the statin block lost its members
    q = query(_INTERACTIONS)
    assert hits(_INTERACTIONS, "Atorvastatin and macrolide antibiotics: a cohort study of myopathy"), q
    assert not hits(_INTERACTIONS, "Simvastatin for secondary prevention: a randomised trial"), q


def test_the_head_a_title_compares_two_kinds_of_is_no_term_alone():
    # "Long-acting versus short-acting bronchodilators": the comparator joined X's block by the head both share,
    # and the head alone, ``bronchodilator*``, found every study of either kind
    text = ("Long-acting versus short-acting bronchodilators in chronic obstructive pulmonary disease: a systematic "
            "review. We pooled randomised trials reporting exacerbations and lung function.")
    q = query(text)
    assert not hits(text, "Short-acting bronchodilators and lung function in chronic obstructive pulmonary disease: "
                          "a randomised trial"), q
    assert hits(text, "Long-acting bronchodilators and exacerbations in COPD: a randomised trial"), q


def test_what_an_aim_compares_x_with_is_no_kind_of_x():
    # "trials comparing long-acting and short-acting bronchodilators": the second is what X is compared with, not
    # a variant of X (read as a list, and as a kind of X by its head)
    text = ("Long-acting versus short-acting bronchodilators in chronic obstructive pulmonary disease: a systematic "
            "review. Objectives: To compare randomised trials comparing long-acting and short-acting "
            "bronchodilators on exacerbations and lung function.")
    q = query(text)
    assert not hits(text, "Short-acting bronchodilators and lung function in chronic obstructive pulmonary disease: "
                          "a randomised trial"), q


def test_an_animal_models_like_behaviour_is_also_searched_by_the_condition():
    # "depressive-like behaviour" was its phrase alone: a rat study saying "stress-induced depression" was missed
    text = ("Environmental enrichment and depressive-like behaviour in rodents: a systematic review and meta-analysis. "
            "We pooled controlled studies in mice and rats housed in enriched environments and tested in the forced "
            "swim test.")
    q = query(text)
    assert hits(text, "Environmental enrichment alleviates chronic stress-induced depression in rats"), q
    assert not hits(text, "Environmental enrichment improves spatial memory in aged mice"), q


def test_the_outcomes_an_aim_names_for_the_titles_one_join_it():
    # "Aerobic exercise and cognitive function": the aim's "on memory and processing speed" restates the title's
    # outcome in the words the trials measure, and was left out
    text = ("Aerobic exercise and cognitive function in multiple sclerosis: a systematic review. Objectives: To "
            "assess the effect of aerobic exercise on memory and processing speed in people with multiple sclerosis. "
            "Results: Aerobic exercise improved cognitive function in 12 of 20 trials.")
    q = query(text)
    assert hits(text, "Aerobic exercise improves processing speed in people with multiple sclerosis: a randomised "
                      "trial"), q
    assert not hits(text, "Aerobic exercise and fatigue in multiple sclerosis: a randomised trial"), q


def test_a_title_pair_whose_first_the_aim_says_acts_on_something_is_two_subjects():
    # "Bilingualism and executive function": one word before the "and" read as a list of one concept,
    # ``bilingualism* OR "executive function"``, every study of executive function; the aim's "the effect of
    # bilingualism on ..." says bilingualism acts on something
    text = ("Bilingualism and executive function in older adults: a systematic review and meta-analysis. Objectives: "
            "To assess the effect of bilingualism on inhibitory control and task switching in healthy older adults. "
            "We searched four databases and pooled 40 studies.")
    q = query(text)
    assert not hits(text, "Executive function and falls in older adults"), q
    assert hits(text, "Bilingualism and inhibitory control in healthy elderly people"), q


def test_the_people_whose_experiences_a_title_names_are_a_subject():
    # "Experiences of family caregivers of people with X": the caregivers were who the studies are about, never
    # AND-ed, and X stood alone (every study of Parkinson's disease)
    text = ("Experiences of family caregivers of people with Parkinson's disease: a qualitative evidence synthesis. "
            "We synthesised qualitative studies on how informal caregivers experience caring for a relative with "
            "Parkinson's disease at home.")
    q = query(text)
    assert not hits(text, "Deep brain stimulation in Parkinson's disease: a randomised trial"), q
    assert hits(text, "Caring for a spouse with Parkinson's disease: an interview study of family carers"), q


def test_the_people_a_prevalence_title_counts_in_are_a_subject():
    # "Prevalence of X among <people>": the people were who the studies are about, never AND-ed: ``depress*``
    # alone, every study of depression
    text = ("Prevalence of depression among medical students: a systematic review and meta-analysis. We pooled "
            "cross-sectional surveys that assessed depressive symptoms with validated questionnaires.")
    q = query(text)
    assert not hits(text, "Depression in primary care: a randomised trial of collaborative care"), q
    assert hits(text, "Depressive symptoms among first-year medical students in Brazil: a cross-sectional survey"), q


def test_what_the_review_extracted_from_its_studies_is_no_term():
    # "data were extracted on the systems under test, the mutation operators used, the test adequacy criteria":
    # read as which studies were taken, its items joined the technique as alternatives (``"adequacy criteria"``)
    text = ("Mutation testing of deep learning systems: a systematic literature review. Objective: To identify "
            "research on applying mutation testing to deep learning models. Method: Studies were selected by two "
            "researchers and data were extracted on the systems under test, the mutation operators used, the test "
            "adequacy criteria and the tools.")
    q = query(text)
    assert not hits(text, "Test adequacy criteria for deep learning systems: an empirical study"), q
    assert hits(text, "DeepMutation: mutation testing of deep learning systems"), q


def test_a_people_compound_takes_no_bare_head_from_its_repeat():
    # "nurse burnout" (``(burnout* AND nurse*)``) took ``burnout*`` from the aim's "burnout among ... nurses":
    # every burnout study, whoever has it
    text = ("Interventions to reduce nurse burnout: a scoping review. We conducted a scoping review to map the "
            "interventions that have been evaluated to prevent or reduce burnout among hospital and community nurses, "
            "the outcomes measured and the evidence gaps.")
    q = query(text)
    assert not hits(text, "Burnout among resident physicians: a national survey"), q
    assert hits(text, "A mindfulness programme to reduce burnout in intensive care nurses: a pilot trial"), q
