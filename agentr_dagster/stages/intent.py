"""The intent stage: the abstract decomposed into structured research intent (one LLM call, or the offline
backend), stored as an artifact and reused while the abstract, prompt and model are unchanged."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agentr_dagster.domain.contracts import ResearchIntent
from agentr_dagster.domain.failures import StageError
from agentr_dagster.domain.hashing import sha256
from agentr_dagster.llm.backends import StageBackend, canonical_json
from agentr_dagster.stages.lifecycle import StageOutcome, require_active, run_single_stage

if TYPE_CHECKING:
    from agentr_dagster.store import DomainStore


def run_intent(store: DomainStore, backend: StageBackend, slug: str, run_id: str | None = None) -> StageOutcome:
    require_active(store, slug, "intent", run_id)
    project = store.projects.get_project(slug)
    return run_single_stage(
        store, backend, slug, "intent", project.abstract,
        lambda ctx: backend.decompose_intent(project.abstract, ctx), run_id, contract=ResearchIntent,
    )


def current_intent(store: DomainStore, slug: str) -> tuple[ResearchIntent, str]:
    artifact = store.results.latest_artifact(slug, "intent")
    if artifact is None or artifact.input_hash is None:  # every intent is saved with its input's hash
        raise StageError(f"project {slug!r} has no research intent yet: materialise research_intent first")
    return ResearchIntent.model_validate(artifact.payload), artifact.input_hash


def intent_fingerprint(payload: dict) -> str:
    return sha256(canonical_json(payload))
