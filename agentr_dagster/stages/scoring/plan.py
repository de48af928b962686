"""What a scoring run scores and in which order: the plan (when it may stop early), the candidates and their
relevance queue, the batch sizes, the stopping decision before each batch, and the re-ranking after it on the
model's judgements (weak labels)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING

import numpy as np

from agentr_dagster.domain.hashing import score_cache_key
from agentr_dagster.domain.recall_stopping import DEFAULT_CONFIDENCE, RecallAssessment, assess_recall
from agentr_dagster.llm.backends import StageBackend
from agentr_dagster.stages.intent import current_intent
from agentr_dagster.stages.scoring.summary import ScoringSummary

if TYPE_CHECKING:
    from agentr_dagster.domain.contracts import ResearchIntent
    from agentr_dagster.stages.relevance import RelevanceQueue
    from agentr_dagster.store import DomainStore
    from agentr_dagster.store.rows import PaperRow, ProjectRow, ResultRow


@dataclass(frozen=True)
class ScoringPlan:
    """When scoring with an LLM may stop before every candidate is scored. The default scores every candidate.

    ``stop_at_recall``: stop once the stopping rule (:func:`~agentr_dagster.domain.recall_stopping.assess_recall`,
    a hypergeometric test on the papers scored last, and with ``model`` a decaying-rate model of the order above
    the test's floor) shows, with ``confidence`` (95 % by default), that this share of the relevant papers has
    been scored (the model's judgements are the labels); each evaluation is kept in
    :attr:`ScoringSummary.recall`. ``budget_credits``: the credits the project's scoring may spend in all, over
    every run; no batch is started that the average cost of its calls so far says would pass it (a soft cap,
    passed by one call at most; for a hard one, ``agentr budget set``, which the plan also keeps to). Papers left
    are ``not_scored: below cut-off``; a later run with a stricter target or a larger budget continues with them,
    and calls nothing already answered."""

    stop_at_recall: float | None = None
    budget_credits: Decimal | None = None
    confidence: float = DEFAULT_CONFIDENCE
    model: bool = True  # the decaying-rate model may stop sooner, above the sample's floor (AGENTR_STOP_MODEL)

    def __post_init__(self) -> None:
        if self.stop_at_recall is not None and not 0 < self.stop_at_recall <= 1:
            raise ValueError(f"stop_at_recall must be in (0, 1], not {self.stop_at_recall}")
        if self.budget_credits is not None and Decimal(self.budget_credits) < 0:
            raise ValueError("budget_credits cannot be negative")

    @property
    def may_stop(self) -> bool:
        return self.stop_at_recall is not None or self.budget_credits is not None

    def describe(self) -> dict:
        return {"stop_at_recall": self.stop_at_recall, "confidence": self.confidence, "model": self.model,
                "budget_credits": None if self.budget_credits is None else str(self.budget_credits)}


def batch_size_for(total: int, concurrency: int) -> int:
    """Papers per batch between re-rankings: small enough to stop close to the target, large enough to keep
    ``concurrency`` calls busy and the re-training cost per paper low (1 % of the list, at least 16)."""
    return max(16, 4 * max(1, concurrency), math.ceil(total / 100))


@dataclass
class Candidates:
    """What a scoring run reads before it starts: the project, its intent, its papers and their cache keys, the
    results already stored for those keys, the person's labels, and the relevance queue that orders the papers."""

    project: ProjectRow
    intent: ResearchIntent
    intent_hash: str
    papers: list[PaperRow]
    keys: dict[int, str]  # paper id -> score cache key
    stored_rows: list[ResultRow]  # the stored results for those keys, oldest first
    existing: set[int]  # papers with a stored result
    person: dict[int, int]  # paper id -> a person's label
    queue: RelevanceQueue
    by_id: dict[int, PaperRow]

    def ordered(self, skip: set[int]) -> list[PaperRow]:
        """The papers not in ``skip``, in the queue's current order."""
        return [self.by_id[pid] for pid in self.queue.order(skip)]


def load_candidates(store: DomainStore, backend: StageBackend, slug: str) -> Candidates:
    from agentr_dagster.stages.relevance import (
        RelevanceQueue,
        current_relevance,
        person_labels,
        relevance_question,
        seed_evidence,
    )

    project = store.projects.get_project(slug)
    intent, intent_hash = current_intent(store, slug)
    papers = store.projects.list_papers(slug)
    keys = {p.id: score_cache_key(p.content_hash, intent_hash, backend.model) for p in papers}
    stored_rows = sorted(store.results.results_for_project(slug, cache_keys=keys), key=lambda r: r.id)
    person = person_labels(store, slug)
    queue = RelevanceQueue(relevance_question(store, slug), papers, person, current_relevance(store, slug),
                           seeds=seed_evidence(store, slug, papers))
    return Candidates(
        project=project, intent=intent, intent_hash=intent_hash, papers=papers, keys=keys, stored_rows=stored_rows,
        existing={r.paper_id for r in stored_rows}, person=person, queue=queue, by_id={p.id: p for p in papers},
    )


def learn_from_batch(store: DomainStore, slug: str, candidates: Candidates, batch: list, pending: list,
                     judged: dict[int, int], sequence: list[int], *, rerank: bool) -> list:
    """Add the batch's stored judgements to the weak labels (``judged``, and ``sequence`` in the order they
    landed); when ``rerank`` and papers are left, re-rank the queue with them. Returns the papers still pending,
    in the queue's new order."""
    landed = store.results.results_for_project(slug, cache_keys={p.id: candidates.keys[p.id] for p in batch})
    for row in sorted(landed, key=lambda r: r.id):
        if row.paper_id not in judged:
            judged[row.paper_id] = weak_judgement(row.payload)
            sequence.append(row.paper_id)
    if not pending or not rerank:
        return pending
    candidates.queue.rerank(judged)
    waiting = {p.id for p in pending}
    return [candidates.by_id[pid] for pid in candidates.queue.order(set(judged) | candidates.existing)
            if pid in waiting]


def weak_judgement(payload: dict) -> int:
    """The model's answer as a weak label (:func:`~agentr_dagster.stages.relevance.weak_label`)."""
    from agentr_dagster.stages.relevance import weak_label

    return weak_label(payload)


def assess_plan_recall(plan: ScoringPlan, sequence: list[int], judged: dict[int, int], person: dict[int, int],
                       summary: ScoringSummary) -> RecallAssessment:
    """The stopping rule on the judgements so far, kept in ``summary`` (the run's summary and metadata state it)."""
    # a person's label replaces the model's in the gain curve too
    seen = np.array([person.get(pid, judged[pid]) for pid in sequence], dtype=np.int64)
    assert plan.stop_at_recall is not None  # asked only when the plan stops at a recall target
    summary.recall = assess_recall(seen, summary.total, plan.stop_at_recall, plan.confidence, model=plan.model)
    summary.recall_bound = summary.recall.recall_lower
    return summary.recall


def planned_batch(store: DomainStore, slug: str, plan: ScoringPlan, sequence: list[int], judged: dict[int, int],
                   person: dict[int, int], summary: ScoringSummary, size: int,
                   project_budget: Decimal | None) -> tuple[int, str | None]:
    """The next batch's size under the plan, or the reason to stop before it (target recall, budget).

    Two budgets: the plan's (credits the scoring has been charged, over every run, against the average charge
    per call so far) and the project's own (``agentr budget set``: the ledger refuses a reservation past it, so
    a batch must fit with every call at the largest hold seen). A batch that would not fit is cut to what does;
    none fits: stop, and the papers left are below the cut-off, not refused calls. The plan's budget may be passed
    by one call at most: the first, made to learn what a call costs."""
    if plan.stop_at_recall is not None and assess_plan_recall(plan, sequence, judged, person, summary).stop:
        return 0, "target_recall"
    if plan.budget_credits is None and project_budget is None:
        return size, None
    calls = [u for u in store.ledger.usage(slug) if u.stage == "score"]
    if not calls:
        return 1, None  # one call first, to learn what a call costs before planning on it
    if plan.budget_credits is not None:
        spent = sum((u.credits for u in calls), Decimal("0"))
        per_call = spent / len(calls)
        room = Decimal(plan.budget_credits) - spent
        size = min(size, int(room / per_call) if per_call > 0 else size) if room > 0 else 0
    if project_budget is not None and size > 0:
        committed = sum((u.credits for u in store.ledger.usage(slug)), Decimal("0")) + sum(
            (r.amount for r in store.ledger.reservations(slug, state="open")), Decimal("0"))
        hold = max((r.amount for r in store.ledger.reservations(slug) if r.stage == "score"), default=Decimal("0"))
        room = Decimal(project_budget) - committed
        size = min(size, int(room / hold) if hold > 0 else size) if room > 0 else 0
    return (size, None) if size > 0 else (0, "budget")


