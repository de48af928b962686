"""``store.rows.from_row``: the one way the store turns a result row into its value (rows from in-memory SQLite)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timezone
from decimal import Decimal

import pytest
import sqlalchemy as sa

from agentr_dagster.store import schema as t
from agentr_dagster.store.rows import MultiplierRow, StatusRow, from_row


@dataclass(frozen=True)
class _Value:
    id: int
    name: str
    amount: Decimal
    at: datetime
    tags: dict[str, int] = field(default_factory=dict)


@pytest.fixture
def conn() -> Iterator[sa.Connection]:
    engine = sa.create_engine("sqlite://")
    with engine.connect() as c:
        yield c
    engine.dispose()


def _row(conn: sa.Connection, **columns) -> sa.Row:
    """One row whose columns have the store's types: money as Money, times as UTCDateTime."""

    def typed(name: str):
        if name in ("amount", "m_credits_per_usd"):
            return t.Money()
        return t.UTCDateTime() if name == "at" or name.endswith(("valid_from", "valid_to", "_at")) else None

    return conn.execute(sa.select(*(sa.literal(v, typed(k)).label(k) for k, v in columns.items()))).one()


def test_fields_come_from_same_named_columns_as_their_types_return_them(conn):
    naive = datetime(2026, 1, 2, 3, 4, 5)
    row = _row(conn, id=7, name="a", amount=Decimal("1.5"), at=naive, extra="ignored")
    value = from_row(_Value, row)
    assert value == _Value(7, "a", Decimal("1.50000000"), naive.replace(tzinfo=timezone.utc))
    assert str(value.amount) == "1.50000000"  # Money's 8 places, not the literal's
    assert value.at.tzinfo is timezone.utc  # SQLite's naive text comes back aware


def test_given_values_win_and_fill_fields_the_row_lacks(conn):
    row = _row(conn, id=7, amount=Decimal("1"), at=datetime(2026, 1, 1))
    value = from_row(_Value, row, name="given", tags={"x": 1})
    assert (value.name, value.tags) == ("given", {"x": 1})
    assert from_row(_Value, _row(conn, id=1, name="row", amount=1, at=datetime(2026, 1, 1)), name="n").name == "n"


def test_a_missing_column_without_a_default_raises(conn):
    with pytest.raises(KeyError):
        from_row(_Value, _row(conn, id=7, amount=Decimal("1"), at=datetime(2026, 1, 1)))


def test_a_defaulted_field_missing_from_the_row_takes_a_fresh_default(conn):
    row = _row(conn, id=7, name="a", amount=Decimal("1"), at=datetime(2026, 1, 1))
    first, second = from_row(_Value, row), from_row(_Value, row)
    assert first.tags == {} and first.tags is not second.tags
    status = from_row(StatusRow, _row(conn, project_id=1, slug="s", stage="x", state=None, detail=None, run_id=None,
                                      updated_at=None))
    assert status.paper_counts == {}


def test_prefix_reads_labelled_columns(conn):
    at = datetime(2026, 1, 1, tzinfo=timezone.utc)
    row = _row(conn, id=99, m_id=3, m_credits_per_usd=1000, m_valid_from=at, m_valid_to=None)
    multiplier = from_row(MultiplierRow, row, prefix="m_")
    assert multiplier == MultiplierRow(3, Decimal("1000"), at, None)
    assert str(multiplier.credits_per_usd) == "1000.00000000"
