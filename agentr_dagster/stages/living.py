"""Living reviews: which projects an update re-searches, and the dated digest of what an update found (no Dagster
here; the `living_review` schedule and `score_exports` call these).

An update is one id (the UTC time it was scheduled for, to the minute) on every run it launches (tag
``agentr/living_update``). In such a run `candidate_papers` searches every (source, query) for records the source
indexed since its last completed search (less a safety margin), past the response cache; the new papers carry
``provenance.update`` = the id, `paper_scores` scores only them (everything else is served from the score cache),
and `score_exports` writes ``results/<slug>/updates/<id>.csv``: the update's new papers, best first.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd

from agentr_dagster.domain.atomic import write_atomically
from agentr_dagster.stages.exports import scores_dataframe, spreadsheet_safe
from agentr_dagster.stages.search import paper_found_by
from agentr_dagster.stages.staleness import find_project

if TYPE_CHECKING:
    from agentr_dagster.store import DomainStore

DIGEST_COLUMNS = ["rank", "paper_id", "title", "year", "doi", "venue", "c1_score", "c2_score", "semantic_similarity",
                  "found_by", "update"]


@dataclass(frozen=True)
class LivingView:
    """What the living-review schedule knows about one project when it decides."""

    slug: str
    active: bool
    has_queries: bool
    last_search: date | None  # the latest completed search of any source
    in_flight: bool


def living_decision(view: LivingView) -> tuple[bool, str]:
    """Pure: whether this update re-searches the project, and why (not)."""
    if not view.active:
        return False, "deleted"
    if not view.has_queries:
        return False, "no search queries yet (its first run searches)"
    if view.in_flight:
        return False, "a run is queued or running"
    since = f"since {view.last_search.isoformat()}" if view.last_search else "in full (never searched)"
    return True, f"update: search {since}"


def living_view(store: DomainStore, slug: str, in_flight: bool) -> LivingView | None:
    project = find_project(store, slug)
    if project is None:  # a partition with no project in the store: nothing to update
        return None
    if project.deleted_at is not None:
        return LivingView(slug, False, False, None, in_flight)
    completed = [r.created_at.date() for r in store.searches.searches(slug) if r.status == "completed"]
    has_queries = store.results.latest_artifact(slug, "queries") is not None
    return LivingView(slug, True, has_queries, max(completed) if completed else None, in_flight)


def update_digest(store: DomainStore, slug: str, update_id: str) -> pd.DataFrame:
    """The papers the update brought, with their scores where they have one, best direct competitors first."""
    papers = [p for p in store.projects.list_papers(slug) if (p.provenance or {}).get("update") == update_id]
    found_by = store.searches.found_by(slug)
    scores = scores_dataframe(store, slug).set_index("paper_id") if papers else pd.DataFrame()
    rows = []
    for p in papers:
        scored = p.id in scores.index
        rows.append({
            "paper_id": p.id, "title": p.title, "year": p.year, "doi": p.doi, "venue": p.venue,
            "c1_score": scores.at[p.id, "c1_score"] if scored else None,
            "c2_score": scores.at[p.id, "c2_score"] if scored else None,
            "semantic_similarity": scores.at[p.id, "semantic_similarity"] if scored else None,
            "found_by": "; ".join(paper_found_by(p.provenance, found_by.get(p.id, []))), "update": update_id,
        })
    frame = pd.DataFrame(rows, columns=[c for c in DIGEST_COLUMNS if c != "rank"])
    if len(frame):
        frame = frame.sort_values(["c1_score", "c2_score", "paper_id"], ascending=[False, False, True],
                                  na_position="last").reset_index(drop=True)
    frame.insert(0, "rank", range(1, len(frame) + 1))
    frame["year"] = frame["year"].astype("Int64")
    return frame


def write_update_digest(store: DomainStore, slug: str, update_id: str, results: Path) -> tuple[pd.DataFrame, Path]:
    """``results/<slug>/updates/<update id>.csv``."""
    frame = update_digest(store, slug, update_id)
    out = results / "updates"
    out.mkdir(parents=True, exist_ok=True)
    path = write_atomically(out / f"{update_id}.csv", lambda tmp: spreadsheet_safe(frame).to_csv(tmp, index=False))
    return frame, path


def update_history(store: DomainStore, slug: str) -> list[dict]:
    """One row per living-review update: its id, searches sent and failed, papers it added (newest first)."""
    by_update: dict[str, dict] = {}
    for row in store.searches.searches(slug):
        if row.update_id is None:
            continue
        entry = by_update.setdefault(row.update_id, {"update": row.update_id, "searches": 0, "failed": 0,
                                                     "hits": 0, "new_papers": 0})
        entry["searches"] += 1
        entry["failed"] += row.status == "failed"
        entry["hits"] += row.hits
    for p in store.projects.list_papers(slug):
        update = (p.provenance or {}).get("update")
        if update in by_update:
            by_update[update]["new_papers"] += 1
    return sorted(by_update.values(), key=lambda e: e["update"], reverse=True)
