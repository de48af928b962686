"""The project's seed path measured on labelled reviews: each review's question becomes a project (offline
backend) with the review's records as its candidates; 5 includes are labelled include and the queries stage runs
again. Printed per review: recall of the remaining includes and share of the remaining records matched, by the
question-only query and by the stored seed-improved query, and the terms added per block.

Usage (a throwaway SQLite store): AGENTR_HOME=$(mktemp -d) python scripts/measure_seed_queries.py DIR REVIEW...
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

from agentr_dagster.bench.screening import load_review
from agentr_dagster.cli.common import open_store
from agentr_dagster.domain.boolean_query import matches, parse_boolean_query
from agentr_dagster.domain.contracts import PaperRecord
from agentr_dagster.imports import content_hash, paper_key
from agentr_dagster.llm.backends import make_backend
from agentr_dagster.stages.intake import add_project
from agentr_dagster.stages.intent import run_intent
from agentr_dagster.stages.queries import current_queries, run_queries
from agentr_dagster.stages.seeds import SEED_TERMS_STAGE

N_SEEDS = 5


def measure(store, backend, folder: Path) -> str:
    rv = load_review(folder)
    slug = folder.name.lower().replace("_", "-")[:40]
    add_project(store, slug, rv.question)
    records = [PaperRecord(title=(str(t) or "untitled")[:900], abstract="" if str(a) == "nan" else str(a)[:19000])
               for t, a in zip(rv.titles, rv.abstracts, strict=True)]
    store.projects.add_papers(slug, records, key_fn=paper_key, hash_fn=content_hash, provenance={"format": "bench"})
    run_intent(store, backend, slug)
    run_queries(store, backend, slug)
    question_only = current_queries(store, slug).boolean_query
    papers = store.projects.list_papers(slug)
    include_titles = {str(t) for t, label in zip(rv.titles, rv.labels, strict=True) if int(label)}
    includes = [p for p in papers if p.title in include_titles]
    seeds = random.Random(f"0:{folder.name}").sample(includes, N_SEEDS)
    for paper in seeds:
        store.labels.set_label(slug, paper.id, "include")
    run_queries(store, backend, slug)
    improved = current_queries(store, slug).boolean_query
    rest = [p for p in papers if p not in seeds]
    rest_includes = [p for p in includes if p not in seeds]

    def judged(query: str) -> tuple[float, float]:
        tree = parse_boolean_query(query)
        hit = {p.id for p in rest if matches(tree, f"{p.title}. {p.abstract or ''}")}
        return sum(p.id in hit for p in rest_includes) / len(rest_includes), len(hit) / len(rest)

    (r0, s0), (r1, s1) = judged(question_only), judged(improved)
    report = store.results.latest_artifact(slug, SEED_TERMS_STAGE).payload
    return (f"{folder.name}: N={len(papers)} includes={len(includes)} remaining-include recall {r0:.3f} -> {r1:.3f}; "
            f"share {s0:.3f} -> {s1:.3f}; seed recall {report['seed_recall_before']} -> "
            f"{report['seed_recall_after']}; added {report['added_terms']}")


def main(root: str, *names: str) -> None:
    store = open_store()
    backend = make_backend(None, store)
    for name in names:
        print(measure(store, backend, Path(root) / name), flush=True)


if __name__ == "__main__":
    main(*sys.argv[1:])
