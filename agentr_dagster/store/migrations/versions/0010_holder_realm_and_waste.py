"""Holder identity that survives namespaces, and operator waste (issue 35).

- ``realm`` on project leases, paper claims and request claims: the holder's boot id and PID namespace. A pid is
  asked about only by a process of the same host and realm; every other holder is judged by its heartbeat alone.
  Rows written before this revision have no realm: they are judged by their heartbeat.
- ``operator_waste``: calls the endpoint served (or may have served) that no project is charged for: late answers
  refused by the settlement fence, timeouts, calls in flight when their run died.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-03

Frozen like 0001: no import of the application's schema module.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010"
down_revision: str | Sequence[str] | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

HOLDER_TABLES = ("project_leases", "paper_claims", "request_claims")


def _money() -> sa.Numeric:
    return sa.Numeric(precision=18, scale=8)


def upgrade() -> None:
    for table in HOLDER_TABLES:
        op.add_column(table, sa.Column("realm", sa.String(length=100), nullable=True))
    op.create_table(
        "operator_waste",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("cause", sa.String(length=32), nullable=False),
        sa.Column("reservation_id", sa.Integer(), nullable=False),
        sa.Column("project_id", sa.Integer(), nullable=True),
        sa.Column("stage", sa.String(length=64), nullable=True),
        sa.Column("paper_id", sa.Integer(), nullable=True),
        sa.Column("model", sa.String(length=200), nullable=True),
        sa.Column("input_tokens", sa.Integer(), nullable=True),
        sa.Column("output_tokens", sa.Integer(), nullable=True),
        sa.Column("cost_usd", _money(), nullable=True),
        sa.Column("credits", _money(), nullable=False),
        sa.Column("priced_as", sa.String(length=16), nullable=False),
        sa.Column("request_hash", sa.String(length=128), nullable=True),
        sa.Column("run_id", sa.String(length=64), nullable=True),
        sa.Column("holder", sa.String(length=200), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("cause IN ('fenced_late_answer', 'timeout', 'killed')",
                           name=op.f("ck_operator_waste_cause")),
        sa.CheckConstraint("priced_as IN ('usage', 'bound')", name=op.f("ck_operator_waste_priced_as")),
        sa.ForeignKeyConstraint(["project_id"], ["projects.id"], name=op.f("fk_operator_waste_project_id_projects")),
        sa.ForeignKeyConstraint(["reservation_id"], ["reservations.id"],
                                name=op.f("fk_operator_waste_reservation_id_reservations")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_operator_waste")),
        sa.UniqueConstraint("reservation_id", name=op.f("uq_operator_waste_reservation_id")),
    )


def downgrade() -> None:
    op.drop_table("operator_waste")
    for table in HOLDER_TABLES:
        with op.batch_alter_table(table) as batch:  # SQLite: the table is copied without the column
            batch.drop_column("realm")
