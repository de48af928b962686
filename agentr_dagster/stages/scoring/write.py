"""What a scoring run writes: the results, in batches from a thread of their own (:class:`ResultWriter`), and
how the run ended (the queue artifact: the papers below the cut-off, why, the re-ranked relevance), with the
readers other stages use (:func:`below_cutoff_ids`, :func:`queue_scores`)."""

from __future__ import annotations

import contextlib
import logging
import queue
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from agentr_dagster.domain.failures import OrphanError, StageError
from agentr_dagster.domain.hashing import sha256
from agentr_dagster.domain.prompts import prompt_version
from agentr_dagster.domain.retry import retrying
from agentr_dagster.stages.scoring.plan import ScoringPlan
from agentr_dagster.stages.scoring.summary import ScoringSummary
from agentr_dagster.store.outage import first_line, infrastructure_error

if TYPE_CHECKING:
    from agentr_dagster.llm.backends import StageBackend
    from agentr_dagster.stages.relevance import RelevanceQueue
    from agentr_dagster.store import DomainStore
    from agentr_dagster.store.rows import PaperRow

QUEUE_STAGE = "score_queue"  # artifact: how the last scoring run ended, and the queue's final relevance


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


def save_queue(store: DomainStore, slug: str, intent_hash: str, backend: StageBackend, plan: ScoringPlan,
               summary: ScoringSummary, below: list[int], queue: RelevanceQueue) -> None:
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


log = logging.getLogger(__name__)


def _note_retry(state) -> None:
    log.warning("storing scored results failed (%s); retrying",
                first_line(state.outcome.exception()) if state.outcome else "?")


class ResultWriter:
    """Stores the scoring threads' results in batches, from a thread of its own.

    A worker hands its answer over and takes its next paper at once; the writer puts whatever queued up while it
    last wrote into one transaction. Under many threads this turns one commit per paper into a few per wave,
    which is what keeps a single-writer database (SQLite) off the critical path. A paper deleted while its call
    was in flight is reported to ``on_orphan`` (charged, answer discarded). A database that is away is waited
    out with backoff (the write is idempotent, so a commit whose answer was lost is harmless to repeat), as a
    settlement is; an error that outlasts the backoff is raised by :meth:`close` (the answers are already in the
    response cache, so a retry of the stage makes no new call).
    """

    _STOP = object()

    def __init__(self, store: DomainStore, slug: str, *, version: str, model: str, backend: str, run_id: str | None,
                 on_stored: Callable[[int], None], on_orphan: Callable[[PaperRow, StageError], None],
                 max_batch: int = 256, write_attempts: int = 6, write_backoff_s: float = 0.5):
        self._store, self._slug = store, slug
        self._write_attempts, self._write_backoff_s = write_attempts, write_backoff_s
        self._meta = {"prompt_version": version, "model": model, "backend": backend, "run_id": run_id}
        self._on_stored, self._on_orphan = on_stored, on_orphan
        self._max_batch = max_batch
        self._queue: queue.Queue = queue.Queue()
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._loop, name="score-writer", daemon=True)
        self._thread.start()

    def put(self, paper: PaperRow, cache_key: str, payload: dict) -> None:
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
        def save() -> list[int]:
            return self._store.results.save_results_many(
                self._slug, [(paper.id, key, payload) for paper, key, payload in batch],
                completes_stage="score", **self._meta,
            )

        try:
            stored = set(retrying(attempts=self._write_attempts, base=self._write_backoff_s, cap=5.0, jitter=False,
                                  when=infrastructure_error, before_sleep=_note_retry)(save))
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

