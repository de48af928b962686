"""Round 32 (h32b): what an intervention is for is its own block in an abstract, and a title's first subject
before "for" is a subject (invented texts)."""

from tests.unit.domain.concept_queries import hits, query


def test_what_an_abstracts_intervention_is_for_is_another_block_though_they_share_a_modifier():
    # "memory training for memory complaints": the shared "memory" made the complaints a variant of the training
    # (``X OR "memory complaints"``: every study of the complaints)
    text = ("Online memory training for memory complaints in older adults: a meta-analysis. We pooled randomised "
            "trials of online memory training in older adults with subjective memory complaints. Nine trials were "
            "included. Training improved memory performance.")
    q = query(text)
    assert not hits(text, "Prevalence of memory complaints in older adults: a population survey"), q
    assert hits(text, "Online memory training for older adults with memory complaints: a randomised trial"), q


def test_a_titles_first_subject_named_by_everyday_words_before_for_is_kept():
    # "Music therapy" (its words everyday English: a generic label) was dropped as no subject of the title, and
    # the query was the condition alone
    text = ("Music therapy for autism spectrum disorder: a systematic review. We reviewed randomised trials of music "
            "therapy for autism spectrum disorder in children. Twelve trials were included. Music therapy improved "
            "social interaction.")
    q = query(text)
    assert not hits(text, "Risperidone in children with autism spectrum disorder"), q
    assert hits(text, "Improvisational music therapy for children with autism spectrum disorder"), q


def test_a_gerund_after_a_hyphenated_adjective_compound_is_the_concepts_head():
    # "high-stakes" read as a plural subject and "questioning" as its verb: the query kept ``high-stakes`` alone
    text = "Does high-stakes questioning in lectures improve retention of course content in undergraduates?"
    q = query(text)
    assert not hits(text, "High-stakes testing and teacher turnover in public schools"), q
    assert hits(text, "High-stakes questioning during lectures: a classroom experiment"), q


def test_what_a_past_verbs_object_is_exposed_to_is_another_concept():
    # "exposed pregnant rats to valproic acid" was one phrase, the drug a variant of the rats' block
    # (``pregnant* OR "valproic acid"``: every study of pregnant women)
    text = "We reviewed studies that exposed pregnant rats to valproic acid and measured social behaviour in offspring."
    q = query(text)
    assert not hits(text, "Smoking cessation support for pregnant women: a randomised trial"), q
    assert hits(text, "Valproic acid exposure in utero alters social behaviour of rat offspring"), q
    # and two animals closing the list are both kept ("to rats or mice and measured X" lost the rats)
    assert hits("We reviewed studies that gave ketamine to rats or mice and measured immobility time.",
                "Ketamine reduces immobility time in rats")


def test_a_rare_gerund_before_of_is_the_act_done_not_an_aspect():
    # "splinting of the wrist" read as an aspect of the wrist (as "the timing of X"): the splinting left the query
    # and ``wrist`` stood alone (every wrist study)
    text = "Does splinting of the wrist reduce pain in carpal tunnel syndrome?"
    q = query(text)
    assert not hits(text, "Distal radius fractures of the wrist in postmenopausal women"), q
    assert hits(text, "Night splinting for carpal tunnel syndrome: a randomised trial"), q


def test_people_named_first_of_a_titles_pair_are_a_subject():
    # "Lay health workers and hypertension control": the workers (a block of people) were no title subject and
    # vanished; the query was every study of hypertension control
    text = ("Lay health workers and hypertension control: a systematic review. Background: Lay health workers deliver "
            "care in many countries. Objective: To assess whether lay health workers improve blood pressure control. "
            "Results: Sixteen studies were included.")
    q = query(text)
    assert not hits(text, "Hypertension control in primary care: a cohort study"), q
    assert hits(text, "Lay health workers improve hypertension control in rural India"), q


def test_how_people_experience_caring_keeps_the_condition_of_the_one_cared_for():
    # the spouses AND-ed with the caring left no rest branch, and the condition after "with" was lost
    # (``caring* AND spous*``: every study of spouses caring for anyone)
    text = "How do spouses experience caring for a partner with multiple sclerosis?"
    q = query(text)
    assert not hits(text, "Spouses caring for a partner after stroke: a qualitative study"), q
    assert hits(text, "Caring for a spouse with multiple sclerosis: a qualitative study"), q


def test_how_people_use_an_everyday_thing_to_do_something_ands_the_thing_with_the_purpose():
    # "video games" (everyday words) left the query and the question was ``loneli*``: every loneliness study;
    # "mobile phones" stood alone or beside every study of the people's sexual health
    text = "How do older adults use video games to cope with loneliness?"
    q = query(text)
    assert not hits(text, "Loneliness in older adults living alone: a cohort study"), q
    assert hits(text, "Video games and loneliness in later life: a mixed-methods study"), q
    text = "How do adolescents use mobile phones to seek sexual health information?"
    q = query(text)
    assert not hits(text, "Mobile phones and road traffic injuries"), q
    assert not hits(text, "Sexual health of adolescents in rural schools"), q
    assert hits(text, "Mobile phones as a source of sexual health information for young people"), q
