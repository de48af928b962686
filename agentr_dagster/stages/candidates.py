"""Candidate retrieval from the paper lake for one project (no Dagster here; the `candidate_papers` asset calls
:func:`retrieve_for_project`).

The project's search strategy is run against the lake as twelve queries: the Boolean query (its matches, ranked
by hybrid relevance to its positive terms), the expanded keywords together, and each of the ten search strings.
The hits are merged with the project's imported papers through ``store.projects.add_papers`` (a paper the project
already has is not added twice), each new paper's provenance naming every query that found it; the full hit
lists (rank and score per query) are stored as a ``retrieval`` artifact. The same queries against the same lake
generation are not run twice.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentr_dagster.domain.boolean_query import BooleanQueryError
from agentr_dagster.domain.contracts import SearchQueries
from agentr_dagster.domain.hashing import sha256
from agentr_dagster.imports import content_hash, paper_key
from agentr_dagster.lake import Lake, boolean_positive_text
from agentr_dagster.settings import get_settings
from agentr_dagster.stages.intake import fit_to_store
from agentr_dagster.stages.queries import current_queries

if TYPE_CHECKING:
    from agentr_dagster.store import DomainStore

RETRIEVAL_STAGE = "retrieval"
RETRIEVAL_VERSION = "retrieval-v1"


def per_query_default() -> int:
    """``$AGENTR_LAKE_PER_QUERY`` (papers taken from the lake per query), default 20."""
    return get_settings().lake.per_query


@dataclass
class QueryResult:
    name: str  # boolean | keywords | string-01 .. string-10
    kind: str  # boolean | keywords | search_string
    text: str
    hits: list[dict[str, Any]] = field(default_factory=list)  # paper_key, lake_id, rank, score
    added: int = 0  # papers this query brought into the project now
    note: str | None = None


@dataclass
class RetrievalSummary:
    generation: int
    lake_papers: int
    per_query: int
    queries: list[QueryResult]
    found: int  # distinct lake papers found by any query
    added: int  # of those, new to the project now
    reused: bool = False  # same queries and lake generation as the last retrieval: nothing run

    def metadata(self) -> dict[str, Any]:
        """Plain values for the asset's metadata: totals and hits per query."""
        out: dict[str, Any] = {
            "lake_generation": self.generation, "lake_papers": self.lake_papers, "lake_found": self.found,
            "lake_added": self.added, "lake_per_query": self.per_query, "lake_reused": self.reused,
        }
        for q in self.queries:
            out[f"hits_{q.name.replace('-', '_')}"] = len(q.hits)
        return out

    def markdown(self) -> str:
        lines = ["| query | hits | new to project | text |", "|---|---:|---:|---|"]
        for q in self.queries:
            text = q.text.replace("|", "\\|")
            text = text if len(text) <= 90 else text[:87] + "..."
            note = f" ({q.note})" if q.note else ""
            lines.append(f"| {q.name} | {len(q.hits)} | {q.added} | {text}{note} |")
        return "\n".join(lines)


def project_queries(queries: SearchQueries) -> list[tuple[str, str, str]]:
    """(name, kind, text) of the twelve lake queries of a search strategy."""
    out = [("boolean", "boolean", queries.boolean_query),
           ("keywords", "keywords", "; ".join(queries.expanded_keywords))]
    out += [(f"string-{i:02d}", "search_string", s) for i, s in enumerate(queries.search_strings, start=1)]
    return out


def _run_queries(lake: Lake, queries: list[tuple[str, str, str]], k: int) -> list[QueryResult]:
    results = []
    for name, kind, text in queries:
        result = QueryResult(name, kind, text)
        hits = []
        if k > 0 and kind == "boolean":
            try:
                mask = lake.boolean_mask(text)
                positive = boolean_positive_text(text)
            except BooleanQueryError as exc:
                result.note = f"does not parse: {exc}"
                mask = None
            if mask is not None and not mask.any():
                result.note = "matches no paper in the lake"
            elif mask is not None:
                hits = lake.search(positive or text, k, mask=mask)
        elif k > 0:
            hits = lake.search(text, k)
        result.hits = [
            {"paper_key": h.paper_key, "lake_id": h.lake_id, "rank": h.rank, "score": round(h.score, 6)} for h in hits
        ]
        results.append(result)
    return results


def retrieve_for_project(
    store: DomainStore,
    slug: str,
    *,
    lake: Lake | None = None,
    root: Path | None = None,
    per_query: int | None = None,
) -> RetrievalSummary | None:
    """Run the project's queries against the lake and add the hits to its candidates.

    None when there is nothing to do: the project has no search queries yet, or the lake is empty."""
    queries = current_queries(store, slug)
    if queries is None:
        return None
    if lake is None:
        lake = Lake.open(root)
    if lake is None:
        return None
    k = per_query_default() if per_query is None else per_query
    specs = project_queries(queries)
    input_hash = sha256(RETRIEVAL_VERSION, str(lake.generation), str(k), *(t for _, _, t in specs))
    last = store.results.latest_artifact(slug, RETRIEVAL_STAGE)
    if last is not None and last.input_hash == input_hash:
        payload = last.payload
        previous = [QueryResult(q["name"], q["kind"], q["text"], q["hits"], 0, q.get("note"))
                    for q in payload["queries"]]
        return RetrievalSummary(payload["lake_generation"], payload["lake_papers"], k, previous, payload["found"], 0,
                                reused=True)

    results = _run_queries(lake, specs, k)
    found_by: dict[int, list[str]] = defaultdict(list)
    for result in results:
        for hit in result.hits:
            found_by[hit["lake_id"]].append(result.name)
    ids = list(found_by)
    by_name = {r.name: r for r in results}
    added_total = 0
    if ids:
        records, _ = fit_to_store(lake.records(ids))  # as a file import does, so keys match (see paper_key)
        groups: dict[tuple[str, ...], list] = defaultdict(list)
        for lake_id, record in zip(ids, records, strict=True):
            groups[tuple(found_by[lake_id])].append(record)
        now = datetime.now(timezone.utc).isoformat()
        for names, recs in groups.items():
            provenance = {"source": "lake", "found_by": list(names), "lake_generation": lake.generation,
                          "imported_at": now}
            added = store.projects.add_papers(slug, recs, key_fn=paper_key, hash_fn=content_hash, provenance=provenance)
            added_total += added.added
            for name in names:
                by_name[name].added += added.added
    payload = {
        "lake_generation": lake.generation, "lake_papers": lake.n, "per_query": k, "found": len(ids),
        "added": added_total,
        "queries": [
            {"name": r.name, "kind": r.kind, "text": r.text, "hits": r.hits, "added": r.added, "note": r.note}
            for r in results
        ],
    }
    store.results.save_artifact(slug, RETRIEVAL_STAGE, payload, prompt_version=RETRIEVAL_VERSION, model=None,
                        backend="lake", input_hash=input_hash)
    return RetrievalSummary(lake.generation, lake.n, k, results, len(ids), added_total)
