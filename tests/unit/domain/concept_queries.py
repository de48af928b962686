"""What the offline concept path makes of a text, as the concept tests read it: the Boolean query, whether it
finds a record, and its terms (bare, casefolded)."""

from agentr_dagster.domain.boolean_query import matches, parse_boolean_query, query_terms
from agentr_dagster.domain.specificity import Background
from agentr_dagster.llm.offline.concepts import extract_concepts


def query(text: str, background: Background | None = None) -> str:
    return extract_concepts(text, background=background).boolean_query()


def hits(text: str, record: str, background: Background | None = None) -> bool:
    return matches(parse_boolean_query(query(text, background)), record)


def terms(text: str) -> list[str]:
    return [t.casefold() for t in query_terms(parse_boolean_query(query(text)))]
