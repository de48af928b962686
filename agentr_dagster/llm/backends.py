"""Stage backends behind one interface: the LLM (any OpenAI-compatible endpoint) or the offline default."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Protocol

from agentr_dagster.domain.contracts import PaperAssessment, ResearchIntent, SearchQueries
from agentr_dagster.domain.prompts import load_prompt
from agentr_dagster.llm.gateway import CallContext, LLMSettings, OpenAICompatibleBackend

if TYPE_CHECKING:
    from agentr_dagster.store import DomainStore

OFFLINE_LABEL = (
    "offline: computed by deterministic lexical statistics and static embeddings, not by a language model"
)


class StageBackend(Protocol):
    kind: str  # "llm" or "offline"
    model: str
    label: str

    def decompose_intent(self, abstract: str, ctx: CallContext) -> ResearchIntent: ...

    def generate_queries(self, intent: ResearchIntent, ctx: CallContext) -> SearchQueries: ...

    def score_paper(
        self, intent: ResearchIntent, abstract: str, title: str, paper_abstract: str, ctx: CallContext
    ) -> PaperAssessment: ...


class LLMStageBackend:
    kind = "llm"

    def __init__(self, gateway: OpenAICompatibleBackend):
        self.gateway = gateway
        self.model = gateway.model
        self.label = f"llm: {gateway.model} at {gateway.settings.base_url}"

    def decompose_intent(self, abstract: str, ctx: CallContext) -> ResearchIntent:
        messages = load_prompt("intent").render(abstract=abstract)
        return self.gateway.complete("intent", messages, ResearchIntent, ctx)

    def generate_queries(self, intent: ResearchIntent, ctx: CallContext) -> SearchQueries:
        messages = load_prompt("queries").render(intent_json=intent.model_dump_json(indent=1))
        return self.gateway.complete("queries", messages, SearchQueries, ctx)

    def score_paper(
        self, intent: ResearchIntent, abstract: str, title: str, paper_abstract: str, ctx: CallContext
    ) -> PaperAssessment:
        messages = load_prompt("score").render(
            abstract=abstract,
            intent_json=intent.model_dump_json(indent=1),
            title=title,
            paper_abstract=paper_abstract or "(no abstract available)",
        )
        return self.gateway.complete("score", messages, PaperAssessment, ctx)


class OfflineStageBackend:
    """The embedded default: no key, no network, no cost; labelled as offline on every artifact."""

    kind = "offline"
    label = OFFLINE_LABEL

    def __init__(self, offline=None):
        from agentr_dagster.llm.offline import OFFLINE_MODEL, OfflineBackend

        self.offline = offline or OfflineBackend()
        self.model = OFFLINE_MODEL

    def decompose_intent(self, abstract: str, ctx: CallContext) -> ResearchIntent:
        return self.offline.decompose_intent(abstract)

    def generate_queries(self, intent: ResearchIntent, ctx: CallContext) -> SearchQueries:
        return self.offline.generate_queries(intent)

    def score_paper(
        self, intent: ResearchIntent, abstract: str, title: str, paper_abstract: str, ctx: CallContext
    ) -> PaperAssessment:
        return self.offline.score_papers(intent, abstract, [(title, paper_abstract)])[0]

    def score_batch(
        self, intent: ResearchIntent, abstract: str, papers: list[tuple[str, str]]
    ) -> list[PaperAssessment]:
        return self.offline.score_papers(intent, abstract, papers)


def make_backend(settings: LLMSettings | None, store: DomainStore) -> StageBackend:
    if settings is None:
        return OfflineStageBackend()
    return LLMStageBackend(OpenAICompatibleBackend(settings, store))


def canonical_json(value) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
