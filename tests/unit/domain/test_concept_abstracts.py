"""Concept blocks of published-abstract-like texts (title + abstract): rules of the fourth round. Every text here
is invented."""

from __future__ import annotations

import re

from agentr_dagster.domain.boolean_query import matches, parse_boolean_query
from agentr_dagster.llm.offline.concepts import extract_concepts


def _query(text: str) -> str:
    return extract_concepts(text).boolean_query()


def _hits(text: str, record: str) -> bool:
    return matches(parse_boolean_query(_query(text)), record)


def test_a_name_with_a_possessive_stays_one_concept():
    # "Huntington's disease" was read as "Huntington of disease": a block of the bare word disease
    text = "Does Huntington's disease raise the risk of falls in adults?"
    plan = extract_concepts(text)
    terms = [t for b in plan.blocks for t in b.terms]
    assert "disease" not in terms
    assert any("huntington's disease" in t for t in terms)
    assert _hits(text, "Huntington disease and gait") and _hits(text, "Huntington's disease cohort")


def test_a_name_without_a_possessive_finds_the_possessive_form():
    text = ("Chelation therapy for Menkes disease: a systematic review. Menkes disease is a rare disorder of copper "
            "transport. We assessed the effects of chelation therapy.")
    assert _hits(text, "Copper histidine and chelation therapy in Menkes' disease")
    assert _hits(text, "Chelation therapy in Menkes's disease: a case report")


def test_a_common_word_of_a_name_does_not_stand_alone():
    # "Smith" is common English: "smith*" alone would match any record naming an author Smith
    plan = extract_concepts("Smith disease and hearing loss: a systematic review.")
    assert "smith*" not in [t for b in plan.blocks for t in b.terms]


def test_a_coordination_that_is_one_name_stays_one_phrase():
    # said twice verbatim: a fixed name, not acceptance* OR "commitment therapy"
    text = ("Compassion and mindfulness training for burnout in nurses: a meta-analysis. We pooled trials of "
            "compassion and mindfulness training for burnout.")
    plan = extract_concepts(text)
    terms = [t for b in plan.blocks for t in b.terms]
    assert '"compassion and mindfulness training"' in terms
    assert "compassion*" not in terms and "compassi*" not in terms


def test_a_coordination_with_an_acronym_is_one_name():
    text = "Dialectical and cognitive therapy (DCT) for self-harm: a systematic review."
    terms = [t for b in extract_concepts(text).blocks for t in b.terms]
    assert '"dialectical and cognitive therapy"' in terms and "DCT" in terms


def test_two_concepts_joined_by_and_are_still_split():
    plan = extract_concepts("Loneliness and depression in students: a review. We assessed loneliness in students.")
    terms = [t for b in plan.blocks for t in b.terms]
    assert '"loneliness and depression"' not in terms and any(t.startswith("lonel") for t in terms)


def test_a_unicode_hyphen_is_a_hyphen():
    text = "Late\u2010onset asthma and obesity: a systematic review."
    terms = [t for b in extract_concepts(text).blocks for t in b.terms]
    assert '"late-onset asthma"' in terms and not any("\u2010" in t for t in terms)


def test_a_subtitle_after_a_colon_is_not_a_variant_of_the_concept_before_it():
    text = ("Exercise Trials for Knee Osteoarthritis: Insights for the Design of Future Trials. We reviewed exercise "
            "trials in knee osteoarthritis.")
    plan = extract_concepts(text)
    for block in plan.blocks:
        if any("osteoarthritis" in t for t in block.terms):
            assert not any(t.startswith("insight") for t in block.terms), block.terms


def test_a_word_the_text_uses_as_a_verb_is_a_verb_in_the_title():
    # "the treatment children with asthma prefer in ..." : prefer is the relative clause's verb, not a noun of
    # "asthma prefer"; the abstract says "children ... prefer inhaled medication"
    text = ("A review of the outcomes parents of children with epilepsy value in daily care. We assessed which "
            "outcomes parents of children with epilepsy value in daily care. Parents, in most studies, value "
            "accurate information.")
    plan = extract_concepts(text)
    terms = [t for b in plan.blocks for t in b.terms]
    assert not any("epilepsy value" in t for t in terms) and "epileps*" in terms, terms


def test_who_the_studies_are_about_is_not_the_main_block_nor_and_ed():
    # studies of rodents say "rats" or "mice": rodent* AND-ed with the subject loses them
    text = ("Prenatal Exposure to Triclosan and Thyroid Function in Rodents: a systematic review. We reviewed "
            "studies of prenatal triclosan exposure in rodents.")
    assert _hits(text, "Triclosan exposure during gestation alters thyroid hormones in rats")
    main = extract_concepts(text).main()
    assert main is not None and "rodent*" not in main.terms


def test_a_setting_after_in_is_not_preferred_to_the_title_subjects():
    # "in sparse data contexts" says where the method is used; the subjects are the method and the models
    text = ("Bootstrap Versus Jackknife Estimation for Growth Curve Models in Sparse Data Contexts: A Systematic "
            "Review. In sparse data contexts, bootstrap estimation is often recommended over jackknife estimation.")
    query = _query(text).casefold()
    assert "growth curve" in query and "bootstrap" in query, query
    assert "jackknife" not in query and "sparse" not in query


def test_an_aspect_of_the_subject_is_not_and_ed_with_it():
    # the studies test the theories' factors ("rumination predicted relapse"), they rarely say "theory"
    text = ("Personality theories of insomnia relapse: a systematic review. We tested whether personality "
            "factors predict insomnia relapse in adults.")
    assert _hits(text, "Rumination predicts insomnia relapse after treatment")
    assert "theor" not in _query(text)


def test_what_the_subtitle_names_is_not_and_ed_with_the_title_subject():
    # "lessons for translation" is what the review concludes: its studies never say translation
    text = ("Lithium dosing in rat and human bipolar studies: lessons for translation. We compared lithium dosing "
            "between rat and human studies of bipolar disorder.")
    assert "transl" not in _query(text)
    assert _hits(text, "Lithium dosing and serum levels in rats")


def test_an_organism_before_what_is_studied_is_not_part_of_its_name():
    # "animal and human ketamine trials": the trials are of ketamine, in animals and in humans
    text = ("Comparing Animal and Human Ketamine Trials for Treatment-Resistant Depression. We compared ketamine "
            "trials in animals and humans.")
    terms = [t for b in extract_concepts(text).blocks for t in b.terms]
    assert "ketamin*" in terms and not any("human ketamine" in t for t in terms), terms
    assert _hits(text, "Ketamine infusion for treatment-resistant depression: a randomised trial")


def test_modifiers_all_the_way_to_a_rare_head_give_the_head_alone():
    # "long-acting injectable antipsychotics": trials name the drug class as "antipsychotics"
    text = "Long-acting injectable antipsychotics for first-episode schizophrenia: a systematic review."
    terms = [t for b in extract_concepts(text).blocks for t in b.terms]
    assert "antipsychotic*" in terms, terms


def test_a_noun_and_gerund_phrase_finds_the_hyphenated_form():
    text = "Problem solving training for caregivers of stroke survivors: a meta-analysis."
    terms = [t for b in extract_concepts(text).blocks for t in b.terms]
    assert "problem-solving" in terms and "solving-training" not in terms, terms


def test_in_after_a_verb_is_no_setting():
    # "the role adults with asthma take in self management": what they take a role in is a subject, not a setting
    text = ("The role adults with asthma take in symptom monitoring. We assessed the role adults with asthma take "
            "in symptom monitoring. Adults, in most studies, take active responsibility.")
    query = _query(text).casefold()
    assert "asthma" in query and "symptom monitoring" in query, query


def test_a_non_qualifier_inside_a_phrase_is_also_left_out():
    # "persistent non-malignant cough": its trials say "persistent cough"
    text = "Inhaled steroids for persistent non-malignant cough in adults: a systematic review."
    terms = [t for b in extract_concepts(text).blocks for t in b.terms]
    assert '"persistent cough"' in terms, terms


def test_a_structured_abstract_without_a_title_takes_its_subject_from_the_objective():
    # no title: the sentence under "Objectives:" is the aim ("we systematically reviewed" is one too); the query
    # was empty
    text = ("Background: Insomnia is common in shift workers. Objectives: We systematically reviewed light therapy "
            "for insomnia in shift workers. Methods: Randomised trials were eligible. Results: 9 studies were "
            "included. Conclusion: Light therapy may help.")
    query = _query(text).casefold()
    assert "light therapy" in query and "systematically" not in query, query


# -- round 5: no broad single word as a top-level alternative; the paper's own product; three title subjects --


def _background(*broad: str):
    """A stand-in background: a term starting with one of ``broad`` is in 20 % of its records, any other in 0.1 %."""
    return lambda term: 0.2 if term.strip('"').casefold().startswith(broad) else 0.001


def _top_level_terms(query: str) -> list[str]:
    """The alternatives of a query's first OR-group that are bare words (no phrase, no AND-ed pair)."""
    return [t for t in re.split(r" OR ", query.strip("()")) if " " not in t and not t.startswith("(")]


def test_a_broad_word_of_a_lone_subject_is_anded_with_its_concepts_other_word():
    # "remission" in 20 % of the background's records: never alone, only with "alcoholic"
    text = "Alcoholic relapse and remission: a systematic review and meta-analysis. Many drinkers relapse."
    plan = extract_concepts(text, background=_background("remiss"))
    query = plan.boolean_query()
    assert "remiss*" not in _top_level_terms(query)
    tree = parse_boolean_query(query)
    assert matches(tree, "Remission of alcoholic liver disease in abstinent drinkers")
    assert not matches(tree, "Complete remission after chemotherapy for lymphoma")
    # a word the background does not find broad stays alone (a thing; a process such as "remission" is AND-ed
    # with its sibling's modifier whatever the background says, round 8)
    other = "Alcoholic hepatitis and cirrhosis: a systematic review and meta-analysis."
    assert "cirrhosi*" in _top_level_terms(extract_concepts(other, background=_background("zzz")).boolean_query())


def test_without_a_background_a_common_verb_stem_is_paired_and_a_topic_noun_is_not():
    # no background: "predict*" (its commonest form "predicted" is only a verb, Zipf 4.1) is said by papers of
    # every topic; "cancer" (a noun, Zipf 4.9) names a topic and stays as it was
    query = _query("Crop yield prediction models: a systematic mapping study. We reviewed yield forecasting studies.")
    assert "predict*" not in _top_level_terms(query)
    tree = parse_boolean_query(query)
    assert matches(tree, "Predicting wheat yield from satellite images")
    assert not matches(tree, "Predicted mortality in intensive care")
    query = _query("Fatigue in cancer survivors: a systematic review. Fatigue is common after treatment.")
    assert "(cancer* AND" not in query


def test_an_abstract_opening_with_we_drops_a_broad_lone_rest_block():
    # no title: the question-style shape A OR B; B in 20 % of the background's records must not stand alone
    text = "We assessed whether tai chi improves hypertension. Methods: We searched MEDLINE."
    assert extract_concepts(text, background=_background("hypertens")).boolean_query() == '"tai chi"'
    assert extract_concepts(text, background=_background("zzz")).boolean_query() == '"tai chi" OR hypertens*'


def test_what_the_paper_built_from_the_literature_is_no_subject():
    # "weights based on a systematic literature review and expert consensus": the paper's product and its sources
    text = ("A delirium risk score with weights based on a systematic literature review and expert consensus. "
            "We built a score from published studies.")
    query = _query(text)
    assert "delirium" in query
    assert "weight" not in query and "expert" not in query


def test_based_on_without_a_review_method_keeps_its_subject():
    query = _query("Mindfulness interventions based on yoga for chronic back pain: a systematic review.")
    assert "yoga" in query and "back pain" in query


def test_a_title_with_three_subjects_ands_all_three():
    plan = extract_concepts("Mindfulness interventions based on yoga for chronic back pain: a systematic review.")
    assert sum(1 for b in plan.blocks if b.independent) == 2  # two AND-ed with the main block
    tree = parse_boolean_query(plan.boolean_query())
    assert matches(tree, "Yoga and mindfulness interventions for chronic back pain: a randomised trial")
    assert not matches(tree, "Yoga for chronic back pain: a randomised trial")


def test_what_the_paper_did_itself_leaves_the_title_phrase():
    # "we estimate trajectories ... using the Bayesian framework": the estimation and "Bayesian" are the paper's
    # method; the craving trajectories are what its studies are about
    text = ("Bayesian Craving Trajectory Estimation: a worked example. Craving is common after detoxification. We "
            "estimate trajectories of craving in smokers using the Bayesian framework.")
    query = _query(text).casefold()
    assert "bayesian" not in query and "estimat" not in query
    assert "craving trajectory" in query


def test_a_method_the_paper_only_reviews_stays_in_the_title_phrase():
    # no "we ... using Bayesian": Bayesian networks are what the reviewed studies are about
    query = _query("Bayesian networks for flood risk: a systematic review. Floods are costly. We reviewed Bayesian "
                   "network models of flood risk.")
    assert "bayesian network" in query


def test_an_acronym_compound_also_finds_its_parts_apart():
    text = "COVID-Anxiety in hospital nurses: a systematic review. Nurses faced stress."
    assert _hits(text, "Anxiety among nurses during the COVID-19 pandemic")


def test_what_the_reviewed_studies_used_stays_in_the_title():
    # "we synthesised trials using mindfulness apps": the apps are what the studies used, the review's subject
    query = _query("Mindfulness apps for exam anxiety: a systematic review. Students are often anxious before exams. "
                   "We synthesised trials using mindfulness apps in students.")
    assert "mindfulness app" in query



_KINDS_ABSTRACT = (
    "Toxicity assays for microplastics in freshwater: a systematic literature review. We identified 40 studies of "
    "toxicity assays. Results. Oxidative stress assays were used most often, and algal growth assays in 12 studies. "
    "There were different assays in each country and relevant assays were rare. Sediment sampling was rare.")


def test_a_kind_of_the_subject_named_in_the_results_joins_its_block():
    # "oxidative stress assays" is a kind of "toxicity assays" (same rare head): its studies say it alone
    terms = extract_concepts(_KINDS_ABSTRACT).main().terms
    assert '"oxidative stress assays"' in terms and '"algal growth assays"' in terms
    assert _hits(_KINDS_ABSTRACT, "Oxidative stress assays of polystyrene microplastics")


def test_an_evaluative_modifier_names_no_kind():
    terms = [t for b in extract_concepts(_KINDS_ABSTRACT).blocks for t in b.terms]
    assert not any("different" in t or "relevant" in t for t in terms)
    assert not _hits(_KINDS_ABSTRACT, "Relevant assays of microplastics in rivers")


def test_a_phrase_with_another_head_does_not_join():
    terms = [t for b in extract_concepts(_KINDS_ABSTRACT).blocks for t in b.terms]
    assert not any("sediment" in t for t in terms)
    assert not _hits(_KINDS_ABSTRACT, "Sediment sampling of microplastics in rivers")


# round 7: an umbrella "X-related" phrase, kinds of a generic head sharing the modifier, an undefined acronym

_RELATED_ABSTRACT = (
    "Long-term effects of yoga for stress-related disorders: a meta-analysis. Yoga is often offered for "
    "stress-related disorders. We pooled trials of yoga.")


def test_an_x_related_umbrella_phrase_names_x():
    # its studies say "acute stress disorder", "work stress", hardly ever "stress-related disorders"
    assert _hits(_RELATED_ABSTRACT, "Yoga for acute stress in nurses: a randomised trial")
    assert not _hits(_RELATED_ABSTRACT, "Yoga for chronic low back pain: a randomised trial")


def test_an_x_associated_modifier_before_a_specific_head_stays_a_phrase():
    # "aspirin-associated ulcers" are ulcers: aspirin* alone would be every aspirin study
    text = "Misoprostol for aspirin-associated ulcers: a systematic review. We pooled trials of misoprostol."
    terms = [t for b in extract_concepts(text).blocks for t in b.terms]
    assert "aspirin*" not in terms


def test_a_later_item_of_a_title_list_gives_no_x_stem():
    # "Cadmium and Kidney-Related Outcomes": kidney* is no variant of the block of cadmium
    text = "Early Exposure to Cadmium and Kidney-Related Outcomes in Rodents: a meta-analysis. We pooled studies."
    terms = [t for b in extract_concepts(text).blocks for t in b.terms]
    assert "kidney*" not in terms


_BEHAVIOUR_ABSTRACT = (
    "Sleep loss promotes impulsive-choice behaviours: a meta-analysis. Impulsivity can be costly. We searched for "
    "studies that restricted sleep in rodents. Results. Impulsive behaviour rose after sleep loss in 30 studies; "
    "grooming behaviour did not change.")


def test_a_kind_of_a_generic_head_sharing_the_modifier_joins():
    # "impulsive-choice behaviours" is what the title says; its studies write "impulsive behaviour"
    terms = [t for b in extract_concepts(_BEHAVIOUR_ABSTRACT).blocks for t in b.terms]
    assert '"impulsive behaviour"' in terms and '"impulsive behavior"' in terms
    assert _hits(_BEHAVIOUR_ABSTRACT, "Sleep loss and impulsive behavior in rats")


def test_another_kind_of_a_generic_head_does_not_join():
    terms = [t for b in extract_concepts(_BEHAVIOUR_ABSTRACT).blocks for t in b.terms]
    assert not any("grooming" in t for t in terms)
    assert not _hits(_BEHAVIOUR_ABSTRACT, "Sleep loss and grooming behaviour in mice")


def test_an_undefined_acronym_is_linked_to_its_words_in_the_text():
    # "ADHD" is not defined; the text says "attention deficit hyperactivity symptoms" (all but the head's letter)
    text = ("ADHD-Trajectory analysis in a school cohort. We analyze trajectories of attention deficit hyperactivity "
            "symptoms in a cohort of children.")
    assert _hits(text, "Trajectories of attention deficit hyperactivity symptoms from childhood to adolescence")
    assert not _hits(text, "Attention deficit hyperactivity disorder and sleep in children")  # not alone


def test_an_acronym_is_not_linked_to_words_that_do_not_spell_it():
    text = ("ADHD-Trajectory analysis in a school cohort. We analyze trajectories of anxiety and depressive "
            "symptoms in a cohort of children.")
    assert not _hits(text, "Trajectories of anxiety and depressive symptoms in childhood")


def test_a_record_with_a_unicode_hyphen_matches_a_hyphenated_term():
    # publishers write "high\u2010dose" (U+2010); the query says "high-dose"
    text = "High-dose vitamin D for falls in older adults: a systematic review. We pooled trials of vitamin D."
    record = "High\u2010dose vitamin D and falls: a randomised trial"
    assert matches(parse_boolean_query('"high-dose vitamin"'), record)
    assert _hits(text, record)


def test_the_bench_pool_reads_a_unicode_hyphen_as_the_matcher_does():
    from agentr_dagster.bench.queries import Pool

    pool = Pool(["High\u2010dose vitamin D and falls", "Low dose aspirin"], ["a", "b"])
    assert pool.ids(parse_boolean_query('"high-dose vitamin"')) == frozenset({0})


_ASSOCIATION_ABSTRACT = (
    "Periodontal disease and the risk of stroke: a systematic review and meta-analysis. We searched for cohort "
    "studies addressing associations of gingivitis, alveolar bone loss and tooth loss with risk of stroke. Pooled "
    "analyses showed an association of dental caries with stroke (hazard ratio 1.2, N = 3000).")


def test_what_the_aim_associates_with_one_title_subject_names_the_other():
    # "periodontal disease" is the umbrella; its studies name gingivitis or tooth loss
    assert _hits(_ASSOCIATION_ABSTRACT, "Tooth loss and incident stroke in older men: a cohort study")
    assert not _hits(_ASSOCIATION_ABSTRACT, "Tooth loss and diet quality in older men")  # stroke still required


def test_a_results_sentence_association_names_no_variant():
    assert not _hits(_ASSOCIATION_ABSTRACT, "Dental caries and stroke in a national cohort")


def test_a_noun_modifier_is_also_written_as_its_adjective():
    # "education programmes" / "educational programmes"
    text = "Education programmes for asthma in schools: a systematic review. We pooled trials of education programmes."
    assert _hits(text, "An educational programme for asthma in primary schools: a cluster trial")


def test_an_i_e_restatement_gives_no_term_of_its_letters():
    text = ("Periodontal disease and the risk of stroke: a meta-analysis. We searched for studies addressing "
            "associations of gingivitis, tooth loss (i.e., edentulism) and bone loss with risk of stroke.")
    terms = [t for b in extract_concepts(text, background=lambda term: 0.0).blocks for t in b.terms]
    assert '"i e"' not in terms and any("edentulism" in t for t in terms)


# -- round 8: a process noun names what happens to something; a list's loose pairs ------------------------------


def _terms(text: str) -> list[str]:
    return [t for b in extract_concepts(text).blocks for t in b.terms]


def test_a_process_head_is_anded_with_what_it_happens_to():
    # "relapse" alone is the relapse of any disease: it goes AND-ed with the phrase's modifier
    text = "Bipolar relapse in adults: a systematic review of cohort studies."
    terms = _terms(text)
    assert "relaps*" not in terms
    assert "(relaps* AND bipolar*)" in terms
    assert _hits(text, "Relapse in bipolar disorder after stopping lithium")
    assert not _hits(text, "Relapse of acute leukaemia after induction")


def test_a_noun_of_a_verb_is_anded_with_its_modifier():
    # "inheritance" is the noun of "inherit": which inheritance the modifier says
    terms = _terms("Mitochondrial inheritance of myopathy: a scoping review of case series.")
    assert "inheritanc*" not in terms
    assert any(t.startswith("(inheritanc* AND") and "mitochondri" in t for t in terms)


def test_a_thing_head_still_stands_alone():
    # "rhinitis" and "fracture" name a thing, not an event: the head alone is the concept ("fracture" is filed as a
    # verb too, but "fractures" is commoner than "fractured")
    assert "rhiniti*" in _terms("Allergic rhinitis in children: a systematic review of nasal sprays.")
    assert "fractur*" in _terms("Osteoporotic fracture in older adults: a systematic review of hip protectors.")


def test_a_bare_process_noun_of_a_list_shares_the_modifier_of_its_process_sibling():
    # "relapse and recurrence": the recurrence is bipolar too; recurr* alone is every disease's
    text = "Predictors of bipolar relapse and recurrence: a systematic review of cohort studies."
    terms = _terms(text)
    assert "recurr*" not in terms
    assert "(recurr* AND bipolar*)" in terms
    assert _hits(text, "Recurrence of bipolar depression after lithium withdrawal")
    assert not _hits(text, "Recurrence of colorectal cancer after surgery")


def test_a_bare_noun_of_a_list_with_a_thing_sibling_stays_alone():
    # "chronic migraine and depression": depression is no event of the migraine
    terms = _terms("Chronic migraine and depression in women: a systematic review.")
    assert not any(t.startswith("(depress") for t in terms)


def test_a_pair_cut_from_the_noun_a_process_acts_on_is_no_term():
    # "flood prediction performance": "prediction performance" is the performance of any prediction
    terms = _terms("Flood prediction performance of neural networks: a systematic review.")
    assert '"prediction performance"' not in terms
    assert '"flood prediction"' in terms


def test_a_pair_of_a_thing_noun_and_its_head_stays():
    # "heart" is no process: "heart disease" names the concept ("coronary heart disease" studies say it)
    assert '"heart disease"' in _terms("Coronary heart disease and hearing loss: a systematic review.")


def test_a_part_of_a_phrase_closed_by_an_adjective_is_no_term():
    # "renal small vessel disease": "renal small" names nothing; "small vessel disease" stays ("small vessel" and
    # "vessel disease", common pairs without the rare "renal", leave since round 18)
    terms = _terms("Renal small vessel disease and hypertension: a systematic review.")
    assert '"renal small"' not in terms
    assert '"small vessel disease"' in terms


def test_a_meta_noun_closing_a_compound_of_a_common_verb_noun_stays():
    # "screen time": screen* alone finds every "screening"; the compound is the concept
    text = "Screen time of preschool children: a systematic review."
    assert "screen*" not in _terms(text)
    assert '"screen time"' in _terms(text)
    assert _hits(text, "Daily screen time in preschool children and language delay")
    assert not _hits(text, "Vision screening in preschool children")


def test_a_meta_noun_after_a_rare_noun_still_leaves_it():
    # "cannabis use": cannabis is rare, its stem alone names the concept ("cannabis dependence")
    assert "cannabi*" in _terms("Cannabis use and psychosis: a systematic review.")
