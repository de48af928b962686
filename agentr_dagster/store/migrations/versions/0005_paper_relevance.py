"""Relevance from the screening engine: one score and rank per (project, paper), with the engine's version.

Revision ID: 0005
Revises: 0003
Create Date: 2026-12-01

Frozen like 0001: no import of the application's schema module.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | Sequence[str] | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "paper_relevance",
        sa.Column("project_id", sa.Integer(), nullable=False),
        sa.Column("paper_id", sa.Integer(), nullable=False),
        sa.Column("score", sa.Float(), nullable=False),
        sa.Column("rank", sa.Integer(), nullable=False),
        sa.Column("method", sa.String(length=32), nullable=False),
        sa.Column("engine_version", sa.String(length=100), nullable=False),
        sa.Column("input_hash", sa.String(length=128), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["paper_id"], ["papers.id"], name=op.f("fk_paper_relevance_paper_id_papers")),
        sa.ForeignKeyConstraint(["project_id"], ["projects.id"], name=op.f("fk_paper_relevance_project_id_projects")),
        sa.PrimaryKeyConstraint("project_id", "paper_id", name=op.f("pk_paper_relevance")),
    )


def downgrade() -> None:
    op.drop_table("paper_relevance")
