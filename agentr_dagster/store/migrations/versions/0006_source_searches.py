"""Search sources: every (source, query) search a project ran, and which search found which paper.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-01

Frozen like 0001: no import of the application's schema module.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | Sequence[str] | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "source_searches",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("project_id", sa.Integer(), nullable=False),
        sa.Column("source", sa.String(length=64), nullable=False),
        sa.Column("query_name", sa.String(length=255), nullable=False),
        sa.Column("query_hash", sa.String(length=64), nullable=False),
        sa.Column("translated", sa.Text(), nullable=False),
        sa.Column("since", sa.Date(), nullable=True),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("hits", sa.Integer(), nullable=False),
        sa.Column("new_papers", sa.Integer(), nullable=False),
        sa.Column("requests", sa.Integer(), nullable=False),
        sa.Column("total", sa.Integer(), nullable=True),
        sa.Column("failure", sa.Text(), nullable=True),
        sa.Column("update_id", sa.String(length=64), nullable=True),
        sa.Column("run_id", sa.String(length=64), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("status IN ('completed', 'failed')", name=op.f("ck_source_searches_status")),
        sa.ForeignKeyConstraint(["project_id"], ["projects.id"], name=op.f("fk_source_searches_project_id_projects")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_source_searches")),
    )
    op.create_index("ix_source_searches_lookup", "source_searches", ["project_id", "source", "query_name", "id"],
                    unique=False)
    op.create_table(
        "paper_sightings",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("project_id", sa.Integer(), nullable=False),
        sa.Column("paper_id", sa.Integer(), nullable=False),
        sa.Column("found_by", sa.String(length=255), nullable=False),
        sa.Column("source", sa.String(length=64), nullable=False),
        sa.Column("source_id", sa.String(length=255), nullable=True),
        sa.Column("rank", sa.Integer(), nullable=True),
        sa.Column("update_id", sa.String(length=64), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["paper_id"], ["papers.id"], name=op.f("fk_paper_sightings_paper_id_papers")),
        sa.ForeignKeyConstraint(["project_id"], ["projects.id"], name=op.f("fk_paper_sightings_project_id_projects")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_paper_sightings")),
        sa.UniqueConstraint("paper_id", "found_by", name=op.f("uq_paper_sightings_paper_id_found_by")),
    )
    op.create_index("ix_paper_sightings_project", "paper_sightings", ["project_id", "paper_id"], unique=False)


def downgrade() -> None:
    op.drop_index("ix_paper_sightings_project", table_name="paper_sightings")
    op.drop_table("paper_sightings")
    op.drop_index("ix_source_searches_lookup", table_name="source_searches")
    op.drop_table("source_searches")
