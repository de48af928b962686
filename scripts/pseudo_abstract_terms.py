"""What pseudo-relevance feedback adds to the queries of published review abstracts (no labels), to read for sense.

For each abstract of a JSON list (``name``, ``title``, ``abstract``; default the 17 of
``shared/data/review_abstracts.json``) the offline backend builds the Boolean query (pool background, as
``scripts/check_abstract_queries.py`` does); the query is run against the pooled labelled reviews' records, what
it matches is ranked zero-shot against the abstract (the bench's ranker, :mod:`agentr_dagster.bench.pseudo`), the
top ``k`` are the pseudo-seeds (:func:`agentr_dagster.domain.seed_check.refine_with_pseudo_seeds`), and the
terms added per block are printed with the matches before and after and the share of the pool's records outside
the review's own folder (if it has one in the pool) the refined query matches.

Usage: PYTHONPATH=. python scripts/pseudo_abstract_terms.py [--abstracts FILE] [--root DIR] [--k K] [--growth G]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from agentr_dagster.bench.pseudo import rank_matches
from agentr_dagster.bench.queries import build_pool
from agentr_dagster.bench.screening import discover_reviews
from agentr_dagster.domain.boolean_query import parse_boolean_query
from agentr_dagster.domain.seed_check import PSEUDO_GROWTH, PSEUDO_SEEDS, SeedStudy, refine_with_pseudo_seeds
from agentr_dagster.llm.offline import OfflineBackend
from agentr_dagster.llm.offline.queries import concept_boolean_query
from agentr_dagster.stages.seeds import embedding_relatedness

#: A published abstract whose review is one of the shared folders (as in scripts/check_abstract_queries.py).
_OWN = {"Radjenovic_2013": "Radjenovic_2013", "Hall_2012": "Radjenovic_2013", "Chou_2003": "Cohen_2006_Opiods"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--abstracts", default="/work/shared/data/review_abstracts.json")
    parser.add_argument("--root", default="/work/shared/data/screening")
    parser.add_argument("--k", type=int, default=PSEUDO_SEEDS)
    parser.add_argument("--growth", type=float, default=PSEUDO_GROWTH)
    args = parser.parse_args()
    pool, _ = build_pool(discover_reviews(Path(args.root)))
    backend = OfflineBackend()
    related = embedding_relatedness(backend.embedder)
    for item in json.loads(Path(args.abstracts).read_text(encoding="utf-8")):
        text = f"{item.get('title', '')}. {item.get('abstract', '')}".strip(". ")
        own = _OWN.get(item.get("name", ""), "")
        generic = pool.background_without(own)
        intent = backend.decompose_intent(text, generic)
        if not intent.concepts:
            print(f"{item.get('name', '')[:30]:30} no concept blocks")
            continue
        query = backend.generate_queries(intent).boolean_query

        def render(terms: list[list[str]], intent=intent) -> str:
            return concept_boolean_query([c.model_copy(update={"terms": t})
                                          for c, t in zip(intent.concepts, terms, strict=True)])

        def off_topic(node, own=own) -> float:
            return pool.specificity(node, own)["off_topic"] or 0.0

        hits = sorted(pool.ids(parse_boolean_query(query)))
        ranked = rank_matches(text, hits, pool.titles, pool.abstracts, backend.embedder)
        pseudo = [SeedStudy(pool.titles[i], pool.abstracts[i]) for i in ranked[:args.k]]
        refined = refine_with_pseudo_seeds([(c.label, list(c.terms)) for c in intent.concepts], pseudo, render,
                                           generic, lambda node: len(pool.ids(node)), max_growth=args.growth,
                                           relatedness=related, generic=generic, off_topic=off_topic,
                                           open_blocks=[i for i, c in enumerate(intent.concepts) if c.required])
        after = pool.ids(parse_boolean_query(refined.query))
        print(f"{item.get('name', '')[:30]:30} matches {len(hits):5} -> {len(after):5}, outside own "
              f"{100 * off_topic(parse_boolean_query(refined.query)):.1f} %")
        print(f"    title: {item.get('title', '')[:150]}")
        print(f"    query: {query[:300]}")
        for block, terms in refined.added.items():
            print(f"    + {block!r}: {', '.join(terms)}")
        if not refined.added:
            print("    + nothing")


if __name__ == "__main__":
    main()
