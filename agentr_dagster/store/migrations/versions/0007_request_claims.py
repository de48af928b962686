"""Per-request claims: one LLM request is paid once, whichever project asks it (issue 25).

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-01

Frozen like 0001: no import of the application's schema module.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | Sequence[str] | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "request_claims",
        sa.Column("request_hash", sa.String(length=64), nullable=False),
        sa.Column("stage", sa.String(length=32), nullable=False),
        sa.Column("holder", sa.String(length=200), nullable=False),
        sa.Column("host", sa.String(length=255), nullable=False),
        sa.Column("pid", sa.Integer(), nullable=False),
        sa.Column("claimed_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("heartbeat_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("request_hash", name=op.f("pk_request_claims")),
    )
    op.create_index("ix_request_claims_holder", "request_claims", ["holder"], unique=False)


def downgrade() -> None:
    op.drop_index("ix_request_claims_holder", table_name="request_claims")
    op.drop_table("request_claims")
