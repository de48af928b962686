"""A fresh project's seed pool (no candidates, no lake): general English bounds how far seeds widen the query."""

from __future__ import annotations

from agentr_dagster.domain.boolean_query import parse_boolean_query
from agentr_dagster.domain.seed_check import MAX_GROWTH, SeedStudy, improve_blocks
from agentr_dagster.stages.seeds import general_english_pool

BLOCKS = [("drug", ["flurbonide*"]), ("people", ["adults"])]
# the seeds name the drug but never "adults": leaving that block out would find them all
SEEDS = [SeedStudy("Flurbonide for night cramps", "A trial of flurbonide."),
         SeedStudy("Flurbonide versus quinine", "Cramps in older people.")]


def _render(terms: list[list[str]], leave_out: frozenset[int] = frozenset()) -> str:
    return " AND ".join("(" + " OR ".join(ts) + ")" for i, ts in enumerate(terms) if i not in leave_out)


def test_general_english_counts_a_common_word_as_reaching_far():
    pool = general_english_pool()
    narrow = pool.count(parse_boolean_query("flurbonide* AND (migraine OR headache)"))
    wide = pool.count(parse_boolean_query("flurbonide* OR people"))
    assert wide > MAX_GROWTH * max(1, narrow)
    assert pool.background("people") > pool.background("flurbonide*")


def test_seeds_do_not_drop_a_block_when_general_english_says_the_query_would_multiply():
    english = general_english_pool()
    bounded = improve_blocks(BLOCKS, SEEDS, _render, english.background, english.count, relax=_render)
    assert bounded.relaxed == []
    # an empty pool (what a fresh project had before) counts nothing, so nothing was ever too wide
    unbounded = improve_blocks(BLOCKS, SEEDS, _render, lambda term: 0.0, lambda node: 0, relax=_render)
    assert unbounded.relaxed == ["people"]
