"""Round 32, where two helpers' rules met: h32a cuts an "-ancy" state to reach its "-ant" word (pregnan*: "pregnant
women"), h32l lengthens a stem that opens onto a commoner adjective ("medication" -> medicat*, not medic*). A noun
derived from that adjective ("pregnant" -> "pregnancy") keeps the short stem, as "adolescence" keeps adolesc*."""

from agentr_dagster.llm.offline.concepts.terms import _derived_from
from tests.unit.domain.concept_queries import hits, query


def test_a_state_in_ancy_keeps_the_stem_of_its_ant_word():
    question = "Does vitamin D supplementation during pregnancy reduce the risk of preterm birth?"
    q = query(question)
    assert "pregnan*" in q and "pregnanc*" not in q, q
    assert hits(question, "Vitamin D supplements in pregnant women and the risk of preterm birth: a randomised trial")
    assert _derived_from("pregnancy", "pregnant") and _derived_from("frequency", "frequent")
    assert not _derived_from("medication", "medical")
