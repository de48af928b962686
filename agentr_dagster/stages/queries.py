"""The queries stage: a Boolean query, 10-15 keywords and exactly 10 search strings from the intent, stored as an
artifact and reused while the intent, prompt and model are unchanged."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agentr_dagster.domain.contracts import SearchQueries
from agentr_dagster.llm.backends import StageBackend
from agentr_dagster.stages.intent import current_intent
from agentr_dagster.stages.lifecycle import StageOutcome, require_active, run_single_stage
from agentr_dagster.stages.seeds import improve_with_seeds, project_seed_studies, seed_fingerprint

if TYPE_CHECKING:
    from agentr_dagster.store import DomainStore


def run_queries(store: DomainStore, backend: StageBackend, slug: str, run_id: str | None = None) -> StageOutcome:
    """With seed studies, the LLM path checks its answer on them (one repair round); the offline path widens
    its concept blocks with the seeds' characteristic terms (the objective approach). New seeds run it again."""
    require_active(store, slug, "queries", run_id)
    intent, intent_hash = current_intent(store, slug)
    seeds = project_seed_studies(store, slug)[0]

    mined = backend.kind == "offline"  # an LLM's answer is only checked on the seeds: no paid call per label

    def produce(ctx) -> SearchQueries:
        queries = backend.generate_queries(intent, ctx, seeds)
        return improve_with_seeds(store, slug, intent, queries, seeds) if mined else queries

    # the seeds are an input of the offline query (unchanged without seeds: stored queries stay reusable)
    input_text = intent_hash + (seed_fingerprint(seeds) if mined else "")
    return run_single_stage(store, backend, slug, "queries", input_text, produce, run_id, contract=SearchQueries)


def current_queries(store: DomainStore, slug: str) -> SearchQueries | None:
    artifact = store.results.latest_artifact(slug, "queries")
    return SearchQueries.model_validate(artifact.payload) if artifact else None
