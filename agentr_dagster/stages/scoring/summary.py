"""What a scoring run tells its caller: the summary (counts, failures by class, the stopping rule's last word),
the tally the scoring threads keep it with, and the one-line texts that report it."""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from agentr_dagster.domain.failures import FailureClass, StageError, StoppedError
from agentr_dagster.domain.recall_stopping import RecallAssessment


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
        model (permanent), the project was deleted, the run was asked to stop. Credits running out keeps the papers
        scored so far (they are paid for): the rest wait for a grant and `agentr resume`."""
        failed = {cls for cls, n in self.failed.items() if n}
        return (bool(failed) and failed <= PARTIAL_CLASSES and self.scored + self.reused > 0 and not self.stopped
                and not (self.retryable and retries_left))

    def first_error(self, cls: FailureClass) -> StageError:
        return self.errors.get(cls) or StageError(summary_text(self))


ProgressFn = Callable[[int, int], None]

# Failures that leave the scores made standing (ScoringSummary.partial): single papers' (invalid, transient) and
# credits running out (no new call; what was scored is paid for, exported and synthesised; a grant and `agentr
# resume` score the rest). A permanent failure is the endpoint's or the configuration's (a refused key, an unknown
# model: no further call is made), not one paper's: it fails the stage.
PARTIAL_CLASSES = frozenset({FailureClass.invalid_output, FailureClass.transient, FailureClass.no_credits})


@dataclass
class Tally:
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


def worst_failure_class(failed: Counter) -> FailureClass:
    """The class that decides what happens next: a person's fix, then a top-up, then a retry."""
    for cls in (FailureClass.permanent, FailureClass.invalid_output, FailureClass.no_credits, FailureClass.orphan,
                FailureClass.transient):
        if failed.get(cls):
            return cls
    return FailureClass.permanent


def recall_text(recall: RecallAssessment) -> str:
    """The stopping rule's last word in one clause: the recall interval, the estimate and why it stopped or not."""
    basis = (f", under the decaying-rate model ({recall.recall_lower_without_model:.3f} without it)"
             if recall.basis == "model" else "")
    return (f"recall >= {recall.recall_lower:.3f} at {round(100 * recall.confidence)} % confidence{basis} (estimate "
            f"{recall.recall_estimate:.3f}, {recall.found} includes found): {recall.reason}")


def summary_text(summary: ScoringSummary) -> str:
    failed = ", ".join(f"{cls.value}={n}" for cls, n in summary.failed.items() if n)
    text = f"{summary.scored} scored, {summary.reused} reused of {summary.total}"
    if summary.below_cutoff:
        text += f", {summary.below_cutoff} below cut-off ({summary.stop_reason})"
    if summary.recall is not None:
        text += f"; {recall_text(summary.recall)}"
    return text + (f"; failed: {failed}" if failed else "")
