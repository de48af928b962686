"""Round 29 (h29a): what costs an abstract's query recall — the variants its eligibility sentence lists, the
spellings and word forms of one concept, a title's "X and Y" restated by the aim."""

from agentr_dagster.domain.specificity import any_share
from agentr_dagster.domain.word_class import quality_nouns
from tests.unit.domain.concept_queries import hits, query, terms

# -- an abstract's sentence of which studies were taken lists the variants its studies write ------------------

PHONE_ABSTRACT = (
    "Smartphone addiction and sleep quality in university students: a systematic review and meta-analysis. "
    "Background: Heavy smartphone use is common among students. Objective: To estimate the association between "
    "smartphone addiction and sleep quality in university students. Methods: We searched PubMed, Embase and "
    "PsycINFO to May 2024. Cross-sectional and cohort studies measuring problematic smartphone use or smartphone "
    "dependence in undergraduate or postgraduate students were included; studies of school pupils were excluded. "
    "Results: Forty studies (n = 28,410) were included. Conclusions: Students should be screened.")


def test_an_abstracts_inclusion_sentence_gives_variants():
    # on 1ee4a80 an abstract's inclusion sentence was dropped as the review's method: the query was
    # "smartphone addiction" alone, and the studies that write "problematic smartphone use" were missed
    assert hits(PHONE_ABSTRACT, "Problematic smartphone use and sleep quality among medical students")
    assert hits(PHONE_ABSTRACT, "Smartphone dependence and poor sleep in college students")


def test_an_inclusion_sentence_makes_no_block_and_its_exclusion_part_gives_nothing():
    # what the review excluded ("studies of school pupils") and the language it read ("in English") are no
    # variants; a count of what was found ("Forty studies were included") is a result
    text = PHONE_ABSTRACT.replace("were included;", "in English were included;")
    q = query(text).casefold()
    assert "pupil" not in q and "english" not in q and "forty" not in q


FIBRE_ABSTRACT = (
    "Dietary fibre intake and risk of type 2 diabetes: a dose-response meta-analysis of cohort studies. "
    "Higher fibre intake may lower the risk of diabetes. PubMed and Embase were searched to March 2024 for "
    "prospective cohort studies reporting relative risks of type 2 diabetes by total fibre intake or by fibre "
    "from cereals, fruit or vegetables. Twenty cohorts were included (RR 0.91, 95% CI 0.87-0.95).")


def test_searched_for_studies_of_names_the_studies_taken_and_a_variant_keeps_its_spellings():
    # "searched ... for studies reporting X by A or B" names the studies taken, as "were included" does; the
    # variant `fibre` joined without `fiber` (it holds no word of the block as spelled there)
    assert hits(FIBRE_ABSTRACT, "Cereal fiber and type 2 diabetes in US women")
    assert hits(FIBRE_ABSTRACT, "Fruit fibre and type 2 diabetes in a Swedish cohort")


# -- an adjective and the noun of its quality are one concept -------------------------------------------------

def test_the_quality_noun_of_an_adjective():
    assert quality_nouns("spastic") == ("spasticity",)
    assert quality_nouns("adaptable") == ("adaptability",)
    assert quality_nouns("porous") == ("porosity",)
    assert quality_nouns("spasticity") == ()  # no adjective


def test_an_inclusion_item_joins_a_block_by_the_adjective_of_its_noun():
    # the block says "spasticity", the inclusion sentence "spastic cerebral palsy": on 1ee4a80 no word was shared
    # (nor was the sentence read); so "non-suicidal self-injury" joins a block of suicidality, and with it the
    # self-injury its studies write
    text = ("Botulinum toxin for spasticity in children: a systematic review and meta-analysis. Objective: To "
            "assess the effect of botulinum toxin injections on spasticity in children. Methods: We searched "
            "MEDLINE and Embase to 2023. Randomised trials in children with spastic cerebral palsy were included. "
            "Results: Twenty trials were included.")
    assert '"spastic cerebral palsy"' in query(text)


def test_spellings_of_one_term_count_once_in_a_blocks_breadth():
    # "well-being", "well being", "wellbeing" find one set of records: counted three times, a block of one
    # concept was read as three times as broad and left out of the query
    assert any_share(["well-being", '"well being"', "wellbeing"]) == any_share(["well-being"])
    # and a phrase a wildcard of the group already finds adds nothing ("burnout syndrome" beside burnout*)
    assert any_share(["burnout*", '"burnout syndrome"', '"nurse burnout"']) == any_share(["burnout*"])


# -- a title's "X and Y" restated by the aim is two concepts, not a name ----------------------------------------

def test_a_coordination_said_twice_before_an_adjective_is_no_name():
    # on 1ee4a80 "loneliness and chronic pain", said by the title and again by the aim, was one phrase (a name
    # like "acceptance and commitment therapy"), required twice: a study of chronic pain and loneliness that
    # does not say the words in that order was missed
    text = ("Loneliness and chronic pain in adolescents: a scoping review. Aims: To map the evidence on "
            "loneliness and chronic pain in adolescents.")
    assert "loneliness and chronic pain" not in query(text).casefold()
    assert hits(text, "Chronic pain, loneliness and school absence in adolescents")
    # a name whose words after "and" are nouns stays one ("acceptance and commitment therapy")
    text = ("Acceptance and commitment therapy for tinnitus: a meta-analysis. Objective: To assess acceptance "
            "and commitment therapy for tinnitus distress.")
    assert "acceptance and commitment therapy" in query(text).casefold()


# -- who and a hyphenated compound: the compound's studies name the people apart --------------------------------

def test_a_role_before_a_hyphenated_compound_is_searched_apart_too():
    # on 1ee4a80 "teacher self-efficacy" was one phrase (no pair: the compound is no plain word of the lexicon);
    # "self-efficacy of mathematics teachers" was missed; "citizen co-production" likewise
    title = "Teacher self-efficacy and classroom management: a meta-analysis"
    assert hits(title, "Self-efficacy of mathematics teachers and classroom management practices")
    assert not hits(title, "Self-efficacy of patients and classroom management in nursing education")
    title = "Citizen co-production of local services: a systematic review"
    assert hits(title, "Co-production with citizens in municipal waste services")


# -- a "-ment" process beside what it happens to is searched by its verb ------------------------------------------

def test_a_ment_process_is_searched_by_its_verbs_stem():
    # on 1ee4a80 "environmental enrichment" gave `(enrichm* AND environment*)`: the "enriched environment" its
    # studies write was missed
    title = "Environmental enrichment and spatial memory in aged rats: a systematic review"
    assert hits(title, "An enriched environment improves spatial memory of aged rats")
    # a verb whose stem would take no wildcard keeps the noun's ("development": developm*, never "develop")
    found = terms("Leadership development in nursing homes: a review")
    assert "develop" not in found and "developm*" in found


# -- an unheaded abstract's closing sentence is its conclusion, never its aim -----------------------------------

def test_a_closing_we_propose_is_no_aim():
    # on 1ee4a80 the last sentence ("We propose ...", an aim's words) was read as the aim: its "co-delivered
    # services" was required, and a study of co-delivery that does not say it was missed
    text = ("Volunteer co-delivery of library services: a systematic literature review of antecedents and "
            "outcomes. Volunteers increasingly help deliver public library services. This study reviews 96 "
            "empirical articles published in English between 2000 and 2022, identified in Scopus and Web of "
            "Science. Most studies were case studies of municipal libraries. Reported outcomes were mostly positive "
            "for user satisfaction. We propose a research agenda emphasising comparative designs and the "
            "unintended consequences of co-delivered services.")
    assert "co-delivered" not in query(text).casefold()
    assert hits(text, "Co-delivery of public library services by volunteers in rural England")


def test_a_review_of_antecedents_and_consequences_gathers_no_topic():
    # "...: a systematic review of antecedents and outcomes": what the review gathers of its subject, as
    # "barriers and facilitators" is (on 1ee4a80 `anteced*` joined the subject's block: every antecedent study)
    text = "Volunteer co-delivery of library services: a systematic literature review of antecedents and outcomes"
    assert "anteced" not in query(text)
    assert "anteced" not in query("Work engagement in nursing: a systematic review of antecedents and consequences")


# -- the verb forms studies write for a process or an activity named by a noun ---------------------------------

def test_a_rare_verb_before_an_activitys_ing_head_is_searched_by_its_own_ing():
    # on 1ee4a80 "fuzz testing" was the phrase alone: the studies write "fuzzing" and "fuzzers"
    title = "Fuzz testing of embedded firmware: a systematic mapping study"
    assert hits(title, "Coverage-guided fuzzing of embedded firmware images")
    assert hits(title, "A grey-box fuzzer for embedded firmware")
    # an everyday verb's "-ing" is any of it ("stress testing": stressing)
    assert "stressing" not in terms("Stress testing of banking firmware: a systematic mapping study")


def test_an_ization_noun_is_a_process_of_its_verb():
    # the lexicon lists no "localization": on 1ee4a80 it was no process noun, and "localizing faults" was missed
    title = "Fault localization in deep neural networks: a systematic mapping study"
    assert hits(title, "Localizing faults in deep neural networks with mutation analysis")


def test_a_noun_before_its_head_is_searched_in_its_al_adjective_too():
    # on 1ee4a80 "attention bias modification" found no "attentional bias" (the form its studies write as often),
    # "attention training" no "attentional training"
    title = "Attention bias modification for specific phobia: a meta-analysis"
    assert hits(title, "Attentional bias training in spider phobia: a randomised trial")
    title = "Attention training for chronic tinnitus: a systematic review"
    assert hits(title, "Attentional training reduces tinnitus distress")


def test_what_others_aim_at_is_no_aim_of_the_review():
    # on 1ee4a80 a background sentence ("..., the ability to ..., and several programmes now aim to train it")
    # was read as the review's aim: its "the ability" joined the subject's block as `abilit*` (every study of
    # any ability)
    text = ("Gratitude interventions and subjective well-being: a meta-analysis of randomized trials. Background: "
            "Gratitude, the ability to notice and appreciate the positive, is linked with happiness, and several "
            "programmes now aim to train it, such as gratitude journals and gratitude letters. Objective: To "
            "synthesise randomized trials of gratitude interventions. Results: Forty trials were included.")
    assert "abilit" not in query(text)


def test_kinds_listed_after_the_blocks_phrase_and_a_head_join_it():
    # "X regimens, including A, B and C": on 1ee4a80 the head "regimens" was no word of the block, so only the
    # kinds sharing its word joined (alternate-day fasting) and "time-restricted eating" was missed
    text = ("Intermittent fasting and blood pressure: a meta-analysis. Intermittent fasting regimens, including "
            "alternate-day fasting, the 5:2 diet and time-restricted eating, are popular. Objective: To compare "
            "intermittent fasting with continuous energy restriction on blood pressure.")
    assert hits(text, "Time-restricted eating lowers blood pressure in adults with prediabetes")


def test_an_inclusion_list_names_kinds_of_a_block_but_not_other_things_of_its_head():
    # a guard (passes on 1ee4a80 too): "associations of A, B and C with Y" lists kinds of the block; an item
    # that shares only the block's everyday head ("Parkinson's disease" beside "chronic kidney disease") is
    # another thing of the class, and one naming the other block ("all-stroke risk") is that block's
    text = ("Chronic kidney disease and the risk of stroke: a meta-analysis. Chronic kidney disease is linked to "
            "stroke. We searched Medline and Embase for cohort studies addressing associations of albuminuria, "
            "reduced glomerular filtration and kidney failure with risk of all-stroke or Parkinson's disease.")
    assert hits(text, "Albuminuria and incident stroke in a Japanese cohort")
    assert not hits(text, "Parkinson's disease and incident stroke in older adults")
