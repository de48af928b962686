"""Round 29 (h29q): what round 28 left on questions (invented texts)."""

from tests.unit.domain.concept_queries import hits, query


def test_when_the_exposure_happened_stays_with_what_it_was_to():
    # "prenatal exposure to X" was X alone: every study of X, whoever was exposed and when
    text = "Is prenatal exposure to betel nut associated with low birth weight?"
    q = query(text)
    # round 30 (h30r): the lone outcome is AND-ed with the exposure (``... OR "birth weight"`` was every study of it)
    assert hits(text, "Maternal betel nut chewing and birth weight: a prenatal cohort"), q
    assert not hits(text, "Betel nut chewing and oral cancer among adult men in Taiwan"), q


def test_an_everyday_qualifier_of_the_exposure_is_no_term():
    # "early-life" is said many ways ("in infancy", "in children"): AND-ed it would lose those studies
    # (guard: passes before and after)
    text = "Is early-life exposure to household mould associated with eczema?"
    q = query(text)
    assert hits(text, "Household mould in infancy and the risk of eczema at school age"), q


def test_what_interventions_improve_y_in_people_with_z_ands_the_condition():
    # "... OR (Z AND peopl*)", and with a background "Y OR Z": every study of the condition
    text = "What interventions improve oral hygiene in people with cerebral palsy?"
    for background in (None, _narrow):
        q = query(text, background=background)
        assert hits(text, "Toothbrushing support and oral hygiene in adults with cerebral palsy",
                    background=background), q
        assert not hits(text, "Gait training for people with cerebral palsy", background=background), q


def _narrow(term: str) -> float:
    """A background (a pool of other reviews' records) that shows every term narrow."""
    return 0.001


def _broad_symptom(term: str) -> float:
    """A background where the outcome's word is common (a pool of reviews of it) and all else narrow."""
    return 0.2 if term.strip('"').startswith("stres") else 0.001


def test_people_the_studies_were_done_on_stay_anded_with_a_subject_the_background_shows_broad():
    # the pool marked "stress" broad: the rest branch was the people alone (every study of nursing students)
    text = "Does yoga nidra lower stress in nursing students?"
    q = query(text, background=_broad_symptom)
    assert hits(text, "Yoga nidra for stress: a pilot trial", background=_broad_symptom), q
    assert not hits(text, "Clinical placement experiences of nursing students", background=_broad_symptom), q


def _broad_exposure(term: str) -> float:
    return 0.2 if term.strip('"').startswith("coffe") else 0.001


def test_an_exposure_the_background_shows_broad_stays_anded_with_the_outcome():
    # "coffee" broad in the pool left the query: "Y OR (children ...)" was every study of Y
    text = "Is exposure to coffee associated with migraine frequency in university students?"
    q = query(text, background=_broad_exposure)
    assert hits(text, "Coffee intake and migraine frequency: a cross-sectional study", background=_broad_exposure), q
    assert not hits(text, "Migraine frequency and screen time", background=_broad_exposure), q
    assert not hits(text, "Sleep of university students during exams", background=_broad_exposure), q


def test_an_agent_noun_after_among_names_people():
    # "among orchestra conductors": a verb's "-or" noun no role list knows; read as a subject, a background that
    # shows it narrow left it alone beside the subject (every study of conductors)
    text = "How prevalent is hearing loss among orchestra conductors, and which rehearsal factors are linked to it?"
    q = query(text, background=_narrow)
    assert hits(text, "Hearing loss in professional musicians: a cohort", background=_narrow), q
    assert not hits(text, "Gesture and tempo: how orchestra conductors lead", background=_narrow), q


def test_what_people_use_to_do_something_is_a_concept_of_its_own():
    # "use X to support struggling Y": read as one phrase whose last word names people, the tool was a block of
    # people and left; the query was the setting alone (every study in care homes)
    text = "How do nurses use tablet dashboards to support struggling residents in care homes?"
    q = query(text)
    assert hits(text, "Tablet dashboards for nurses in care homes: a feasibility study"), q
    assert not hits(text, "Staffing levels and quality of care in care homes"), q


def test_a_phrase_led_by_who_delivers_it_keeps_what_is_delivered():
    # "nurse-led telephone ...": "telephone" read as a verb after the compound (the phrase lost it), and every
    # part kept "nurse-led", which studies say many ways ("telephone coaching by practice nurses")
    text = "Do nurse-led telephone coaching sessions improve inhaler technique in adults with asthma?"
    q = query(text)
    assert hits(text, "Telephone coaching by practice nurses: a randomised trial"), q
    assert not hits(text, "Telephone coaching for smoking cessation"), q
    text = "Do nurse-led telephone follow-up interventions improve blood pressure control?"
    q = query(text)
    assert "telephone" in q, q
    # the rest branch (a study of the same care not called so) keeps who delivers it
    text = "Do nurse-led telephone coaching sessions improve blood pressure control in adults with hypertension?"
    q = query(text)
    assert hits(text, "Practice nurse calls and blood pressure control in adults with hypertension: a cluster trial"), q
    assert not hits(text, "Amlodipine and blood pressure control in adults with hypertension"), q


def test_a_service_named_by_who_gives_it_is_the_subject_of_the_effect_frame():
    # "Are X workers effective in reducing Y ...?": the workers were ordered as who the studies are about and the
    # query was Y alone (every study of Y); "in reducing Y" was read as where the studies were done
    text = "Are lay health workers effective in reducing emergency admissions among frail older adults?"
    q = query(text)
    assert hits(text, "Home visits by lay health workers and emergency admissions: a randomised trial"), q
    assert not hits(text, "Emergency admissions of frail older adults after hip fracture"), q


def test_how_common_asks_a_prevalence():
    # "How common is X among Y?": "common" (everyday English) was read as a block of its own, beside which the
    # people stayed: ``X OR (Y AND common)``, every study of Y that says "common"
    text = "How common is tinnitus among shift-working factory staff?"
    q = query(text)
    assert hits(text, "Tinnitus in noise-exposed workers"), q
    assert not hits(text, "Common musculoskeletal complaints of shift-working factory staff"), q


def _broad_teacher(term: str) -> float:
    return 0.2 if term.strip('"').startswith("teacher") else 0.001


def test_people_anded_in_the_rest_branch_keep_the_word_a_background_shows_broad():
    # with a pool of education reviews ``teacher*`` was dropped as broad, and the rest branch asked for
    # "educator* OR faculty OR instructor*": AND-ed with the other subjects the word is narrow again
    text = "Does video coaching improve classroom management of early-career teachers in rural schools?"
    q = query(text, background=_broad_teacher)
    assert hits(text, "Mentoring and classroom management of beginning teachers in rural schools",
                background=_broad_teacher), q


def test_who_uses_the_thing_in_a_how_do_question_is_no_main_block():
    # "How do archivists use X ...?": no role list knows them; read as the subject they were the main block,
    # every study of archivists
    text = "How do archivists use handwriting recognition software to catalogue medieval letters?"
    q = query(text)
    assert hits(text, "Handwriting recognition software for historical documents: an evaluation"), q
    assert not hits(text, "Career paths of archivists in national libraries"), q
