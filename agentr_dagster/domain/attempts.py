"""How often one request may be sent to a model: the one cap on paid attempts, across every retry layer.

A request is one paper (or one project's intent, queries, ...) under one prompt version and one model: its
request hash. Retry layers multiply (gateway attempts x Dagster step retries x run retries x the repair schedule x
``agentr resume``), so the cap is not a loop bound in any of them: it is decided here from what the store holds
about the request — every reservation taken for it is a durable attempt, a settled one an answered (paid) call —
and the gateway asks before every call. Whichever layer retries, the sum stays within:

- ``answers`` answered calls per request, ever: the answer and one repair round. When they are spent and no answer
  validated, the request is ``invalid_output`` and is not asked again until its hash changes (another prompt
  version or model) or the user asks (``agentr run --retry-invalid``, which counts only attempts after a mark).
- ``unanswered`` attempts that got no answer (timeouts, 429, 5xx, dropped connections) per request within
  ``unanswered_window_s``: a transient outage is retried a few times, then the paper waits for a later run.

No Dagster and no store here: the store counts (:class:`Attempts`), this decides.
"""

from __future__ import annotations

from dataclasses import dataclass

from agentr_dagster.domain.failures import InvalidOutputError, StageError, TransientError
from agentr_dagster.settings import LLMConfig

MAX_ANSWERS = 2  # the answer + one repair round
# calls that got no answer (transient), per request, within the window: the settings' defaults
# (AGENTR_LLM_MAX_UNANSWERED, AGENTR_LLM_RETRY_WINDOW_HOURS), declared there once
MAX_UNANSWERED: int = LLMConfig.model_fields["max_unanswered"].default
UNANSWERED_WINDOW_S: float = LLMConfig.model_fields["retry_window_hours"].default * 3600.0


@dataclass(frozen=True)
class Attempts:
    """What the store holds about one request: answered (settled) calls, and attempts that got no answer within the
    window (released or still open)."""

    answered: int = 0
    unanswered: int = 0


@dataclass(frozen=True)
class AttemptCap:
    answers: int = MAX_ANSWERS
    unanswered: int = MAX_UNANSWERED
    unanswered_window_s: float = UNANSWERED_WINDOW_S

    def __post_init__(self) -> None:
        if self.answers < 1 or self.unanswered < 0:
            raise ValueError("the cap allows at least one answered call and no negative retry count")

    @property
    def per_request(self) -> int:
        """The most calls one request can ever cause inside one window (for `agentr ledger verify`: answers are
        capped for ever, unanswered attempts per window)."""
        return self.answers + self.unanswered

    def refusal(self, stage: str, attempts: Attempts) -> StageError | None:
        """Why no further call may be made for this request, or None when one may."""
        if attempts.answered >= self.answers:
            return InvalidOutputError(
                f"{stage}: not asked again: the model answered {attempts.answered} time(s) for this request and no "
                "answer validated; change the model or prompt version, or run with --retry-invalid"
            )
        if attempts.unanswered >= self.unanswered:
            return TransientError(
                f"{stage}: attempt cap reached: {attempts.unanswered} call(s) without an answer in the last "
                f"{self.unanswered_window_s / 3600:g} h; a later run tries again"
            )
        return None
