"""The scoring run: every candidate paper scored against the intent in one structured call each, with bounded
concurrency, per-paper claims (no two workers score the same paper), results written as they land, and papers
already scored for the same text, intent, prompt and model skipped.

The order and the stopping decision are the plan's (``plan.py``), the writing is ``write.py``'s; a paid call's
guards (claim, gate, limiter, fence) are composed in ``llm/paid_call.py`` (docs/paid-call.md)."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, cast

from agentr_dagster.domain import failures as st
from agentr_dagster.domain.failures import FailureClass, NoCreditsError, OrphanError, StageError, StoppedError
from agentr_dagster.domain.prompts import prompt_version
from agentr_dagster.domain.stopping import stop_reason, stop_requested
from agentr_dagster.llm.backends import BatchScoringBackend, StageBackend
from agentr_dagster.llm.paid_call import paper_call
from agentr_dagster.stages.lifecycle import close_stage_calls, record_stage_failure, require_active, settle_kept_calls
from agentr_dagster.stages.scoring.plan import (
    Candidates,
    ScoringPlan,
    assess_plan_recall,
    batch_size_for,
    learn_from_batch,
    load_candidates,
    planned_batch,
    weak_judgement,
)
from agentr_dagster.stages.scoring.summary import (
    ProgressFn,
    ScoringSummary,
    Tally,
    summary_text,
    worst_failure_class,
)
from agentr_dagster.stages.scoring.write import ResultWriter, save_queue
from agentr_dagster.store.leases import POLL_S, Heartbeat, new_holder

if TYPE_CHECKING:
    from agentr_dagster.domain.contracts import ResearchIntent
    from agentr_dagster.store import DomainStore
    from agentr_dagster.store.rows import PaperRow

RecordFailure = Callable[["PaperRow", StageError], None]  # a paper's failure, recorded and counted
RecordStored = Callable[[int], None]  # how many results were stored

PREPARE_AHEAD = 32  # most papers prepared (cache checked, credits reserved) beyond the calls in flight

_NO_CREDITS_STOP = NoCreditsError("stopped: credits ran out earlier in this run; top up and resume")


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
    candidates = load_candidates(store, backend, slug)
    todo = candidates.ordered(candidates.existing)
    summary = ScoringSummary(total=len(candidates.papers), reused=len(candidates.papers) - len(todo))
    store.lifecycle.set_status(slug, "score", st.IN_PROGRESS, detail=f"{len(todo)} to score", run_id=run_id)
    tally = Tally(summary, progress, done=summary.reused)
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
    save_queue(store, slug, candidates.intent_hash, backend, plan, summary, below, candidates.queue)

    state = st.COMPLETED if summary.complete else st.STATE_FOR_CLASS[worst_failure_class(summary.failed)]
    store.lifecycle.set_status(slug, "score", state, detail=summary_text(summary), run_id=run_id)
    if summary.failed.get(FailureClass.orphan) and not store.projects.is_active(slug):
        # The project itself was deleted mid-run: terminal for the stage (callers must not read it any more).
        raise OrphanError(f"project {slug!r} was deleted during scoring; {summary_text(summary)}")
    if summary.stopped:  # calls sent were settled above; the rest were never asked
        raise StoppedError(f"score: {stop_reason() if stop_requested() else 'a claim was lost'}; "
                           f"{summary_text(summary)}; `agentr resume {slug}` continues")
    return summary

def _score_in_batches(store: DomainStore, backend: StageBackend, slug: str, candidates: Candidates,
                      todo: list[PaperRow], tally: Tally, plan: ScoringPlan, *, run_id: str | None,
                      concurrency: int, batch_size: int, holder: str) -> tuple[int, list[PaperRow]]:
    """Score ``todo`` under the plan, holding the papers' claims as ``holder``; with weak labels and re-ranking
    between batches when the plan may stop early. Returns (papers attempted, papers left when it stopped)."""
    summary = tally.summary
    version = prompt_version("score")
    no_more_calls = threading.Event()  # out of credits (or refused): later batches make no call either

    def record_failure(paper: PaperRow, exc: StageError) -> None:
        record_stage_failure(store, slug, "score", exc, run_id, paper_id=paper.id)
        tally.failed(exc)

    # The model's judgements in the order they were made (earlier runs' first): the stopping rule's gain curve.
    # Batches, weak labels and re-ranking when the order decides what is spent: an LLM (the offline backend's
    # judgements add nothing to the engine's own ranking) under a plan that may stop early or a project budget.
    # Scoring every candidate, the relevance order alone is used: re-ranking could not change what is scored,
    # and its cost (features, a classifier per batch) would be bookkeeping on every paper.
    learns = backend.kind == "llm" and (plan.may_stop or candidates.project.budget_credits is not None)
    judged: dict[int, int] = {r.paper_id: weak_judgement(r.payload) for r in candidates.stored_rows} if learns else {}
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
                size, reason = planned_batch(store, slug, plan, sequence, judged, candidates.person, summary,
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
                pending = learn_from_batch(store, slug, candidates, batch, pending, judged, sequence,
                                            rerank=not no_more_calls.is_set())
        if learns and plan.stop_at_recall is not None and summary.stop_reason is None:
            # scored to the end (or the budget's): the last word is on everything judged, not the last batch's
            assess_plan_recall(plan, sequence, judged, candidates.person, summary)
    finally:
        if beat is not None:
            beat.stop()
            with contextlib.suppress(Exception):  # an outage: the claims go stale and are taken over
                store.leases.release_claims(holder)
    return attempted, pending


def _finish_below_cutoff(store: DomainStore, slug: str, run_id: str | None, tally: Tally, todo: int, attempted: int,
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


def _score_claimed(store: DomainStore, backend: StageBackend, slug: str, intent: ResearchIntent, abstract: str,
                   todo: list[PaperRow], keys: dict[int, str], summary: ScoringSummary, *, version: str,
                   run_id: str | None, batch_size: int, concurrency: int, record_failure: RecordFailure,
                   record_stored: RecordStored, stop_new_calls: threading.Event, holder: str) -> None:
    """Score papers this worker holds the claims of, the way the backend's contract says
    (:attr:`~agentr_dagster.llm.backends.StageBackend.scores_in_batches`): local batches, or one paid call each."""
    if not todo:
        return
    if backend.scores_in_batches:
        _score_in_local_batches(store, cast(BatchScoringBackend, backend), slug, intent, abstract, todo, keys,
                                summary, version=version, run_id=run_id, batch_size=batch_size,
                                record_stored=record_stored)
    else:
        _score_by_paid_calls(store, backend, slug, intent, abstract, todo, keys, version=version, run_id=run_id,
                             concurrency=concurrency, record_failure=record_failure, record_stored=record_stored,
                             stop_new_calls=stop_new_calls, holder=holder)


def _score_in_local_batches(store: DomainStore, backend: BatchScoringBackend, slug: str, intent: ResearchIntent,
                            abstract: str, todo: list[PaperRow], keys: dict[int, str], summary: ScoringSummary, *,
                            version: str, run_id: str | None, batch_size: int, record_stored: RecordStored) -> None:
    """A backend that scores many papers in one local pass (offline): no call to pay, so no gate or fence."""
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


def _score_by_paid_calls(store: DomainStore, backend: StageBackend, slug: str, intent: ResearchIntent, abstract: str,
                         todo: list[PaperRow], keys: dict[int, str], *, version: str, run_id: str | None,
                         concurrency: int, record_failure: RecordFailure, record_stored: RecordStored,
                         stop_new_calls: threading.Event, holder: str) -> None:
    """One paid call per paper, each under the paper's claim (:func:`~agentr_dagster.llm.paid_call.paper_call`),
    from a thread pool; the answers go to a :class:`ResultWriter` as they land."""
    writer = ResultWriter(
        store, slug, version=version, model=backend.model, backend=backend.kind, run_id=run_id,
        on_stored=record_stored, on_orphan=record_failure,
    )
    # At most `concurrency` calls are in flight (the gate); the pool has more threads than that, so that the
    # next papers' cache lookups and reservations are done while earlier calls wait on the endpoint, and a
    # freed slot starts the next call at once.
    concurrency = max(1, concurrency)
    call_gate = threading.BoundedSemaphore(concurrency)

    def work(paper: PaperRow) -> None:
        exc = _not_to_call(slug, stop_new_calls)
        if exc is None:
            try:
                assessment = backend.score_paper(
                    intent, abstract, paper.title, paper.abstract or "",
                    paper_call(store, slug, paper.id, keys[paper.id], holder, run_id=run_id, call_gate=call_gate),
                )
            except StageError as err:
                exc = err
            else:
                writer.put(paper, keys[paper.id], assessment.model_dump(mode="json"))
                return
        if exc.failure_class is FailureClass.no_credits:
            stop_new_calls.set()
        record_failure(paper, exc)

    # Papers go to the pool in waves; each wave is marked in progress in one transaction, not one per paper.
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


def _not_to_call(slug: str, stop_new_calls: threading.Event) -> StageError | None:
    """Why a paper is not called at all: a stop was asked, or credits ran out earlier in the run."""
    if stop_requested():
        return StoppedError(f"score: {stop_reason()}; not called (`agentr resume {slug}` continues)")
    if stop_new_calls.is_set():
        return _NO_CREDITS_STOP
    return None
