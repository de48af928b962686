"""Money: accounts and the credit ledger (the SCD-2 pricing / multiplier / default-credit history is in
:mod:`agentr_dagster.store.rates`, whose methods ``Ledger`` inherits).

Invariants (each operation is one transaction holding the account's row lock — ``SELECT ... FOR UPDATE`` on
PostgreSQL, ``BEGIN IMMEDIATE`` on SQLite):
- ``accounts.balance == SUM(ledger_entries.amount)`` for the account, always;
- a balance never goes below zero (also a CHECK constraint);
- every reservation, settlement and release writes exactly one ledger entry, found again by its idempotency key
  (``reserve:<key>``, ``settle:<reservation id>``, ``release:<reservation id>``), so retries never double-charge;
- a settlement given a fence (the claim its call was made under) charges only while the claim still names its
  holder, checked in the charging transaction; a late answer of a holder that lost it is operator waste
  (``operator_waste``: priced, never charged to the project), as are timeouts and calls in flight when their run
  died (priced at their hold).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal
from typing import TYPE_CHECKING, TypeVar

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from agentr_dagster.domain import pricing as cost_rule
from agentr_dagster.store import hot
from agentr_dagster.store import schema as t
from agentr_dagster.store.database import Database, as_utc, now_utc
from agentr_dagster.store.rates import Rates, _money, _prices
from agentr_dagster.store.rows import (
    AccountRow,
    InsufficientCredits,
    LedgerRow,
    ReservationRow,
    StoreError,
    UsageIn,
    UsageRow,
    WasteRow,
    from_row,
)

R = TypeVar("R")  # a row dataclass

if TYPE_CHECKING:
    from agentr_dagster.store.leases import ClaimFence

ZERO = cost_rule.ZERO
QUANTUM_CREDIT = cost_rule.QUANTUM  # a last call needs at least this much left (never a hold of nothing)


@dataclass(frozen=True)
class CallBound:
    """What a call can cost at most: its model, its prompt's tokens and its output cap."""

    model: str
    input_tokens: int
    max_output_tokens: int
    provider: str = "default"
    tier: str = "standard"


class Ledger(Rates):
    """``store.ledger``: SCD-2 prices, multiplier and default credits (inherited from :class:`Rates`); accounts and
    grants; reservations, their
    settlement and release; usage; and :meth:`verify_ledger`."""

    def __init__(self, db: Database):
        self.db = db
        self._account_ids: dict[str, int] = {}

    # -- accounts ---------------------------------------------------------------------------------------------

    def ensure_account(self, name: str = "default") -> int:
        """The account's id; a new account starts with the default credits in force (a ``grant`` entry)."""
        cached = self._account_ids.get(name)
        if cached is not None:
            return cached
        if not name or len(name) > 200:
            raise ValueError("account names are 1-200 characters")
        found = self.db.read(
            lambda conn: conn.execute(sa.select(t.accounts.c.id).where(t.accounts.c.name == name)).scalar()
        )
        if found is None:

            def tx(conn: Connection) -> int:
                now = now_utc()
                amount = self._default_credits_at(conn, now).amount
                new_id = conn.execute(
                    self.db.insert(t.accounts)
                    .values(name=name, balance=amount, created_at=now)
                    .on_conflict_do_nothing(index_elements=["name"])
                    .returning(t.accounts.c.id)
                ).scalar()
                if new_id is None:  # created concurrently
                    return conn.execute(sa.select(t.accounts.c.id).where(t.accounts.c.name == name)).scalar_one()
                if amount <= 0:  # zero default credits: nothing granted, so no entry (a grant is positive)
                    return new_id
                conn.execute(
                    sa.insert(t.ledger_entries).values(
                        account_id=new_id,
                        amount=amount,
                        kind="grant",
                        idempotency_key=f"initial:{name}",
                        note="initial default credits",
                        created_at=now,
                    )
                )
                return new_id

            found = self.db.run(tx)
        self._account_ids[name] = found
        return found

    def _lock_account(self, conn: Connection, account_id: int) -> Decimal:
        return conn.execute(hot.ACCOUNT_BALANCE_FOR_UPDATE, {"account_id": account_id}).scalar_one()

    def _post(
        self,
        conn: Connection,
        account_id: int,
        balance: Decimal,
        amount: Decimal,
        kind: str,
        key: str,
        note: str = "",
        *,
        reservation_id: int | None = None,
        usage_id: int | None = None,
        at: datetime | None = None,
    ) -> Decimal:
        """Append one ledger entry and move the (locked) balance by the same amount."""
        new_balance = balance + amount
        if new_balance < 0:  # callers check first; this is the last line of defence
            raise InsufficientCredits(
                f"entry {key} would take the balance below zero", requested=-amount, available=balance
            )
        now = at or now_utc()
        conn.execute(
            hot.INSERT_ENTRY,
            {"account_id": account_id, "amount": amount, "kind": kind, "idempotency_key": key,
             "reservation_id": reservation_id, "usage_id": usage_id, "note": note, "created_at": now},
        )
        conn.execute(hot.SET_BALANCE, {"account_id": account_id, "new_balance": new_balance})
        return new_balance

    def _entry_exists(self, conn: Connection, key: str) -> sa.Row | None:
        return conn.execute(sa.select(t.ledger_entries).where(t.ledger_entries.c.idempotency_key == key)).first()

    def grant(self, account: str, amount, note: str = "", *, idempotency_key: str | None = None) -> Decimal:
        """Add credits (amount > 0); returns the new balance. A repeated ``idempotency_key`` adds nothing."""
        value = _money(amount)
        if value <= 0:
            raise ValueError("a grant must be positive (use adjust() to take credits away)")
        return self._change(account, value, "grant", note, idempotency_key)

    def adjust(self, account: str, amount, note: str = "", *, idempotency_key: str | None = None) -> Decimal:
        """Signed manual correction; refuses (InsufficientCredits) to go below zero. Returns the new balance."""
        return self._change(account, _money(amount), "adjust", note, idempotency_key)

    def _change(self, account: str, value: Decimal, kind: str, note: str, key: str | None) -> Decimal:
        account_id = self.ensure_account(account)
        key = f"{kind}:{key}" if key else f"{kind}:{uuid.uuid4().hex}"

        def tx(conn: Connection) -> Decimal:
            balance = self._lock_account(conn, account_id)
            if self._entry_exists(conn, key) is not None:
                return balance
            if balance + value < 0:
                raise InsufficientCredits(
                    f"account {account!r} has {balance} credits; cannot take {-value}",
                    account=account,
                    requested=-value,
                    available=balance,
                )
            return self._post(conn, account_id, balance, value, kind, key, note)

        return self.db.run(tx)

    def balance(self, account: str = "default") -> Decimal:
        account_id = self.ensure_account(account)
        return self.db.read(
            lambda conn: conn.execute(sa.select(t.accounts.c.balance).where(t.accounts.c.id == account_id)).scalar_one()
        )

    def accounts(self) -> list[AccountRow]:
        def tx(conn: Connection) -> list[AccountRow]:
            rows = conn.execute(sa.select(t.accounts).order_by(t.accounts.c.id))
            return [from_row(AccountRow, r) for r in rows]

        return self.db.read(tx)

    def ledger(self, account: str = "default") -> list[LedgerRow]:
        account_id = self.ensure_account(account)

        def tx(conn: Connection) -> list[LedgerRow]:
            le = t.ledger_entries
            rows = conn.execute(sa.select(le).where(le.c.account_id == account_id).order_by(le.c.id))
            return [from_row(LedgerRow, r) for r in rows]

        return self.db.read(tx)

    def ledger_sum(self, account: str = "default") -> Decimal:
        """Exact Decimal sum of the account's entries (summed in Python: SQLite's SUM is floating point)."""
        return sum((e.amount for e in self.ledger(account)), ZERO)

    # -- reserve / settle / release ---------------------------------------------------------------------------

    def reserve(
        self,
        account: str,
        amount=0,
        *,
        idempotency_key: str,
        slug: str | None = None,
        stage: str | None = None,
        paper_id: int | None = None,
        bound: CallBound | None = None,
        run_id: str | None = None,
        final_ok: bool = False,
    ) -> int:
        """Hold ``amount`` credits before a call; returns the reservation id.

        With ``bound`` (the call's model, prompt tokens and output cap) the amount held is at least the upper
        bound of that call at the price and multiplier in force when the reservation is taken — the very rows
        :meth:`settle` will charge it by — so a call within its bound can never overrun its reservation, and a
        budget check on it is exact.

        ``final_ok`` (with ``bound``): when the balance cannot cover the bound, nothing else of the account is open
        and the balance covers at least the prompt's part of the bound, the whole balance is held instead — the
        account's last call. Its settlement debits at most what is left (see :meth:`settle`), so the balance ends
        at zero at worst and the shortfall, one call's output at most, is noted on the entry and not charged.

        Raises InsufficientCredits (nothing written) if the balance is below the amount or the project's
        ``budget_credits`` would be exceeded by settled usage + open reservations + the amount; OrphanError if
        the project or paper is soft-deleted. The same ``idempotency_key`` returns the same reservation.
        """
        requested = _money(amount)
        if requested < 0:
            raise ValueError("a reservation cannot be negative")
        if not idempotency_key:
            raise ValueError("idempotency_key is required")
        account_id = self.ensure_account(account)

        def tx(conn: Connection) -> int:
            find = (hot.RESERVATION_BY_KEY, {"key": idempotency_key})
            existing = conn.execute(*find).scalar()
            if existing is not None:
                return existing
            value, floor, taken_at = self._amount_to_hold(conn, requested, bound)
            # Project and paper checks come before the account's lock, so that the lock is held briefly. Lock
            # order: project (only when it has a budget), then account; settle/release never lock a project.
            project = None if slug is None else self._project_to_charge(conn, slug, paper_id)
            balance = self._lock_account(conn, account_id)
            if final_ok and floor is not None and floor <= balance < value and not self._any_open(conn, account_id):
                value = balance  # the last call (see the docstring)
            self._check_funds(conn, account, account_id, balance, value, project)
            rid = conn.execute(
                hot.insert_reservation(self.db.dialect),
                {"account_id": account_id, "project_id": None if project is None else project.id, "stage": stage,
                 "paper_id": paper_id, "amount": value, "state": "open", "idempotency_key": idempotency_key,
                 "created_at": taken_at or now_utc(), "run_id": run_id},  # the time settle prices the call at
            ).scalar()
            if rid is None:  # a concurrent call with the same key got here first: nothing written, its id back
                return conn.execute(*find).scalar_one()
            self._post(conn, account_id, balance, -value, "reserve", f"reserve:{idempotency_key}", reservation_id=rid)
            return rid

        return self.db.run(tx)

    def _amount_to_hold(
        self, conn: Connection, requested: Decimal, bound: CallBound | None
    ) -> tuple[Decimal, Decimal | None, datetime | None]:
        """The amount to reserve (at least the call's bound at the rates in force now), the least a last call
        must have (its prompt's cost; ``None`` without a bound) and the time it is taken at (``None`` without a
        bound: the insert's own time)."""
        if bound is None:
            return requested, None, None
        self._hold_rates(conn)  # no price change can land between this read and the commit
        taken_at = now_utc()
        price, multiplier = self._rates_at(conn, bound.model, bound.provider, bound.tier, taken_at)
        estimate = cost_rule.estimate_credits(
            bound.input_tokens, bound.max_output_tokens, _prices(price), multiplier.credits_per_usd
        )
        floor = cost_rule.estimate_credits(bound.input_tokens, 0, _prices(price), multiplier.credits_per_usd)
        return max(requested, estimate), max(floor, QUANTUM_CREDIT), taken_at

    def _any_open(self, conn: Connection, account_id: int) -> bool:
        r = t.reservations
        return conn.execute(sa.select(r.c.id).where(r.c.account_id == account_id, r.c.state == "open").limit(1)
                            ).first() is not None

    def _project_to_charge(self, conn: Connection, slug: str, paper_id: int | None) -> sa.Row:
        """The active project (locked when it has a budget) after checking the paper belongs to it."""
        project = self.db.active_project(conn, slug)
        if project.budget_credits is not None:
            project = self.db.active_project(conn, slug, lock=True)
        if paper_id is not None:
            self.db.check_paper(conn, project, paper_id)
        return project

    def _check_funds(
        self, conn: Connection, account: str, account_id: int, balance: Decimal, value: Decimal,
        project: sa.Row | None,
    ) -> None:
        """InsufficientCredits if the account's balance, or the project's budget, cannot cover ``value``; the
        error says whether other holds of the account were open in this same transaction."""
        if balance < value:
            raise InsufficientCredits(
                f"account {account!r} has {balance:f} credits; {value:f} needed",
                account=account,
                requested=value,
                available=balance,
                others_open=self._any_open(conn, account_id),
            )
        if project is None or project.budget_credits is None:
            return
        committed = self._project_committed(conn, project.id)
        if committed + value > project.budget_credits:
            raise InsufficientCredits(
                f"project {project.slug!r} budget of {project.budget_credits:f} credits would be exceeded "
                f"({committed:f} committed, {value:f} more requested)",
                account=account,
                requested=value,
                available=max(project.budget_credits - committed, ZERO),
                reason="budget",
                others_open=self._any_open(conn, account_id),
            )

    def _project_committed(self, conn: Connection, project_id: int) -> Decimal:
        """Settled credits (usage) + open reservations of a project, read in one statement."""
        u, r = t.usage_log, t.reservations
        settled = (
            sa.select(sa.func.coalesce(sa.func.sum(u.c.credits), 0))
            .where(u.c.project_id == project_id)
            .scalar_subquery()
        )
        held = (
            sa.select(sa.func.coalesce(sa.func.sum(r.c.amount), 0))
            .where(r.c.project_id == project_id, r.c.state == "open")
            .scalar_subquery()
        )
        row = conn.execute(sa.select(settled.label("settled"), held.label("held"))).one()
        return _money(row.settled) + _money(row.held)

    def _lock_reservation(self, conn: Connection, reservation_id: int) -> sa.Row:
        """The reservation's row, locked: settle and release of one reservation run one at a time.

        Lock order: settle and release lock the reservation, then (as late as possible, so that the account's
        lock is held for a few statements only) its account; reserve locks only the account (and the project,
        before it). No transaction waits for a reservation while holding an account, so there is no lock cycle.
        """
        row = conn.execute(hot.RESERVATION_FOR_UPDATE, {"reservation_id": reservation_id}).first()
        if row is None:
            raise StoreError(f"no reservation {reservation_id}")
        return row

    def settle(self, reservation_id: int, *, usage: UsageIn, response: tuple[str, str] | None = None,
               fence: ClaimFence | None = None) -> int | None:
        """Record the call's usage and settle its reservation to the actual cost; returns the usage id.

        The call is priced by the pricing and multiplier rows in force at ``usage.at``, by default the time the
        reservation was taken (just before the call); that time is the usage row's ``created_at``.

        One ``settle`` entry credits back ``reserved - actual``. If the actual cost is higher, the difference is
        debited only as far as the balance allows (the shortfall is written in the entry's note). Settling a
        reservation that was already released (e.g. by the stale sweep) charges the actual cost the same way.
        Idempotent: a second call returns the same usage id and writes nothing.

        ``fence`` (the claim the call was made under): checked in this transaction, before anything is charged.
        When the claim no longer names its holder (another worker took it over while the call was in flight),
        nothing is charged: the answer is recorded as operator waste (priced, ``cause="fenced_late_answer"``), an
        open reservation is released, no answer is cached, and None is returned.

        ``response`` (request hash, validated answer) goes into the response cache in the same transaction, so a
        paid, validated answer is never charged without being kept (and it saves the hot path a commit).
        """
        if not isinstance(usage, UsageIn):
            usage = UsageIn.model_validate(usage)

        def tx(conn: Connection) -> int | None:
            res = self._lock_reservation(conn, reservation_id)
            if res.state == "settled":  # settled in one transaction with its usage row and settle entry
                if response is not None:
                    self.db.insert_response(conn, *response)
                return conn.execute(hot.USAGE_OF_RESERVATION, {"reservation_id": reservation_id}).scalar_one()
            if fence is not None and not fence.holds(conn, lock=self.db.is_postgres):
                self._record_fenced(conn, res, usage, fence)
                return None
            usage_id, credits = self._record_usage(conn, res, usage)
            conn.execute(
                hot.CLOSE_RESERVATION, {"reservation_id": reservation_id, "new_state": "settled", "closed": now_utc()}
            )
            # charged after all (a kept settlement after the next run released its hold): not waste any more
            conn.execute(sa.delete(t.operator_waste).where(t.operator_waste.c.reservation_id == reservation_id))
            if response is not None:
                self.db.insert_response(conn, *response)
            self._post_settlement(conn, res, credits, usage_id)
            return usage_id

        return self.db.run(tx)

    def _record_fenced(self, conn: Connection, res: sa.Row, usage: UsageIn, fence: ClaimFence) -> None:
        """A late answer of a holder that lost its claim: priced as any call, written as operator waste, its hold
        (if still open) given back. The project is charged nothing."""
        at = as_utc(usage.at) if usage.at is not None else res.created_at
        self._hold_rates(conn)
        price, multiplier = self._rates_at(conn, usage.model, usage.provider, usage.tier, at)
        cost, credits = cost_rule.charge(usage.input_tokens, usage.output_tokens, usage.cached_input_tokens,
                                         _prices(price), multiplier.credits_per_usd)
        self._write_waste(conn, res, "fenced_late_answer", credits, "usage", cost_usd=cost, model=usage.model,
                          input_tokens=usage.input_tokens, output_tokens=usage.output_tokens,
                          request_hash=usage.request_hash, run_id=usage.run_id, holder=fence.holder)
        if res.state == "open":
            self._give_back(conn, res, "fenced: a late answer of a holder that had lost its claim (operator waste)")

    def _write_waste(self, conn: Connection, res: sa.Row, cause: str, credits: Decimal, priced_as: str,
                     **details) -> None:
        """One ``operator_waste`` row per reservation (a later, better-known cause replaces an earlier one)."""
        w = t.operator_waste
        values = {"cause": cause, "project_id": res.project_id, "stage": res.stage, "paper_id": res.paper_id,
                  "credits": credits, "priced_as": priced_as, "run_id": res.run_id,
                  "request_hash": _request_of(res.idempotency_key), "created_at": now_utc(), **details}
        if conn.execute(sa.update(w).where(w.c.reservation_id == res.id).values(**values)).rowcount == 0:
            conn.execute(sa.insert(w).values(reservation_id=res.id, **values))

    def waste(self, slug: str | None = None) -> list[WasteRow]:
        """Operator waste rows (calls served, or perhaps served, and charged to no project), oldest first."""
        return self._rows_with_slug(t.operator_waste, WasteRow, slug)

    def _record_usage(self, conn: Connection, res: sa.Row, usage: UsageIn) -> tuple[int, Decimal]:
        """Price the call and append its usage row; returns (usage id, credits charged)."""
        # The call was made when its reservation was taken: price it by the rows in force then, so a price
        # change while the call is in flight (or before a late settle) never re-prices it.
        at = as_utc(usage.at) if usage.at is not None else res.created_at
        self._hold_rates(conn)
        price, multiplier = self._rates_at(conn, usage.model, usage.provider, usage.tier, at)
        cost, credits = cost_rule.charge(
            usage.input_tokens,
            usage.output_tokens,
            usage.cached_input_tokens,
            _prices(price),
            multiplier.credits_per_usd,
        )
        project_id = res.project_id
        if project_id is None and usage.slug is not None:
            project_id = self.db.project(conn, usage.slug).id
        usage_id = conn.execute(
            hot.INSERT_USAGE,
            {
                "project_id": project_id,
                "stage": usage.stage if usage.stage is not None else res.stage,
                "paper_id": usage.paper_id if usage.paper_id is not None else res.paper_id,
                "model": usage.model,
                "provider": usage.provider,
                "input_tokens": usage.input_tokens,
                "output_tokens": usage.output_tokens,
                "cached_input_tokens": usage.cached_input_tokens,
                "cost_usd": cost,
                "credits": credits,
                "pricing_id": None if price is None else price.id,
                "multiplier_id": multiplier.id,
                "latency_ms": usage.latency_ms,
                "request_hash": usage.request_hash,
                "run_id": usage.run_id,
                "reservation_id": res.id,
                "created_at": at,
            },
        ).scalar_one()
        return usage_id, credits

    def _post_settlement(self, conn: Connection, res: sa.Row, credits: Decimal, usage_id: int) -> None:
        """The one ``settle`` entry: credit back what was held beyond the actual cost, or debit the difference as
        far as the balance allows (a shortfall is noted, not charged)."""
        # The account's lock last: it covers the balance read, the entry and the update only (see reserve).
        balance = self._lock_account(conn, res.account_id)
        held = res.amount if res.state == "open" else ZERO
        note = f"reserved {res.amount}, actual {credits}"
        if res.state == "released":
            note += " (reservation had been released)"
        delta = held - credits
        if delta < 0 and balance + delta < 0:
            shortfall = -(balance + delta)
            delta = -balance
            note += f"; shortfall {shortfall} not charged (balance exhausted)"
        self._post(
            conn,
            res.account_id,
            balance,
            delta,
            "settle",
            f"settle:{res.id}",
            note,
            reservation_id=res.id,
            usage_id=usage_id,
        )

    def release(self, reservation_id: int, note: str = "", *, waste: str | None = None) -> None:
        """Give a reservation back in full (the call failed or never happened). No-op unless it is open.
        ``waste`` (a cause: ``timeout``, ``killed``): the endpoint may have served the call anyway; it is written
        as operator waste priced at the hold (at most that)."""
        self._release(reservation_id, note, waste)

    def _release(self, reservation_id: int, note: str, waste: str | None = None) -> bool:
        def tx(conn: Connection) -> bool:
            res = self._lock_reservation(conn, reservation_id)
            if res.state != "open":
                return False
            self._give_back(conn, res, note)
            if waste is not None:
                self._write_waste(conn, res, waste, res.amount, "bound")
            return True

        return self.db.run(tx)

    def _give_back(self, conn: Connection, res: sa.Row, note: str) -> None:
        """Release the (locked, open) reservation ``res``: one release entry, and the reservation closed."""
        balance = self._lock_account(conn, res.account_id)
        self._post(conn, res.account_id, balance, res.amount, "release", f"release:{res.id}", note,
                   reservation_id=res.id)
        conn.execute(hot.CLOSE_RESERVATION, {"reservation_id": res.id, "new_state": "released", "closed": now_utc()})

    def open_reservations(self, older_than_seconds: float | None = None) -> list[ReservationRow]:
        return self._reservations(state="open", older_than_seconds=older_than_seconds)

    def reservations(self, slug: str | None = None, state: str | None = None) -> list[ReservationRow]:
        return self._reservations(state=state, slug=slug)

    def _reservations(
        self, *, state: str | None = None, older_than_seconds: float | None = None, slug: str | None = None
    ) -> list[ReservationRow]:
        r, a, p = t.reservations, t.accounts, t.projects

        def tx(conn: Connection) -> list[ReservationRow]:
            q = (
                sa.select(r, a.c.name.label("account"), p.c.slug)
                .join(a, a.c.id == r.c.account_id)
                .outerjoin(p, p.c.id == r.c.project_id)
                .order_by(r.c.id)
            )
            if state is not None:
                q = q.where(r.c.state == state)
            if slug is not None:
                q = q.where(p.c.slug == slug)
            if older_than_seconds is not None:
                q = q.where(r.c.created_at < now_utc() - timedelta(seconds=older_than_seconds))
            return [from_row(ReservationRow, row) for row in conn.execute(q)]

        return self.db.read(tx)

    def release_run_reservations(self, slug: str, stage: str, run_id: str, note: str = "") -> int:
        """Release the reservations of ``run_id``'s ``stage`` that are still open: the run's calls are over, so
        an open one is a leak (e.g. a settle lost to a database cut). Returns how many were released."""
        r, p = t.reservations, t.projects

        def tx(conn: Connection) -> list[int]:
            q = (sa.select(r.c.id).join(p, p.c.id == r.c.project_id)
                 .where(p.c.slug == slug, r.c.stage == stage, r.c.run_id == run_id, r.c.state == "open"))
            return list(conn.execute(q).scalars())

        return sum(1 for rid in self.db.read(tx) if self._release(rid, note or f"run {run_id} ended"))

    def release_ended_runs_reservations(self, slug: str, keep_run_id: str | None = None) -> int:
        """Release the project's open reservations taken by runs other than ``keep_run_id``. Only for the holder
        of the project's lease: no other run of the project is alive, so those runs have ended."""
        r, p = t.reservations, t.projects

        def tx(conn: Connection) -> list[int]:
            q = (sa.select(r.c.id).join(p, p.c.id == r.c.project_id)
                 .where(p.c.slug == slug, r.c.state == "open", r.c.run_id.is_not(None)))
            if keep_run_id is not None:
                q = q.where(r.c.run_id != keep_run_id)
            return list(conn.execute(q).scalars())

        return sum(1 for rid in self.db.read(tx)
                   if self._release(rid, "its run ended; released by the next run", waste="killed"))

    def release_stale_reservations(self, older_than_seconds: float) -> int:
        """Release every reservation open for longer than ``older_than_seconds``, except those of a project whose
        lease a live holder has (its call may still settle); returns how many."""
        from agentr_dagster.store.leases import Leases

        leases, live = Leases(self.db), {}
        released = 0
        for res in self.open_reservations(older_than_seconds):
            if res.slug is not None and res.slug not in live:
                live[res.slug] = leases.live_lease(res.slug) is not None
                if not live[res.slug]:  # a frozen holder that wakes later finds its claims gone (the fence)
                    leases.revoke_gone(res.slug)
            if res.slug is not None and live[res.slug]:
                continue
            if self._release(res.id, f"stale: open longer than {older_than_seconds:g}s", waste="killed"):
                released += 1
        return released

    def verify_ledger(self, stale_after_s: float = 3600.0):
        """Check every ledger invariant (see :mod:`agentr_dagster.store.verify`); returns a VerifyReport."""
        from agentr_dagster.store.verify import verify_ledger

        return verify_ledger(self.db, stale_after_s=stale_after_s)

    def usage(self, slug: str | None = None) -> list[UsageRow]:
        """Usage rows (deleted projects included: the audit trail outlives the project)."""
        return self._rows_with_slug(t.usage_log, UsageRow, slug)

    def _rows_with_slug(self, table: sa.Table, row_type: type[R], slug: str | None) -> list[R]:
        """A ledger table's rows with their project's slug (deleted projects too), oldest first; one project's
        when ``slug`` is given."""
        p = t.projects

        def tx(conn: Connection) -> list[R]:
            q = sa.select(table, p.c.slug).outerjoin(p, p.c.id == table.c.project_id).order_by(table.c.id)
            if slug is not None:
                q = q.where(p.c.slug == slug)
            return [from_row(row_type, r) for r in conn.execute(q)]

        return self.db.read(tx)


def _request_of(idempotency_key: str) -> str | None:
    """The request hash a gateway reservation's key starts with (``<hash>:<time>:<random>``), else None."""
    head = idempotency_key.split(":", 1)[0]
    return head if len(head) == 64 and all(c in "0123456789abcdef" for c in head) else None
