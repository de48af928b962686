"""The failure class ``invalid_output`` (the model answered, but the answer never validated after one repair), and
an index to count a request's answered calls (the one cap on paid attempts, ``store/attempts.py``).

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-01

Frozen like 0001: no import of the application's schema module.
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0008"
down_revision: str | Sequence[str] | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

OLD = ("transient", "no_credits", "orphan", "permanent", "other")
NEW = (*OLD, "invalid_output")


def _in(classes: tuple[str, ...]) -> str:
    return "failure_class IN (" + ", ".join(f"'{c}'" for c in classes) + ")"


def _replace(classes: tuple[str, ...]) -> None:
    with op.batch_alter_table("failures") as batch:  # SQLite: the table is copied with the new constraint
        batch.drop_constraint(op.f("ck_failures_failure_class"), type_="check")
        batch.create_check_constraint(op.f("ck_failures_failure_class"), _in(classes))


def upgrade() -> None:
    _replace(NEW)
    op.create_index("ix_usage_log_request_hash", "usage_log", ["request_hash"], unique=False)


def downgrade() -> None:
    op.drop_index("ix_usage_log_request_hash", table_name="usage_log")
    op.execute("UPDATE failures SET failure_class = 'other' WHERE failure_class = 'invalid_output'")
    _replace(OLD)
