"""Relevance-feedback labels: one include/exclude decision per (project, paper).

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-30

Frozen like 0001: no import of the application's schema module.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | Sequence[str] | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "paper_labels",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("project_id", sa.Integer(), nullable=False),
        sa.Column("paper_id", sa.Integer(), nullable=False),
        sa.Column("label", sa.String(length=16), nullable=False),
        sa.Column("note", sa.Text(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("label IN ('include', 'exclude')", name=op.f("ck_paper_labels_label")),
        sa.ForeignKeyConstraint(["paper_id"], ["papers.id"], name=op.f("fk_paper_labels_paper_id_papers")),
        sa.ForeignKeyConstraint(["project_id"], ["projects.id"], name=op.f("fk_paper_labels_project_id_projects")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_paper_labels")),
        sa.UniqueConstraint("project_id", "paper_id", name=op.f("uq_paper_labels_project_id_paper_id")),
    )


def downgrade() -> None:
    op.drop_table("paper_labels")
