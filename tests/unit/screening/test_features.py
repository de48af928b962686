"""Text handling of screening: clean cells, the wanted sentences of a question, screening terms."""

from __future__ import annotations

from agentr_dagster.domain.text import clean_cell
from agentr_dagster.screening.features import stemmed_terms
from agentr_dagster.screening.question import clean_question


def test_clean_text_and_question():
    assert clean_cell(None) == ""
    assert clean_cell(float("nan")) == ""
    assert clean_cell(b"caf\xc3\xa9 <i>x</i>\x00\x07  y") == "café x y"
    q = "Does drug A help? Relevant studies are RCTs. Observational studies are not relevant."
    assert "Observational" not in clean_question(q)
    assert "RCTs" in clean_question(q)
    assert stemmed_terms("Beta-blockers, the Studies of 2 trials") == ["beta-blocker", "study", "2", "trial"]
