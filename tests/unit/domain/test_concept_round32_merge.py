"""Round 32, where two helpers' rules met: h32a cuts an "-ancy" state to reach its "-ant" word (pregnan*: "pregnant
women"), h32l lengthens a stem that opens onto a commoner adjective ("medication" -> medicat*, not medic*). A noun
derived from that adjective ("pregnant" -> "pregnancy") keeps the short stem, as "adolescence" keeps adolesc*.
And h32q's topic word before a participle of means, standing alone, is never the guide of "X-guided"."""

from agentr_dagster.llm.offline.concepts.terms import _derived_from, item_terms
from tests.unit.domain.concept_queries import hits, query


def test_a_state_in_ancy_keeps_the_stem_of_its_ant_word():
    question = "Does vitamin D supplementation during pregnancy reduce the risk of preterm birth?"
    q = query(question)
    assert "pregnan*" in q and "pregnanc*" not in q, q
    assert hits(question, "Vitamin D supplements in pregnant women and the risk of preterm birth: a randomised trial")
    assert _derived_from("pregnancy", "pregnant") and _derived_from("frequency", "frequent")
    assert not _derived_from("medication", "medical")


def test_what_guides_a_procedure_is_no_term_alone():
    # round 32 let a topic word before a participle of means stand alone ("mindfulness-based": mindful*); before
    # "guided" it is the guide, and ``ultrasound*`` / ``trough`` alone were every study of the guide
    assert "ultrasound*" not in item_terms("ultrasound-guided nerve block")
    assert "trough" not in item_terms("trough-guided dosing")
    assert "mindful*" in item_terms("mindfulness-based stress reduction")
    assert "psilocybin*" in item_terms("psilocybin-assisted therapy")
