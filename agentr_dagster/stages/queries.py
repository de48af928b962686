"""The queries stage: a Boolean query, 10-15 keywords and exactly 10 search strings from the intent, stored as an
artifact and reused while the intent, prompt and model are unchanged."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agentr_dagster.domain.contracts import SearchQueries
from agentr_dagster.llm.backends import StageBackend
from agentr_dagster.stages.intent import current_intent
from agentr_dagster.stages.lifecycle import StageOutcome, require_active, run_single_stage
from agentr_dagster.stages.seeds import project_seed_studies

if TYPE_CHECKING:
    from agentr_dagster.store import DomainStore


def run_queries(store: DomainStore, backend: StageBackend, slug: str, run_id: str | None = None) -> StageOutcome:
    require_active(store, slug, "queries", run_id)
    intent, intent_hash = current_intent(store, slug)
    seeds = project_seed_studies(store, slug)[0]  # the LLM path checks its answer on them (one repair round)
    return run_single_stage(
        store, backend, slug, "queries", intent_hash, lambda ctx: backend.generate_queries(intent, ctx, seeds),
        run_id, contract=SearchQueries,
    )


def current_queries(store: DomainStore, slug: str) -> SearchQueries | None:
    artifact = store.results.latest_artifact(slug, "queries")
    return SearchQueries.model_validate(artifact.payload) if artifact else None
