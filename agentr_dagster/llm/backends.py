"""Stage backends behind one interface: the LLM (any OpenAI-compatible endpoint) or the offline default."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Protocol

from agentr_dagster.domain.contracts import PaperAssessment, ResearchIntent, SearchQueries
from agentr_dagster.domain.prompts import load_prompt
from agentr_dagster.domain.seed_check import SeedStudy
from agentr_dagster.domain.specificity import Background, BackgroundUnavailable, HitCountBackground, with_background
from agentr_dagster.llm.gateway import CallContext, LLMSettings, OpenAICompatibleBackend

if TYPE_CHECKING:
    from agentr_dagster.store import DomainStore

log = logging.getLogger(__name__)

#: Builds a background from the search sources' hit counts (None when there is none), asked only when the lake is
#: too small to judge by (stages/intent.py).
SourceBackground = Callable[[], HitCountBackground | None]

NO_BACKGROUND = "none: general English word frequencies"
OFFLINE_LABEL = (
    "offline: computed by deterministic lexical statistics and static embeddings, not by a language model"
)


class StageBackend(Protocol):
    kind: str  # "llm" or "offline"
    model: str
    label: str
    # How the scoring stage calls it: True, the backend is also a ``BatchScoringBackend`` and scores many papers
    # in one local pass (nothing paid, so no claim, gate or fence per paper); False, ``score_paper`` once per
    # paper, each a paid call through the gateway's guards (llm/paid_call.py).
    scores_in_batches: bool

    def decompose_intent(self, abstract: str, ctx: CallContext,
                         source_background: SourceBackground | None = None) -> ResearchIntent: ...

    def generate_queries(
        self, intent: ResearchIntent, ctx: CallContext, seeds: Sequence[SeedStudy] = ()
    ) -> SearchQueries: ...

    def score_paper(
        self, intent: ResearchIntent, abstract: str, title: str, paper_abstract: str, ctx: CallContext
    ) -> PaperAssessment: ...


class BatchScoringBackend(StageBackend, Protocol):
    """A backend whose ``scores_in_batches`` is True: it scores many papers in one local, unpaid pass."""

    def score_batch(
        self, intent: ResearchIntent, abstract: str, papers: list[tuple[str, str]]
    ) -> list[PaperAssessment]: ...


class LLMStageBackend:
    kind = "llm"
    scores_in_batches = False  # one paid call per paper

    def __init__(self, gateway: OpenAICompatibleBackend):
        self.gateway = gateway
        self.model = gateway.model
        self.label = f"llm: {gateway.model} at {gateway.settings.base_url}"

    def decompose_intent(self, abstract: str, ctx: CallContext,
                         source_background: SourceBackground | None = None) -> ResearchIntent:
        messages = load_prompt("intent").render(abstract=abstract)  # the model judges terms itself
        intent = self.gateway.complete("intent", messages, ResearchIntent, ctx)
        # ``background`` records what the offline backend judged terms by; the field is in the schema the model
        # sees, so whatever it wrote there is not a background this project used
        return intent.model_copy(update={"background": ""})

    def generate_queries(
        self, intent: ResearchIntent, ctx: CallContext, seeds: Sequence[SeedStudy] = ()
    ) -> SearchQueries:
        messages = load_prompt("queries").render(intent_json=intent.model_dump_json(indent=1))
        answer = self.gateway.complete("queries", messages, SearchQueries, ctx)
        return self._checked_queries(answer, messages, ctx, list(seeds))

    def _checked_queries(self, answer: SearchQueries, messages: list[dict[str, str]], ctx: CallContext,
                         seeds: list[SeedStudy]) -> SearchQueries:
        """The answer validated structurally and on the project's seed studies; when it falls short, ONE repair
        call with the problems and the missed seeds, whose answer is kept only if it is better."""
        from agentr_dagster.domain.failures import StageError
        from agentr_dagster.domain.seed_check import check_query, repair_feedback, structural_problems

        problems = structural_problems(answer.boolean_query)
        report = check_query(answer.boolean_query, seeds)
        if not problems and not report.below_floor:
            return answer
        repair = [*messages, {"role": "assistant", "content": answer.model_dump_json()},
                  {"role": "user", "content": repair_feedback(problems, report)}]
        try:
            second = self.gateway.complete("queries", repair, SearchQueries, ctx)
        except StageError as exc:  # the first answer is valid and paid for: keep it
            log.warning("queries repair round failed (%s); keeping the first answer", exc.message)
            return answer
        second_report = check_query(second.boolean_query, seeds)

        def quality(problems_: list[str], rep) -> tuple[float, int]:
            return (rep.recall if rep.recall is not None else 1.0, -len(problems_))

        better = quality(structural_problems(second.boolean_query), second_report) > quality(problems, report)
        return second if better else answer

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
    scores_in_batches = True  # local and free: many papers per pass

    def __init__(self, offline=None):
        from agentr_dagster.llm.offline import OFFLINE_MODEL, OfflineBackend

        self.offline = offline or OfflineBackend()
        self.model = OFFLINE_MODEL

    def decompose_intent(self, abstract: str, ctx: CallContext,
                         source_background: SourceBackground | None = None) -> ResearchIntent:
        """The offline intent, its generic terms judged by a background of many topics: the paper lake once it
        is large enough, else the search sources' hit counts (``source_background``), else general English alone.
        Which one judged is stored with the intent (``background``)."""
        from agentr_dagster.lake import lake_background

        background: Background | None = lake_background()
        label = "paper lake"
        if background is None and source_background is not None:
            counted = source_background()
            if counted is not None:
                background, label = counted, counted.label
        if background is None:
            return self._with_label(self.offline.decompose_intent(abstract, None), NO_BACKGROUND)

        def fell_back(exc: BackgroundUnavailable) -> None:
            log.warning("background unavailable (%s): the intent is decomposed without one", exc)

        intent, used = with_background(lambda b: self.offline.decompose_intent(abstract, b), background, fell_back)
        return self._with_label(intent, label if used else f"{NO_BACKGROUND} ({label} failed)")

    @staticmethod
    def _with_label(intent: ResearchIntent, label: str) -> ResearchIntent:
        return intent.model_copy(update={"background": label[:300]})

    def generate_queries(
        self, intent: ResearchIntent, ctx: CallContext, seeds: Sequence[SeedStudy] = ()
    ) -> SearchQueries:
        return self.offline.generate_queries(intent)  # seeds are reported on by the stage, not fed back offline

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
