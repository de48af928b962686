"""Round 34 (h34r): misses of round 34's written texts that the texts' own words reach (invented texts)."""

from agentr_dagster.domain.truncation import truncation
from tests.unit.domain.concept_queries import hits, query


def test_a_rule_in_acy_shares_its_stem_with_its_agent_in_at():
    # "street-level bureaucrats" gave ``bureaucrat*``, which no study of "public bureaucracies" says
    assert truncation("bureaucrats") == truncation("bureaucracy") == "bureaucra*"
    assert truncation("autocracies") == "autocra*"
    assert truncation("advocacy") == "advocac*" and truncation("diplomacy") == "diplomac*"  # no agent / "diploma"
    text = "How do technocrats shape monetary policy in emerging economies?"
    assert hits(text, "Technocracy and central bank monetary policy in emerging economies"), query(text)
