"""Failures and lifecycle, defined once: the failure classes (README, "Recovery and audit": each says whether to
retry, whether anything was charged, and what follows), the errors that carry them, and the processing states that
stages and papers move through (stored as these strings; the store's CHECK constraints are built from ``STATES``)."""

from __future__ import annotations

from enum import Enum


class FailureClass(str, Enum):
    transient = "transient"  # timeout, 429, 5xx, dropped connection, invalid JSON after repair: back off, resume
    no_credits = "no_credits"  # reservation refused: no retry; resumable after a top-up
    orphan = "orphan"  # project or paper soft-deleted: no call, no charge, terminal
    permanent = "permanent"  # 401, unknown model, unusable input: no retry; the message says what to fix


class StageError(Exception):
    failure_class: FailureClass = FailureClass.permanent

    def __init__(self, message: str, *, retry_after: float | None = None):
        super().__init__(message)
        self.message = message
        self.retry_after = retry_after


class TransientError(StageError):
    failure_class = FailureClass.transient


class NoCreditsError(StageError):
    failure_class = FailureClass.no_credits


class StoppedError(StageError):
    """No call made: the run was asked to stop (SIGTERM/SIGINT) or lost its lease or claim to another holder.
    Resumable (transient), but not retried in this run: not a TransientError, so no retry layer catches it."""

    failure_class = FailureClass.transient
    retry_in_run = False


class StoreError(Exception):
    """Any refusal by the domain store."""


class OrphanError(StageError, StoreError):
    """The project (or paper) was soft-deleted: the work is an orphan and must not be done or charged. Raised by
    the store (so a StoreError) and by the stages (so a StageError of class orphan); one class for both."""

    failure_class = FailureClass.orphan


class PermanentError(StageError):
    failure_class = FailureClass.permanent


# Processing states shared by stages and papers (stored as these strings).
NOT_STARTED = "not_started"
QUEUED = "queued"
IN_PROGRESS = "in_progress"
COMPLETED = "completed"
FAILED_TRANSIENT = "failed_transient"
FAILED_NO_CREDITS = "failed_no_credits"
FAILED_ORPHAN = "failed_orphan"
FAILED_OTHER = "failed_other"
REINITIATED = "reinitiated"

STATES = (
    NOT_STARTED, QUEUED, IN_PROGRESS, COMPLETED, FAILED_TRANSIENT, FAILED_NO_CREDITS, FAILED_ORPHAN, FAILED_OTHER,
    REINITIATED,
)

STATE_FOR_CLASS = {
    FailureClass.transient: FAILED_TRANSIENT,
    FailureClass.no_credits: FAILED_NO_CREDITS,
    FailureClass.orphan: FAILED_ORPHAN,
    FailureClass.permanent: FAILED_OTHER,
}
