"""The scoring stage: every candidate paper scored against the intent in one structured call each, with bounded
concurrency, per-paper claims (no two workers score the same paper), results written as they land, and papers
already scored for the same text, intent, prompt and model skipped."""

from __future__ import annotations

import contextlib
import math
import queue
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from decimal import Decimal
from typing import TYPE_CHECKING

import numpy as np

from agentr_dagster.domain import failures as st
from agentr_dagster.domain.failures import FailureClass, NoCreditsError, OrphanError, StageError, StoppedError
from agentr_dagster.domain.hashing import score_cache_key, sha256
from agentr_dagster.domain.prompts import prompt_version
from agentr_dagster.domain.recall_stopping import DEFAULT_CONFIDENCE, RecallAssessment, assess_recall
from agentr_dagster.domain.stopping import stop_reason, stop_requested
from agentr_dagster.llm.backends import StageBackend
from agentr_dagster.llm.gateway import CallContext
from agentr_dagster.stages.intent import current_intent
from agentr_dagster.stages.lifecycle import close_stage_calls, record_stage_failure, require_active, settle_kept_calls
from agentr_dagster.store.leases import POLL_S, Heartbeat, new_holder

if TYPE_CHECKING:
    from agentr_dagster.domain.contracts import ResearchIntent
    from agentr_dagster.stages.relevance import RelevanceQueue
    from agentr_dagster.store import DomainStore
    from agentr_dagster.store.rows import PaperRow, ProjectRow, ResultRow


@dataclass
class ScoringSummary:
    total: int = 0
    scored: int = 0
    reused: int = 0
    failed: Counter = field(default_factory=Counter)  # failure class -> papers
    messages: list[str] = field(default_factory=list)
    stopped: int = 0  # not called: a stop was asked (SIGTERM/SIGINT) or the paper's claim was lost
    below_cutoff: int = 0  # never sent: the scoring plan stopped before them (not a failure)
    stop_reason: str | None = None  # target_recall | budget, when the plan stopped scoring early
    recall_bound: float | None = None  # the stopping rule's lower bound on recall when it was last evaluated
    recall: RecallAssessment | None = None  # the stopping rule's last assessment (bound, estimate, reason)
    errors: dict = field(default_factory=dict)  # failure class -> the first error of that class
    retryable: bool = False  # some failure may succeed on a step retry (transient, attempt cap not reached)

    @property
    def complete(self) -> bool:
        return self.scored + self.reused + self.below_cutoff == self.total

    def partial(self, *, retries_left: bool) -> bool:
        """Whether the scores stand although some papers failed: the run goes on to the exports and the synthesis
        with what is valid and ends ``partial`` (the missing papers named with the command that retries them).
        Not when nothing was scored, when a step retry may still score the rest (a transient failure under the
        cap, ``retries_left``), or when the failure stops the stage for everyone: the endpoint refused the key or
        model (permanent), credits ran out, the project was deleted, the run was asked to stop."""
        failed = {cls for cls, n in self.failed.items() if n}
        return (bool(failed) and failed <= PARTIAL_CLASSES and self.scored + self.reused > 0 and not self.stopped
                and not (self.retryable and retries_left))

    def first_error(self, cls: FailureClass) -> StageError:
        return self.errors.get(cls) or StageError(summary_text(self))


ProgressFn = Callable[[int, int], None]

# Failures of single papers that leave the others' scores standing (ScoringSummary.partial). A permanent failure
# is the endpoint's or the configuration's (a refused key, an unknown model: no further call is made), not one
# paper's: it fails the stage, as running out of credits does.
PARTIAL_CLASSES = frozenset({FailureClass.invalid_output, FailureClass.transient})

QUEUE_STAGE = "score_queue"  # artifact: how the last scoring run ended, and the queue's final relevance


@dataclass(frozen=True)
class ScoringPlan:
    """When scoring with an LLM may stop before every candidate is scored. The default scores every candidate.

    ``stop_at_recall``: stop once the stopping rule (:func:`~agentr_dagster.domain.recall_stopping.assess_recall`,
    a hypergeometric test on the papers scored last) shows, with ``confidence`` (95 % by default), that this share
    of the relevant papers has been scored (the model's judgements are the labels); each evaluation is kept in
    :attr:`ScoringSummary.recall`. ``budget_credits``: the credits the project's scoring may spend in all, over
    every run; no batch is started that the average cost of its calls so far says would pass it (a soft cap,
    passed by one call at most; for a hard one, ``agentr budget set``, which the plan also keeps to). Papers left
    are ``not_scored: below cut-off``; a later run with a stricter target or a larger budget continues with them,
    and calls nothing already answered."""

    stop_at_recall: float | None = None
    budget_credits: Decimal | None = None
    confidence: float = DEFAULT_CONFIDENCE

    def __post_init__(self) -> None:
        if self.stop_at_recall is not None and not 0 < self.stop_at_recall <= 1:
            raise ValueError(f"stop_at_recall must be in (0, 1], not {self.stop_at_recall}")
        if self.budget_credits is not None and Decimal(self.budget_credits) < 0:
            raise ValueError("budget_credits cannot be negative")

    @property
    def may_stop(self) -> bool:
        return self.stop_at_recall is not None or self.budget_credits is not None

    def describe(self) -> dict:
        return {"stop_at_recall": self.stop_at_recall, "confidence": self.confidence,
                "budget_credits": None if self.budget_credits is None else str(self.budget_credits)}


def batch_size_for(total: int, concurrency: int) -> int:
    """Papers per batch between re-rankings: small enough to stop close to the target, large enough to keep
    ``concurrency`` calls busy and the re-training cost per paper low (1 % of the list, at least 16)."""
    return max(16, 4 * max(1, concurrency), math.ceil(total / 100))


def queue_input_hash(intent_hash: str, model: str) -> str:
    return sha256("score-queue", intent_hash, prompt_version("score"), model)


def _current_queue(store: DomainStore, slug: str, intent_hash: str, model: str | None):
    """The last scoring run's queue artifact if it was for this intent and prompt (and ``model``; None = the
    model it names)."""
    artifact = store.results.latest_artifact(slug, QUEUE_STAGE)
    if artifact is None or artifact.input_hash != queue_input_hash(intent_hash, model or artifact.model or ""):
        return None
    return artifact


def below_cutoff_ids(store: DomainStore, slug: str, intent_hash: str, model: str | None) -> set[int]:
    """Papers the last scoring run for this intent, prompt and model (None: whichever model it used) stopped
    before (empty when it scored them all)."""
    artifact = _current_queue(store, slug, intent_hash, model)
    return {int(pid) for pid in artifact.payload.get("below_cutoff", [])} if artifact is not None else set()


def queue_scores(store: DomainStore, slug: str, intent_hash: str) -> dict[int, float]:
    """The relevance the last scoring run's re-ranked queue gave each paper (empty when it did not re-rank)."""
    artifact = _current_queue(store, slug, intent_hash, None)
    if artifact is None:
        return {}
    return {int(pid): float(v) for pid, v in artifact.payload.get("queue_scores", {}).items()}


def score_project(
    store: DomainStore,
    backend: StageBackend,
    slug: str,
    *,
    concurrency: int = 4,
    run_id: str | None = None,
    progress: ProgressFn | None = None,
    batch_size: int = 128,
    holder: str | None = None,
    plan: ScoringPlan | None = None,
) -> ScoringSummary:
    """Score the project's active papers that have no stored result for the current cache key, in relevance
    order (the ``relevance`` stage's ranks; paper order without them).

    With an LLM and a ``plan`` that may stop scoring early (:class:`ScoringPlan`; or a project budget), papers go
    in batches (:func:`batch_size_for`); after each, the model's judgements so far become weak labels
    (:func:`~agentr_dagster.stages.relevance.weak_label`) for the engine's active learner, the rest of the queue
    is re-ranked, and the plan decides whether to go on. Results are persisted
    as they land. Failures are classified per paper; out of credits stops new calls. Each paper's cache key is
    claimed (as ``holder``) before its call: a paper claimed by another live worker is waited for and then
    reused, never called twice.
    """
    plan = plan or ScoringPlan()
    require_active(store, slug, "score", run_id)
    settle_kept_calls(backend)
    candidates = _load_candidates(store, backend, slug)
    todo = candidates.ordered(candidates.existing)
    summary = ScoringSummary(total=len(candidates.papers), reused=len(candidates.papers) - len(todo))
    store.lifecycle.set_status(slug, "score", st.IN_PROGRESS, detail=f"{len(todo)} to score", run_id=run_id)
    tally = _Tally(summary, progress, done=summary.reused)
    tally.report()
    if todo:
        store.lifecycle.set_status_many(slug, "score", st.QUEUED, [p.id for p in todo], run_id=run_id)

    attempted, pending = _score_in_batches(
        store, backend, slug, candidates, todo, tally, plan, run_id=run_id, concurrency=concurrency,
        batch_size=batch_size, holder=holder or new_holder("score"),
    )
    close_stage_calls(store, backend, slug, "score", run_id)
    if summary.failed.get(FailureClass.no_credits):  # the balance now, every call of the run settled
        charged = getattr(getattr(backend, "gateway", None), "settings", None)  # the account the gateway charges
        account = charged.account if charged is not None else candidates.project.account
        summary.messages.insert(0, f"credits ran out: account {account!r} has "
                                   f"{store.ledger.balance(account):f} credits now; `agentr credits grant N`, then "
                                   f"`agentr resume {slug}`")
    below = _finish_below_cutoff(store, slug, run_id, tally, len(todo), attempted, pending)
    _save_queue(store, slug, candidates.intent_hash, backend, plan, summary, below, candidates.queue)

    state = st.COMPLETED if summary.complete else st.STATE_FOR_CLASS[worst_failure_class(summary.failed)]
    store.lifecycle.set_status(slug, "score", state, detail=summary_text(summary), run_id=run_id)
    if summary.failed.get(FailureClass.orphan) and not store.projects.is_active(slug):
        # The project itself was deleted mid-run: terminal for the stage (callers must not read it any more).
        raise OrphanError(f"project {slug!r} was deleted during scoring; {summary_text(summary)}")
    if summary.stopped:  # calls sent were settled above; the rest were never asked
        raise StoppedError(f"score: {stop_reason() if stop_requested() else 'a claim was lost'}; "
                           f"{summary_text(summary)}; `agentr resume {slug}` continues")
    return summary


@dataclass
class _Candidates:
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


def _load_candidates(store: DomainStore, backend: StageBackend, slug: str) -> _Candidates:
    from agentr_dagster.stages.relevance import RelevanceQueue, current_relevance, person_labels, relevance_question

    project = store.projects.get_project(slug)
    intent, intent_hash = current_intent(store, slug)
    papers = store.projects.list_papers(slug)
    keys = {p.id: score_cache_key(p.content_hash, intent_hash, backend.model) for p in papers}
    stored_rows = sorted(store.results.results_for_project(slug, cache_keys=keys), key=lambda r: r.id)
    person = person_labels(store, slug)
    queue = RelevanceQueue(relevance_question(store, slug), papers, person, current_relevance(store, slug))
    return _Candidates(
        project=project, intent=intent, intent_hash=intent_hash, papers=papers, keys=keys, stored_rows=stored_rows,
        existing={r.paper_id for r in stored_rows}, person=person, queue=queue, by_id={p.id: p for p in papers},
    )


@dataclass
class _Tally:
    """A run's counts and its progress callback, updated from the scoring and writer threads (under ``lock``)."""

    summary: ScoringSummary
    progress: ProgressFn | None
    done: int  # papers scored or reused so far
    lock: threading.Lock = field(default_factory=threading.Lock)

    def report(self, extra: int = 0) -> None:
        if self.progress:
            self.progress(self.done + extra, self.summary.total)

    def stored(self, count: int) -> None:
        with self.lock:
            self.summary.scored += count
            self.done += count
            self.report()

    def reused(self, count: int) -> None:
        with self.lock:
            self.summary.reused += count
            self.done += count

    def failed(self, exc: StageError) -> None:
        with self.lock:
            self.summary.failed[exc.failure_class] += 1
            self.summary.stopped += isinstance(exc, StoppedError)
            self.summary.errors.setdefault(exc.failure_class, exc)
            self.summary.retryable = self.summary.retryable or exc.retryable
            if len(self.summary.messages) < 20 and exc.message not in self.summary.messages:
                self.summary.messages.append(exc.message)


def _score_in_batches(store: DomainStore, backend: StageBackend, slug: str, candidates: _Candidates,
                      todo: list[PaperRow], tally: _Tally, plan: ScoringPlan, *, run_id: str | None,
                      concurrency: int, batch_size: int, holder: str) -> tuple[int, list[PaperRow]]:
    """Score ``todo`` under the plan, holding the papers' claims as ``holder``; with weak labels and re-ranking
    between batches when the plan may stop early. Returns (papers attempted, papers left when it stopped)."""
    summary = tally.summary
    version = prompt_version("score")
    no_more_calls = threading.Event()  # out of credits (or refused): later batches make no call either

    def record_failure(paper, exc: StageError) -> None:
        record_stage_failure(store, slug, "score", exc, run_id, paper_id=paper.id)
        tally.failed(exc)

    # The model's judgements in the order they were made (earlier runs' first): the stopping rule's gain curve.
    # Batches, weak labels and re-ranking when the order decides what is spent: an LLM (the offline backend's
    # judgements add nothing to the engine's own ranking) under a plan that may stop early or a project budget.
    # Scoring every candidate, the relevance order alone is used: re-ranking could not change what is scored,
    # and its cost (features, a classifier per batch) would be bookkeeping on every paper.
    learns = backend.kind == "llm" and (plan.may_stop or candidates.project.budget_credits is not None)
    judged: dict[int, int] = {r.paper_id: _weak(r.payload) for r in candidates.stored_rows} if learns else {}
    sequence = list(judged)
    if learns and judged and todo:
        candidates.queue.rerank(judged)
        todo = candidates.ordered(candidates.existing)

    beat = Heartbeat(store, holder) if todo else None
    attempted = 0
    pending = list(todo)
    try:
        while pending:
            size = len(pending) if not learns else batch_size_for(summary.total, concurrency)
            if learns:
                size, reason = _planned_batch(store, slug, plan, sequence, judged, candidates.person, summary,
                                              size, candidates.project.budget_credits)
                if reason is not None:
                    summary.stop_reason = reason
                    break
            batch, pending = pending[:size], pending[size:]
            for mine in _claimed_rounds(store, slug, holder, batch, candidates.keys):
                attempted += len(mine)
                _score_claimed(
                    store, backend, slug, candidates.intent, candidates.project.abstract, mine, candidates.keys,
                    summary, version=version, run_id=run_id, batch_size=batch_size, concurrency=concurrency,
                    record_failure=record_failure, record_stored=tally.stored, stop_new_calls=no_more_calls,
                    holder=holder,
                )
            if learns:
                pending = _learn_from_batch(store, slug, candidates, batch, pending, judged, sequence,
                                            rerank=not no_more_calls.is_set())
        if learns and plan.stop_at_recall is not None and summary.stop_reason is None:
            # scored to the end (or the budget's): the last word is on everything judged, not the last batch's
            _assess_recall(plan, sequence, judged, candidates.person, summary)
    finally:
        if beat is not None:
            beat.stop()
            with contextlib.suppress(Exception):  # an outage: the claims go stale and are taken over
                store.leases.release_claims(holder)
    return attempted, pending


def _learn_from_batch(store: DomainStore, slug: str, candidates: _Candidates, batch: list, pending: list,
                      judged: dict[int, int], sequence: list[int], *, rerank: bool) -> list:
    """Add the batch's stored judgements to the weak labels (``judged``, and ``sequence`` in the order they
    landed); when ``rerank`` and papers are left, re-rank the queue with them. Returns the papers still pending,
    in the queue's new order."""
    landed = store.results.results_for_project(slug, cache_keys={p.id: candidates.keys[p.id] for p in batch})
    for row in sorted(landed, key=lambda r: r.id):
        if row.paper_id not in judged:
            judged[row.paper_id] = _weak(row.payload)
            sequence.append(row.paper_id)
    if not pending or not rerank:
        return pending
    candidates.queue.rerank(judged)
    waiting = {p.id for p in pending}
    return [candidates.by_id[pid] for pid in candidates.queue.order(set(judged) | candidates.existing)
            if pid in waiting]


def _finish_below_cutoff(store: DomainStore, slug: str, run_id: str | None, tally: _Tally, todo: int, attempted: int,
                         pending: list) -> list[int]:
    """Count what the run did not call: papers another worker scored meanwhile (reused) and, when the plan
    stopped, the papers left below the cut-off (marked not started). Returns the latter's ids."""
    summary = tally.summary
    below = [p.id for p in pending] if summary.stop_reason else []
    unattempted = todo - attempted - len(below)
    if unattempted > 0:  # papers another worker scored while this one waited for their claims
        tally.reused(unattempted)
    summary.below_cutoff = len(below)
    if below:
        store.lifecycle.set_status_many(slug, "score", st.NOT_STARTED, below, run_id=run_id,
                                        detail=f"below cut-off ({summary.stop_reason})")
    tally.report(extra=len(below))
    return below


def _weak(payload: dict) -> int:
    from agentr_dagster.stages.relevance import weak_label

    return weak_label(payload)


def _assess_recall(plan: ScoringPlan, sequence: list[int], judged: dict[int, int], person: dict[int, int],
                   summary: ScoringSummary) -> RecallAssessment:
    """The stopping rule on the judgements so far, kept in ``summary`` (the run's summary and metadata state it)."""
    # a person's label replaces the model's in the gain curve too
    seen = np.array([person.get(pid, judged[pid]) for pid in sequence], dtype=np.int64)
    assert plan.stop_at_recall is not None  # asked only when the plan stops at a recall target
    summary.recall = assess_recall(seen, summary.total, plan.stop_at_recall, plan.confidence)
    summary.recall_bound = summary.recall.recall_lower
    return summary.recall


def _planned_batch(store: DomainStore, slug: str, plan: ScoringPlan, sequence: list[int], judged: dict[int, int],
                   person: dict[int, int], summary: ScoringSummary, size: int,
                   project_budget: Decimal | None) -> tuple[int, str | None]:
    """The next batch's size under the plan, or the reason to stop before it (target recall, budget).

    Two budgets: the plan's (credits the scoring has been charged, over every run, against the average charge
    per call so far) and the project's own (``agentr budget set``: the ledger refuses a reservation past it, so
    a batch must fit with every call at the largest hold seen). A batch that would not fit is cut to what does;
    none fits: stop, and the papers left are below the cut-off, not refused calls. The plan's budget may be passed
    by one call at most: the first, made to learn what a call costs."""
    if plan.stop_at_recall is not None and _assess_recall(plan, sequence, judged, person, summary).stop:
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


def _save_queue(store: DomainStore, slug: str, intent_hash: str, backend, plan: ScoringPlan, summary: ScoringSummary,
                below: list[int], queue) -> None:
    """How this run ended, for the export, the check, `agentr status` and the next run: the papers below the
    cut-off, why, and the queue's last relevance scores (the re-ranked engine scores, when it re-ranked)."""
    if not store.projects.is_active(slug):
        return
    payload = {
        "plan": plan.describe(), "stop_reason": summary.stop_reason, "below_cutoff": below,
        "recall_bound": summary.recall_bound, "recall": summary.recall.describe() if summary.recall else None,
        "scored": summary.scored, "reused": summary.reused,
        "reranked": queue.reranked,
        "queue_scores": ({str(p.id): round(float(s), 6) for p, s in zip(queue.papers, queue.scores, strict=True)}
                         if queue.reranked else {}),
    }
    with contextlib.suppress(OrphanError):
        store.results.save_artifact(slug, QUEUE_STAGE, payload, prompt_version=prompt_version("score"),
                                    model=backend.model, backend=backend.kind,
                                    input_hash=queue_input_hash(intent_hash, backend.model))


def _claimed_rounds(store: DomainStore, slug: str, holder: str, todo: list, keys: dict[int, str]) -> Iterator[list]:
    """Yield the papers of ``todo`` this worker holds claims on and that still have no stored result; papers
    claimed by a live worker are waited for (their results then count as reused) and claimed once free."""
    pending = list(todo)
    while pending:
        claimed = store.leases.claim_papers(slug, holder, [(p.id, keys[p.id]) for p in pending])
        mine = [p for p in pending if keys[p.id] in claimed]
        if mine:  # a result may have landed between the first lookup and the claim
            mine_keys = {p.id: keys[p.id] for p in mine}
            stored = {r.paper_id for r in store.results.results_for_project(slug, cache_keys=mine_keys)}
            fresh = [p for p in mine if p.id not in stored]
            store.leases.release_claims(holder, [keys[p.id] for p in mine if p.id in stored])
            yield fresh
        pending = [p for p in pending if keys[p.id] not in claimed]
        if pending and stop_requested():  # not waited for: the worker only records them as not called
            yield pending
            return
        if pending:
            time.sleep(POLL_S)
            stored = {r.paper_id for r in store.results.results_for_project(
                slug, cache_keys={p.id: keys[p.id] for p in pending})}
            pending = [p for p in pending if p.id not in stored]


def _score_claimed(store: DomainStore, backend, slug: str, intent, abstract: str, todo: list, keys: dict[int, str],
                   summary: ScoringSummary, *, version: str, run_id: str | None, batch_size: int, concurrency: int,
                   record_failure, record_stored, stop_new_calls: threading.Event | None = None,
                   holder: str | None = None) -> None:
    """Score papers this worker holds the claims of: in batches (offline backend) or one call each."""
    if not todo:
        return
    if getattr(backend, "score_batch", None) is not None:
        if not store.projects.is_active(slug):
            raise OrphanError(f"project {slug!r} was deleted; scoring stopped")
        for start in range(0, len(todo), batch_size):
            chunk = todo[start : start + batch_size]
            results = backend.score_batch(intent, abstract, [(p.title, p.abstract or "") for p in chunk])
            stored = store.results.save_results_many(
                slug,
                [(p.id, keys[p.id], a.model_dump(mode="json")) for p, a in zip(chunk, results, strict=True)],
                prompt_version=version, model=backend.model, backend=backend.kind, completes_stage="score",
                run_id=run_id,
            )
            record_stored(len(stored))
            if len(stored) < len(chunk):
                summary.failed[FailureClass.orphan] += len(chunk) - len(stored)
    else:
        stop_new_calls = stop_new_calls if stop_new_calls is not None else threading.Event()
        writer = ResultWriter(
            store, slug, version=version, model=backend.model, backend=backend.kind, run_id=run_id,
            on_stored=record_stored, on_orphan=record_failure,
        )

        def fence(paper) -> Callable[[], None]:
            def check() -> None:  # right before the paid call: the paper's claim must still be this worker's
                if holder is not None and not store.leases.renew_claim(holder, keys[paper.id]):
                    raise StoppedError(f"score: paper {paper.id}'s claim was taken over; no call made here")
            return check

        def work(paper) -> None:
            if stop_requested():
                exc: StageError = StoppedError(f"score: {stop_reason()}; not called (`agentr resume {slug}` "
                                               "continues)")
            elif stop_new_calls.is_set():
                exc = _NO_CREDITS_STOP
            else:
                try:
                    assessment = backend.score_paper(
                        intent, abstract, paper.title, paper.abstract or "",
                        CallContext(slug=slug, stage="score", paper_id=paper.id, run_id=run_id, call_gate=call_gate,
                                    fence=fence(paper),
                                    claim=None if holder is None else store.leases.fence("paper", keys[paper.id],
                                                                                         holder)),
                    )
                except StageError as err:
                    exc = err
                else:
                    writer.put(paper, keys[paper.id], assessment.model_dump(mode="json"))
                    return
            if exc.failure_class is FailureClass.no_credits:
                stop_new_calls.set()
            record_failure(paper, exc)

        # At most `concurrency` calls are in flight (the gate); the pool has more threads than that, so that the
        # next papers' cache lookups and reservations are done while earlier calls wait on the endpoint, and a
        # freed slot starts the next call at once. Papers go to the pool in waves; each wave is marked in
        # progress in one transaction, not one per paper.
        concurrency = max(1, concurrency)
        call_gate = threading.BoundedSemaphore(concurrency)
        threads = concurrency + min(concurrency, PREPARE_AHEAD)
        wave = concurrency * 8
        try:
            with ThreadPoolExecutor(max_workers=threads, thread_name_prefix="score") as pool:
                for start in range(0, len(todo), wave):
                    batch = todo[start : start + wave]
                    if stop_new_calls.is_set() or stop_requested():
                        for paper in batch:
                            work(paper)  # records failed_no_credits without calling
                        continue
                    store.lifecycle.set_status_many(slug, "score", st.IN_PROGRESS, [p.id for p in batch], run_id=run_id)
                    list(pool.map(work, batch))
        finally:
            writer.close()


class ResultWriter:
    """Stores the scoring threads' results in batches, from a thread of its own.

    A worker hands its answer over and takes its next paper at once; the writer puts whatever queued up while it
    last wrote into one transaction. Under many threads this turns one commit per paper into a few per wave,
    which is what keeps a single-writer database (SQLite) off the critical path. A paper deleted while its call
    was in flight is reported to ``on_orphan`` (charged, answer discarded); a database error is raised by
    :meth:`close` (the answers are already in the response cache, so a retry makes no new call).
    """

    _STOP = object()

    def __init__(self, store: DomainStore, slug: str, *, version: str, model: str, backend: str, run_id: str | None,
                 on_stored: Callable[[int], None], on_orphan: Callable[[object, StageError], None],
                 max_batch: int = 256):
        self._store, self._slug = store, slug
        self._meta = {"prompt_version": version, "model": model, "backend": backend, "run_id": run_id}
        self._on_stored, self._on_orphan = on_stored, on_orphan
        self._max_batch = max_batch
        self._queue: queue.Queue = queue.Queue()
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._loop, name="score-writer", daemon=True)
        self._thread.start()

    def put(self, paper, cache_key: str, payload: dict) -> None:
        self._queue.put((paper, cache_key, payload))

    def close(self) -> None:
        """Write what is queued, stop the thread, and raise the first database error, if any."""
        self._queue.put(self._STOP)
        self._thread.join()
        if self._error is not None:
            raise self._error

    def _loop(self) -> None:
        stopping = False
        while not stopping:
            item = self._queue.get()  # wait for one, then take whatever else has queued meanwhile
            batch = []
            while True:
                if item is self._STOP:
                    stopping = True
                    break
                batch.append(item)
                if len(batch) >= self._max_batch:
                    break
                try:
                    item = self._queue.get_nowait()
                except queue.Empty:
                    break
            if batch and self._error is None:
                self._write(batch)

    def _write(self, batch: list) -> None:
        try:
            stored = set(self._store.results.save_results_many(
                self._slug, [(paper.id, key, payload) for paper, key, payload in batch],
                completes_stage="score", **self._meta,
            ))
        except OrphanError:
            stored = set()
        except BaseException as exc:  # noqa: BLE001 - handed to the caller by close()
            self._error = exc
            return
        if stored:
            self._on_stored(len(stored))
        for paper, _, _ in batch:
            if paper.id not in stored:
                self._on_orphan(paper, OrphanError(
                    f"project {self._slug!r} or paper {paper.id} was deleted during the call; its answer is discarded"
                ))


PREPARE_AHEAD = 32  # most papers prepared (cache checked, credits reserved) beyond the calls in flight


_NO_CREDITS_STOP = NoCreditsError("stopped: credits ran out earlier in this run; top up and resume")


def worst_failure_class(failed: Counter) -> FailureClass:
    """The class that decides what happens next: a person's fix, then a top-up, then a retry."""
    for cls in (FailureClass.permanent, FailureClass.invalid_output, FailureClass.no_credits, FailureClass.orphan,
                FailureClass.transient):
        if failed.get(cls):
            return cls
    return FailureClass.permanent


def recall_text(recall: RecallAssessment) -> str:
    """The stopping rule's last word in one clause: the recall interval, the estimate and why it stopped or not."""
    return (f"recall >= {recall.recall_lower:.3f} at {round(100 * recall.confidence)} % confidence (estimate "
            f"{recall.recall_estimate:.3f}, {recall.found} includes found): {recall.reason}")


def summary_text(summary: ScoringSummary) -> str:
    failed = ", ".join(f"{cls.value}={n}" for cls, n in summary.failed.items() if n)
    text = f"{summary.scored} scored, {summary.reused} reused of {summary.total}"
    if summary.below_cutoff:
        text += f", {summary.below_cutoff} below cut-off ({summary.stop_reason})"
    if summary.recall is not None:
        text += f"; {recall_text(summary.recall)}"
    return text + (f"; failed: {failed}" if failed else "")
