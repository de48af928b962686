"""Turning a stage's failure into a Dagster ``Failure``, in one place: every asset raises through here, so the
retry decision is the same everywhere. Only transient failures may be retried by Dagster (``RetryPolicy``); a
permanent error, an invalid answer, no credits or a deleted project fails the step at once — a retry would fail
the same way or ask (and pay) again for an answer already refused. The attempt cap (``domain/attempts.py``) bounds
paid calls whatever retries anyway."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from dagster import AssetExecutionContext, Failure, RetryRequested

from agentr_dagster.domain.failures import NEXT_STEP, ProjectMissingError, StageError
from agentr_dagster.store.outage import infrastructure_error

if TYPE_CHECKING:
    from agentr_dagster.store import DomainStore


def defect_failure(exc: Exception, stage: str) -> Failure:
    """The Failure for an exception no stage classified and no retry can cure: shown at once, never retried."""
    return Failure(
        description=f"{stage}: unexpected {type(exc).__name__}: {exc} (a defect, not retried; its stack trace is "
                    "in the run's logs, in the UI or with `agentr run --verbose`: please report it)",
        metadata={"failure_class": "defect", "exception": type(exc).__name__},
        allow_retries=False,
    )


def stage_failure(exc: StageError, stage: str, *, description: str | None = None,
                  metadata: dict | None = None, retryable: bool | None = None) -> Failure:
    """The Dagster Failure for a stage error: its class and what the user can do as metadata; retried only when
    ``retryable`` (default: the error's own, i.e. transient and not capped)."""
    return Failure(
        description=description or f"{stage}: {exc.failure_class.value}: {exc.message}",
        metadata={**(metadata or {}), "failure_class": exc.failure_class.value,
                  "next_step": NEXT_STEP[exc.failure_class]},
        allow_retries=exc.retryable if retryable is None else retryable,
    )


def require_project(db: DomainStore, slug: str) -> None:
    """A partition whose project does not exist (added in the UI, or deleted for good) fails before any work."""
    from agentr_dagster.store import ProjectNotFound

    try:
        db.projects.get_project(slug, include_deleted=True)
    except ProjectNotFound:
        raise ProjectMissingError(slug) from None


@contextmanager
def stage_failures(context: AssetExecutionContext, stage: str | None = None,
                   db: DomainStore | None = None) -> Iterator[None]:
    """Run an asset's body: the partition's project must exist (when ``db`` is given) and a ``StageError`` (or an
    unknown project) leaves as the step's Failure (:func:`stage_failure`)."""
    from agentr_dagster.store import ProjectNotFound

    name = stage or context.asset_key.to_user_string()
    try:
        if db is not None:
            require_project(db, context.partition_key)
        yield
    except StageError as exc:
        raise stage_failure(exc, name) from None
    except ProjectNotFound:
        raise stage_failure(ProjectMissingError(context.partition_key), name) from None
    except (Failure, RetryRequested):
        raise
    except Exception as exc:  # noqa: BLE001 - split into what a retry may cure and what it cannot
        # what may be gone for a moment (database, network, file system; store/outage.py) is retried; the rest
        # is a defect: a retry fails the same way, minutes later
        if infrastructure_error(exc):
            raise  # the step's RetryPolicy tries again once the database or network is back
        raise defect_failure(exc, name) from exc
