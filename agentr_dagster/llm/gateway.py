"""The one place an LLM is called: caching, the attempt cap, orphan check, credit reservation, the call,
settlement, validation with a bounded repair round, and classification of every failure.

The one retry layer for paid calls is here (:meth:`OpenAICompatibleBackend.complete`), and before every call the
attempt cap (``domain/attempts.py``) is asked with what the store holds about the request (read with the cached
answer, in one transaction), so no other layer (step or run retries, the repair schedule, resume) can make it call
more often than the cap allows.

Order per request (docs/operations.md, "Credits and prices"): a validated response already stored for the same
request is returned
without a call; otherwise reserve an upper-bound estimate, call, settle to the actual usage (or release on
failure), validate. A retry after a paid, validated call therefore never charges again. The guards around the
call (the request's claim, the run's gate, the limiter's slot, the fence before and at settlement) are
:class:`~agentr_dagster.llm.paid_call.PaidCallGuard`'s (docs/paid-call.md).
"""

from __future__ import annotations

import contextlib
import copy
import hashlib
import json
import logging
import random
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

import openai
import sqlalchemy as sa
from openai.types import CompletionUsage
from openai.types.chat import ChatCompletion
from pydantic import BaseModel, ValidationError

from agentr_dagster.domain.attempts import AttemptCap, Attempts
from agentr_dagster.domain.calls import CallContext  # re-exported: the stages import it from here
from agentr_dagster.domain.failures import (
    InvalidOutputError,
    NoCreditsError,
    OrphanError,
    PermanentError,
    StageError,
    StoppedError,
    TransientError,
)
from agentr_dagster.domain.prompts import STAGE_TEMPERATURES
from agentr_dagster.domain.retry import backoff_delay, parse_retry_after, retrying
from agentr_dagster.limits import EndpointLimits, make_limiter
from agentr_dagster.llm.paid_call import PaidCallGuard
from agentr_dagster.llm.unsettled import UnsettledSpool
from agentr_dagster.settings import LLMConfig
from agentr_dagster.store.outage import database_failure

if TYPE_CHECKING:
    from agentr_dagster.store import DomainStore, UsageIn
    from agentr_dagster.store.leases import ClaimFence

log = logging.getLogger(__name__)
T = TypeVar("T", bound=BaseModel)

MAX_OUTPUT_TOKENS = {"intent": 700, "queries": 900, "score": 1400}
MAX_OUTPUT_TOKENS["related_work"] = 700  # one paragraph (synthesis)


class LLMSettings(LLMConfig):
    """The settings' llm section (:class:`~agentr_dagster.settings.LLMConfig`: endpoint, model, timeout, attempt
    cap, endpoint limits) and what the gateway tunes itself, which a deployment does not set. Built from what it
    is given (``LLMResource`` hands it the section ``get_settings()`` read), never from the environment."""

    tier: str = "standard"
    max_repairs: int = 1  # schema-invalid answers are re-asked with the error, this many times
    # in-process attempts per request; the durable attempt cap (`cap`) bounds them across every layer
    max_attempts: int = 4
    settle_attempts: int = 6  # a settle that fails on a database error is retried (0.5 s, 1 s, 2 s, ... apart)
    settle_backoff_s: float = 0.5
    unsettled_dir: str | None = None  # where answered-but-unsettled calls are kept (default: $AGENTR_HOME/unsettled)
    credit_wait_s: float = 120.0  # a refused reservation waits this long at most for open ones to settle
    backoff_base_s: float = 0.5
    backoff_max_s: float = 30.0
    account: str = "default"
    redis_url: str = ""  # where the endpoint limits are shared: the settings' store.redis_url, handed over

    @classmethod
    def settings_customise_sources(cls, settings_cls, init_settings, env_settings, dotenv_settings,
                                   file_secret_settings):
        return (init_settings,)

    @property
    def cap(self) -> AttemptCap:
        return AttemptCap(unanswered=self.max_unanswered, unanswered_window_s=self.retry_window_hours * 3600)

    @property
    def limits(self) -> EndpointLimits:
        return EndpointLimits(max_concurrent=self.max_concurrent, requests_per_minute=self.rpm,
                              tokens_per_minute=self.tpm, redis_url=self.redis_url or None)


class UnsettledError(TransientError):
    """An answered call whose settlement failed on a database error (kept for :meth:`settle_pending`)."""


class AttemptCapReached(TransientError):
    """The request's unanswered attempts reached the cap: no layer may call again for it inside the window."""

    retryable = False



def request_hash(model: str, messages: list[dict[str, str]], temperature: float, max_tokens: int) -> str:
    body = json.dumps(
        {"model": model, "messages": messages, "temperature": temperature, "max_tokens": max_tokens},
        sort_keys=True,
        ensure_ascii=False,
    )
    return hashlib.sha256(body.encode()).hexdigest()


def estimate_prompt_tokens(messages: list[dict[str, str]]) -> int:
    """An upper-bound-ish token estimate without a tokenizer download: ~3 characters per token."""
    return sum(len(m["content"]) for m in messages) // 3 + 16 * len(messages)


def parse_json_object(content: str) -> dict:
    text = content.strip()
    if text.startswith("```"):
        text = text.strip("`")
        text = text[text.find("{") :]
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end <= start:
        raise ValueError("the answer holds no JSON object")
    value = json.loads(text[start : end + 1], strict=False)
    if not isinstance(value, dict):
        raise ValueError("the answer is not a JSON object")
    return value


def grammar_hint_schema(schema: dict, max_len: int = 100) -> dict:
    """A copy of a JSON schema that llama.cpp's grammar compiler handles: it ignores minimum/maximum (so
    ranges become enums) and long maxLength bounds explode into huge grammars (so they are shortened).
    Only a decoding hint: answers are still validated against the strict contract."""
    schema = copy.deepcopy(schema)

    def walk(node) -> None:
        if isinstance(node, dict):
            if node.get("type") == "string" and "maxLength" in node:
                node["maxLength"] = min(node["maxLength"], max_len)
            if node.get("type") in ("number", "integer") and "maximum" in node:
                low, high = node.get("minimum", 0), node["maximum"]
                if high - low <= 1:
                    node["enum"] = [round(low + i * (high - low) / 10, 2) for i in range(11)]
                else:
                    node["enum"] = list(range(int(low), int(high) + 1))
                for key in ("type", "minimum", "maximum"):
                    node.pop(key, None)
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(schema)
    return schema


def classify_api_error(exc: Exception) -> StageError:
    """The failure class of an error met around a paid call: the endpoint's answer (HTTP status, timeout, dropped
    connection), or what was checked right before it (the database, the limiter's Redis): those are transient
    wherever they happen, never permanent — no call was made, and nothing the user could fix is wrong."""
    database = database_failure(exc, "before the LLM call")
    if database is not None:
        return database
    if isinstance(exc, OSError) or _redis_error(exc):
        return TransientError(f"before the LLM call: {type(exc).__name__}: {str(exc)[:300]}; transient: retried")
    if isinstance(exc, openai.APITimeoutError):
        return TransientError(f"LLM request timed out: {exc}")
    if isinstance(exc, openai.APIConnectionError):
        return TransientError(f"LLM connection failed: {exc}")
    if isinstance(exc, openai.APIStatusError):
        status = exc.status_code
        retry_after = _retry_after(exc)
        if status == 429 or status >= 500 or status == 408:
            return TransientError(f"LLM endpoint answered HTTP {status}", retry_after=retry_after)
        if status in (401, 403):
            return PermanentError(
                f"LLM endpoint refused the credentials (HTTP {status}): check AGENTR_LLM_API_KEY"
            )
        if status == 404:
            return PermanentError(
                "LLM endpoint does not know the model or path (HTTP 404): check AGENTR_LLM_MODEL and "
                "AGENTR_LLM_BASE_URL"
            )
        return PermanentError(f"LLM endpoint rejected the request (HTTP {status}): {exc.message}")
    if isinstance(exc, openai.APIResponseValidationError | json.JSONDecodeError):
        return TransientError(f"LLM endpoint sent an unreadable response: {exc}")
    if isinstance(exc, openai.APIError):
        return TransientError(f"LLM API error: {exc}")
    return PermanentError(f"unexpected error calling the LLM: {type(exc).__name__}: {exc}")


def _redis_error(exc: Exception) -> bool:
    """A shared limiter's Redis unreachable or timing out (redis is imported only when configured)."""
    return any(cls.__module__.startswith("redis") and cls.__name__ in ("ConnectionError", "TimeoutError")
               for cls in type(exc).__mro__)


def _short(exc: BaseException | None) -> str:
    """An exception in one line (a database error's first line: its SQL and parameters stay out of the log)."""
    return f"{type(exc).__name__}: {str(exc).splitlines()[0][:200] if str(exc) else ''}"


def _retry_after(exc: openai.APIStatusError) -> float | None:
    headers = getattr(exc.response, "headers", None)
    return parse_retry_after(headers.get("retry-after")) if headers is not None else None


class OpenAICompatibleBackend:
    """Structured stage calls against any OpenAI-compatible endpoint, priced and charged via the store."""

    name = "openai-compatible"

    def __init__(self, settings: LLMSettings, store: DomainStore):
        self.settings = settings
        self.store = store
        self.model = settings.model
        self.client = openai.OpenAI(
            base_url=settings.base_url,
            api_key=settings.api_key.get_secret_value() or "not-needed",
            timeout=settings.timeout_s,
            max_retries=0,  # retries are ours: classified, backed off, and charged per real call
        )
        # answered calls whose settlement failed on a database error: (reservation, usage, response to cache, the
        # fence its call was made under)
        self.unsettled: list[tuple[int, UsageIn, tuple[str, str] | None, ClaimFence | None]] = []
        self.spool = UnsettledSpool(settings.unsettled_dir) if settings.unsettled_dir else None
        self._pending_lock = threading.Lock()
        self.limiter = make_limiter(settings.limits, settings.base_url)
        # Set after a 401/403/404: the endpoint refuses every call, so no further call is made (or retried).
        self._refused: PermanentError | None = None
        self.guard = PaidCallGuard(store, self.limiter)  # claim, gate, limiter and fence (llm/paid_call.py)
        self._marks: dict[str, int] = {}  # project -> its `--retry-invalid` mark, read once per gateway

    def _redacted(self, error: StageError) -> StageError:
        secret = self.settings.api_key.get_secret_value()
        if secret and len(secret) >= 6 and secret in error.message:
            error.message = error.message.replace(secret, "[redacted]")
            error.args = (error.message,)
        return error

    def complete(self, stage: str, messages: list[dict[str, str]], schema: type[T], ctx: CallContext) -> T:
        """Return a validated answer, retrying transient failures with backoff in-process (within the cap).

        A loop of our own rather than tenacity/stamina: its stop condition is the durable cap (asked in
        :meth:`_complete_once`), its wait honours Retry-After and the limiter's shared pause, and it records every
        failed attempt; the SDK's own retries are off (``max_retries=0``)."""
        last: StageError | None = None
        for attempt in range(self.settings.max_attempts):
            try:
                try:
                    return self._complete_once(stage, messages, schema, ctx)
                except sa.exc.SQLAlchemyError as err:
                    # the database failed in a read or claim before the call (the call's own steps are classified
                    # in _paid_call, its settlement in _settle): no call was made, and a blip passes on a retry
                    raise database_failure(err, stage) from None
            except TransientError as exc:
                last = exc
                if isinstance(exc, UnsettledError | AttemptCapReached):
                    raise  # asking again would pay twice (the kept settlement caches the answer), or pass the cap
                if attempt + 1 >= self.settings.max_attempts:
                    break
                delay = backoff_delay(
                    attempt, self.settings.backoff_base_s, self.settings.backoff_max_s, exc.retry_after
                )
                log.warning("transient LLM failure (%s); retrying in %.2fs", exc.message, delay)
                self.store.lifecycle.record_failure_kept(  # kept for later if the database is away
                    ctx.slug, ctx.stage, "transient", exc.message,
                    paper_id=ctx.paper_id, attempt=attempt + 1, run_id=ctx.run_id,
                )
                time.sleep(delay)
        assert last is not None
        raise last

    def _gone_while_waiting(self, ctx: CallContext) -> StageError | None:
        """After waiting for a run's call slot, the reservation's checks may be stale: the endpoint may have
        refused the credentials, or the project or paper may have been deleted, meanwhile."""
        if ctx.call_gate is None:
            return None
        if self._refused is not None:
            return PermanentError(f"{self._refused.message} (no call made after the first refusal)")
        if not self.store.projects.is_active(ctx.slug, ctx.paper_id):
            return OrphanError(f"project {ctx.slug!r} or paper {ctx.paper_id} was deleted; no call made")
        return None

    def _reserve(self, key: str, bound, ctx: CallContext, refused: type[Exception]) -> int:
        """Reserve the call's bound. Refused while other reservations of the account are open (calls in flight
        hold about their upper bound, several times what they will cost), wait for them to settle and try
        again: the last credits are then spent, and a refusal stops only when nothing else holds credits."""
        deadline = time.monotonic() + self.settings.credit_wait_s
        while True:
            try:
                return self.store.ledger.reserve(
                    self.settings.account,
                    idempotency_key=f"{key}:{time.time_ns()}:{random.getrandbits(32)}",
                    slug=ctx.slug, stage=ctx.stage, paper_id=ctx.paper_id, bound=bound, run_id=ctx.run_id,
                    final_ok=True,  # the last credits: one call may hold what is left and settle down to zero
                )
            except refused as exc:
                # Whether others held credits is read in the refusing transaction: a hold that settled between
                # the refusal and a later count would otherwise end the run with its credits back unspent.
                if time.monotonic() > deadline or not getattr(exc, "others_open", False):
                    raise
                time.sleep(0.05 + random.uniform(0, 0.1))

    def _post_chat(self, messages: list[dict[str, str]], temperature: float, max_tokens: int,
                   response_format: dict) -> tuple[str, CompletionUsage | None]:
        """One HTTP call: the answer's text and usage, or a classified, redacted StageError."""
        try:
            # The plain JSON body through the client's post(): the same request, errors and parsed response as
            # chat.completions.create, without its per-call walk over typed parameters (a few ms of interpreter
            # time per call, which parallel calls would otherwise queue for).
            response = self.client.post(
                "/chat/completions",
                body={"model": self.model, "messages": messages, "temperature": temperature,
                      "max_tokens": max_tokens, "response_format": response_format},
                cast_to=ChatCompletion,
            )
            return response.choices[0].message.content or "", response.usage
        except Exception as exc:  # noqa: BLE001 - every failure is classified
            error = self._redacted(classify_api_error(exc))
            error.timed_out = isinstance(exc, openai.APITimeoutError)  # the endpoint may still serve (and bill) it
            # Noted here, before the caller frees its slot, so that a call waiting for the slot sees the refusal.
            if isinstance(error, PermanentError) and getattr(exc, "status_code", None) in (401, 403, 404):
                self._refused = error
            raise error from None

    def _complete_once(self, stage: str, messages: list[dict[str, str]], schema: type[T], ctx: CallContext) -> T:
        # One request is paid once, whoever asks: a live worker asking the same request is waited for, and its
        # answer is then read from the response cache (the lookup below).
        key = request_hash(self.model, messages, STAGE_TEMPERATURES[stage], MAX_OUTPUT_TOKENS[stage])
        with self.guard.request(key, ctx):
            return self._complete_claimed(stage, messages, schema, ctx)

    def _complete_claimed(self, stage: str, messages: list[dict[str, str]], schema: type[T], ctx: CallContext) -> T:
        temperature = STAGE_TEMPERATURES[stage]
        max_tokens = MAX_OUTPUT_TOKENS[stage]
        key = request_hash(self.model, messages, temperature, max_tokens)
        if ctx.slug not in self._marks:
            self._marks[ctx.slug] = self.store.attempts.retry_invalid_mark(ctx.slug)
        # the cached answer and the request's attempts so far, in one read (the cap's durable side)
        cached, attempts = self.store.attempts.lookup(key, after_reservation=self._marks[ctx.slug],
                                                      window_s=self.settings.cap.unanswered_window_s)
        if cached is not None:
            try:
                return schema.model_validate(parse_json_object(cached))
            except (ValueError, ValidationError):
                # a stored answer that no longer validates (schema changed) is asked again, within the cap
                attempts = self.store.attempts.count(key, after_reservation=self._marks[ctx.slug],
                                                     window_s=self.settings.cap.unanswered_window_s)
        conversation = list(messages)
        for repair in range(self.settings.max_repairs + 1):
            self._check_cap(stage, attempts)
            content, settle = self._paid_call(stage, conversation, temperature, max_tokens, key, ctx, schema)
            attempts = Attempts(attempts.answered + 1, attempts.unanswered)  # this call was answered (and paid)
            value = None
            try:
                value = schema.model_validate(parse_json_object(content))
            except (ValueError, ValidationError) as exc:
                problem = _describe_validation_error(exc)
            finally:
                # Charged whatever the answer; a valid one is kept in the same transaction as its charge.
                settle((key, content) if value is not None else None)
            if value is None:
                log.info("schema-invalid answer for %s (repair %d): %s", stage, repair, problem)
                conversation = [
                    *messages,
                    {"role": "assistant", "content": content[:4000]},
                    {
                        "role": "user",
                        "content": "Your answer did not validate: "
                        + problem
                        + "\nReturn the corrected JSON object only.",
                    },
                ]
                continue
            return value
        raise InvalidOutputError(
            f"{stage}: the model's answer did not validate after {self.settings.max_repairs} repair(s) "
            f"({problem[:300]}); not asked again until the model or prompt version changes, or "
            "`agentr run --retry-invalid`"
        )

    def _check_cap(self, stage: str, attempts: Attempts) -> None:
        """Raise when the cap forbids another call for this request (its attempts as the store holds them, plus
        the calls answered since in this round: claims keep any other worker off the same request meanwhile)."""
        refused = self.settings.cap.refusal(stage, attempts)
        if isinstance(refused, TransientError):
            raise AttemptCapReached(refused.message)
        if refused is not None:
            raise refused

    def _paid_call(
        self, stage: str, messages: list[dict[str, str]], temperature: float, max_tokens: int, key: str,
        ctx: CallContext, schema: type[BaseModel],
    ) -> tuple[str, Callable[[tuple[str, str] | None], object]]:
        """Reserve, call and return the answer with the function that settles it (given the response to cache
        when the answer validates): the caller validates first, so that both land in one transaction."""
        from agentr_dagster.store import CallBound, InsufficientCredits, UsageIn

        if self._refused is not None:
            raise PermanentError(f"{self._refused.message} (no call made after the first refusal)")
        self.guard.check(ctx)
        bound = CallBound(self.model, estimate_prompt_tokens(messages), max_tokens,
                          provider=self.settings.provider, tier=self.settings.tier)
        try:
            # The hold is the call's upper bound at the very price rows settlement will use, and the reservation
            # is also the orphan check: it refuses a deleted project or paper atomically (OrphanError, no call).
            reservation = self._reserve(key, bound, ctx, InsufficientCredits)
        except InsufficientCredits as exc:
            # read now, not the refused transaction's figure: holds that settled since gave credits back
            left = self.store.ledger.balance(self.settings.account)
            raise NoCreditsError(f"not enough credits for a {stage} call: {exc} ({left:f} credits left at stop)") \
                from exc
        response_format: dict = {"type": "json_object"}
        if self.settings.schema_hint:
            response_format["schema"] = grammar_hint_schema(schema.model_json_schema())
        started = time.monotonic()
        try:
            # the gate, the limiter's slot, then what went stale while waiting, and the fence (still ours?)
            with self.guard.call(key, ctx, estimate_prompt_tokens(messages) + max_tokens,
                                 stale=lambda: self._gone_while_waiting(ctx)):
                started = time.monotonic()
                content, usage = self._post_chat(messages, temperature, max_tokens, response_format)
        except Exception as exc:  # noqa: BLE001 - every failure is classified, and the reservation released
            # (a StageError from the call or the wait; anything else is the limiter itself, e.g. Redis unreachable)
            error = exc if isinstance(exc, StageError) else self._redacted(classify_api_error(exc))
            if error.retry_after:  # a 429's Retry-After holds back every caller: set before anything slower
                self.limiter.pause(error.retry_after)
            try:
                self.store.ledger.release(reservation, note=f"no answer: {error.failure_class.value}",
                                          waste="timeout" if error.timed_out else None)
            except sa.exc.SQLAlchemyError as db_error:
                # The database is away: the classified error goes on (it is what happened to the call); the
                # reservation stays open until the stage closes its calls or `agentr resume` releases it.
                log.warning("release of reservation %s failed (%s); left open", reservation, type(db_error).__name__)
            # Not chained: the client's exception carries the endpoint's raw body, which some proxies fill with
            # the key itself; only the redacted, classified message travels on (to logs, events and the store).
            raise error from None
        cached_tokens = 0
        details = getattr(usage, "prompt_tokens_details", None) if usage else None
        if details is not None and getattr(details, "cached_tokens", None):
            cached_tokens = int(details.cached_tokens)
        usage_in = UsageIn(
            slug=ctx.slug, stage=ctx.stage, paper_id=ctx.paper_id, model=self.model,
            provider=self.settings.provider,
            input_tokens=int(usage.prompt_tokens) if usage else estimate_prompt_tokens(messages),
            output_tokens=int(usage.completion_tokens) if usage else len(content) // 3,
            cached_input_tokens=cached_tokens,
            latency_ms=int((time.monotonic() - started) * 1000),
            request_hash=key, run_id=ctx.run_id,
        )
        fence = self.guard.settlement_fence(ctx, key)
        return content, lambda response: self._settle(reservation, usage_in, response, fence)

    def _settle(self, reservation: int, usage_in, response: tuple[str, str] | None, fence=None) -> None:
        """Settle an answered call, retrying a database error with backoff. If the database stays away, the
        settlement is kept (:meth:`settle_pending` retries it before the stage reports its outcome) and the call
        fails as transient: its answer is paid for, so it is never dropped silently.

        ``fence``: the claim the call was made under, checked in the charging transaction. Lost (a takeover while
        the call was in flight, e.g. this process was frozen past the lease TTL): the answer is operator waste,
        not charged, not cached, and the call ends as stopped (the new holder does the work). A kept settlement
        keeps its fence (and its claim, until it is settled): it is checked when the settlement is retried."""
        def charge() -> None:
            charged = self.store.ledger.settle(reservation, usage=usage_in, response=response, fence=fence)
            if charged is None:
                raise StoppedError(
                    f"{usage_in.stage}: the claim on this call was taken over while it was in flight; its late "
                    "answer is recorded as operator waste and not charged"
                )

        def note_retry(state) -> None:
            problem = _short(state.outcome.exception() if state.outcome else None)
            log.warning("settle of reservation %s failed (%s); retrying", reservation, problem)

        try:
            retrying(attempts=self.settings.settle_attempts, base=self.settings.settle_backoff_s, cap=5.0, jitter=False,
                     when=lambda exc: isinstance(exc, sa.exc.SQLAlchemyError), before_sleep=note_retry)(charge)
            return
        except sa.exc.SQLAlchemyError as exc:
            problem = _short(exc)
        if fence is not None:  # the claim stays until the kept settlement is settled under it
            self.store.leases.keep_for_settlement(fence)
        with self._pending_lock:
            self.unsettled.append((reservation, usage_in, response, fence))
        if self.spool is not None:  # on disk too: the process may not outlive the outage
            try:
                self.spool.add(reservation, usage_in, response, fence)
            except OSError as exc:
                log.error("could not keep the unsettled call of reservation %s on disk: %s", reservation, exc)
        raise UnsettledError(
            f"the endpoint answered but the charge could not be recorded ({problem}); it is kept and settled "
            "when the database is back"
        )

    def settle_pending(self) -> int:
        """Retry the settlements kept by :meth:`_settle`, each under the fence its call was made under (a claim
        taken over meanwhile: operator waste, not charged), then release its claim; returns how many are still
        unsettled."""
        with self._pending_lock:
            pending, self.unsettled = self.unsettled, []
        left = []
        for reservation, usage_in, response, fence in pending:
            try:
                self.store.ledger.settle(reservation, usage=usage_in, response=response, fence=fence)
            except sa.exc.SQLAlchemyError:
                left.append((reservation, usage_in, response, fence))
                continue
            if self.spool is not None:
                self.spool.remove(reservation)
            if fence is not None:
                with contextlib.suppress(sa.exc.SQLAlchemyError):  # else it goes stale and is freed as gone
                    self.store.leases.release_kept(fence)
        with self._pending_lock:
            self.unsettled.extend(left)
        # and what other processes kept, e.g. one that died during an outage
        spooled = self.spool.settle_all(self.store) if self.spool is not None else 0
        return len(left) + spooled


def _describe_validation_error(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        parts = []
        for err in exc.errors()[:8]:
            where = ".".join(str(p) for p in err["loc"]) or "(root)"
            parts.append(f"{where}: {err['msg']}")
        return "; ".join(parts)
    return str(exc)
