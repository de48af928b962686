"""Initial schema of the domain store, with the seeded money defaults.

Revision ID: 0001
Revises:
Create Date: 2026-11-30

Frozen on purpose: this file does not import the application's schema module (a later change to
``agentr_dagster.store.schema`` must come with a new revision). Seeds: 1000 credits per USD and 1000 default
credits per new account, both valid from 1970-01-01 UTC (so they are in force at any ``at``).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timezone
from typing import Any

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | Sequence[str] | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

STATES = (
    "not_started",
    "queued",
    "in_progress",
    "completed",
    "failed_transient",
    "failed_no_credits",
    "failed_orphan",
    "failed_other",
    "reinitiated",
)
LEDGER_KINDS = ("grant", "reserve", "settle", "release", "adjust")
RESERVATION_STATES = ("open", "settled", "released")
FAILURE_CLASSES = ("transient", "no_credits", "orphan", "permanent", "other")
SEED_FROM = datetime(1970, 1, 1, tzinfo=timezone.utc)
# Dialect keyword arguments of create_index/drop_index (their **kw).
CURRENT_ONLY: dict[str, Any] = {"sqlite_where": sa.text("is_current"), "postgresql_where": sa.text("is_current")}


def MONEY() -> sa.Numeric:
    return sa.Numeric(precision=18, scale=8)


def TS() -> sa.DateTime:
    return sa.DateTime(timezone=True)


def JSON() -> sa.types.TypeEngine:
    return sa.JSON()


def _in(column: str, values: tuple[str, ...]) -> str:
    return f"{column} IN ({', '.join(repr(v) for v in values)})"


def upgrade() -> None:
    op.create_table(
        "accounts",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("balance", MONEY(), nullable=False),
        sa.Column("created_at", TS(), nullable=False),
        sa.CheckConstraint("balance >= 0", name=op.f("ck_accounts_balance_non_negative")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_accounts")),
        sa.UniqueConstraint("name", name=op.f("uq_accounts_name")),
    )
    op.create_table(
        "credit_multiplier",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("credits_per_usd", MONEY(), nullable=False),
        sa.Column("valid_from", TS(), nullable=False),
        sa.Column("valid_to", TS(), nullable=True),
        sa.Column("is_current", sa.Boolean(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_credit_multiplier")),
    )
    op.create_index("uq_credit_multiplier_current", "credit_multiplier", ["is_current"], unique=True, **CURRENT_ONLY)
    op.create_table(
        "default_credits",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("amount", MONEY(), nullable=False),
        sa.Column("valid_from", TS(), nullable=False),
        sa.Column("valid_to", TS(), nullable=True),
        sa.Column("is_current", sa.Boolean(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_default_credits")),
    )
    op.create_index("uq_default_credits_current", "default_credits", ["is_current"], unique=True, **CURRENT_ONLY)
    op.create_table(
        "model_pricing",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("model", sa.String(length=200), nullable=False),
        sa.Column("provider", sa.String(length=100), nullable=False),
        sa.Column("tier", sa.String(length=50), nullable=False),
        sa.Column("input_usd_per_m", MONEY(), nullable=False),
        sa.Column("output_usd_per_m", MONEY(), nullable=False),
        sa.Column("cached_input_usd_per_m", MONEY(), nullable=True),
        sa.Column("valid_from", TS(), nullable=False),
        sa.Column("valid_to", TS(), nullable=True),
        sa.Column("is_current", sa.Boolean(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_model_pricing")),
    )
    op.create_index(
        "ix_model_pricing_lookup", "model_pricing", ["model", "provider", "tier", "valid_from"], unique=False
    )
    op.create_index(
        "uq_model_pricing_current",
        "model_pricing",
        ["model", "provider", "tier"],
        unique=True,
        **CURRENT_ONLY,
    )
    op.create_table(
        "response_cache",
        sa.Column("request_hash", sa.String(length=128), nullable=False),
        sa.Column("content", sa.Text(), nullable=False),
        sa.Column("created_at", TS(), nullable=False),
        sa.PrimaryKeyConstraint("request_hash", name=op.f("pk_response_cache")),
    )
    op.create_table(
        "projects",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("slug", sa.String(length=64), nullable=False),
        sa.Column("title", sa.Text(), nullable=True),
        sa.Column("abstract", sa.Text(), nullable=False),
        sa.Column("account_id", sa.Integer(), nullable=False),
        sa.Column("budget_credits", MONEY(), nullable=True),
        sa.Column("created_at", TS(), nullable=False),
        sa.Column("updated_at", TS(), nullable=False),
        sa.Column("deleted_at", TS(), nullable=True),
        sa.ForeignKeyConstraint(["account_id"], ["accounts.id"], name=op.f("fk_projects_account_id_accounts")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_projects")),
        sa.UniqueConstraint("slug", name=op.f("uq_projects_slug")),
    )
    op.create_table(
        "artifacts",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("project_id", sa.Integer(), nullable=False),
        sa.Column("stage", sa.String(length=64), nullable=False),
        sa.Column("payload", JSON(), nullable=False),
        sa.Column("prompt_version", sa.String(length=100), nullable=True),
        sa.Column("model", sa.String(length=200), nullable=True),
        sa.Column("backend", sa.String(length=100), nullable=True),
        sa.Column("input_hash", sa.String(length=128), nullable=True),
        sa.Column("created_at", TS(), nullable=False),
        sa.ForeignKeyConstraint(["project_id"], ["projects.id"], name=op.f("fk_artifacts_project_id_projects")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_artifacts")),
    )
    op.create_index("ix_artifacts_project_stage", "artifacts", ["project_id", "stage", "id"], unique=False)
    op.create_table(
        "failures",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("project_id", sa.Integer(), nullable=False),
        sa.Column("paper_id", sa.Integer(), nullable=True),
        sa.Column("stage", sa.String(length=64), nullable=False),
        sa.Column("failure_class", sa.String(length=32), nullable=False),
        sa.Column("message", sa.Text(), nullable=False),
        sa.Column("attempt", sa.Integer(), nullable=False),
        sa.Column("run_id", sa.String(length=64), nullable=True),
        sa.Column("step_key", sa.String(length=255), nullable=True),
        sa.Column("created_at", TS(), nullable=False),
        sa.CheckConstraint(_in("failure_class", FAILURE_CLASSES), name=op.f("ck_failures_failure_class")),
        sa.ForeignKeyConstraint(["project_id"], ["projects.id"], name=op.f("fk_failures_project_id_projects")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_failures")),
    )
    op.create_index("ix_failures_project", "failures", ["project_id", "id"], unique=False)
    op.create_table(
        "imported_files",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("project_id", sa.Integer(), nullable=False),
        sa.Column("sha256", sa.String(length=64), nullable=False),
        sa.Column("name", sa.Text(), nullable=False),
        sa.Column("created_at", TS(), nullable=False),
        sa.ForeignKeyConstraint(["project_id"], ["projects.id"], name=op.f("fk_imported_files_project_id_projects")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_imported_files")),
        sa.UniqueConstraint("project_id", "sha256", name=op.f("uq_imported_files_project_id_sha256")),
    )
    op.create_table(
        "papers",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("project_id", sa.Integer(), nullable=False),
        sa.Column("paper_key", sa.String(length=255), nullable=False),
        sa.Column("content_hash", sa.String(length=128), nullable=False),
        sa.Column("title", sa.Text(), nullable=False),
        sa.Column("abstract", sa.Text(), nullable=False),
        sa.Column("year", sa.Integer(), nullable=True),
        sa.Column("doi", sa.String(length=255), nullable=True),
        sa.Column("authors", JSON(), nullable=False),
        sa.Column("venue", sa.Text(), nullable=True),
        sa.Column("url", sa.Text(), nullable=True),
        sa.Column("source_id", sa.String(length=255), nullable=True),
        sa.Column("provenance", JSON(), nullable=False),
        sa.Column("created_at", TS(), nullable=False),
        sa.Column("deleted_at", TS(), nullable=True),
        sa.ForeignKeyConstraint(["project_id"], ["projects.id"], name=op.f("fk_papers_project_id_projects")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_papers")),
        sa.UniqueConstraint("project_id", "paper_key", name=op.f("uq_papers_project_id_paper_key")),
    )
    op.create_table(
        "reservations",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("account_id", sa.Integer(), nullable=False),
        sa.Column("project_id", sa.Integer(), nullable=True),
        sa.Column("stage", sa.String(length=64), nullable=True),
        sa.Column("paper_id", sa.Integer(), nullable=True),
        sa.Column("amount", MONEY(), nullable=False),
        sa.Column("state", sa.String(length=16), nullable=False),
        sa.Column("idempotency_key", sa.String(length=255), nullable=False),
        sa.Column("created_at", TS(), nullable=False),
        sa.Column("closed_at", TS(), nullable=True),
        sa.CheckConstraint(_in("state", RESERVATION_STATES), name=op.f("ck_reservations_state")),
        sa.CheckConstraint("amount >= 0", name=op.f("ck_reservations_amount_non_negative")),
        sa.ForeignKeyConstraint(["account_id"], ["accounts.id"], name=op.f("fk_reservations_account_id_accounts")),
        sa.ForeignKeyConstraint(["project_id"], ["projects.id"], name=op.f("fk_reservations_project_id_projects")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_reservations")),
        sa.UniqueConstraint("idempotency_key", name=op.f("uq_reservations_idempotency_key")),
    )
    op.create_index("ix_reservations_project_state", "reservations", ["project_id", "state"], unique=False)
    op.create_index("ix_reservations_state_created", "reservations", ["state", "created_at"], unique=False)
    op.create_table(
        "stage_status",
        sa.Column("project_id", sa.Integer(), nullable=False),
        sa.Column("stage", sa.String(length=64), nullable=False),
        sa.Column("paper_id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("state", sa.String(length=32), nullable=False),
        sa.Column("detail", sa.Text(), nullable=True),
        sa.Column("run_id", sa.String(length=64), nullable=True),
        sa.Column("updated_at", TS(), nullable=False),
        sa.CheckConstraint(_in("state", STATES), name=op.f("ck_stage_status_state")),
        sa.ForeignKeyConstraint(["project_id"], ["projects.id"], name=op.f("fk_stage_status_project_id_projects")),
        sa.PrimaryKeyConstraint("project_id", "stage", "paper_id", name=op.f("pk_stage_status")),
    )
    op.create_table(
        "status_transitions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("project_id", sa.Integer(), nullable=False),
        sa.Column("stage", sa.String(length=64), nullable=False),
        sa.Column("paper_id", sa.Integer(), nullable=True),
        sa.Column("state", sa.String(length=32), nullable=False),
        sa.Column("detail", sa.Text(), nullable=True),
        sa.Column("run_id", sa.String(length=64), nullable=True),
        sa.Column("created_at", TS(), nullable=False),
        sa.CheckConstraint(_in("state", STATES), name=op.f("ck_status_transitions_state")),
        sa.ForeignKeyConstraint(
            ["project_id"], ["projects.id"], name=op.f("fk_status_transitions_project_id_projects")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_status_transitions")),
    )
    op.create_index(
        "ix_status_transitions_lookup",
        "status_transitions",
        ["project_id", "stage", "paper_id"],
        unique=False,
    )
    op.create_table(
        "paper_results",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("project_id", sa.Integer(), nullable=False),
        sa.Column("paper_id", sa.Integer(), nullable=False),
        sa.Column("cache_key", sa.String(length=255), nullable=False),
        sa.Column("payload", JSON(), nullable=False),
        sa.Column("prompt_version", sa.String(length=100), nullable=True),
        sa.Column("model", sa.String(length=200), nullable=True),
        sa.Column("backend", sa.String(length=100), nullable=True),
        sa.Column("created_at", TS(), nullable=False),
        sa.ForeignKeyConstraint(["paper_id"], ["papers.id"], name=op.f("fk_paper_results_paper_id_papers")),
        sa.ForeignKeyConstraint(["project_id"], ["projects.id"], name=op.f("fk_paper_results_project_id_projects")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_paper_results")),
        sa.UniqueConstraint("paper_id", "cache_key", name=op.f("uq_paper_results_paper_id_cache_key")),
    )
    op.create_index("ix_paper_results_project", "paper_results", ["project_id", "paper_id"], unique=False)
    op.create_table(
        "usage_log",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("project_id", sa.Integer(), nullable=True),
        sa.Column("stage", sa.String(length=64), nullable=True),
        sa.Column("paper_id", sa.Integer(), nullable=True),
        sa.Column("model", sa.String(length=200), nullable=False),
        sa.Column("provider", sa.String(length=100), nullable=False),
        sa.Column("input_tokens", sa.Integer(), nullable=False),
        sa.Column("output_tokens", sa.Integer(), nullable=False),
        sa.Column("cached_input_tokens", sa.Integer(), nullable=False),
        sa.Column("cost_usd", MONEY(), nullable=False),
        sa.Column("credits", MONEY(), nullable=False),
        sa.Column("pricing_id", sa.Integer(), nullable=True),
        sa.Column("multiplier_id", sa.Integer(), nullable=False),
        sa.Column("latency_ms", sa.Integer(), nullable=True),
        sa.Column("request_hash", sa.String(length=128), nullable=True),
        sa.Column("run_id", sa.String(length=64), nullable=True),
        sa.Column("reservation_id", sa.Integer(), nullable=True),
        sa.Column("created_at", TS(), nullable=False),
        sa.ForeignKeyConstraint(
            ["multiplier_id"],
            ["credit_multiplier.id"],
            name=op.f("fk_usage_log_multiplier_id_credit_multiplier"),
        ),
        sa.ForeignKeyConstraint(
            ["pricing_id"], ["model_pricing.id"], name=op.f("fk_usage_log_pricing_id_model_pricing")
        ),
        sa.ForeignKeyConstraint(["project_id"], ["projects.id"], name=op.f("fk_usage_log_project_id_projects")),
        sa.ForeignKeyConstraint(
            ["reservation_id"], ["reservations.id"], name=op.f("fk_usage_log_reservation_id_reservations")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_usage_log")),
        sa.UniqueConstraint("reservation_id", name=op.f("uq_usage_log_reservation_id")),
    )
    op.create_index("ix_usage_log_project", "usage_log", ["project_id", "created_at"], unique=False)
    op.create_table(
        "ledger_entries",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("account_id", sa.Integer(), nullable=False),
        sa.Column("amount", MONEY(), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("idempotency_key", sa.String(length=255), nullable=False),
        sa.Column("reservation_id", sa.Integer(), nullable=True),
        sa.Column("usage_id", sa.Integer(), nullable=True),
        sa.Column("note", sa.Text(), nullable=False),
        sa.Column("created_at", TS(), nullable=False),
        sa.CheckConstraint(_in("kind", LEDGER_KINDS), name=op.f("ck_ledger_entries_kind")),
        sa.ForeignKeyConstraint(["account_id"], ["accounts.id"], name=op.f("fk_ledger_entries_account_id_accounts")),
        sa.ForeignKeyConstraint(
            ["reservation_id"],
            ["reservations.id"],
            name=op.f("fk_ledger_entries_reservation_id_reservations"),
        ),
        sa.ForeignKeyConstraint(["usage_id"], ["usage_log.id"], name=op.f("fk_ledger_entries_usage_id_usage_log")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_ledger_entries")),
        sa.UniqueConstraint("idempotency_key", name=op.f("uq_ledger_entries_idempotency_key")),
    )
    op.create_index("ix_ledger_entries_account", "ledger_entries", ["account_id", "id"], unique=False)
    op.create_index("ix_ledger_entries_reservation", "ledger_entries", ["reservation_id"], unique=False)

    seed_multiplier = sa.table(
        "credit_multiplier",
        sa.column("credits_per_usd", MONEY()),
        sa.column("valid_from", TS()),
        sa.column("valid_to", TS()),
        sa.column("is_current", sa.Boolean()),
    )
    op.bulk_insert(
        seed_multiplier,
        [{"credits_per_usd": 1000, "valid_from": SEED_FROM, "valid_to": None, "is_current": True}],
    )
    seed_default_credits = sa.table(
        "default_credits",
        sa.column("amount", MONEY()),
        sa.column("valid_from", TS()),
        sa.column("valid_to", TS()),
        sa.column("is_current", sa.Boolean()),
    )
    op.bulk_insert(
        seed_default_credits,
        [{"amount": 1000, "valid_from": SEED_FROM, "valid_to": None, "is_current": True}],
    )


def downgrade() -> None:
    op.drop_index("ix_ledger_entries_reservation", table_name="ledger_entries")
    op.drop_index("ix_ledger_entries_account", table_name="ledger_entries")
    op.drop_table("ledger_entries")
    op.drop_index("ix_usage_log_project", table_name="usage_log")
    op.drop_table("usage_log")
    op.drop_index("ix_paper_results_project", table_name="paper_results")
    op.drop_table("paper_results")
    op.drop_index("ix_status_transitions_lookup", table_name="status_transitions")
    op.drop_table("status_transitions")
    op.drop_table("stage_status")
    op.drop_index("ix_reservations_state_created", table_name="reservations")
    op.drop_index("ix_reservations_project_state", table_name="reservations")
    op.drop_table("reservations")
    op.drop_table("papers")
    op.drop_table("imported_files")
    op.drop_index("ix_failures_project", table_name="failures")
    op.drop_table("failures")
    op.drop_index("ix_artifacts_project_stage", table_name="artifacts")
    op.drop_table("artifacts")
    op.drop_table("projects")
    op.drop_table("response_cache")
    op.drop_index("uq_model_pricing_current", table_name="model_pricing", **CURRENT_ONLY)
    op.drop_index("ix_model_pricing_lookup", table_name="model_pricing")
    op.drop_table("model_pricing")
    op.drop_index("uq_default_credits_current", table_name="default_credits", **CURRENT_ONLY)
    op.drop_table("default_credits")
    op.drop_index("uq_credit_multiplier_current", table_name="credit_multiplier", **CURRENT_ONLY)
    op.drop_table("credit_multiplier")
    op.drop_table("accounts")
