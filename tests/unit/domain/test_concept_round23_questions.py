"""Round 23 (h23q): review questions in unseen fields, on invented text (docs/search-strategies.md, round 23)."""

from tests.unit.domain.concept_queries import hits, terms, top_level_terms


def test_who_put_first_leaves_the_effect_adjective_out():
    # "Among X, are Y effective for Z?": the predicate "effective" was read as a concept (effect* in the rest)
    question = "Among nursing home residents, are music programmes effective for reducing agitation?"
    assert "effect*" not in terms(question)
    assert hits(question, "Group music programmes and agitation in dementia care: a trial")


def _narrow(term: str) -> float:
    """A background (a pool of other reviews' records) that shows every term narrow."""
    return 0.001


def test_is_x_effective_for_y_in_whom_requires_x():
    # "Is X effective for Y in Z?" was X OR (Y AND Z): every study of Y in Z, X not required
    question = "Is melatonin effective for sleep onset problems in school-age children?"
    assert not hits(question, "Sleep onset problems in school-age children: a cohort study")
    assert hits(question, "Melatonin for sleep onset problems: a randomised trial")
    assert "child*" not in terms(question)  # who the studies are about is no filter either
    # with who put first: X OR (Y AND who), now X AND Y
    question = "In older adults, are yoga classes effective for improving balance?"
    assert not hits(question, "Balance training in older adults: a systematic review")
    assert hits(question, "Yoga classes and balance: a randomised trial")


def test_a_lone_condition_is_anded_whatever_the_background():
    # "Is X effective for chronic pain?": with a pool that shows the pain narrow, X OR "chronic neck pain" stayed
    question = "Is tai chi effective for chronic neck pain?"
    assert not hits(question, "Manual therapy for chronic neck pain: a randomised trial", background=_narrow)
    assert hits(question, "Tai chi for people with chronic neck pain: a randomised trial", background=_narrow)
    assert "chronic neck pain" not in top_level_terms(question)


def test_what_an_eligibility_item_says_is_switched_from_is_no_term_alone():
    # "Include patients switched from originator X to CT-P17": the origin, a run of its own, joined the switching
    # block alone ("originator tocilizumab": every study of the originator)
    question = ("Is switching from originator tocilizumab to a biosimilar safe in giant cell arteritis? Include "
                "patients switched from originator tocilizumab to CT-P47 or another biosimilar.")
    assert not hits(question, "Originator tocilizumab dosing in giant cell arteritis: a cohort")
    assert hits(question, "Switching to CT-P47 in giant cell arteritis: a registry study")
    # what both sides name stays the same: "from brand-name X to generic X" brought X alone back
    question = ("Does switching from brand-name tacrolimus to a generic formulation change trough levels? Include "
                "transplant recipients switched from a brand-name tacrolimus product to a generic tacrolimus.")
    assert "tacrolimus*" not in top_level_terms(question)
    assert not hits(question, "Tacrolimus and rejection after kidney transplantation: a cohort")
    assert hits(question, "Switching from brand-name tacrolimus to generic: a cohort")


def test_an_eligibility_item_sharing_only_an_everyday_word_is_no_variant():
    # "test" of "test prioritisation" brought "test suite(s)" (every testing study) into the block
    question = ("How reliable are test prioritisation techniques? Include studies that evaluate prioritisation on "
                "automated test suites of open-source programs.")
    assert not hits(question, "Test suite minimisation for regression testing: an empirical study")
    assert hits(question, "Test case prioritisation with genetic algorithms: an evaluation")
    # "risk" of "polygenic risk scores": "a clinical risk model" is another thing
    question = ("Do polygenic risk scores improve the prediction of atrial fibrillation? Include cohorts that report "
                "discrimination when a polygenic risk score is added to a clinical risk model.")
    assert "clinical risk" not in terms(question)
    # an adjective both say makes them kinds of one class: "social networks" still joins "social media"
    question = ("What is known about vaccine misinformation on social media? Include studies of misinformation "
                "shared on social networks or messaging apps.")
    assert "social network" in terms(question)


def test_an_eligibility_item_naming_another_block_adds_no_term_of_it():
    # "... models of Parkinson's disease given forced treadmill running": parkinson* joined the exercise block alone
    question = ("Does treadmill exercise improve motor function in rodent models of Parkinson's disease? Include "
                "studies of toxin-induced models of Parkinson's disease given forced treadmill running.")
    assert not hits(question, "Dopamine neuron loss in a rat model of Parkinson's disease")
    assert hits(question, "Treadmill exercise in 6-OHDA rats: a randomised study")


def test_an_act_alone_in_an_eligibility_list_is_no_variant():
    # "adopting or rejecting property-based testing": "adopting" took the head, "adopting testing"
    question = ("What motivates developers to adopt property-based testing? Include surveys of practitioners that "
                "report reasons for adopting or rejecting property-based testing.")
    # round 26: the act is AND-ed with its object (every study of the technique was an alternative), so
    # ``adopt*`` is a term, never a top-level one
    assert "adopting testing" not in terms(question) and "adopt*" not in top_level_terms(question)
    assert hits(question, "Adoption of property-based testing in industry: an interview study")


def test_what_drives_people_to_do_something_searches_the_act():
    # "What drives X to V Y?": "drives" was read as a noun ("drives university students") and the act lost
    question = "What drives hospitals to outsource cleaning services?"
    assert not any(t.startswith("drive") for t in terms(question))
    assert hits(question, "Outsourcing cleaning services in public hospitals: a case study")
    assert not hits(question, "Hospitals in rural areas: staffing and budgets")
    question = "What motivates nurses to cheat on continuing education tests?"
    assert not any(t.startswith(("motivat", "nurse")) for t in top_level_terms(question))
    assert hits(question, "Cheating on continuing education tests among nurses: a survey")


def test_an_adjective_asked_of_the_findings_is_no_concept():
    # "How robust are the findings of X?": robust* and finding* were terms (robust* the main one)
    question = "How robust are the findings of rodent studies of social isolation on spatial memory?"
    assert not any(t.startswith(("robust", "finding")) for t in terms(question))
    assert hits(question, "Social isolation impairs spatial memory in adolescent rats")
    question = "How consistent are the associations between sleep duration and childhood obesity?"
    assert not any(t.startswith("consist") for t in terms(question))


def test_an_everyday_head_after_a_name_is_no_term_alone():
    # "synbiotic supplements": supplem* alone was every supplement study; the name alone is the concept
    question = "Are synbiotic supplements effective for preventing necrotising enterocolitis in preterm infants?"
    assert "supplem*" not in terms(question)
    assert not hits(question, "Iron supplements and necrotising enterocolitis in preterm infants")
    assert hits(question, "Synbiotics to prevent necrotising enterocolitis: a randomised trial")


def test_a_coordination_whose_initials_the_text_uses_is_one_name():
    # "acceptance and commitment therapy ... compare ACT with ...": acceptanc* alone (every acceptance study)
    question = ("Is compassion and mindfulness therapy effective for burnout in nurses? Include randomised trials "
                "that compare CMT with a waitlist.")
    assert "compassion*" not in terms(question)
    assert not hits(question, "Self-compassion and burnout in nurses: a cross-sectional survey")
    assert hits(question, "Compassion and mindfulness therapy for burnout: a randomised trial")


def test_what_the_outcomes_frame_asks_the_effect_on_is_anded():
    # "What are the effects of X on Y in rodents?": (X OR Y) AND rodents was every rodent study of Y
    question = "What are the effects of social defeat stress on sucrose preference in mice?"
    for background in (None, _narrow):
        assert not hits(question, "The sucrose preference test in mice: a methods study", background=background)
        assert hits(question, "Social defeat stress reduces sucrose preference in mice", background=background)


def test_a_broad_word_of_an_anded_main_block_is_paired_with_its_phrase():
    # AND-ed with the condition, switch* stood alone in the main block: every switch in type 2 diabetes
    question = "Is switching from human insulin to insulin analogues safe in type 2 diabetes?"
    assert not hits(question, "Switching from metformin to sulfonylureas in type 2 diabetes: a cohort")
    assert hits(question, "Switching from human insulin to insulin glargine in type 2 diabetes")


def test_the_condition_of_who_is_put_first_is_anded_before_what_x_is_for():
    # "In adults with X, is Y effective for Z?": Y AND Z lost the condition (Z alone is any disease's)
    question = "In adults with migraine, is aerobic exercise effective for reducing attack frequency?"
    assert not hits(question, "Aerobic exercise and attack frequency in cluster headache")
    assert hits(question, "Aerobic exercise for migraine prophylaxis: a randomised trial")
