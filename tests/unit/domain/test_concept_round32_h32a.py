"""Round 32 (h32a): published-style review abstracts from fields not tuned on (invented texts)."""

from agentr_dagster.domain.truncation import truncation
from agentr_dagster.llm.offline.concepts.blocks import _means_compounds
from agentr_dagster.llm.offline.concepts.terms import item_terms
from tests.unit.domain.concept_queries import hits, query

_SPACED = ("Spaced repetition in undergraduate medical education: a meta-analysis. Background: Spaced repetition, "
           "or the spacing effect, improves long-term retention of learned material. Objectives: To estimate the "
           "effect of spaced repetition on examination performance of medical students. Methods: ERIC and MEDLINE "
           "were searched to 2024. Results: Twenty studies were included. Conclusions: Spacing helps.")


def test_a_name_the_abstract_restates_between_commas_joins_its_block():
    # "X, or the Y, improves ...": the text names its concept a second way; studies using only Y were missed
    q = query(_SPACED)
    assert '"spacing effect"' in q, q
    assert hits(_SPACED, "The spacing effect in anatomy teaching: distributed study sessions and exam scores of "
                         "medical students"), q
    assert not hits(_SPACED, "Massed study sessions and exam scores of medical students"), q


def test_a_restated_name_after_an_acronym_joins_its_block():
    text = ("Genetic variants and tinnitus: a systematic review. Background: Chronic subjective tinnitus (CST), or "
            "phantom auditory perception, is heritable. Objectives: To identify genetic variants associated with "
            "chronic subjective tinnitus. Results: Twelve studies were included.")
    q = query(text)
    assert '"phantom auditory perception"' in q, q
    # a list's "or" is no restatement: "A, B, or C" joins nothing to A
    listed = ("Exercise and sleep in older adults: a systematic review. Background: Exercise, diet, or sleep "
              "hygiene, are common advice. Objectives: To review the effect of exercise on sleep in older adults.")
    assert "hygiene" not in query(listed), query(listed)


def test_a_state_in_ancy_is_truncated_to_reach_its_ant_word():
    # "pregnancy" was pregnanc*: every trial "in pregnant women" was missed
    assert truncation("pregnancy") == truncation("pregnancies") == "pregnan*"
    assert truncation("malignancy") == "malignan*"
    assert truncation("discrepancy") == "discrepanc*"  # "discrepant" is rarer than the noun: no reach
    text = ("Iron supplementation during pregnancy and maternal anaemia: a systematic review. We reviewed "
            "randomised trials of daily oral iron supplementation during pregnancy that reported maternal anaemia.")
    q = query(text)
    assert hits(text, "Daily oral iron supplements and maternal anaemia in pregnant women in Malawi"), q


def test_an_adjective_condition_also_by_the_noun_the_abstract_uses():
    # "major depressive disorder" was only its phrases: "adolescents with major depression" was missed
    text = ("Transcranial magnetic stimulation for major depressive disorder in adolescents: a systematic review. "
            "We reviewed sham-controlled trials of transcranial magnetic stimulation in adolescents with major "
            "depressive disorder. Transcranial magnetic stimulation may benefit adolescents with depression.")
    q = query(text)
    assert '"major depression"' in q, q
    assert hits(text, "Transcranial magnetic stimulation in adolescents with major depression: a sham-controlled "
                      "trial"), q
    # only a noun the text itself says
    unsaid = text.replace(" with depression", " with this disorder")
    assert '"major depression"' not in query(unsaid), query(unsaid)
    # nor the noun of a head that names no condition ("cooperative learning" is no "cooperation")
    learning = ("Cooperative learning in primary mathematics classrooms: a meta-analysis. We reviewed trials of "
                "cooperative learning that measured pupils' cooperation and mathematics achievement.")
    assert "cooperation" not in query(learning).replace("cooperative", ""), query(learning)


def test_a_compound_of_the_blocks_words_in_another_order_joins_it():
    # "performance-related pay" missed the studies of "pay-for-performance" the abstract itself names
    text = ("Performance-related pay for hospital physicians and quality of care: a systematic review. We reviewed "
            "studies of pay-for-performance schemes for hospital physicians that measured quality of care.")
    q = query(text)
    assert "pay-for-performance" in q, q
    assert hits(text, "Pay for performance and quality of care among hospital physicians in England"), q


def test_an_abstract_names_its_subject_by_its_short_acronym_too():
    # the title's purpose ("for prediction of") became the main block, AND-ed with both subjects, because the
    # sentences naming the subject by its three-letter acronym ("adding HRV") were not counted
    text = ("Heart rate variability for prediction of sudden cardiac death: a systematic review. Heart rate "
            "variability (HRV) reflects autonomic function and may improve arrhythmic risk prediction beyond "
            "ejection fraction. We reviewed cohort studies that evaluated the addition of HRV to clinical models for "
            "predicting sudden cardiac death in adults with heart failure. Adding HRV improved discrimination "
            "modestly. The value of HRV in heart failure remains limited.")
    q = query(text)
    assert not q.startswith('("arrhythmic'), q
    assert hits(text, "Heart rate variability and sudden cardiac death in chronic heart failure: a cohort study"), q


def test_a_rare_class_before_a_kind_head_is_a_term_though_effects_follow():
    # "antiepileptic drug effects" was one compound: "antiepileptics" was missed
    text = ("Antiepileptic drug effects on bone health in children with epilepsy: a systematic review. We reviewed "
            "cohort studies of children with epilepsy treated with valproate, carbamazepine or levetiracetam that "
            "measured bone mineral density.")
    q = query(text)
    assert "antiepileptic*" in q, q
    assert hits(text, "Bone mineral density in children with epilepsy treated with antiepileptics"), q
    # a common modifier keeps the whole compound ("adverse drug effects" is no "adverse drug")
    assert '"adverse drug effects"' in item_terms("adverse drug effects")


def test_the_animal_that_opens_a_title_setting_filters_the_query():
    # "in the mouse tail suspension test" was a setting, dropped with its animal: every ketamine study matched
    text = ("Ketamine effects in the mouse tail suspension test: a systematic review. The tail suspension test is "
            "widely used to screen antidepressant compounds, but the consistency of effects has not been evaluated. "
            "We reviewed studies that measured immobility after ketamine.")
    q = query(text)
    assert hits(text, "Ketamine reduces immobility of C57BL/6 mice in the tail suspension test"), q
    assert not hits(text, "Ketamine and immobility in depressed patients: a randomised trial"), q


def test_a_noun_and_participle_of_means_written_apart_are_one_compound():
    # "Web based interventions" read "based" as a verb and kept only "web": every web survey of insomnia matched
    text = ("Web based interventions for insomnia in adults: a systematic review. We reviewed randomised trials of "
            "web based interventions for insomnia in adults.")
    q = query(text)
    assert hits(text, "A web-based intervention for insomnia: a randomised controlled trial in adults"), q
    assert not hits(text, "Insomnia in adults: prevalence from a web survey"), q
    # a participle after a plural or before a function word stays a verb
    assert _means_compounds("interventions based on CBT") == "interventions based on CBT"
    assert _means_compounds("therapy based on exposure") == "therapy based on exposure"
    assert _means_compounds("Nurse led clinics") == "Nurse-led clinics"


def test_a_gerund_compound_also_by_the_noun_the_text_says():
    # "text messaging interventions" missed the trials of "text message reminders" the abstract itself names
    text = ("Text messaging interventions for medication adherence in adults with hypertension: a systematic review. "
            "We reviewed randomised trials in which adults with hypertension received text messages reminding them "
            "to take their medication.")
    q = query(text)
    assert '"text message"' in q, q
    assert hits(text, "Daily text message reminders and medication adherence in adults with hypertension: a "
                      "randomised trial"), q


def test_a_short_acronym_before_a_participle_of_means_is_no_term_alone():
    # "AUC-guided dosing" gave a bare "auc": every area-under-the-curve record (and "sauce") matched
    assert "auc" not in item_terms("AUC-guided dosing")
    assert "psilocybin*" in item_terms("psilocybin-assisted therapy")  # a rare word still names the concept
