"""What each file import did, kept with the record of the file: rows read, papers added, duplicates (of rows in
the same file, and of papers the project already had), rows dropped as unusable, and the first notes naming them.
PRISMA's identification boxes count these; `agentr inbox` explains a dropped row from them.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-03

Frozen like 0001: no import of the application's schema module. Nullable: files imported before hold no counts.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | Sequence[str] | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

COUNTS = ("rows_read", "added", "duplicates", "in_file_duplicates", "dropped")


def upgrade() -> None:
    with op.batch_alter_table("imported_files") as batch:
        for name in COUNTS:
            batch.add_column(sa.Column(name, sa.Integer(), nullable=True))
        batch.add_column(sa.Column("notes", sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("imported_files") as batch:
        for name in (*COUNTS, "notes"):
            batch.drop_column(name)
