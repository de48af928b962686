"""Failures and lifecycle, defined once: the failure classes (docs/operations.md, "Recovery and audit":
each says whether to retry, whether anything was charged, and what follows), the errors that carry them, and the
processing states that stages and papers move through (stored as these strings; the store's CHECK constraints are
built from ``STATES``)."""

from __future__ import annotations

from enum import Enum


class FailureClass(str, Enum):
    transient = "transient"  # timeout, 429, 5xx, dropped connection: backed off and retried within the cap
    # the model answered but the answer never validated (after one repair): not retried in this run, not re-asked
    # by later runs until the prompt version or model changes or the user asks (`agentr run --retry-invalid`)
    invalid_output = "invalid_output"
    no_credits = "no_credits"  # reservation refused: no retry; resumable after a top-up
    orphan = "orphan"  # project or paper soft-deleted: no call, no charge, terminal
    permanent = "permanent"  # 401, unknown model, unusable input: no retry; the message says what to fix


class StageError(Exception):
    failure_class: FailureClass = FailureClass.permanent
    timed_out: bool = False  # set by the LLM gateway: a timed-out call the endpoint may still serve (and bill)

    def __init__(self, message: str, *, retry_after: float | None = None):
        super().__init__(message)
        self.message = message
        self.retry_after = retry_after

    @property
    def retryable(self) -> bool:
        """Whether another attempt (a Dagster step retry) could succeed without a person: transient only."""
        return self.failure_class in RETRYABLE


class TransientError(StageError):
    failure_class = FailureClass.transient


class InvalidOutputError(StageError):
    failure_class = FailureClass.invalid_output


class NoCreditsError(StageError):
    failure_class = FailureClass.no_credits


class StoppedError(StageError):
    """No call made: the run was asked to stop (SIGTERM/SIGINT) or lost its lease or claim to another holder.
    Resumable (transient), but not retried in this run: not a TransientError, so no retry layer catches it."""

    failure_class = FailureClass.transient

    @property
    def retryable(self) -> bool:
        return False  # the run was told to stop, or another holder now does the work: a step retry would undo it


class StoreError(Exception):
    """Any refusal by the domain store."""


class OrphanError(StageError, StoreError):
    """The project (or paper) was soft-deleted: the work is an orphan and must not be done or charged. Raised by
    the store (so a StoreError) and by the stages (so a StageError of class orphan); one class for both."""

    failure_class = FailureClass.orphan


class PermanentError(StageError):
    failure_class = FailureClass.permanent


def missing_project_message(slug: str) -> str:
    """One line for a project that does not exist: which, and how to add it."""
    return (f"no project {slug!r}: add it with `agentr project add {slug} --abstract FILE`, or drop {slug}.md "
            "(its abstract) in the inbox")


class ProjectMissingError(PermanentError):
    """A run, command or step names a project that does not exist (never a retry: nothing will change)."""

    def __init__(self, slug: str):
        super().__init__(missing_project_message(slug))
        self.slug = slug


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
    FailureClass.invalid_output: FAILED_OTHER,  # a person decides (new prompt or model, or --retry-invalid)
}

#: What the user can do about each class (``agentr failures``, asset metadata, step failures).
NEXT_STEP = {
    FailureClass.transient: "retried within the attempt cap; run again later (`agentr resume` or `agentr run`)",
    FailureClass.invalid_output: "the model's answers never validated: try another model or prompt version, or "
                                 "ask again with `agentr run <slug> --retry-invalid`",
    FailureClass.permanent: "not retried: fix what the message names (API key, model, base URL, project), then run "
                            "again",
    FailureClass.no_credits: "top up (`agentr credits grant AMOUNT`), then `agentr resume`",
    FailureClass.orphan: "the project or paper was deleted: nothing to do",
}

#: The command that asks again for work left undone by a failure of each class (``{slug}`` filled in): what a
#: partial run prints beside the papers it could not score, and a partial draft beside its stage.
RETRY_COMMAND = {
    FailureClass.transient: "agentr run {slug}  (once the endpoint and database answer; a paper that reached its 3 "
                            "unanswered attempts waits up to 6 h)",
    FailureClass.invalid_output: "agentr run {slug} --retry-invalid",
    FailureClass.permanent: "fix what the message names (API key, model, base URL), then agentr run {slug}",
    FailureClass.no_credits: "agentr credits grant AMOUNT, then agentr resume {slug}",
    FailureClass.orphan: "nothing: the paper or project was deleted",
}
NOT_CLASSIFIED = "not_called"  # a paper left without a score and without a recorded failure (e.g. a stopped run)
NOT_CLASSIFIED_COMMAND = "agentr resume {slug}"


def retry_command(failure_class: str, slug: str) -> str:
    """The command for ``failure_class`` (a :class:`FailureClass` value, or :data:`NOT_CLASSIFIED`)."""
    known = {c.value: c for c in FailureClass}
    template = RETRY_COMMAND[known[failure_class]] if failure_class in known else NOT_CLASSIFIED_COMMAND
    return template.format(slug=slug)


#: Dagster may retry a step only for these: the rest would fail the same way (or pay again for the same answer).
RETRYABLE = frozenset({FailureClass.transient})
