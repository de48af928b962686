"""Round 33 (h33q): review questions of fields not tuned on (invented texts)."""

from agentr_dagster.domain.truncation import truncation
from agentr_dagster.llm.offline.concepts.terms import item_terms
from tests.unit.domain.concept_queries import hits, query


def test_what_people_undergo_is_who_the_studies_are_about():
    # "in patients undergoing X (ACR)" made X the query's lead, alone an alternative: every study of the procedure
    text = "What is the effect of tranexamic acid on blood loss in patients undergoing total knee arthroplasty (TKA)?"
    q = query(text)
    assert hits(text, "Tranexamic acid and blood loss after total knee arthroplasty: a randomised trial"), q
    assert not hits(text, "Long-term survival of total knee arthroplasty implants in a national registry"), q
    # "receiving" says the same as "undergoing"
    text = "What is the effect of VKORC1 genotype on warfarin dose in patients receiving mechanical heart valves (MHV)?"
    assert not hits(text, "Mechanical heart valves in young adults: twenty-year outcomes"), query(text)


def test_a_state_in_ity_reaches_its_adjective():
    # "obesity" gave obesit*, which misses every "obese adults" study
    assert truncation("obesity") == "obes*"
    text = "Does bariatric surgery improve knee pain in adults with obesity?"
    assert hits(text, "Knee pain one year after gastric bypass in severely obese adults"), query(text)
    # not where the short stem opens onto other words, nor where the adjective is much rarer than the noun
    assert truncation("purity") == "purit*"
    assert truncation("city") == "city"


def test_an_unknown_ly_word_of_a_known_adjective_is_an_adverb():
    # "differentially" (the lexicon does not know it) was a block of its own: `differentiall*` OR the rest
    assert item_terms("differentially expressed") == []
    text = "Which proteins are differentially abundant in the cerebrospinal fluid of patients with multiple sclerosis?"
    q = query(text)
    assert "differentiall" not in q, q
    assert not hits(text, "Differentially methylated regions in colorectal tumours"), q


def test_a_possessive_before_a_hyphenated_compound_is_who_has_it():
    # "children's self-regulation" was the phrase "children self-regulation", which no study writes
    text = "Do play-based programmes improve children's self-regulation?"
    q = query(text)
    assert "children self" not in q, q
    assert hits(text, "Play-based programmes and self-regulation in preschool children: a cluster trial"), q
    text = "Does tai chi improve older adults' self-efficacy for falls?"
    assert hits(text, "Falls self-efficacy among elderly women after a balance class"), query(text)
    # one plain noun after a possessive stays a compound ("parent expectations")
    assert '"parent expectation"' in query("Do parents' expectations predict children's school achievement?")


def test_an_everyday_adjective_joined_to_a_rare_word_may_be_left_out():
    # "whole-exome sequencing" was its two spellings alone: "trio exome sequencing" was missed
    text = "Does whole-exome sequencing shorten the diagnostic odyssey of infants in neonatal intensive care?"
    assert hits(text, "Rapid trio exome sequencing in critically ill newborns"), query(text)
    assert '"exome sequencing"' in item_terms("whole-exome sequencing")
    # not a prefix English also writes solid ("antiepileptic"), an acronym after it, or a word of everyday use
    assert '"epileptic drug"' not in item_terms("anti-epileptic drugs")
    assert '"vegf therapy"' not in item_terms("anti-VEGF therapy")
    assert '"sedating antihistamine"' not in item_terms("less-sedating antihistamines")
    assert item_terms("whole-genome sequencing") == ['"whole-genome sequencing"']
