"""Statements of the per-call hot path (reserve, settle, response cache), built once with bind parameters.

Every scored paper runs these; building a SQLAlchemy statement and its cache key costs more Python time than
SQLite takes to execute it, and under many threads that time is serialised by the interpreter lock. A statement
object built once is compiled once and its cache key is memoised, so each execution only binds values.

Account and reservation row locks are ``FOR NO KEY UPDATE`` (``key_share=True``): what the lock protects is a
balance or a state, never a key, and this lock does not conflict with the ``KEY SHARE`` lock PostgreSQL takes on
a referenced row when a reservation, usage row or ledger entry is inserted (with ``FOR UPDATE``, a transaction
that inserted such a row and then asked for the referenced row's lock could deadlock with another doing the same).
"""

from __future__ import annotations

from functools import lru_cache

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite

from agentr_dagster.store import schema as t

_p, _m, _r = t.model_pricing, t.credit_multiplier, t.reservations
_at = sa.bindparam("at", type_=t.UTCDateTime())


def _in_force(table: sa.Table):
    return sa.and_(table.c.valid_from <= _at, sa.or_(table.c.valid_to.is_(None), table.c.valid_to > _at))


# The price used for charging (exact provider first, then the model's "default" provider) and the multiplier,
# both in force at :at, in one statement. Binds: model, providers (list), provider, tier, at.
RATES_AT = (
    sa.select(
        _m.c.id.label("m_id"),
        _m.c.credits_per_usd.label("m_credits_per_usd"),
        _m.c.valid_from.label("m_valid_from"),
        _m.c.valid_to.label("m_valid_to"),
        _p,
    )
    .select_from(
        _m.outerjoin(
            _p,
            sa.and_(
                _p.c.model == sa.bindparam("model"),
                _p.c.provider.in_(sa.bindparam("providers", expanding=True)),
                _p.c.tier == sa.bindparam("tier"),
                _in_force(_p),
            ),
        )
    )
    .where(_in_force(_m))
    .order_by(_m.c.valid_from.desc(), (_p.c.provider == sa.bindparam("provider")).desc(), _p.c.valid_from.desc())
    .limit(1)
)

PROJECT_BY_SLUG = sa.select(t.projects).where(t.projects.c.slug == sa.bindparam("slug"))
# A budgeted project's reserves hold it FOR UPDATE (not NO KEY UPDATE): that also holds back settlements that
# insert usage for the project (their foreign-key check) until the budget decision is committed.
PROJECT_BY_SLUG_FOR_UPDATE = PROJECT_BY_SLUG.with_for_update()
PAPER_OWNER = sa.select(t.papers.c.id, t.papers.c.project_id, t.papers.c.deleted_at).where(
    t.papers.c.id == sa.bindparam("paper_id")
)
ACCOUNT_BALANCE_FOR_UPDATE = (
    sa.select(t.accounts.c.balance).where(t.accounts.c.id == sa.bindparam("account_id")).with_for_update(key_share=True)
)
SET_BALANCE = (
    sa.update(t.accounts)
    .where(t.accounts.c.id == sa.bindparam("account_id"))
    .values(balance=sa.bindparam("new_balance"))
)
INSERT_ENTRY = sa.insert(t.ledger_entries)
RESERVATION_BY_KEY = sa.select(_r.c.id).where(_r.c.idempotency_key == sa.bindparam("key"))
RESERVATION_FOR_UPDATE = sa.select(_r).where(_r.c.id == sa.bindparam("reservation_id")).with_for_update(key_share=True)
CLOSE_RESERVATION = (
    sa.update(_r)
    .where(_r.c.id == sa.bindparam("reservation_id"))
    .values(state=sa.bindparam("new_state"), closed_at=sa.bindparam("closed"))
)
INSERT_USAGE = sa.insert(t.usage_log).returning(t.usage_log.c.id)
USAGE_OF_RESERVATION = sa.select(t.usage_log.c.id).where(t.usage_log.c.reservation_id == sa.bindparam("reservation_id"))
CACHED_RESPONSE = sa.select(t.response_cache.c.content).where(
    t.response_cache.c.request_hash == sa.bindparam("request_hash")
)


@lru_cache(maxsize=4)
def insert_reservation(dialect: str):
    """A new reservation's id, or no row if one with the same idempotency key exists (a concurrent retry)."""
    insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
    return insert(_r).on_conflict_do_nothing(index_elements=["idempotency_key"]).returning(_r.c.id)


@lru_cache(maxsize=4)
def insert_response(dialect: str):
    """Insert-if-absent into the response cache: the first stored answer for a request hash wins."""
    insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
    return insert(t.response_cache).on_conflict_do_nothing(index_elements=["request_hash"])
