"""The scoring stage: every candidate paper scored against the intent in one structured call each, with bounded
concurrency, per-paper claims (no two workers score the same paper), results written as they land, and papers
already scored for the same text, intent, prompt and model skipped."""

from __future__ import annotations

import contextlib
import queue
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from agentr_dagster.domain import failures as st
from agentr_dagster.domain.failures import FailureClass, NoCreditsError, OrphanError, StageError
from agentr_dagster.domain.failures import OrphanError as DeletedError  # the store raises the same class
from agentr_dagster.domain.hashing import score_cache_key
from agentr_dagster.domain.prompts import prompt_version
from agentr_dagster.llm.backends import StageBackend
from agentr_dagster.llm.gateway import CallContext
from agentr_dagster.stages.intent import current_intent
from agentr_dagster.stages.lifecycle import close_stage_calls, record_stage_failure, require_active, settle_kept_calls
from agentr_dagster.store.leases import POLL_S, Heartbeat, new_holder


@dataclass
class ScoringSummary:
    total: int = 0
    scored: int = 0
    reused: int = 0
    failed: Counter = field(default_factory=Counter)  # failure class -> papers
    messages: list[str] = field(default_factory=list)

    @property
    def complete(self) -> bool:
        return self.scored + self.reused == self.total


ProgressFn = Callable[[int, int], None]


def score_project(
    store,
    backend: StageBackend,
    slug: str,
    *,
    concurrency: int = 4,
    run_id: str | None = None,
    progress: ProgressFn | None = None,
    batch_size: int = 128,
    holder: str | None = None,
) -> ScoringSummary:
    """Score every active paper of the project that has no stored result for the current cache key.

    Results are persisted as they land (in batches). Failures are classified per paper; out of credits stops new
    calls. Each paper's cache key is claimed (as ``holder``) before its call: a paper claimed by another live
    worker is waited for and then reused, never called twice.
    """
    require_active(store, slug, "score", run_id)
    settle_kept_calls(backend)
    project = store.projects.get_project(slug)
    intent, intent_hash = current_intent(store, slug)
    papers = store.projects.list_papers(slug)
    keys = {p.id: score_cache_key(p.content_hash, intent_hash, backend.model) for p in papers}
    existing = {r.paper_id for r in store.results.results_for_project(slug, cache_keys=keys)}
    todo = [p for p in papers if p.id not in existing]
    summary = ScoringSummary(total=len(papers), reused=len(papers) - len(todo))
    store.lifecycle.set_status(slug, "score", st.IN_PROGRESS, detail=f"{len(todo)} to score", run_id=run_id)
    done = summary.reused
    if progress:
        progress(done, summary.total)
    if todo:
        store.lifecycle.set_status_many(slug, "score", st.QUEUED, [p.id for p in todo], run_id=run_id)
    version = prompt_version("score")
    lock = threading.Lock()  # summary and progress are updated from the scoring and writer threads

    def record_failure(paper, exc: StageError) -> None:
        record_stage_failure(store, slug, "score", exc, run_id, paper_id=paper.id)
        with lock:
            summary.failed[exc.failure_class] += 1
            if len(summary.messages) < 20 and exc.message not in summary.messages:
                summary.messages.append(exc.message)

    def record_stored(count: int) -> None:
        nonlocal done
        with lock:
            summary.scored += count
            done += count
            if progress:
                progress(done, summary.total)

    holder = holder or new_holder("score")
    beat = Heartbeat(store, holder) if todo else None
    attempted = 0
    try:
        for mine in _claimed_rounds(store, slug, holder, todo, keys):
            attempted += len(mine)
            _score_claimed(
                store, backend, slug, intent, project.abstract, mine, keys, summary, version=version,
                run_id=run_id, batch_size=batch_size, concurrency=concurrency, record_failure=record_failure,
                record_stored=record_stored,
            )
    finally:
        if beat is not None:
            beat.stop()
            with contextlib.suppress(Exception):  # an outage: the claims go stale and are taken over
                store.leases.release_claims(holder)
    close_stage_calls(store, backend, slug, "score", run_id)
    if attempted < len(todo):  # papers another worker scored while this one waited for their claims
        with lock:
            summary.reused += len(todo) - attempted
            done += len(todo) - attempted
        if progress:
            progress(done, summary.total)

    state = st.COMPLETED if summary.complete else st.STATE_FOR_CLASS[worst_failure_class(summary.failed)]
    store.lifecycle.set_status(slug, "score", state, detail=summary_text(summary), run_id=run_id)
    if summary.failed.get(FailureClass.orphan) and not store.projects.is_active(slug):
        # The project itself was deleted mid-run: terminal for the stage (callers must not read it any more).
        raise OrphanError(f"project {slug!r} was deleted during scoring; {summary_text(summary)}")
    return summary


def _claimed_rounds(store, slug: str, holder: str, todo: list, keys: dict[int, str]) -> Iterator[list]:
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
        if pending:
            time.sleep(POLL_S)
            stored = {r.paper_id for r in store.results.results_for_project(
                slug, cache_keys={p.id: keys[p.id] for p in pending})}
            pending = [p for p in pending if p.id not in stored]


def _score_claimed(store, backend, slug: str, intent, abstract: str, todo: list, keys: dict[int, str],
                   summary: ScoringSummary, *, version: str, run_id: str | None, batch_size: int, concurrency: int,
                   record_failure, record_stored) -> None:
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
        stop_new_calls = threading.Event()
        writer = ResultWriter(
            store, slug, version=version, model=backend.model, backend=backend.kind, run_id=run_id,
            on_stored=record_stored, on_orphan=record_failure,
        )

        def work(paper) -> None:
            if stop_new_calls.is_set():
                exc: StageError = _NO_CREDITS_STOP
            else:
                try:
                    assessment = backend.score_paper(
                        intent, abstract, paper.title, paper.abstract or "",
                        CallContext(slug=slug, stage="score", paper_id=paper.id, run_id=run_id, call_gate=call_gate),
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
                    if stop_new_calls.is_set():
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

    def __init__(self, store, slug: str, *, version: str, model: str, backend: str, run_id: str | None,
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
        except DeletedError:
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
    for cls in (FailureClass.permanent, FailureClass.no_credits, FailureClass.orphan, FailureClass.transient):
        if failed.get(cls):
            return cls
    return FailureClass.permanent


def summary_text(summary: ScoringSummary) -> str:
    failed = ", ".join(f"{cls.value}={n}" for cls, n in summary.failed.items() if n)
    text = f"{summary.scored} scored, {summary.reused} reused of {summary.total}"
    return text + (f"; failed: {failed}" if failed else "")
