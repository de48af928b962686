"""Round 27 (h27q): what round 26 left on questions, and new question frames (invented texts)."""

from tests.unit.domain.concept_queries import hits, query, top_level_terms


def test_cessation_of_an_activity_keeps_the_act():
    # "cessation" is no act noun by the lexicon ("cease"): the act was lost and the activity stood alone
    text = "What are the barriers to cessation of betel quid chewing among older adults?"
    q = query(text)
    assert hits(text, "Cessation of betel quid chewing: a community trial"), q
    assert not hits(text, "Betel quid chewing and oral cancer risk: a case-control study"), q


def test_cessation_of_a_substance_use_keeps_the_act():
    text = "What interventions support cessation of kratom use in young adults?"
    q = query(text)
    assert hits(text, "Kratom use cessation in a cohort of young adults"), q
    assert not hits(text, "Kratom use patterns among young adults in Malaysia"), q


def test_reporting_is_the_act_of_a_causative_question():
    # "reporting" is a word of how reviews report: the act was lost, the object alone (every study of it)
    text = "What prevents community nurses from reporting needlestick injuries?"
    q = query(text)
    assert hits(text, "Under-reporting of needlestick injuries among community nurses"), q
    assert not hits(text, "Incidence of needlestick injuries in community nursing"), q


def test_discourages_from_reporting():
    text = "What discourages veterinarians from reporting suspected animal cruelty?"
    q = query(text)
    assert hits(text, "Reporting of suspected animal cruelty by veterinarians: a survey"), q
    assert not hits(text, "Animal cruelty and interpersonal violence: a review of suspected cases"), q


def test_why_do_agent_nouns_leave_is_the_causative_reading():
    # "technicians" is no listed role: the people and the verb were one phrase, the act lost
    text = "Why do laboratory technicians quit their jobs?"
    q = query(text)
    assert hits(text, "Why laboratory technicians quit their jobs: an interview study"), q
    assert not hits(text, "Job satisfaction of laboratory technicians"), q
    # the everyday object ("jobs") keeps the people AND-ed: every study of quitting any job is not wanted
    assert not hits(text, "Nurses who quit their jobs during the pandemic"), q


def test_why_do_agent_nouns_decline_a_vaccination():
    text = "Why do correctional officers decline hepatitis B vaccination?"
    q = query(text)
    assert hits(text, "Declining hepatitis B vaccination: reasons given by correctional officers"), q
    assert not hits(text, "Correctional officers and occupational stress"), q


def test_a_verbs_instrument_noun_is_no_agent():
    # "blockers", "inhibitors": a verb's "-er" noun names a thing as often; the drug stays in the query
    text = "Why do calcium channel blockers cause ankle oedema?"
    assert "what is the evidence" not in query(text).casefold()
    assert any("blocker" in t for t in top_level_terms(text)) or "blocker" in query(text), query(text)


def test_a_means_compound_leads_its_kind():
    # "inquiry-based mathematics instruction": ``"mathematics instruction"`` alone was every kind's
    text = "Does inquiry-based mathematics instruction improve problem-solving skills in secondary students?"
    q = query(text)
    assert '"mathematics instruction"' not in top_level_terms(text), q
    assert not hits(text, "Direct mathematics instruction and achievement in grade 9"), q


def test_a_field_before_its_head_is_not_the_head():
    # "obesity prevention posters": ``"obesity prevention"`` alone is every study of the field
    text = "How do obesity prevention posters in school canteens affect food choices among pupils?"
    q = query(text)
    assert '"obesity prevention"' not in top_level_terms(text), q
    assert not hits(text, "A family-based obesity prevention programme: a randomised trial"), q


def test_a_numbered_name_leads_its_kind():
    # "omega-6 fatty acid supplementation": ``"fatty acid"`` alone was every fatty acid
    text = "What is the effect of omega-6 fatty acid supplementation on eczema severity in infants?"
    q = query(text)
    assert '"fatty acid"' not in top_level_terms(text), q
    assert not hits(text, "Trans fatty acid intake and coronary events in adults"), q


def test_exposure_to_is_no_block_of_its_own():
    # "exposure to" split at "to" before a gerund: ``exposur*`` was the main block, a top-level alternative
    text = "Does exposure to vaping advertisements on television increase vaping initiation among adolescents?"
    q = query(text)
    assert "exposur*" not in top_level_terms(text), q
    assert not hits(text, "Occupational exposure to solvents and kidney function"), q


def _older_adults_broad(term: str) -> float:
    """A background (a pool of reviews of older people) where the older adults' words are in a third of the
    records."""
    core = term.strip('"').casefold()
    return 0.3 if core.startswith(("older", "elderly", "aged", "geriatric")) else 0.0


def test_outcome_left_alone_by_a_background_is_anded():
    # the older adults left as broad in the pool, the rest branch was the outcome alone: every study of it
    text = "What is the effect of tai chi practice on balance confidence in older adults?"
    q = query(text, background=_older_adults_broad)
    assert not hits(text, "Balance confidence after hip fracture surgery", background=_older_adults_broad), q
    assert hits(text, "Tai chi practice and balance confidence: a randomised trial", background=_older_adults_broad), q


def test_a_counted_food_before_its_intake_is_a_term():
    # "pistachio consumption": its studies write "pistachios" too
    text = "Does pistachio consumption lower blood pressure in adults with hypertension?"
    q = query(text)
    assert hits(text, "Effects of pistachios on blood pressure: a randomised crossover trial"), q


def test_intake_alone_is_no_term():
    # ``intak*`` alone (of "sugar intake") was every study of any intake
    text = "Is sugar intake associated with dental caries in preschool children?"
    q = query(text)
    assert "intak*" not in top_level_terms(text), q
    assert not hits(text, "Protein intake and muscle mass in older adults"), q
