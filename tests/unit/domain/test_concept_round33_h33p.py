"""Round 33 (h33p): the published review abstracts read as an expert searcher would (invented texts)."""

from tests.unit.domain.concept_queries import hits, query, terms


def test_an_acronyms_first_and_last_word_are_no_term_when_the_last_is_a_gerund_after_its_object():
    # the long form's first and last word were paired ("family problem solving (FPS)" -> "family solving",
    # family-solving): no phrase of English, the gerund's object left out
    text = "Family problem solving (FPS) for adolescents with traumatic brain injury: a systematic review"
    q = query(text)
    assert "family solving" not in terms(text) and "family-solving" not in terms(text), q
    assert hits(text, "Online problem-solving therapy for families after traumatic brain injury in teens"), q
    text = "Nurse decision making (NDM) in acute care wards: a systematic review"
    q = query(text)
    assert "nurse making" not in terms(text) and "nurse-making" not in terms(text), q
    assert hits(text, "Nurse decision making on acute care wards: a think-aloud study"), q


def test_a_name_after_the_classes_own_modifier_is_a_member_of_the_class():
    # "extended-release versus immediate-release carbamazepine" names a member of the reviewed class
    # ("extended-release antiepileptic drugs") by the class's own modifier: its trials name the drug, not the class;
    # the query was the class alone
    text = ("Comparative efficacy and tolerability of extended-release antiepileptic drugs for focal epilepsy: a "
            "systematic review. Extended-release antiepileptic drugs are given once or twice daily. We reviewed "
            "randomised trials comparing extended-release antiepileptic drugs with each other or with "
            "immediate-release formulations. Fourteen trials were included. Four trials of extended-release versus "
            "immediate-release carbamazepine found fewer adverse events with the extended-release formulation.")
    q = query(text)
    assert hits(text, "Controlled-release carbamazepine in adults with partial seizures: a randomised trial"), q
    assert not hits(text, "Controlled-release nifedipine in adults with hypertension: a randomised trial"), q


def test_kinds_listed_beside_an_umbrellas_own_kind_join_the_umbrella():
    # "stress-related disorders" covers the disorders a results sentence lists beside "stress disorders"; under the
    # generic head "disorders" only kinds sharing the word "stress" joined, so a trial of one listed disorder that
    # never says "stress" was missed
    text = ("Yoga for stress-related disorders in adults: a systematic review and meta-analysis. Yoga is increasingly "
            "offered in mental health care. We pooled 21 randomized trials. Compared with usual care or waiting list, "
            "yoga reduced symptoms for stress disorders, adjustment disorder (AjD), and somatic symptom disorder (SSD) "
            "after treatment and at follow-up.")
    q = query(text)
    assert hits(text, "Hatha yoga for adjustment disorder in army recruits: a randomized trial"), q
    assert hits(text, "Yoga for somatic symptom disorder in primary care: a pilot randomized trial"), q
    assert not hits(text, "Yoga for chronic low back pain: a randomized trial"), q
