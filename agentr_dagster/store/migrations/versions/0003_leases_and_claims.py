"""One run per project: project leases and per-paper claims; the run that took each reservation.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-02

Frozen like 0001: no import of the application's schema module.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | Sequence[str] | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "project_leases",
        sa.Column("project_id", sa.Integer(), nullable=False),
        sa.Column("holder", sa.String(length=200), nullable=False),
        sa.Column("host", sa.String(length=255), nullable=False),
        sa.Column("pid", sa.Integer(), nullable=False),
        sa.Column("run_id", sa.String(length=64), nullable=True),
        sa.Column("acquired_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("heartbeat_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["project_id"], ["projects.id"], name=op.f("fk_project_leases_project_id_projects")),
        sa.PrimaryKeyConstraint("project_id", name=op.f("pk_project_leases")),
    )
    op.create_table(
        "paper_claims",
        sa.Column("cache_key", sa.String(length=255), nullable=False),
        sa.Column("project_id", sa.Integer(), nullable=False),
        sa.Column("paper_id", sa.Integer(), nullable=False),
        sa.Column("holder", sa.String(length=200), nullable=False),
        sa.Column("host", sa.String(length=255), nullable=False),
        sa.Column("pid", sa.Integer(), nullable=False),
        sa.Column("claimed_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("heartbeat_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["paper_id"], ["papers.id"], name=op.f("fk_paper_claims_paper_id_papers")),
        sa.ForeignKeyConstraint(["project_id"], ["projects.id"], name=op.f("fk_paper_claims_project_id_projects")),
        sa.PrimaryKeyConstraint("cache_key", name=op.f("pk_paper_claims")),
    )
    op.create_index("ix_paper_claims_holder", "paper_claims", ["holder"], unique=False)
    op.add_column("reservations", sa.Column("run_id", sa.String(length=64), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("reservations") as batch:
        batch.drop_column("run_id")
    op.drop_index("ix_paper_claims_holder", table_name="paper_claims")
    op.drop_table("paper_claims")
    op.drop_table("project_leases")
