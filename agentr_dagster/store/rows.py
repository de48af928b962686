"""Plain values the store returns (never ORM objects bound to a session), its input model and its errors."""

from __future__ import annotations

from dataclasses import MISSING, dataclass, field, fields
from datetime import datetime
from decimal import Decimal
from functools import cache
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

# OrphanError is the domain's (one class: a stage and the store raise the same), importable from the store too.
from agentr_dagster.domain.failures import OrphanError as OrphanError
from agentr_dagster.domain.failures import StoreError as StoreError

_T = TypeVar("_T")


@cache
def _field_names(cls: type) -> tuple[tuple[str, bool], ...]:
    """``cls``'s init fields, each with whether it has a default (then the row may lack its column)."""
    return tuple(
        (f.name, f.default is not MISSING or f.default_factory is not MISSING) for f in fields(cls) if f.init
    )


def from_row(cls: type[_T], row: Any, /, *, prefix: str = "", **given: Any) -> _T:
    """The dataclass ``cls`` built from a SQLAlchemy result row: each field from the column of the same name
    (``prefix`` + name where the statement labelled them so), extra columns ignored; ``given`` values win.

    A field without a default whose column is missing raises (``NoSuchColumnError``). Values are what the column
    types return on every backend (``UTCDateTime``: aware UTC; ``Money``: ``Decimal`` with 8 places; JSON:
    parsed), so only a field that needs more than that, or does not come from the row, is given.
    """
    columns = row._mapping
    values = dict(given)
    dataclass_type: type = cls  # plain ``type`` is Hashable to mypy (the cache key); ``type[_T]`` is not
    for name, optional in _field_names(dataclass_type):
        if name not in values and (not optional or prefix + name in columns):
            values[name] = columns[prefix + name]
    return cls(**values)


class InsufficientCredits(StoreError):
    """A reservation was refused: the balance, or the project's budget, cannot cover it. Nothing was written."""

    def __init__(
        self,
        message: str,
        *,
        account: str | None = None,
        requested: Decimal | None = None,
        available: Decimal | None = None,
        reason: str = "balance",
        others_open: bool = False,
    ):
        super().__init__(message)
        self.account = account
        self.requested = requested
        self.available = available
        self.reason = reason  # "balance" | "budget"
        # Other holds of the account were open in the refusing transaction: credits may come back when they
        # settle, so a caller may wait and ask again (read atomically with the refusal, never afterwards).
        self.others_open = others_open


class ProjectNotFound(StoreError):
    """No such project (or it is soft-deleted and the call did not ask for deleted projects)."""


@dataclass(frozen=True)
class PricingRow:
    id: int
    model: str
    provider: str
    tier: str
    input_usd_per_m: Decimal
    output_usd_per_m: Decimal
    cached_input_usd_per_m: Decimal | None
    valid_from: datetime
    valid_to: datetime | None


@dataclass(frozen=True)
class MultiplierRow:
    id: int
    credits_per_usd: Decimal
    valid_from: datetime
    valid_to: datetime | None


@dataclass(frozen=True)
class DefaultCreditsRow:
    id: int
    amount: Decimal
    valid_from: datetime
    valid_to: datetime | None


@dataclass(frozen=True)
class AccountRow:
    id: int
    name: str
    balance: Decimal
    created_at: datetime


@dataclass(frozen=True)
class ProjectRow:
    id: int
    slug: str
    title: str | None
    abstract: str
    account_id: int
    account: str
    budget_credits: Decimal | None
    created_at: datetime
    updated_at: datetime
    deleted_at: datetime | None


@dataclass(frozen=True)
class PaperRow:
    id: int
    project_id: int
    paper_key: str
    content_hash: str
    title: str
    abstract: str
    year: int | None
    doi: str | None
    authors: list[str]
    venue: str | None
    url: str | None
    source_id: str | None
    provenance: dict[str, Any]
    created_at: datetime
    deleted_at: datetime | None


@dataclass(frozen=True)
class AddPapersResult:
    added: int
    duplicates: int
    paper_ids: list[int]  # ids of the papers added by this call, in input order


@dataclass(frozen=True)
class ImportedFile:
    """One file a project imported, and what its import did (the counts are None for files imported before the
    store kept them). ``added`` + ``duplicates`` are the records parsed; + ``in_file_duplicates`` + ``dropped``
    the rows read."""

    sha256: str
    name: str
    created_at: datetime | None = None
    rows_read: int | None = None
    added: int | None = None
    duplicates: int | None = None  # of papers the project already had
    in_file_duplicates: int | None = None  # of an earlier row of the same file
    dropped: int | None = None  # unusable rows
    notes: list[str] = field(default_factory=list)  # the first dropped rows, "row N: reason"

    @property
    def counted(self) -> bool:
        return self.added is not None


@dataclass(frozen=True)
class ArtifactRow:
    id: int
    project_id: int
    stage: str
    payload: dict[str, Any]
    prompt_version: str | None
    model: str | None
    backend: str | None
    input_hash: str | None
    created_at: datetime


@dataclass(frozen=True)
class ResultRow:
    id: int
    project_id: int
    paper_id: int
    cache_key: str
    payload: dict[str, Any]
    prompt_version: str | None
    model: str | None
    backend: str | None
    created_at: datetime


@dataclass(frozen=True)
class StatusRow:
    """Current status of one stage of one project.

    ``state`` is the stage-level state (``None`` if only per-paper rows exist); ``paper_counts`` counts the
    stage's papers by current state (empty for stages without per-paper rows).
    """

    project_id: int
    slug: str
    stage: str
    state: str | None
    detail: str | None
    run_id: str | None
    updated_at: datetime | None
    paper_counts: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class TransitionRow:
    id: int
    project_id: int
    slug: str
    stage: str
    paper_id: int | None
    state: str
    detail: str | None
    run_id: str | None
    created_at: datetime


@dataclass(frozen=True)
class FailureRow:
    id: int
    project_id: int
    slug: str
    paper_id: int | None
    stage: str
    failure_class: str
    message: str
    attempt: int
    run_id: str | None
    step_key: str | None
    created_at: datetime


@dataclass(frozen=True)
class ReservationRow:
    id: int
    account_id: int
    account: str
    project_id: int | None
    slug: str | None
    stage: str | None
    paper_id: int | None
    amount: Decimal
    state: str
    idempotency_key: str
    created_at: datetime
    closed_at: datetime | None


@dataclass(frozen=True)
class UsageRow:
    id: int
    project_id: int | None
    slug: str | None
    stage: str | None
    paper_id: int | None
    model: str
    provider: str
    input_tokens: int
    output_tokens: int
    cached_input_tokens: int
    cost_usd: Decimal
    credits: Decimal
    pricing_id: int | None
    multiplier_id: int
    latency_ms: int | None
    request_hash: str | None
    run_id: str | None
    reservation_id: int | None
    created_at: datetime


@dataclass(frozen=True)
class WasteRow:
    """A call the operator pays and no project is charged for (``store.ledger.waste``)."""

    id: int
    cause: str
    reservation_id: int
    project_id: int | None
    slug: str | None
    stage: str | None
    paper_id: int | None
    model: str | None
    input_tokens: int | None
    output_tokens: int | None
    cost_usd: Decimal | None
    credits: Decimal
    priced_as: str
    request_hash: str | None
    run_id: str | None
    holder: str | None
    created_at: datetime


@dataclass(frozen=True)
class LedgerRow:
    id: int
    account_id: int
    amount: Decimal
    kind: str
    idempotency_key: str
    reservation_id: int | None
    usage_id: int | None
    note: str
    created_at: datetime


class UsageIn(BaseModel):
    """One LLM call's measured usage, handed to :meth:`Ledger.settle` (``store.ledger.settle``).

    ``input_tokens`` includes ``cached_input_tokens``. ``at`` (default: now) picks the pricing and multiplier
    rows in force and is the usage row's ``created_at``. ``slug`` is only used when the reservation was made
    without a project.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    slug: str | None = None
    stage: str | None = None
    paper_id: int | None = None
    model: str = Field(min_length=1, max_length=200)
    provider: str = "default"
    tier: str = "standard"
    input_tokens: int = Field(ge=0)
    output_tokens: int = Field(ge=0)
    cached_input_tokens: int = Field(default=0, ge=0)
    latency_ms: int | None = Field(default=None, ge=0)
    request_hash: str | None = None
    run_id: str | None = None
    at: datetime | None = None

    @field_validator("latency_ms", mode="before")
    @classmethod
    def _round_latency(cls, value: Any) -> Any:
        if isinstance(value, float):
            return round(value)
        return value

    @model_validator(mode="after")
    def _cached_within_input(self) -> UsageIn:
        if self.cached_input_tokens > self.input_tokens:
            raise ValueError("cached_input_tokens cannot exceed input_tokens (input_tokens includes them)")
        return self


@dataclass(frozen=True)
class LabelRow:
    """A project's include/exclude decision on one of its papers (relevance feedback)."""

    paper_id: int
    paper_key: str
    title: str
    label: str  # include | exclude
    note: str | None
    created_at: datetime
    updated_at: datetime


@dataclass(frozen=True)
class RelevanceRow:
    """The screening engine's relevance of one candidate: its score (higher = read sooner), its rank (1 = best),
    how it was computed (``zero-shot`` or ``active``, learnt from labels) and by which engine version."""

    paper_id: int
    score: float
    rank: int
    method: str
    engine_version: str
    input_hash: str
    created_at: datetime
