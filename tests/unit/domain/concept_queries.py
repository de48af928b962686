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


def top_level_terms(text: str) -> list[str]:
    """The terms a record can match on their own (not inside an AND)."""
    alone: list[str] = []

    def walk(node) -> None:
        kind = type(node).__name__
        if kind == "Term":
            alone.append(node.text.casefold())
        elif kind == "Or":
            for child in node.children:
                walk(child)

    walk(parse_boolean_query(query(text)))
    return alone
