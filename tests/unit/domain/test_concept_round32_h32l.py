"""Round 32 (h32l): a noun's stem kept from a commoner adjective, a defined acronym as its block's variant, and
"How do <people> experience X?" (invented texts)."""

from agentr_dagster.llm.offline.concepts.terms import item_terms
from tests.unit.domain.concept_queries import hits, query, terms


def test_a_noun_stem_does_not_open_onto_a_commoner_adjective():
    # "regulation" -> regul* found "regular" (an adjective commoner than the noun), "generation" -> gener* "general"
    text = "Does regulation of sugar-sweetened beverages reduce obesity?"
    q = query(text)
    assert not hits(text, "Regular physical activity and obesity in adults"), q
    assert hits(text, "Government regulations on sugary drinks and obesity"), q
    assert item_terms("regulation") == ["regulat*"] and item_terms("generation") == ["generat*"]
    # nouns of one family keep the short stem ("vaccine" is what a vaccination study says), as do an adjective
    # and a noun derived from the commoner adjective or verb ("adolescent" -> "adolescence", "correct" ->
    # "correction")
    assert item_terms("vaccination") == ["vaccin*"] and item_terms("supplementation") == ["supplement*"]
    assert item_terms("depressive") == ["depress*"] and item_terms("adolescence") == ["adolesc*"]
    assert item_terms("awareness") == ["aware*"] and item_terms("correction") == ["correct*"]


def test_a_defined_acronym_is_a_variant_of_its_block_when_its_letters_name_it():
    # the slash split the name ("attention-deficit" and "hyperactivity disorder"): ADHD was no variant of it
    text = ("Physical exercise for attention-deficit/hyperactivity disorder in children: a systematic review. "
            "Background: Attention-deficit/hyperactivity disorder (ADHD) affects many school-aged children. "
            "Objective: To assess whether physical exercise improves executive function in children with ADHD. "
            "Methods: We searched six databases for controlled trials of exercise programmes in children with ADHD.")
    assert hits(text, "Physical exercise and executive function in children with ADHD: a randomised trial"), query(text)
    # three letters English has more as themselves than inside other words ("MDD"): a variant; "TBI" sits in
    # "fitbit", "frostbite", and a substring matcher would find it there
    text = ("Ketamine for major depressive disorder: a meta-analysis. Background: Major depressive disorder (MDD) is "
            "a leading cause of disability. Objective: To estimate the effect of ketamine on symptoms of MDD in "
            "adults. Methods: Randomised trials of ketamine in MDD were searched in four databases.")
    assert hits(text, "Ketamine infusion in MDD: a randomised trial"), query(text)
    text = ("Traumatic brain injury and later dementia: a meta-analysis. Background: Traumatic brain injury (TBI) may "
            "raise the risk of dementia. Objective: To estimate the association between TBI and later dementia.")
    assert "tbi" not in terms(text), query(text)


def test_how_people_experience_x_reads_both_the_people_and_x():
    # the people were a rest branch ("moral distress" OR (icu AND nurse*): every study of nurses in intensive
    # care); "experience" was read as a noun ("kidney disease experience haemodialysis")
    text = "How do nurses experience moral distress in intensive care units?"
    assert not hits(text, "Nurse staffing in intensive care units and patient mortality"), query(text)
    assert hits(text, "Moral distress among critical care nurses: a qualitative study"), query(text)
    text = "How do patients with chronic kidney disease experience haemodialysis?"
    assert not hits(text, "Anaemia in chronic kidney disease: a cohort study"), query(text)
    assert hits(text, "Living with haemodialysis: experiences of people with chronic kidney disease"), query(text)
