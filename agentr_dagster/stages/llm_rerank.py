"""`agentr screen --llm-top K`: re-score the offline ranking's top K with the configured LLM.

The top K become a project in the domain store (slug derived from the question), so the calls go through the
same gateway as the pipeline: priced, charged once, cached, and resumable; running the command again re-uses
every stored score. The K papers are then re-ordered among themselves by the LLM's judgement.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING

import pandas as pd

from agentr_dagster.domain.contracts import PaperRecord
from agentr_dagster.domain.hashing import score_cache_key
from agentr_dagster.imports import content_hash, paper_key
from agentr_dagster.screening.screen import place_duplicates
from agentr_dagster.stages.intent import current_intent, run_intent
from agentr_dagster.stages.scoring import score_project

if TYPE_CHECKING:
    from agentr_dagster.store import DomainStore


def llm_relevance(assessment: dict) -> float:
    """One number from the structured judgement: similarity, and the stronger of competitor/supporting scores."""
    c1 = assessment["c1_direct_competitor"]["score"] / 10
    c2 = assessment["c2_supporting_work"]["score"] / 10
    return 0.5 * assessment["semantic_similarity"] + 0.5 * max(c1, c2)


def rerank_top_with_llm(
    question: str,
    papers: pd.DataFrame,
    ranking: pd.DataFrame,
    k: int,
    store: DomainStore,
    backend,
    concurrency: int = 4,
) -> pd.DataFrame:
    """Return `ranking` with its top K unlabelled records re-ordered by the LLM; other rows keep their place, a
    merged duplicate (``duplicate_of``) follows its twin and gets its score."""
    duplicate = ranking["duplicate_of"].fillna("") != "" if "duplicate_of" in ranking else False
    unlabelled = ranking[(ranking["label"].fillna("") == "") & ~duplicate]
    top = unlabelled.head(k)
    if top.empty:
        return ranking
    slug = "screen-" + hashlib.sha256(question.encode()).hexdigest()[:12]
    store.projects.create_project(slug, question, title="agentr screen --llm-top")
    by_id = papers.drop_duplicates("record_id").set_index("record_id")
    records = []
    for record_id in top["record_id"]:
        row = by_id.loc[record_id]
        title = str(row.get("title") or "").strip() or f"(untitled record {record_id})"
        records.append(PaperRecord(title=title[:1000], abstract=str(row.get("abstract") or "")[:20000],
                                   source_id=str(record_id), source_format="screen"))
    store.projects.add_papers(slug, records, key_fn=paper_key, hash_fn=content_hash, provenance={"format": "screen"})
    run_intent(store, backend, slug)
    summary = score_project(store, backend, slug, concurrency=concurrency)
    _, intent_hash = current_intent(store, slug)
    stored = {p.source_id: p for p in store.projects.list_papers(slug)}
    keys = {p.id: score_cache_key(p.content_hash, intent_hash, backend.model) for p in stored.values()}
    results = {r.paper_id: r.payload for r in store.results.results_for_project(slug, cache_keys=keys)}
    llm_score = {}
    for record_id in top["record_id"]:
        paper = stored.get(str(record_id))
        if paper is not None and paper.id in results:
            llm_score[record_id] = llm_relevance(results[paper.id])
    reordered = top.assign(llm_score=top["record_id"].map(llm_score))
    # Papers the LLM could not score keep their offline order after the scored ones.
    reordered = reordered.sort_values("llm_score", ascending=False, na_position="last", kind="stable")
    positions = list(top.index)
    out = ranking.copy()
    out["llm_score"] = pd.NA
    out.loc[positions, :] = reordered.set_axis(positions).reindex(columns=out.columns).to_numpy()
    out["rank"] = range(1, len(out) + 1)
    if "duplicate_of" in out:
        out["llm_score"] = out["llm_score"].where(out["duplicate_of"].fillna("") == "",
                                                  out["duplicate_of"].map(llm_score))
        out = place_duplicates(out)
    out.attrs["llm_summary"] = {"scored": summary.scored, "reused": summary.reused,
                                "failed": {c.value: n for c, n in summary.failed.items()}, "project": slug}
    return out
