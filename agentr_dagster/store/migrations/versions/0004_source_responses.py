"""The search sources' response cache (``source_responses``).

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01

Frozen like 0001: no import of the application's schema module.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | Sequence[str] | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "source_responses",
        sa.Column("cache_key", sa.String(length=64), nullable=False),
        sa.Column("source", sa.String(length=32), nullable=False),
        sa.Column("url", sa.Text(), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("fetched_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("cache_key", name=op.f("pk_source_responses")),
    )
    op.create_index("ix_source_responses_source", "source_responses", ["source"], unique=False)


def downgrade() -> None:
    op.drop_index("ix_source_responses_source", table_name="source_responses")
    op.drop_table("source_responses")
