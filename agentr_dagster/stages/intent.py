"""The intent stage: the abstract decomposed into structured research intent (one LLM call, or the offline
backend), stored as an artifact and reused while the abstract, prompt and model are unchanged."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from agentr_dagster.domain.contracts import ResearchIntent
from agentr_dagster.domain.failures import StageError
from agentr_dagster.domain.hashing import sha256
from agentr_dagster.domain.specificity import HitCountBackground
from agentr_dagster.llm.backends import StageBackend, canonical_json
from agentr_dagster.settings import get_settings
from agentr_dagster.sources.background import source_background
from agentr_dagster.sources.contract import SearchSource
from agentr_dagster.stages.lifecycle import StageOutcome, require_active, run_single_stage

if TYPE_CHECKING:
    from agentr_dagster.store import DomainStore


def run_intent(store: DomainStore, backend: StageBackend, slug: str, run_id: str | None = None,
               sources: Callable[[], Sequence[SearchSource]] | None = None) -> StageOutcome:
    """The intent stage. ``sources`` builds the project's search sources: while the paper lake is too small to
    judge terms by, the offline backend reads the preferred one's hit counts as its background
    (``sources/background.py``); they are built only then, and closed after the stage."""
    require_active(store, slug, "intent", run_id)
    project = store.projects.get_project(slug)
    opened: list[SearchSource] = []

    def counted() -> HitCountBackground | None:
        opened.extend(sources() if sources is not None else ())
        return source_background(opened, min_records=get_settings().sources.background_min_records)

    try:
        return run_single_stage(
            store, backend, slug, "intent", project.abstract,
            lambda ctx: backend.decompose_intent(project.abstract, ctx, counted if sources is not None else None),
            run_id, contract=ResearchIntent,
        )
    finally:
        for client in opened:
            close = getattr(client, "close", None)
            if close is not None:
                close()


def current_intent(store: DomainStore, slug: str) -> tuple[ResearchIntent, str]:
    artifact = store.results.latest_artifact(slug, "intent")
    if artifact is None or artifact.input_hash is None:  # every intent is saved with its input's hash
        raise StageError(f"project {slug!r} has no research intent yet: materialise research_intent first")
    return ResearchIntent.model_validate(artifact.payload), artifact.input_hash


def intent_fingerprint(payload: dict) -> str:
    return sha256(canonical_json(payload))
