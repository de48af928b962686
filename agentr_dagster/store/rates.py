"""SCD-2 history of what calls cost: model prices, the USD→credits multiplier and the default signup credits
(``store.ledger`` inherits these methods; split from ``ledger.py``, which keeps accounts, reservations, settlement
and usage). Every change closes the current row and opens the new one in one transaction under a lock per history;
a back-dated change may not re-price what already happened.
"""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from agentr_dagster.domain import pricing as cost_rule
from agentr_dagster.store import hot
from agentr_dagster.store import schema as t
from agentr_dagster.store.database import Database, as_utc, now_utc
from agentr_dagster.store.rows import DefaultCreditsRow, MultiplierRow, PricingRow, StoreError, from_row

_LOCK_PRICING = 0x4147_4E54_5231
_LOCK_MULTIPLIER = 0x4147_4E54_5232
_LOCK_DEFAULT_CREDITS = 0x4147_4E54_5233


def _money(value: object) -> Decimal:
    return cost_rule.quantize(value)


def _in_force(table: sa.Table, at: datetime):
    return sa.and_(table.c.valid_from <= at, sa.or_(table.c.valid_to.is_(None), table.c.valid_to > at))


class Rates:
    """Prices, multiplier and default credits with their history (the SCD-2 part of ``store.ledger``)."""

    db: Database

    # -- SCD-2 history ----------------------------------------------------------------------------------------

    def _scd2_set(self, table: sa.Table, lock_key: int, match: dict, values: dict, at: datetime | None) -> int:
        """Close the current row and open the new one in one transaction, under a lock per history."""
        given = None if at is None else as_utc(at)

        def tx(conn: Connection) -> int:
            self.db.advisory_lock(conn, lock_key)
            # "now" is read under the lock: two concurrent changes then always move history forward
            at = given if given is not None else now_utc()
            where = [table.c.is_current.is_(True)] + [table.c[k] == v for k, v in match.items()]
            current = conn.execute(sa.select(table.c.id, table.c.valid_from).where(*where)).first()
            if current is not None:
                if at <= current.valid_from:
                    raise StoreError(
                        f"{table.name}: a change must start after the current row's valid_from "
                        f"({current.valid_from.isoformat()}), got {at.isoformat()}"
                    )
                if given is not None:
                    self._refuse_rewriting_history(conn, table, current.id, at)
                conn.execute(sa.update(table).where(table.c.id == current.id).values(valid_to=at, is_current=False))
            elif given is not None and table is t.model_pricing:
                # a first price back-dated over calls already recorded as unpriced (charged nothing)
                u = t.usage_log
                unpriced = conn.execute(
                    sa.select(sa.func.count()).where(
                        u.c.model == match["model"], u.c.pricing_id.is_(None), u.c.created_at >= at
                    )
                ).scalar()
                if unpriced:
                    raise StoreError(
                        f"model_pricing: a first price for {match['model']!r} back-dated to {at.isoformat()} "
                        f"would rewrite history: {unpriced} calls since then were recorded without a price"
                    )
            return conn.execute(
                sa.insert(table)
                .values(**match, **values, valid_from=at, valid_to=None, is_current=True)
                .returning(table.c.id)
            ).scalar_one()

        return self.db.run(tx)

    def _refuse_rewriting_history(self, conn: Connection, table: sa.Table, current_id: int, at: datetime) -> None:
        """A back-dated change must not re-price what already happened: no call priced by the row being closed
        (nor any call still in flight) and, for default credits, no account created may lie at or after ``at``."""
        u, r = t.usage_log, t.reservations
        if table is t.default_credits:
            later = conn.execute(sa.select(sa.func.count()).where(t.accounts.c.created_at >= at)).scalar()
            what = "accounts were created"
        else:
            column = u.c.pricing_id if table is t.model_pricing else u.c.multiplier_id
            later = conn.execute(
                sa.select(sa.func.count()).where(column == current_id, u.c.created_at >= at)
            ).scalar_one() + conn.execute(
                sa.select(sa.func.count()).where(r.c.state == "open", r.c.created_at >= at)
            ).scalar_one()
            what = "calls were made (or are in flight)"
        if later:
            raise StoreError(
                f"{table.name}: a change back-dated to {at.isoformat()} would rewrite history: {later} {what} "
                "under the current row since then"
            )

    def _hold_rates(self, conn: Connection) -> None:
        """Wait for in-flight price and multiplier changes, and keep new ones out until this transaction ends.

        A change reads "now" under its exclusive lock and commits later; a call priced in between could otherwise
        be priced by the row that the change is about to close. SQLite's write transactions are already serial.
        """
        if self.db.is_postgres:
            conn.execute(
                sa.text("SELECT pg_advisory_xact_lock_shared(:p), pg_advisory_xact_lock_shared(:m)"),
                {"p": _LOCK_PRICING, "m": _LOCK_MULTIPLIER},
            )

    def set_pricing(
        self,
        model: str,
        input_usd_per_m,
        output_usd_per_m,
        cached_input_usd_per_m=None,
        *,
        provider: str = "default",
        tier: str = "standard",
        at: datetime | None = None,
    ) -> int:
        """Close the current price of (model, provider, tier) at ``at`` (default now) and open a new one."""
        prices = {
            "input_usd_per_m": _money(input_usd_per_m),
            "output_usd_per_m": _money(output_usd_per_m),
            "cached_input_usd_per_m": None if cached_input_usd_per_m is None else _money(cached_input_usd_per_m),
        }
        if any(v is not None and v < 0 for v in prices.values()):
            raise ValueError("prices cannot be negative")
        match = {"model": model, "provider": provider, "tier": tier}
        return self._scd2_set(t.model_pricing, _LOCK_PRICING, match, prices, at)

    def pricing_in_force(
        self, model: str, *, provider: str = "default", tier: str = "standard", at: datetime | None = None
    ) -> PricingRow | None:
        """The exact (model, provider, tier) price in force at ``at``; ``None`` if there is none."""
        at = as_utc(at)
        return self.db.read(lambda conn: self._pricing_at(conn, model, provider, tier, at))

    def pricing_history(self, model: str | None = None) -> list[PricingRow]:
        def tx(conn: Connection) -> list[PricingRow]:
            q = sa.select(t.model_pricing).order_by(t.model_pricing.c.id)
            if model is not None:
                q = q.where(t.model_pricing.c.model == model)
            return [from_row(PricingRow, r) for r in conn.execute(q)]

        return self.db.read(tx)

    def _pricing_at(self, conn: Connection, model: str, provider: str, tier: str, at: datetime) -> PricingRow | None:
        p = t.model_pricing
        row = conn.execute(
            sa.select(p)
            .where(p.c.model == model, p.c.provider == provider, p.c.tier == tier, _in_force(p, at))
            .order_by(p.c.valid_from.desc())
            .limit(1)
        ).first()
        return None if row is None else from_row(PricingRow, row)

    def _rates_at(
        self, conn: Connection, model: str, provider: str, tier: str, at: datetime
    ) -> tuple[PricingRow | None, MultiplierRow]:
        """The price used for charging (exact provider first, then the model's ``provider="default"`` price) and
        the multiplier, both in force at ``at``, in one statement."""
        providers = [provider] if provider == "default" else [provider, "default"]
        row = conn.execute(
            hot.RATES_AT, {"model": model, "providers": providers, "provider": provider, "tier": tier, "at": at}
        ).first()
        if row is None:
            raise StoreError(f"no credit multiplier in force at {at.isoformat()}")
        multiplier = from_row(MultiplierRow, row, prefix="m_")
        return (None if row.id is None else from_row(PricingRow, row)), multiplier

    def set_multiplier(self, credits_per_usd, at: datetime | None = None) -> int:
        value = _money(credits_per_usd)
        if value < 0:
            raise ValueError("credits_per_usd cannot be negative")
        return self._scd2_set(t.credit_multiplier, _LOCK_MULTIPLIER, {}, {"credits_per_usd": value}, at)

    def multiplier_in_force(self, at: datetime | None = None) -> MultiplierRow:
        at = as_utc(at)
        return self.db.read(lambda conn: self._multiplier_at(conn, at))

    def _multiplier_at(self, conn: Connection, at: datetime) -> MultiplierRow:
        m = t.credit_multiplier
        row = conn.execute(sa.select(m).where(_in_force(m, at)).order_by(m.c.valid_from.desc()).limit(1)).first()
        if row is None:
            raise StoreError(f"no credit multiplier in force at {at.isoformat()}")
        return from_row(MultiplierRow, row)

    def multiplier_history(self) -> list[MultiplierRow]:
        def tx(conn: Connection) -> list[MultiplierRow]:
            m = t.credit_multiplier
            rows = conn.execute(sa.select(m).order_by(m.c.id))
            return [from_row(MultiplierRow, r) for r in rows]

        return self.db.read(tx)

    def set_default_credits(self, amount, at: datetime | None = None) -> int:
        value = _money(amount)
        if value < 0:
            raise ValueError("default credits cannot be negative")
        return self._scd2_set(t.default_credits, _LOCK_DEFAULT_CREDITS, {}, {"amount": value}, at)

    def default_credits_in_force(self, at: datetime | None = None) -> Decimal:
        at = as_utc(at)
        return self.db.read(lambda conn: self._default_credits_at(conn, at).amount)

    def _default_credits_at(self, conn: Connection, at: datetime) -> DefaultCreditsRow:
        d = t.default_credits
        row = conn.execute(sa.select(d).where(_in_force(d, at)).order_by(d.c.valid_from.desc()).limit(1)).first()
        if row is None:
            raise StoreError(f"no default credits in force at {at.isoformat()}")
        return from_row(DefaultCreditsRow, row)

    def estimate_credits(
        self,
        model: str,
        input_tokens: int,
        max_output_tokens: int,
        provider: str = "default",
        tier: str = "standard",
        at: datetime | None = None,
    ) -> Decimal:
        """Upper bound on a call's credits, for :meth:`reserve` (0 for a model without a price)."""
        at = as_utc(at)

        def tx(conn: Connection) -> Decimal:
            price, multiplier = self._rates_at(conn, model, provider, tier, at)
            return cost_rule.estimate_credits(
                input_tokens, max_output_tokens, _prices(price), multiplier.credits_per_usd
            )

        return self.db.read(tx)


def _prices(row: PricingRow | None) -> cost_rule.Prices | None:
    if row is None:
        return None
    return cost_rule.Prices(row.input_usd_per_m, row.output_usd_per_m, row.cached_input_usd_per_m)
