"""Pseudo-relevance feedback as the run does it (stages/pseudo_feedback.py), on the shared reviews: the pool of
every review served as OpenAlex, PubMed and Europe PMC (the `agentr bench e2e` pool), a paper lake of the OTHER
reviews' records (a user's earlier projects: the background of many topics), a project from the review's written
(or published) abstract with the offline backend, its searches at the default caps, then the feedback. Reported
per review: recall of the includes and papers over N after the searches, and after the feedback's search; the
terms added. Judges the wiring, not a choice: k and the growth bound are round 14b's (docs/search-strategies.md).

    AGENTR_HOME=/tmp/prf-run PYTHONPATH=$PWD python scripts/prf_run.py /work/shared/data/screening \
        --review Ng_2023_CAIM_COVID_Misinformation [--review ...] [--out /tmp/prf-run.json]
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", type=Path)
    parser.add_argument("--review", action="append", default=[])
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--report", action="store_true", help="read the stores a run left under AGENTR_HOME: "
                        "recall, papers over N and the off-topic share (the pool's records outside the review the "
                        "project holds) before the feedback's search (its papers left out) and after")
    args = parser.parse_args()

    from agentr_dagster.bench.e2e import _members_of, pool_of
    from agentr_dagster.bench.queries import load_written_abstracts, review_abstract
    from agentr_dagster.bench.screening import discover_reviews, load_review
    from agentr_dagster.domain.contracts import PaperRecord
    from agentr_dagster.lake import add_records
    from agentr_dagster.llm.backends import make_backend
    from agentr_dagster.settings import get_settings
    from agentr_dagster.sources.cache import ResponseCache
    from agentr_dagster.sources.registry import build_sources
    from agentr_dagster.stages.intake import add_project
    from agentr_dagster.stages.intent import run_intent
    from agentr_dagster.stages.pseudo_feedback import pseudo_feedback
    from agentr_dagster.stages.queries import current_queries, run_queries
    from agentr_dagster.stages.search import SearchCaps, search_project
    from agentr_dagster.store import DomainStore
    from agentr_dagster.testing.pooled import POOL_SOURCES, PooledReplayServer

    folders = discover_reviews(args.root)
    loaded = {f: load_review(f) for f in folders}
    pool = pool_of(list(loaded.values()))
    written = load_written_abstracts()
    base = Path(os.environ.get("AGENTR_HOME", "/tmp/prf-run"))
    out: list[dict] = []
    if args.report:
        report(base, pool, [r for r in loaded.values() if not args.review or r.name in args.review])
        return
    with PooledReplayServer(pool.papers) as server:
        os.environ.update({"AGENTR_SOURCES": ",".join(sorted(POOL_SOURCES)), "AGENTR_SOURCE_REQUEST_INTERVAL": "0"})
        for source in sorted(POOL_SOURCES):
            os.environ[f"AGENTR_{source.upper()}_URL"] = server.base_url(source)
        for folder, review in loaded.items():
            if args.review and review.name not in args.review:
                continue
            text, kind = review_abstract(folder, review.name, written)
            if not text:
                continue
            started = time.perf_counter()
            home = base / review.name
            os.environ["AGENTR_HOME"] = str(home)
            others = [PaperRecord(title=p.title[:1000], abstract=p.abstract[:20000], year=p.published.year, doi=p.doi)
                      for p in pool.papers if all(owner != review.name for owner, _ in pool.members[p.number])]
            add_records(others, name="other reviews")
            store = DomainStore(f"sqlite:///{home / 'store.db'}")
            slug = "prf"
            add_project(store, slug, text)
            backend = make_backend(None, store)
            run_intent(store, backend, slug)
            run_queries(store, backend, slug)
            settings = get_settings().sources
            sources = build_sources(get_settings(), ResponseCache(store))
            search_project(store, slug, sources, max_results=settings.max_results,
                           boolean_max_results=settings.boolean_max_results, add_to_lake=False)
            includes = {i for i in range(len(review.labels)) if review.labels[i]}
            n = len(review.labels)

            def figures() -> dict:
                found: set[int] = set()
                papers = store.projects.list_papers(slug)  # noqa: B023 - read now
                for p in papers:
                    found |= _members_of(pool, review.name, pool.numbers(p.doi, p.title))  # noqa: B023
                return {"recall": round(len(found & includes) / len(includes), 4),  # noqa: B023
                        "papers_vs_n": round(len(papers) / n, 3)}  # noqa: B023

            before = figures()
            result = pseudo_feedback(store, slug, sources, SearchCaps(settings.max_results,
                                                                      settings.boolean_max_results),
                                     min_source_records=settings.background_min_records, add_to_lake=False)
            after = figures()
            row = {"name": review.name, "abstract": kind, "query": current_queries(store, slug).boolean_query,
                   "before": before, "after": after, "reason": result.reason, "added": result.added,
                   "background": result.background, "new_papers": result.new_papers,
                   "seconds": round(time.perf_counter() - started, 1)}
            out.append(row)
            print(f"{review.name[:34]:34} {before['recall']:.3f}/{before['papers_vs_n']} -> {after['recall']:.3f}/"
                  f"{after['papers_vs_n']} +{result.new_papers} {result.reason or result.added} "
                  f"({row['seconds']} s)", flush=True)
            store.close()
            if args.out:
                args.out.write_text(json.dumps(out, indent=1))


def report(base: Path, pool, reviews) -> None:
    from agentr_dagster.bench.e2e import _members_of
    from agentr_dagster.stages.pseudo_feedback import found_by_feedback_alone
    from agentr_dagster.store import DomainStore

    for review in reviews:
        path = base / review.name / "store.db"
        if not path.is_file():
            continue
        store = DomainStore(f"sqlite:///{path}")
        papers = store.projects.list_papers("prf")
        found_by = store.searches.found_by("prf")
        includes = {i for i in range(len(review.labels)) if review.labels[i]}
        outside = sum(1 for p in pool.papers if all(o != review.name for o, _ in pool.members[p.number]))
        row = []
        for kept in ([p for p in papers if not found_by_feedback_alone(found_by.get(p.id, []))], papers):
            own: set[int] = set()
            off: set[int] = set()
            for p in kept:
                numbers = pool.numbers(p.doi, p.title)
                own |= _members_of(pool, review.name, numbers)
                off |= {n for n in numbers if all(o != review.name for o, _ in pool.members[n])}
            row.append(f"{len(own & includes) / len(includes):.3f} / {len(kept) / len(review.labels):.2f} / "
                       f"{100 * len(off) / outside:.1f} %")
        store.close()
        print(f"| {review.name} | {row[0]} | {row[1]} |")


if __name__ == "__main__":
    main()
