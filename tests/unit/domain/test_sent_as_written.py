"""A truncation the concept query cannot send with its wildcard (``plink-reduct*`` goes as ``plink-reduct``) is
never proposed by the seeds' or the pseudo-seeds' widening: a source matches the bare stem as a whole word and
finds nothing, while the local matcher finds it inside "plink-reduction" and would count records it never brings.
Invented records only."""

from __future__ import annotations

import re

import pytest

from agentr_dagster.domain.boolean_query import Node, Term, matches, parse_boolean_query
from agentr_dagster.domain.seed_check import SeedStudy, improve_blocks, mined_terms, refine_with_pseudo_seeds
from agentr_dagster.domain.truncation import sent_as_written
from agentr_dagster.llm.offline.concepts.model import _sendable


@pytest.mark.parametrize(("term", "sent"), [
    ("twitter*", True), ('"social media"', True), ("infodemic", True), ('"pain manag*"', True),
    ("zorblat*", True), ("plink-reduction", True), ("all-caus*", False), ("plink-reduct*", False),
    ("kid*", False), ('"long act*"', False),
])
def test_a_term_is_sent_as_written_exactly_when_the_concept_query_keeps_its_wildcards(term: str, sent: bool):
    assert sent_as_written(term) is sent
    # the renderer's own rule agrees: it keeps every wildcard of a term sent as written, and drops one otherwise
    assert (_sendable(term).count("*") == term.count("*")) is sent


def _render(terms: list[list[str]], leave_out: frozenset[int] = frozenset()) -> str:
    """AND of the blocks' OR-groups, each term as the concept query sends it (``_sendable``)."""
    kept = [ts for i, ts in enumerate(terms) if i not in leave_out]
    return " AND ".join("(" + " OR ".join(_sendable(t) for t in ts) + ")" for ts in kept)


def _whole_word(node: Node, text: str) -> bool:
    """A source's reading: a term matches whole words (a stem with ``*`` any word it begins)."""
    if isinstance(node, Term):
        term = node.text.casefold()
        tail = r"[\w-]*" if term.endswith("*") else r"(?![\w-])"
        return re.search(r"(?<![\w-])" + re.escape(term.rstrip("*")) + tail, text.casefold()) is not None
    if hasattr(node, "child"):
        return not _whole_word(node.child, text)
    parts = [_whole_word(c, text) for c in node.children]
    return all(parts) if type(node).__name__ == "And" else any(parts)


# the drug's studies name its outcome "plink-reduction", a word the query's outcome block lacks
SEEDS = [SeedStudy(f"Vorlixamab and plink-reduction in {who}", "Plink-reduction was measured.")
         for who in ("farmers", "sailors", "miners", "clerks", "weavers")]
POOL = ([f"Vorlixamab and plink-reduction, report {i}" for i in range(12)]
        + [f"Vorlixamab in glimmer syndrome, report {i}" for i in range(8)]
        + [f"Aspirin for headache, report {i}" for i in range(200)])


def _local(node: Node) -> int:
    return sum(matches(node, doc) for doc in POOL)


def _source(node: Node) -> int:
    return sum(_whole_word(node, doc) for doc in POOL)


def _share(term: str) -> float:
    return _local(parse_boolean_query(term)) / len(POOL)


def test_the_hyphenated_word_is_mined_whole_and_a_stem_of_it_is_what_the_local_count_would_take():
    # truncation leaves a hyphenated word whole: what the seeds share is a word a source finds
    mined = mined_terms(SEEDS, _share)
    assert "plink-reduction" in mined and all(sent_as_written(t) for t in mined)
    with_stem = parse_boolean_query(_render([["vorlixamab"], ["glimmer syndrome", "plink-reduct*"]]))
    # the gap: the local matcher counts the bare stem's 12 records, a source none of them
    assert _local(with_stem) == 20 and _source(with_stem) == 8


def test_the_seeds_widening_never_proposes_it_and_its_count_is_what_a_source_finds():
    blocks = [("drug", ["vorlixamab"]), ("outcome", ["glimmer syndrome"])]
    mined = improve_blocks(blocks, SEEDS, _render, _share, _local, max_growth=3.0)
    added = [t for ts in mined.added.values() for t in ts]
    assert added and all(sent_as_written(t) for t in added) and "plink-reduct*" not in added
    widened = parse_boolean_query(mined.query)
    assert mined.seed_recall_after == 1.0 and _local(widened) == _source(widened)


def test_the_pseudo_seeds_feedback_never_proposes_it_and_its_count_is_what_a_source_finds():
    blocks = [("drug", ["vorlixamab"]), ("outcome", ["glimmer syndrome"])]
    # the query's own best matches: they match it by construction, and say "plink-reduction" too
    pseudo = [SeedStudy(f"Vorlixamab in glimmer syndrome: plink-reduction in {who}", "Plink-reduction rose.")
              for who in ("farmers", "sailors", "miners")]
    assert all(sent_as_written(t) for t in mined_terms(pseudo, _share))
    refined = refine_with_pseudo_seeds(blocks, pseudo, _render, _share, _local, max_growth=3.0, open_blocks=[1])
    added = [t for ts in refined.added.values() for t in ts]
    assert all(sent_as_written(t) for t in added) and "plink-reduct*" not in added
    widened = parse_boolean_query(refined.query)
    assert _local(widened) == _source(widened)
