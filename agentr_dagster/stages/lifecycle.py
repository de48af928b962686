"""What every stage shares: its outcome, recording a failure, the orphan check before work, closing its calls
(kept settles, leaked reservations) and the single-artifact stage runner (intent, queries)."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

import sqlalchemy as sa

from agentr_dagster.domain import failures as st
from agentr_dagster.domain.failures import OrphanError, StageError
from agentr_dagster.domain.hashing import sha256
from agentr_dagster.domain.prompts import prompt_version
from agentr_dagster.llm.backends import StageBackend
from agentr_dagster.llm.gateway import CallContext
from agentr_dagster.store.outage import database_failure

if TYPE_CHECKING:
    from agentr_dagster.store import DomainStore


@dataclass
class StageOutcome:
    stage: str
    artifact_id: int
    payload: dict
    reused: bool
    prompt_version: str
    model: str
    backend: str


def record_stage_failure(store: DomainStore, slug: str, stage: str, exc: StageError, run_id: str | None,
                         paper_id: int | None = None) -> None:
    """The stage's (or paper's) failed state and the failure record; kept and written later when the database is
    away, so that the classified error is what `agentr failures` shows, not the outage."""
    store.lifecycle.record_failure_kept(slug, stage, exc.failure_class.value, exc.message, paper_id=paper_id,
                                        run_id=run_id, state=st.STATE_FOR_CLASS[exc.failure_class])


DB_RECOVERY_WAIT_S = 30.0  # how long a stage that lost its database waits for it, to record the failure


@contextlib.contextmanager
def database_failures_recorded(store: DomainStore, slug: str, stage: str, run_id: str | None, backend=None,
                               wait_s: float = DB_RECOVERY_WAIT_S) -> Iterator[None]:
    """A lost domain database is a transient failure like any other: recorded (with the stage's state set to
    failed_transient) as soon as the database answers again, and raised as a TransientError so that the step is
    retried. Without this, ``agentr failures`` showed nothing and the stage stayed ``in_progress``. Answered calls
    whose settlement the outage blocked (kept by ``backend``'s gateway) are settled then too."""
    try:
        yield
    except sa.exc.SQLAlchemyError as err:
        exc = database_failure(err, stage)
        deadline = time.monotonic() + wait_s
        delay = 0.25
        while True:
            try:
                # the failures kept during the outage first (the calls' own classified errors), in their order
                if not store.lifecycle.flush_kept():
                    record_stage_failure(store, slug, stage, exc, run_id)
                    close_stage_calls(store, backend, slug, stage, run_id)  # kept settles, then leaked reservations
                    break
            except sa.exc.SQLAlchemyError:
                pass
            if time.monotonic() + delay > deadline:
                break  # still away: a later run or `agentr resume` finds the stage unfinished
            time.sleep(delay)
            delay = min(delay * 2, 4.0)
        raise exc from None


def require_active(store: DomainStore, slug: str, stage: str, run_id: str | None) -> None:
    """A deleted project is an orphan before anything is read: reading it would raise ProjectNotFound, an
    unclassified error that Dagster's retry policy would retry."""
    if not store.projects.is_active(slug):
        exc = OrphanError(f"project {slug!r} was deleted; {stage} not run")
        record_stage_failure(store, slug, stage, exc, run_id)
        raise exc


def settle_kept_calls(backend) -> None:
    """Before any call: answers kept through an outage (by this process or one that died) are settled, which
    also puts them in the response cache, so that this stage does not ask (and pay) for them again."""
    gateway = getattr(backend, "gateway", None)
    if gateway is not None:
        gateway.settle_pending()


def close_stage_calls(store: DomainStore, backend, slug: str, stage: str, run_id: str | None) -> None:
    """Before a stage reports its outcome: settle the answered calls whose settlement failed (the database may
    be back), then release any reservation of this run's stage still open — its calls are over, so none may be
    left holding credits. A kept settlement that still fails leaves its reservation open (it is paid work).
    Failures kept during an outage are written first."""
    store.lifecycle.flush_kept()
    gateway = getattr(backend, "gateway", None)
    if gateway is not None and gateway.settle_pending():
        return
    if run_id is not None:
        store.ledger.release_run_reservations(slug, stage, run_id, note=f"{stage} of run {run_id} ended with it open")


def _valid(contract, payload) -> bool:
    try:
        contract.model_validate(payload)
    except ValueError:  # pydantic's ValidationError is a ValueError
        return False
    return True


def run_single_stage(store: DomainStore, backend: StageBackend, slug: str, stage: str, input_text: str, produce, run_id,
                     contract=None):
    """Produce the stage's artefact, or reuse the stored one for the same input, prompt and model — unless it no
    longer validates against ``contract`` (a hand edit, a stricter contract): then it is asked again (which the
    response cache answers without a call when the original answer still validates)."""
    version = prompt_version(stage)
    input_hash = sha256(input_text, version, backend.model)
    latest = store.results.latest_artifact(slug, stage)
    reusable = latest is not None and latest.input_hash == input_hash
    if latest is not None and reusable and (contract is None or _valid(contract, latest.payload)):
        store.lifecycle.set_status(slug, stage, st.COMPLETED, detail="unchanged; reused", run_id=run_id)
        return StageOutcome(stage, latest.id, latest.payload, True, version, backend.model, backend.kind)
    if not store.projects.is_active(slug):
        exc = OrphanError(f"project {slug!r} was deleted; {stage} not run")
        record_stage_failure(store, slug, stage, exc, run_id)
        raise exc
    store.lifecycle.set_status(slug, stage, st.IN_PROGRESS, run_id=run_id)
    settle_kept_calls(backend)
    try:
        result = produce(CallContext(slug=slug, stage=stage, run_id=run_id))
    except StageError as exc:
        close_stage_calls(store, backend, slug, stage, run_id)
        record_stage_failure(store, slug, stage, exc, run_id)
        raise
    close_stage_calls(store, backend, slug, stage, run_id)
    payload = result.model_dump(mode="json")
    try:
        artifact_id = store.results.save_artifact(
            slug, stage, payload, prompt_version=version, model=backend.model, backend=backend.kind,
            input_hash=input_hash,
        )
    except OrphanError as err:  # deleted while the call was in flight: the call is charged, its answer discarded
        orphan = OrphanError(f"project {slug!r} was deleted during the {stage} call; its answer is discarded")
        record_stage_failure(store, slug, stage, orphan, run_id)
        raise orphan from err
    store.lifecycle.set_status(slug, stage, st.COMPLETED, run_id=run_id)
    return StageOutcome(stage, artifact_id, payload, False, version, backend.model, backend.kind)
