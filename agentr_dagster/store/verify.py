"""The ledger's invariant checker: what ``agentr ledger verify`` runs, and what an auditor would re-derive.

Everything is read in one snapshot (REPEATABLE READ on PostgreSQL, one read transaction on SQLite's WAL), so the
checks can run while spenders are still working. Each failed invariant is a :class:`Violation` naming the rows;
facts that are allowed but worth a look (an overrun the balance could not cover, a budget exceeded by a settled
overrun, calls of an unpriced model) are :class:`Violation` objects in ``warnings`` and do not fail the check.

Invariants:
- ``balance_equals_entries``: each account's balance is the exact sum of its ledger entries;
- ``balance_never_negative``: no balance is below zero, and replaying each account's entries in commit order
  (ids are assigned under the account's row lock) never goes below zero either;
- ``entry_amounts``: grants are positive; a reserve entry is minus its reservation's amount and a release entry
  gives exactly that back; every entry belongs to the account of its reservation;
- ``reservation_entries``: each reservation has one reserve entry; an open one nothing else; a released one one
  release; a settled one one settle (and at most one release, when it was settled late); closed ones have
  ``closed_at``;
- ``usage_has_ledger_entries``: each usage row belongs to a settled reservation, has exactly one settle entry
  pointing at it, and the reservation's entries net to minus the usage row's credits (less any shortfall the
  settle entry records as not charged);
- ``no_stale_open_reservations``: no reservation open longer than the bound;
- ``usage_cost_recomputes``: each usage row's cost and credits equal the cost rule applied to its tokens with the
  pricing and multiplier rows whose ids it stores;
- ``priced_by_rows_in_force``: those rows are for the call's model and provider (or the ``default`` provider)
  and were in force at the call's time;
- ``scd2_history``: per pricing key, multiplier and default credits: periods are contiguous and do not overlap,
  and exactly the last one is current;
- ``no_duplicate_charges``: no request (paper, intent, prompt version and model: its request hash) charged twice
  by calls in flight at the same time (two workers scoring one paper), nor charged after its validated answer
  was already stored (a repair round after an invalid answer is sequential, and allowed);
- ``no_open_reservation_after_run``: no reservation still open after the run that took it ended its stage (the
  stage's terminal status was written by that run after the reservation was taken);
- ``settled_calls_have_usage``: usage rows and ledger entries reconcile per call: each settled reservation has
  exactly one usage row, each usage row one settled reservation, so calls charged = usage rows;
- ``paid_within_attempt_cap``: no request (paper, prompt version and model) was paid for more often than the
  attempt cap allows (``domain/attempts.py``: the answer and one repair), counting afresh after each
  ``agentr run --retry-invalid`` mark of a project that asked for it;
- ``waste_never_charged``: a call recorded as operator waste was charged to no project (its reservation was
  released, never settled, and has no usage row).

Operator waste (calls the endpoint served, or may have served, that no project is charged for: late answers
refused by the settlement fence, timeouts, calls in flight when their run died) is reported on its own
(:attr:`VerifyReport.waste`, per cause) and never fails the check: the operator pays it, the user does not.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any, Protocol

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from agentr_dagster.domain import pricing as cost_rule
from agentr_dagster.domain.attempts import MAX_ANSWERS
from agentr_dagster.store import schema as t
from agentr_dagster.store.database import now_utc

ZERO = cost_rule.ZERO
DEFAULT_STALE_AFTER_S = 3600.0
_SHORTFALL = re.compile(r"shortfall (\d+(?:\.\d+)?) not charged")
MAX_ROWS_NAMED = 20  # a violation names at most this many rows and says how many more there are


@dataclass(frozen=True)
class Violation:
    check: str
    message: str
    rows: tuple[str, ...] = ()  # "table#id"
    more: int = 0  # rows not named

    def __str__(self) -> str:
        named = ", ".join(self.rows)
        extra = f" (+{self.more} more)" if self.more else ""
        return f"[{self.check}] {self.message}" + (f": {named}{extra}" if named else "")


@dataclass
class VerifyReport:
    ok: bool
    checked_at: datetime
    stale_after_s: float
    counts: dict[str, int]
    violations: list[Violation] = field(default_factory=list)
    warnings: list[Violation] = field(default_factory=list)
    checks: tuple[str, ...] = ()
    waste: dict[str, WasteFigure] = field(default_factory=dict)  # cause -> calls and credits the operator pays

    def waste_line(self) -> str:
        """``operator waste: N calls, C credits (cause n, ...)``: what the operator pays and no project is charged."""
        return waste_summary(self.waste)

    def failed_checks(self) -> list[str]:
        return sorted({v.check for v in self.violations})

    def to_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "checked_at": self.checked_at.isoformat(),
            "stale_after_s": self.stale_after_s,
            "counts": self.counts,
            "checks": list(self.checks),
            "failed_checks": self.failed_checks(),
            "violations": [asdict(v) for v in self.violations],
            "warnings": [asdict(v) for v in self.warnings],
            "operator_waste": {cause: asdict(f) for cause, f in self.waste.items()},
        }


@dataclass
class WasteFigure:
    """Operator waste of one cause: calls, and credits (``priced_as``: ``usage`` from the answer's tokens,
    ``bound`` at most the hold, ``mixed`` both)."""

    calls: int = 0
    credits: Decimal = ZERO
    priced_as: str = ""

    def add(self, credits: Decimal, priced_as: str) -> None:
        self.calls += 1
        self.credits += credits
        self.priced_as = priced_as if self.priced_as in ("", priced_as) else "mixed"


def waste_figures(rows) -> dict[str, WasteFigure]:
    """Per cause, from operator waste rows (anything with ``cause``, ``credits`` and ``priced_as``)."""
    figures: dict[str, WasteFigure] = {}
    for row in rows:
        figures.setdefault(row.cause, WasteFigure()).add(row.credits, row.priced_as)
    return dict(sorted(figures.items()))


def waste_summary(figures: dict[str, WasteFigure]) -> str:
    calls = sum(f.calls for f in figures.values())
    if not calls:
        return "operator waste: none (every call served was charged)"
    credits = sum((f.credits for f in figures.values()), ZERO)
    causes = ", ".join(f"{cause} {f.calls} ({f.credits:f} credits{', at most' if f.priced_as != 'usage' else ''})"
                       for cause, f in figures.items())
    return f"operator waste: {calls} call(s), {credits:f} credits, paid by the operator, charged to no project: " \
        + causes


CHECKS = (
    "balance_equals_entries",
    "balance_never_negative",
    "entry_amounts",
    "reservation_entries",
    "usage_has_ledger_entries",
    "no_stale_open_reservations",
    "usage_cost_recomputes",
    "priced_by_rows_in_force",
    "scd2_history",
    "no_duplicate_charges",
    "no_open_reservation_after_run",
    "settled_calls_have_usage",
    "paid_within_attempt_cap",
    "waste_never_charged",
)
TERMINAL_STATES = ("completed", "failed_transient", "failed_no_credits", "failed_orphan", "failed_other")


class _Collector:
    def __init__(self) -> None:
        self.items: dict[tuple[str, str], list[str]] = defaultdict(list)

    def add(self, check: str, message: str, *rows: str) -> None:
        self.items[(check, message)].extend(rows)

    def violations(self) -> list[Violation]:
        out = []
        for (check, message), rows in self.items.items():
            unique = list(dict.fromkeys(rows))
            out.append(Violation(check, message, tuple(unique[:MAX_ROWS_NAMED]), max(0, len(unique) - MAX_ROWS_NAMED)))
        order = {name: i for i, name in enumerate(CHECKS)}
        return sorted(out, key=lambda v: (order.get(v.check, len(order)), v.message))


class _Connectable(Protocol):
    """What verification needs of a store: a :class:`DomainStore` or its :class:`Database`."""

    @property
    def engine(self) -> sa.engine.Engine: ...

    @property
    def is_postgres(self) -> bool: ...


def verify_ledger(
    store: _Connectable, *, stale_after_s: float = DEFAULT_STALE_AFTER_S, at: datetime | None = None,
    max_answers: int = MAX_ANSWERS,
) -> VerifyReport:
    """Check every ledger invariant on one consistent snapshot of ``store``'s database."""
    with store.engine.connect() as conn:
        if store.is_postgres:
            conn = conn.execution_options(isolation_level="REPEATABLE READ")
        with conn.begin():
            snap = _Snapshot.read(conn)
    checked_at = at or now_utc()
    bad, notes = _Collector(), _Collector()
    _check_balances(snap, bad)
    _check_reservations(snap, bad, checked_at, stale_after_s)
    _check_usage(snap, bad, notes)
    _check_scd2(snap, bad)
    _check_budgets(snap, notes)
    _check_duplicate_charges(snap, bad)
    _check_open_after_run(snap, bad)
    _check_settled_have_usage(snap, bad)
    _check_attempt_cap(snap, bad, max_answers)
    _check_waste(snap, bad)
    for entry in snap.entries:  # answered calls whose charge landed only after their hold was given back
        if entry.kind == "settle" and "reservation had been released" in (entry.note or ""):
            notes.add("late_settlement", "an answered call was settled after its reservation had been released "
                      "(kept through a database outage or a crash, then charged its actual cost)",
                      f"usage_log#{entry.usage_id}", f"ledger_entries#{entry.id}")
    violations = bad.violations()
    return VerifyReport(
        ok=not violations,
        checked_at=checked_at,
        stale_after_s=stale_after_s,
        counts=snap.counts(),
        violations=violations,
        warnings=notes.violations(),
        checks=CHECKS,
        waste=waste_figures(snap.waste),
    )


@dataclass
class _Snapshot:
    accounts: list[sa.Row]
    entries: list[sa.Row]
    reservations: dict[int, sa.Row]
    usage: list[sa.Row]
    pricing: dict[int, sa.Row]
    multipliers: dict[int, sa.Row]
    default_credits: list[sa.Row]
    projects: list[sa.Row]
    responses: dict[str, datetime]  # request hash -> when its validated answer was stored
    stage_ends: list[sa.Row]  # stage-level terminal transitions written by a run
    retry_marks: dict[int, list[int]]  # project id -> its `--retry-invalid` marks (reservation ids)
    waste: list[sa.Row]  # operator waste: calls served (or perhaps served) and charged to no project
    # reservation id -> entry kind -> entries; filled by the reservation check, used by the usage check
    per_reservation: dict[int, dict[str, list[sa.Row]]] = field(default_factory=dict)

    @classmethod
    def read(cls, conn: Connection) -> _Snapshot:
        def rows(table: sa.Table) -> list[sa.Row]:
            return list(conn.execute(sa.select(table).order_by(table.c.id)))

        rc, tr = t.response_cache, t.status_transitions

        return cls(
            accounts=rows(t.accounts),
            entries=rows(t.ledger_entries),
            reservations={r.id: r for r in rows(t.reservations)},
            usage=rows(t.usage_log),
            pricing={r.id: r for r in rows(t.model_pricing)},
            multipliers={r.id: r for r in rows(t.credit_multiplier)},
            default_credits=rows(t.default_credits),
            projects=rows(t.projects),
            responses=dict(conn.execute(sa.select(rc.c.request_hash, rc.c.created_at)).all()),
            stage_ends=list(conn.execute(
                sa.select(tr.c.project_id, tr.c.stage, tr.c.run_id, tr.c.state, tr.c.created_at).where(
                    tr.c.run_id.is_not(None), sa.or_(tr.c.paper_id.is_(None), tr.c.paper_id == 0),
                    tr.c.state.in_(TERMINAL_STATES),
                )
            )),
            retry_marks=_retry_marks(conn),
            waste=rows(t.operator_waste),
        )

    def counts(self) -> dict[str, int]:
        return {
            "accounts": len(self.accounts),
            "ledger_entries": len(self.entries),
            "reservations": len(self.reservations),
            "open_reservations": sum(1 for r in self.reservations.values() if r.state == "open"),
            "usage_rows": len(self.usage),
            "pricing_rows": len(self.pricing),
            "multiplier_rows": len(self.multipliers),
            "operator_waste": len(self.waste),
        }


def _check_balances(snap: _Snapshot, bad: _Collector) -> None:
    by_account: dict[int, list[sa.Row]] = defaultdict(list)
    for entry in snap.entries:
        by_account[entry.account_id].append(entry)
    for account in snap.accounts:
        name = f"accounts#{account.id}"
        running = ZERO
        lowest: tuple[Decimal, int] | None = None
        for entry in by_account.get(account.id, []):  # already in id (= commit) order
            running += entry.amount
            if running < 0 and (lowest is None or running < lowest[0]):
                lowest = (running, entry.id)
        if running != account.balance:
            bad.add(
                "balance_equals_entries",
                f"account {account.name!r} balance {account.balance} != sum of its entries {running}",
                name,
            )
        if account.balance < 0:
            bad.add("balance_never_negative", f"account {account.name!r} balance is {account.balance}", name)
        if lowest is not None:
            bad.add(
                "balance_never_negative",
                f"account {account.name!r} went to {lowest[0]} after entry {lowest[1]}",
                name,
                f"ledger_entries#{lowest[1]}",
            )


def _check_reservations(snap: _Snapshot, bad: _Collector, checked_at: datetime, stale_after_s: float) -> None:
    per_res: dict[int, dict[str, list[sa.Row]]] = defaultdict(lambda: defaultdict(list))
    for entry in snap.entries:
        row = f"ledger_entries#{entry.id}"
        if entry.kind == "grant" and entry.amount <= 0:
            bad.add("entry_amounts", "a grant entry is not positive", row)
        if entry.kind in ("reserve", "settle", "release") and entry.reservation_id is None:
            bad.add("entry_amounts", f"a {entry.kind} entry has no reservation", row)
        if entry.reservation_id is None:
            continue
        res = snap.reservations.get(entry.reservation_id)
        if res is None:
            bad.add("entry_amounts", "entry points at a missing reservation", row)
            continue
        per_res[res.id][entry.kind].append(entry)
        if entry.account_id != res.account_id:
            bad.add("entry_amounts", "entry and its reservation belong to different accounts", row)
        if entry.kind == "reserve" and entry.amount != -res.amount:
            bad.add("entry_amounts", "reserve entry is not minus the reservation's amount", row)
        if entry.kind == "release" and entry.amount != res.amount:
            bad.add("entry_amounts", "release entry does not give back the reservation's amount", row)

    stale_before = checked_at - timedelta(seconds=stale_after_s)
    for res in snap.reservations.values():
        name = f"reservations#{res.id}"
        kinds = per_res.get(res.id, {})
        n = {k: len(kinds.get(k, [])) for k in ("reserve", "settle", "release", "grant", "adjust")}
        if n["reserve"] != 1:
            bad.add("reservation_entries", f"reservation has {n['reserve']} reserve entries (expected 1)", name)
        if n["grant"] or n["adjust"]:
            bad.add("reservation_entries", "grant/adjust entries point at a reservation", name)
        if res.state == "open":
            if n["settle"] or n["release"]:
                bad.add("reservation_entries", "open reservation already has settle/release entries", name)
            if res.created_at < stale_before:
                bad.add(
                    "no_stale_open_reservations",
                    f"reservation open for longer than {stale_after_s:g}s "
                    "(release it: agentr ledger release-stale)",
                    name,
                )
        elif res.state == "released":
            if n["release"] != 1 or n["settle"]:
                bad.add(
                    "reservation_entries",
                    f"released reservation has {n['release']} release and {n['settle']} settle entries",
                    name,
                )
        elif res.state == "settled" and (n["settle"] != 1 or n["release"] > 1):
            bad.add(
                "reservation_entries",
                f"settled reservation has {n['settle']} settle and {n['release']} release entries",
                name,
            )
        if res.state != "open" and res.closed_at is None:
            bad.add("reservation_entries", "closed reservation has no closed_at", name)
    snap.per_reservation = per_res


def _shortfall(note: str) -> Decimal:
    match = _SHORTFALL.search(note or "")
    return cost_rule.quantize(match.group(1)) if match else ZERO


def _in_force(row: sa.Row, at: datetime) -> bool:
    return row.valid_from <= at and (row.valid_to is None or at < row.valid_to)


def _check_usage(snap: _Snapshot, bad: _Collector, notes: _Collector) -> None:
    per_res = snap.per_reservation
    usage_ids = {u.id: u for u in snap.usage}
    settle_by_usage: dict[int, list[sa.Row]] = defaultdict(list)
    for entry in snap.entries:
        if entry.usage_id is None:
            continue
        usage = usage_ids.get(entry.usage_id)
        if entry.kind != "settle":
            bad.add(
                "usage_has_ledger_entries", f"a {entry.kind} entry points at a usage row", f"ledger_entries#{entry.id}"
            )
        elif usage is None or usage.reservation_id != entry.reservation_id:
            bad.add(
                "usage_has_ledger_entries",
                "settle entry points at a usage row of another reservation",
                f"ledger_entries#{entry.id}",
            )
        else:
            settle_by_usage[usage.id].append(entry)
    for entry in snap.entries:
        if entry.kind == "settle" and entry.usage_id is None:
            bad.add("usage_has_ledger_entries", "settle entry without a usage row", f"ledger_entries#{entry.id}")

    for usage in snap.usage:
        name = f"usage_log#{usage.id}"
        res = snap.reservations.get(usage.reservation_id) if usage.reservation_id is not None else None
        if res is None:
            bad.add("usage_has_ledger_entries", "usage row has no reservation, so no ledger entries", name)
        else:
            settles = settle_by_usage.get(usage.id, [])
            if res.state != "settled":
                bad.add("usage_has_ledger_entries", f"usage row's reservation is {res.state}, not settled", name)
            if len(settles) != 1:
                bad.add("usage_has_ledger_entries", f"usage row has {len(settles)} settle entries (expected 1)", name)
            else:
                entries = [e for kind in per_res.get(res.id, {}).values() for e in kind]
                net = sum((e.amount for e in entries), ZERO)
                shortfall = _shortfall(settles[0].note)
                if net != -(usage.credits - shortfall):
                    bad.add(
                        "usage_has_ledger_entries",
                        "the reservation's entries do not net to minus the usage row's credits",
                        name,
                        *(f"ledger_entries#{e.id}" for e in entries),
                    )
                if shortfall:
                    notes.add(
                        "uncollected_overrun",
                        "an overrun the balance could not cover was not charged (written in the settle entry)",
                        name,
                    )
        _check_usage_price(snap, usage, name, bad, notes)


def _check_usage_price(snap: _Snapshot, usage: sa.Row, name: str, bad: _Collector, notes: _Collector) -> None:
    multiplier = snap.multipliers.get(usage.multiplier_id)
    if multiplier is None:
        bad.add("usage_cost_recomputes", "usage row's multiplier row is missing", name)
        return
    if not _in_force(multiplier, usage.created_at):
        bad.add(
            "priced_by_rows_in_force",
            "the multiplier row on the usage row was not in force at the call's time",
            name,
            f"credit_multiplier#{multiplier.id}",
        )
    prices = None
    if usage.pricing_id is not None:
        price = snap.pricing.get(usage.pricing_id)
        if price is None:
            bad.add("usage_cost_recomputes", "usage row's pricing row is missing", name)
            return
        prices = cost_rule.Prices(price.input_usd_per_m, price.output_usd_per_m, price.cached_input_usd_per_m)
        if price.model != usage.model or price.provider not in (usage.provider, "default"):
            bad.add(
                "priced_by_rows_in_force",
                "the pricing row on the usage row is for another model or provider",
                name,
                f"model_pricing#{price.id}",
            )
        if not _in_force(price, usage.created_at):
            bad.add(
                "priced_by_rows_in_force",
                "the pricing row on the usage row was not in force at the call's time",
                name,
                f"model_pricing#{price.id}",
            )
    else:
        notes.add("unpriced_calls", "calls of a model with no price in force were recorded at zero cost", name)
    try:
        cost, credits = cost_rule.charge(
            usage.input_tokens, usage.output_tokens, usage.cached_input_tokens, prices, multiplier.credits_per_usd
        )
    except ValueError as exc:
        bad.add("usage_cost_recomputes", f"usage row's tokens are invalid: {exc}", name)
        return
    if cost != usage.cost_usd or credits != usage.credits:
        bad.add(
            "usage_cost_recomputes",
            "stored cost/credits differ from the cost rule applied to the stored price and multiplier rows",
            name,
        )


def _check_scd2(snap: _Snapshot, bad: _Collector) -> None:
    groups: dict[str, list[sa.Row]] = defaultdict(list)
    for row in snap.pricing.values():
        groups[f"model_pricing:{row.model}/{row.provider}/{row.tier}"].append(row)
    groups["credit_multiplier"] = list(snap.multipliers.values())
    groups["default_credits"] = list(snap.default_credits)
    for key, rows in groups.items():
        table = key.split(":", 1)[0]
        rows = sorted(rows, key=lambda r: (r.valid_from, r.id))
        for i, row in enumerate(rows):
            name = f"{table}#{row.id}"
            last = i == len(rows) - 1
            if row.valid_to is not None and row.valid_to <= row.valid_from:
                bad.add("scd2_history", f"{key}: period ends before it starts", name)
            if last:
                if not row.is_current or row.valid_to is not None:
                    bad.add("scd2_history", f"{key}: the latest row is not the open, current one", name)
            else:
                nxt = rows[i + 1]
                if row.is_current:
                    bad.add("scd2_history", f"{key}: more than one current row", name)
                if row.valid_to != nxt.valid_from:
                    bad.add(
                        "scd2_history",
                        f"{key}: periods overlap or leave a gap",
                        name,
                        f"{table}#{nxt.id}",
                    )


def _check_budgets(snap: _Snapshot, notes: _Collector) -> None:
    used: dict[int, Decimal] = defaultdict(lambda: ZERO)
    for usage in snap.usage:
        if usage.project_id is not None:
            used[usage.project_id] += usage.credits
    for project in snap.projects:
        if project.budget_credits is not None and used[project.id] > project.budget_credits:
            notes.add(
                "budget_overrun",
                "settled usage exceeds the project's budget (calls cost more than their reservation)",
                f"projects#{project.id} ({project.slug})",
            )


def _check_duplicate_charges(snap: _Snapshot, bad: _Collector) -> None:
    by_request: dict[str, list[tuple[sa.Row, sa.Row]]] = defaultdict(list)
    for usage in snap.usage:
        res = snap.reservations.get(usage.reservation_id) if usage.reservation_id is not None else None
        if usage.request_hash and res is not None:
            by_request[usage.request_hash].append((usage, res))
    for request, calls in by_request.items():
        stored = snap.responses.get(request)
        calls.sort(key=lambda c: c[1].created_at)
        for i, (usage, res) in enumerate(calls):
            name = f"usage_log#{usage.id}"
            if stored is not None and res.created_at > stored:
                bad.add("no_duplicate_charges", "a call was charged after its validated answer was stored", name)
            for other_usage, other in calls[i + 1 :]:
                if res.closed_at is None or other.created_at < res.closed_at:
                    bad.add(
                        "no_duplicate_charges",
                        "the same request was charged twice by calls in flight at the same time",
                        name, f"usage_log#{other_usage.id}",
                    )


def _check_open_after_run(snap: _Snapshot, bad: _Collector) -> None:
    ends: dict[tuple[int, str, str], datetime] = {}
    for row in snap.stage_ends:
        key = (row.project_id, row.stage, row.run_id)
        ends[key] = max(ends.get(key, row.created_at), row.created_at)
    for res in snap.reservations.values():
        if res.state != "open" or res.run_id is None or res.project_id is None:
            continue
        ended = ends.get((res.project_id, res.stage, res.run_id))
        if ended is not None and ended >= res.created_at:
            bad.add(
                "no_open_reservation_after_run",
                "reservation still open after its run ended the stage (agentr resume, or the next run, "
                "releases it)",
                f"reservations#{res.id}",
            )


def _check_settled_have_usage(snap: _Snapshot, bad: _Collector) -> None:
    usage_per_res: dict[int, int] = defaultdict(int)
    for usage in snap.usage:
        if usage.reservation_id is not None:
            usage_per_res[usage.reservation_id] += 1
    for res in snap.reservations.values():
        n = usage_per_res.get(res.id, 0)
        if res.state == "settled" and n != 1:
            bad.add("settled_calls_have_usage", f"settled reservation has {n} usage rows (expected 1)",
                    f"reservations#{res.id}")
        elif res.state != "settled" and n:
            bad.add("settled_calls_have_usage", f"{res.state} reservation has a usage row", f"reservations#{res.id}")


def _retry_marks(conn: Connection) -> dict[int, list[int]]:
    from agentr_dagster.store.attempts import RETRY_INVALID_STAGE

    a = t.artifacts
    marks: dict[int, list[int]] = defaultdict(list)
    for project_id, payload in conn.execute(
            sa.select(a.c.project_id, a.c.payload).where(a.c.stage == RETRY_INVALID_STAGE).order_by(a.c.id)):
        marks[project_id].append(int((payload or {}).get("after_reservation", 0)))
    return marks


def _check_attempt_cap(snap: _Snapshot, bad: _Collector, max_answers: int) -> None:
    """Answered calls per request hash, between the `--retry-invalid` marks of the projects that made them."""
    by_request: dict[str, list[sa.Row]] = defaultdict(list)
    for usage in snap.usage:
        if usage.request_hash and usage.reservation_id is not None:
            by_request[usage.request_hash].append(usage)
    for calls in by_request.values():
        if len(calls) <= max_answers:
            continue
        marks = sorted({m for u in calls for m in snap.retry_marks.get(u.project_id, [])})
        segments: dict[int, list[sa.Row]] = defaultdict(list)
        for usage in calls:  # the segment is the number of marks below the call's reservation
            segments[sum(1 for m in marks if usage.reservation_id > m)].append(usage)
        for segment in segments.values():
            if len(segment) > max_answers:
                bad.add("paid_within_attempt_cap",
                        f"one request was paid {len(segment)} times (the cap allows {max_answers}: the answer and "
                        "one repair)", *(f"usage_log#{u.id}" for u in segment))


def _check_waste(snap: _Snapshot, bad: _Collector) -> None:
    """A call the operator pays must not also be charged: its reservation is released and has no usage row."""
    charged = {u.reservation_id for u in snap.usage if u.reservation_id is not None}
    for row in snap.waste:
        res = snap.reservations.get(row.reservation_id)
        if res is None or res.state == "settled" or row.reservation_id in charged:
            bad.add("waste_never_charged", "a call recorded as operator waste was also charged to a project",
                    f"operator_waste#{row.id}", f"reservations#{row.reservation_id}")
