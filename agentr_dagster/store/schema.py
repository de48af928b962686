"""Table definitions of the domain store (SQLAlchemy 2 Core).

The Alembic revisions in ``migrations/versions`` are the source of truth for the database; this module is
what the code queries against, and ``tests/test_store.py`` checks that the two agree (autogenerate finds no
difference after ``upgrade head``).

Conventions:
- money is ``Numeric(18, 8)`` read back as ``Decimal`` quantised to 8 places (see :class:`Money`);
- timestamps are timezone-aware UTC (see :class:`UTCDateTime`; SQLite stores naive UTC text);
- ``stage_status.paper_id`` is ``0`` for a stage-level row (NULL would defeat the unique key); the API maps
  it back to ``None``.
"""

from __future__ import annotations

from datetime import datetime, timezone
from decimal import Decimal

import sqlalchemy as sa
from sqlalchemy.types import TypeDecorator

from agentr_dagster.domain.failures import STATES

UTC = timezone.utc
MONEY_QUANTUM = Decimal("0.00000001")

LEDGER_KINDS = ("grant", "reserve", "settle", "release", "adjust")
RESERVATION_STATES = ("open", "settled", "released")
FAILURE_CLASSES = ("transient", "no_credits", "orphan", "permanent", "other", "invalid_output")
STAGE_LEVEL = 0  # stage_status.paper_id for a stage-level row


class UTCDateTime(TypeDecorator):
    """Timezone-aware UTC datetimes on every backend. Naive inputs are taken to be UTC."""

    impl = sa.DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value, dialect):
        if value is None:
            return None
        if not isinstance(value, datetime):
            raise TypeError(f"expected datetime, got {type(value).__name__}")
        value = value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)
        if dialect.name == "sqlite":
            # stored as text: keep one naive-UTC format so that string comparison is time comparison
            return value.replace(tzinfo=None)
        return value

    def process_result_value(self, value, dialect):
        if value is None:
            return None
        if value.tzinfo is None:
            return value.replace(tzinfo=UTC)
        return value.astimezone(UTC)


class Money(TypeDecorator):
    """``Numeric(18, 8)`` that always comes back as a ``Decimal`` with exactly 8 places."""

    impl = sa.Numeric(18, 8)
    cache_ok = True

    def process_bind_param(self, value, dialect):
        if value is None:
            return None
        if isinstance(value, float):
            value = Decimal(repr(value))
        return Decimal(value).quantize(MONEY_QUANTUM)

    def process_result_value(self, value, dialect):
        if value is None:
            return None
        if isinstance(value, float):
            value = Decimal(repr(value))
        return Decimal(value).quantize(MONEY_QUANTUM)


# plain JSON (not JSONB) on PostgreSQL too: a payload comes back with its keys in the order it was written
JSONType = sa.JSON()

NAMING = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

metadata = sa.MetaData(naming_convention=NAMING)


def _in(column: str, values: tuple[str, ...]) -> str:
    return f"{column} IN ({', '.join(repr(v) for v in values)})"


def _created() -> sa.Column:
    return sa.Column("created_at", UTCDateTime(), nullable=False)


accounts = sa.Table(
    "accounts",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("name", sa.String(200), nullable=False, unique=True),
    sa.Column("balance", Money(), nullable=False),
    _created(),
    sa.CheckConstraint("balance >= 0", name="balance_non_negative"),
)

model_pricing = sa.Table(
    "model_pricing",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("model", sa.String(200), nullable=False),
    sa.Column("provider", sa.String(100), nullable=False),
    sa.Column("tier", sa.String(50), nullable=False),
    sa.Column("input_usd_per_m", Money(), nullable=False),
    sa.Column("output_usd_per_m", Money(), nullable=False),
    sa.Column("cached_input_usd_per_m", Money(), nullable=True),
    sa.Column("valid_from", UTCDateTime(), nullable=False),
    sa.Column("valid_to", UTCDateTime(), nullable=True),
    sa.Column("is_current", sa.Boolean(), nullable=False),
    sa.Index("ix_model_pricing_lookup", "model", "provider", "tier", "valid_from"),
    sa.Index(
        "uq_model_pricing_current",
        "model",
        "provider",
        "tier",
        unique=True,
        sqlite_where=sa.text("is_current"),
        postgresql_where=sa.text("is_current"),
    ),
)

credit_multiplier = sa.Table(
    "credit_multiplier",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("credits_per_usd", Money(), nullable=False),
    sa.Column("valid_from", UTCDateTime(), nullable=False),
    sa.Column("valid_to", UTCDateTime(), nullable=True),
    sa.Column("is_current", sa.Boolean(), nullable=False),
    sa.Index(
        "uq_credit_multiplier_current",
        "is_current",
        unique=True,
        sqlite_where=sa.text("is_current"),
        postgresql_where=sa.text("is_current"),
    ),
)

default_credits = sa.Table(
    "default_credits",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("amount", Money(), nullable=False),
    sa.Column("valid_from", UTCDateTime(), nullable=False),
    sa.Column("valid_to", UTCDateTime(), nullable=True),
    sa.Column("is_current", sa.Boolean(), nullable=False),
    sa.Index(
        "uq_default_credits_current",
        "is_current",
        unique=True,
        sqlite_where=sa.text("is_current"),
        postgresql_where=sa.text("is_current"),
    ),
)

projects = sa.Table(
    "projects",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("slug", sa.String(64), nullable=False, unique=True),
    sa.Column("title", sa.Text, nullable=True),
    sa.Column("abstract", sa.Text, nullable=False),
    sa.Column("account_id", sa.Integer, sa.ForeignKey("accounts.id"), nullable=False),
    sa.Column("budget_credits", Money(), nullable=True),
    _created(),
    sa.Column("updated_at", UTCDateTime(), nullable=False),
    sa.Column("deleted_at", UTCDateTime(), nullable=True),
)

papers = sa.Table(
    "papers",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("project_id", sa.Integer, sa.ForeignKey("projects.id"), nullable=False),
    sa.Column("paper_key", sa.String(255), nullable=False),
    sa.Column("content_hash", sa.String(128), nullable=False),
    sa.Column("title", sa.Text, nullable=False),
    sa.Column("abstract", sa.Text, nullable=False),
    sa.Column("year", sa.Integer, nullable=True),
    sa.Column("doi", sa.String(255), nullable=True),
    sa.Column("authors", JSONType, nullable=False),
    sa.Column("venue", sa.Text, nullable=True),
    sa.Column("url", sa.Text, nullable=True),
    sa.Column("source_id", sa.String(255), nullable=True),
    sa.Column("provenance", JSONType, nullable=False),
    _created(),
    sa.Column("deleted_at", UTCDateTime(), nullable=True),
    sa.UniqueConstraint("project_id", "paper_key"),
)

reservations = sa.Table(
    "reservations",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("account_id", sa.Integer, sa.ForeignKey("accounts.id"), nullable=False),
    sa.Column("project_id", sa.Integer, sa.ForeignKey("projects.id"), nullable=True),
    sa.Column("stage", sa.String(64), nullable=True),
    sa.Column("paper_id", sa.Integer, nullable=True),
    sa.Column("amount", Money(), nullable=False),
    sa.Column("state", sa.String(16), nullable=False),
    sa.Column("idempotency_key", sa.String(255), nullable=False, unique=True),
    _created(),
    sa.Column("closed_at", UTCDateTime(), nullable=True),
    sa.Column("run_id", sa.String(64), nullable=True),  # the run that took it: it must close it before it ends
    sa.CheckConstraint(_in("state", RESERVATION_STATES), name="state"),
    sa.CheckConstraint("amount >= 0", name="amount_non_negative"),
    sa.Index("ix_reservations_state_created", "state", "created_at"),
    sa.Index("ix_reservations_project_state", "project_id", "state"),
)

usage_log = sa.Table(
    "usage_log",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("project_id", sa.Integer, sa.ForeignKey("projects.id"), nullable=True),
    sa.Column("stage", sa.String(64), nullable=True),
    sa.Column("paper_id", sa.Integer, nullable=True),
    sa.Column("model", sa.String(200), nullable=False),
    sa.Column("provider", sa.String(100), nullable=False),
    sa.Column("input_tokens", sa.Integer, nullable=False),
    sa.Column("output_tokens", sa.Integer, nullable=False),
    sa.Column("cached_input_tokens", sa.Integer, nullable=False),
    sa.Column("cost_usd", Money(), nullable=False),
    sa.Column("credits", Money(), nullable=False),
    sa.Column("pricing_id", sa.Integer, sa.ForeignKey("model_pricing.id"), nullable=True),
    sa.Column("multiplier_id", sa.Integer, sa.ForeignKey("credit_multiplier.id"), nullable=False),
    sa.Column("latency_ms", sa.Integer, nullable=True),
    sa.Column("request_hash", sa.String(128), nullable=True),
    sa.Column("run_id", sa.String(64), nullable=True),
    sa.Column("reservation_id", sa.Integer, sa.ForeignKey("reservations.id"), nullable=True, unique=True),
    _created(),
    sa.Index("ix_usage_log_project", "project_id", "created_at"),
    sa.Index("ix_usage_log_request_hash", "request_hash"),  # the attempt cap counts a request's answers
)

ledger_entries = sa.Table(
    "ledger_entries",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("account_id", sa.Integer, sa.ForeignKey("accounts.id"), nullable=False),
    sa.Column("amount", Money(), nullable=False),
    sa.Column("kind", sa.String(16), nullable=False),
    sa.Column("idempotency_key", sa.String(255), nullable=False, unique=True),
    sa.Column("reservation_id", sa.Integer, sa.ForeignKey("reservations.id"), nullable=True),
    sa.Column("usage_id", sa.Integer, sa.ForeignKey("usage_log.id"), nullable=True),
    sa.Column("note", sa.Text, nullable=False),
    _created(),
    sa.CheckConstraint(_in("kind", LEDGER_KINDS), name="kind"),
    sa.Index("ix_ledger_entries_account", "account_id", "id"),
    sa.Index("ix_ledger_entries_reservation", "reservation_id"),
)

artifacts = sa.Table(
    "artifacts",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("project_id", sa.Integer, sa.ForeignKey("projects.id"), nullable=False),
    sa.Column("stage", sa.String(64), nullable=False),
    sa.Column("payload", JSONType, nullable=False),
    sa.Column("prompt_version", sa.String(100), nullable=True),
    sa.Column("model", sa.String(200), nullable=True),
    sa.Column("backend", sa.String(100), nullable=True),
    sa.Column("input_hash", sa.String(128), nullable=True),
    _created(),
    sa.Index("ix_artifacts_project_stage", "project_id", "stage", "id"),
)

paper_results = sa.Table(
    "paper_results",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("project_id", sa.Integer, sa.ForeignKey("projects.id"), nullable=False),
    sa.Column("paper_id", sa.Integer, sa.ForeignKey("papers.id"), nullable=False),
    sa.Column("cache_key", sa.String(255), nullable=False),
    sa.Column("payload", JSONType, nullable=False),
    sa.Column("prompt_version", sa.String(100), nullable=True),
    sa.Column("model", sa.String(200), nullable=True),
    sa.Column("backend", sa.String(100), nullable=True),
    _created(),
    sa.UniqueConstraint("paper_id", "cache_key"),
    sa.Index("ix_paper_results_project", "project_id", "paper_id"),
)

response_cache = sa.Table(
    "response_cache",
    metadata,
    sa.Column("request_hash", sa.String(128), primary_key=True),
    sa.Column("content", sa.Text, nullable=False),
    _created(),
)

status_transitions = sa.Table(
    "status_transitions",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("project_id", sa.Integer, sa.ForeignKey("projects.id"), nullable=False),
    sa.Column("stage", sa.String(64), nullable=False),
    sa.Column("paper_id", sa.Integer, nullable=True),
    sa.Column("state", sa.String(32), nullable=False),
    sa.Column("detail", sa.Text, nullable=True),
    sa.Column("run_id", sa.String(64), nullable=True),
    _created(),
    sa.CheckConstraint(_in("state", STATES), name="state"),
    sa.Index("ix_status_transitions_lookup", "project_id", "stage", "paper_id"),
)

stage_status = sa.Table(
    "stage_status",
    metadata,
    sa.Column("project_id", sa.Integer, sa.ForeignKey("projects.id"), primary_key=True),
    sa.Column("stage", sa.String(64), primary_key=True),
    sa.Column("paper_id", sa.Integer, primary_key=True, autoincrement=False),  # 0 = stage-level row
    sa.Column("state", sa.String(32), nullable=False),
    sa.Column("detail", sa.Text, nullable=True),
    sa.Column("run_id", sa.String(64), nullable=True),
    sa.Column("updated_at", UTCDateTime(), nullable=False),
    sa.CheckConstraint(_in("state", STATES), name="state"),
)

failures = sa.Table(
    "failures",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("project_id", sa.Integer, sa.ForeignKey("projects.id"), nullable=False),
    sa.Column("paper_id", sa.Integer, nullable=True),
    sa.Column("stage", sa.String(64), nullable=False),
    sa.Column("failure_class", sa.String(32), nullable=False),
    sa.Column("message", sa.Text, nullable=False),
    sa.Column("attempt", sa.Integer, nullable=False),
    sa.Column("run_id", sa.String(64), nullable=True),
    sa.Column("step_key", sa.String(255), nullable=True),
    _created(),
    sa.CheckConstraint(_in("failure_class", FAILURE_CLASSES), name="failure_class"),
    sa.Index("ix_failures_project", "project_id", "id"),
)

imported_files = sa.Table(
    "imported_files",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("project_id", sa.Integer, sa.ForeignKey("projects.id"), nullable=False),
    sa.Column("sha256", sa.String(64), nullable=False),
    sa.Column("name", sa.Text, nullable=False),
    # What the import did (None for files imported before 0009): PRISMA's identification boxes, `agentr inbox`
    sa.Column("rows_read", sa.Integer, nullable=True),  # records parsed + rows dropped
    sa.Column("added", sa.Integer, nullable=True),
    sa.Column("duplicates", sa.Integer, nullable=True),  # of papers the project already had
    sa.Column("in_file_duplicates", sa.Integer, nullable=True),  # of another row of the same file
    sa.Column("dropped", sa.Integer, nullable=True),  # unusable rows (no title, invalid...)
    sa.Column("notes", JSONType, nullable=True),  # the first dropped rows, each "row N: reason"
    _created(),
    sa.UniqueConstraint("project_id", "sha256"),
)

# Relevance-feedback decisions (`agentr label`): one current label per (project, paper); a relabel updates it.
LABELS = ("include", "exclude")

paper_labels = sa.Table(
    "paper_labels",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("project_id", sa.Integer, sa.ForeignKey("projects.id"), nullable=False),
    sa.Column("paper_id", sa.Integer, sa.ForeignKey("papers.id"), nullable=False),
    sa.Column("label", sa.String(16), nullable=False),
    sa.Column("note", sa.Text, nullable=True),
    _created(),
    sa.Column("updated_at", UTCDateTime(), nullable=False),
    sa.CheckConstraint(_in("label", LABELS), name="label"),
    sa.UniqueConstraint("project_id", "paper_id"),
)

# One run per project: the holder of a project's lease is the only worker that runs its LLM stages. A holder
# beats ``heartbeat_at``; a lease is taken over only when that beat is stale or its process is gone (same host).
project_leases = sa.Table(
    "project_leases",
    metadata,
    sa.Column("project_id", sa.Integer, sa.ForeignKey("projects.id"), primary_key=True),
    sa.Column("holder", sa.String(200), nullable=False),
    sa.Column("host", sa.String(255), nullable=False),
    sa.Column("pid", sa.Integer, nullable=False),
    sa.Column("realm", sa.String(100), nullable=True),  # boot id + PID namespace: where ``pid`` can be asked about
    sa.Column("run_id", sa.String(64), nullable=True),
    sa.Column("acquired_at", UTCDateTime(), nullable=False),
    sa.Column("heartbeat_at", UTCDateTime(), nullable=False),
)

# A claim on one scoring cache key: no two workers call the model for the same paper, intent, prompt and model.
paper_claims = sa.Table(
    "paper_claims",
    metadata,
    sa.Column("cache_key", sa.String(255), primary_key=True),
    sa.Column("project_id", sa.Integer, sa.ForeignKey("projects.id"), nullable=False),
    sa.Column("paper_id", sa.Integer, sa.ForeignKey("papers.id"), nullable=False),
    sa.Column("holder", sa.String(200), nullable=False),
    sa.Column("host", sa.String(255), nullable=False),
    sa.Column("pid", sa.Integer, nullable=False),
    sa.Column("realm", sa.String(100), nullable=True),  # boot id + PID namespace: where ``pid`` can be asked about
    sa.Column("claimed_at", UTCDateTime(), nullable=False),
    sa.Column("heartbeat_at", UTCDateTime(), nullable=False),
    sa.Index("ix_paper_claims_holder", "holder"),
)

# A claim on one LLM request (the hash of model, messages, temperature and output cap): no two workers pay for
# the same request, whichever project asks; the second reads the answer the first put in the response cache.
request_claims = sa.Table(
    "request_claims",
    metadata,
    sa.Column("request_hash", sa.String(64), primary_key=True),
    sa.Column("stage", sa.String(32), nullable=False),
    sa.Column("holder", sa.String(200), nullable=False),
    sa.Column("host", sa.String(255), nullable=False),
    sa.Column("pid", sa.Integer, nullable=False),
    sa.Column("realm", sa.String(100), nullable=True),  # boot id + PID namespace: where ``pid`` can be asked about
    sa.Column("claimed_at", UTCDateTime(), nullable=False),
    sa.Column("heartbeat_at", UTCDateTime(), nullable=False),
    sa.Index("ix_request_claims_holder", "holder"),
)

# Calls the endpoint served (or may have served) that no project is charged for: the operator pays them. A fenced
# late answer (its holder had lost the claim) is priced from its usage; a timeout or a call in flight when its run
# died is priced at its reservation's hold (``priced_as = "bound"``: at most that).
WASTE_CAUSES = ("fenced_late_answer", "timeout", "killed")
operator_waste = sa.Table(
    "operator_waste",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("cause", sa.String(32), nullable=False),
    sa.Column("reservation_id", sa.Integer, sa.ForeignKey("reservations.id"), nullable=False, unique=True),
    sa.Column("project_id", sa.Integer, sa.ForeignKey("projects.id"), nullable=True),
    sa.Column("stage", sa.String(64), nullable=True),
    sa.Column("paper_id", sa.Integer, nullable=True),
    sa.Column("model", sa.String(200), nullable=True),
    sa.Column("input_tokens", sa.Integer, nullable=True),
    sa.Column("output_tokens", sa.Integer, nullable=True),
    sa.Column("cost_usd", Money(), nullable=True),
    sa.Column("credits", Money(), nullable=False),
    sa.Column("priced_as", sa.String(16), nullable=False),
    sa.Column("request_hash", sa.String(128), nullable=True),
    sa.Column("run_id", sa.String(64), nullable=True),
    sa.Column("holder", sa.String(200), nullable=True),
    _created(),
    sa.CheckConstraint(_in("cause", WASTE_CAUSES), name="cause"),
    sa.CheckConstraint(_in("priced_as", ("usage", "bound")), name="priced_as"),
)

# Search sources (issue 17): one row per (source, query) search a run sent, completed or failed; the latest
# completed row of a (source, query) is what the next run skips (or, in a living-review update, searches since).
SEARCH_STATUSES = ("completed", "failed")

source_searches = sa.Table(
    "source_searches",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("project_id", sa.Integer, sa.ForeignKey("projects.id"), nullable=False),
    sa.Column("source", sa.String(64), nullable=False),
    sa.Column("query_name", sa.String(255), nullable=False),
    sa.Column("query_hash", sa.String(64), nullable=False),  # of the project's query text: a new text searches anew
    sa.Column("translated", sa.Text, nullable=False),
    sa.Column("since", sa.Date, nullable=True),
    sa.Column("status", sa.String(16), nullable=False),
    sa.Column("hits", sa.Integer, nullable=False),
    sa.Column("new_papers", sa.Integer, nullable=False),
    sa.Column("requests", sa.Integer, nullable=False),
    sa.Column("total", sa.Integer, nullable=True),
    sa.Column("failure", sa.Text, nullable=True),
    sa.Column("update_id", sa.String(64), nullable=True),  # the living-review update it belongs to
    sa.Column("run_id", sa.String(64), nullable=True),
    _created(),
    sa.CheckConstraint(_in("status", SEARCH_STATUSES), name="status"),
    sa.Index("ix_source_searches_lookup", "project_id", "source", "query_name", "id"),
)

# Which search found which paper (`found_by`: ``openalex:string-03``, ``lake:boolean``, ``backward:12``): a paper
# found again by another source or query gains a row; the paper itself is never duplicated.
paper_sightings = sa.Table(
    "paper_sightings",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("project_id", sa.Integer, sa.ForeignKey("projects.id"), nullable=False),
    sa.Column("paper_id", sa.Integer, sa.ForeignKey("papers.id"), nullable=False),
    sa.Column("found_by", sa.String(255), nullable=False),
    sa.Column("source", sa.String(64), nullable=False),
    sa.Column("source_id", sa.String(255), nullable=True),
    sa.Column("rank", sa.Integer, nullable=True),
    sa.Column("update_id", sa.String(64), nullable=True),
    _created(),
    sa.UniqueConstraint("paper_id", "found_by"),
    sa.Index("ix_paper_sightings_project", "project_id", "paper_id"),
)

# Answers of the search sources (OpenAlex, PubMed, ...), keyed by source + normalised request: a repeated search
# sends no request. Overwritten only by a refresh (`agentr run --refresh-sources`).
source_responses = sa.Table(
    "source_responses",
    metadata,
    sa.Column("cache_key", sa.String(64), primary_key=True),
    sa.Column("source", sa.String(32), nullable=False),
    sa.Column("url", sa.Text, nullable=False),
    sa.Column("body", sa.Text, nullable=False),
    sa.Column("fetched_at", UTCDateTime(), nullable=False),
    sa.Index("ix_source_responses_source", "source"),
)

# The screening engine's relevance of each candidate (the `relevance` asset): replaced as a whole per project on
# every materialisation; ``input_hash`` fingerprints what it was computed from (question, papers, labels, engine).
paper_relevance = sa.Table(
    "paper_relevance",
    metadata,
    sa.Column("project_id", sa.Integer, sa.ForeignKey("projects.id"), primary_key=True),
    sa.Column("paper_id", sa.Integer, sa.ForeignKey("papers.id"), primary_key=True),
    sa.Column("score", sa.Float, nullable=False),
    sa.Column("rank", sa.Integer, nullable=False),
    sa.Column("method", sa.String(32), nullable=False),
    sa.Column("engine_version", sa.String(100), nullable=False),
    sa.Column("input_hash", sa.String(128), nullable=False),
    _created(),
)
