"""`agentr ledger verify|release-stale|show`, `agentr estimate <slug>`, `agentr budget set|show`."""

from __future__ import annotations

import sys
from decimal import Decimal, InvalidOperation

import click

from agentr_dagster.cli.common import dump_json, fail, open_store
from agentr_dagster.settings import LLMConfig, get_settings


# ---------------------------------------------------------------- ledger
@click.group("ledger")
def ledger_group() -> None:
    """The credit ledger: check its invariants, release stale reservations, list entries."""


@ledger_group.command("verify")
@click.option("--stale-after", type=float, default=3600.0, show_default=True,
              help="Seconds after which an open reservation counts as stale (a failed invariant).")
@click.option("--json", "as_json", is_flag=True)
def ledger_verify(stale_after: float, as_json: bool) -> None:
    """Check every ledger invariant; exit 1 naming the rows if one fails.

    Balance = sum of entries (and never below zero, replayed in commit order); every reservation's and usage
    row's ledger entries; no reservation open longer than --stale-after; each usage row's cost and credits
    recomputed from the price and multiplier rows it names, and those rows in force at its time; SCD-2 history
    contiguous; no request charged twice; no operator waste also charged.

    Operator waste (calls served but charged to no project: fenced late answers, timeouts, kills) is printed as
    its own figure with counts per cause; it never fails the check.
    """
    from agentr_dagster.store.verify import verify_ledger

    report = verify_ledger(open_store(), stale_after_s=stale_after)
    if as_json:
        click.echo(dump_json(report.to_dict()))
    else:
        counts = ", ".join(f"{k} {v}" for k, v in report.counts.items())
        click.echo(f"checked {len(report.checks)} invariants over {counts}")
        for violation in report.violations:
            click.echo(f"FAIL {violation}")
        for warning in report.warnings:
            click.echo(f"note {warning}")
        click.echo(report.waste_line())
        click.echo("ledger verify: OK" if report.ok else
                   f"ledger verify: FAILED ({', '.join(report.failed_checks())})")
    if not report.ok:
        sys.exit(1)


@ledger_group.command("release-stale")
@click.option("--older-than", type=float, default=3600.0, show_default=True, help="Seconds.")
def ledger_release_stale(older_than: float) -> None:
    """Give back reservations open longer than --older-than (their calls died without settling)."""
    released = open_store().ledger.release_stale_reservations(older_than)
    click.echo(f"released {released} stale reservation(s)")


@ledger_group.command("show")
@click.option("--account", default="default", show_default=True)
@click.option("--limit", type=int, default=50, show_default=True, help="Most recent entries to list (0: all).")
@click.option("--json", "as_json", is_flag=True)
def ledger_show(account: str, limit: int, as_json: bool) -> None:
    """The account's balance and its most recent ledger entries."""
    store = open_store()
    entries = store.ledger.ledger(account)
    shown = entries[-limit:] if limit else entries
    if as_json:
        click.echo(dump_json({"account": account, "balance": store.ledger.balance(account),
                          "entries": [e.__dict__ for e in shown]}))
        return
    click.echo(f"{account}: balance {store.ledger.balance(account):f} credits, {len(entries)} entries")
    for e in shown:
        refs = " ".join(x for x in (e.reservation_id and f"reservation={e.reservation_id}",
                                    e.usage_id and f"usage={e.usage_id}") if x)
        click.echo(f"{e.id:>8} {e.created_at:%Y-%m-%d %H:%M:%S} {e.kind:<8} {e.amount:>18} {refs} {e.note}".rstrip())


# ---------------------------------------------------------------- estimate
@click.command("estimate")
@click.argument("slug")
@click.option("--model", default=None,
              help=f"Default: $AGENTR_LLM_MODEL, else {LLMConfig.model_fields['model'].default}.")
@click.option("--provider", default=None,
              help=f"Default: $AGENTR_LLM_PROVIDER, else {LLMConfig.model_fields['provider'].default!r}.")
@click.option("--tier", default="standard", show_default=True)
@click.option("--json", "as_json", is_flag=True)
def estimate_command(slug: str, model: str | None, provider: str | None, tier: str, as_json: bool) -> None:
    """Projected tokens, USD and credits of the work a run of SLUG would still do (nothing is spent)."""
    from agentr_dagster.stages.estimate import estimate_project, format_estimate
    from agentr_dagster.store import StoreError

    settings = get_settings()
    model = model or settings.llm.model
    provider = provider or settings.llm.provider
    backend = "llm" if settings.llm.configured else "offline"
    try:
        est = estimate_project(open_store(), slug, model=model, provider=provider, tier=tier, backend=backend)
    except StoreError as exc:
        fail(str(exc))
    click.echo(dump_json(est.to_dict()) if as_json else format_estimate(est))


# ---------------------------------------------------------------- budgets
@click.group("budget")
def budget_group() -> None:
    """Per-project credit budgets (work that would exceed one stops before the call, as no-credits)."""


@budget_group.command("set")
@click.argument("slug")
@click.argument("credits")
def budget_set(slug: str, credits: str) -> None:
    """Set SLUG's budget to CREDITS (a number; 'none' removes the cap)."""
    from agentr_dagster.store import StoreError

    value: Decimal | None
    if credits.strip().lower() in ("none", "off", "unlimited"):
        value = None
    else:
        try:
            value = Decimal(credits)
        except InvalidOperation:
            fail(f"not a number of credits: {credits!r}")
        if not value.is_finite() or value < 0:
            fail("a budget is a non-negative number of credits")
    try:
        row = open_store().projects.set_budget(slug, value)
    except StoreError as exc:
        fail(str(exc))
    click.echo(f"{row.slug}: budget {'none' if row.budget_credits is None else f'{row.budget_credits} credits'}")


@budget_group.command("show")
@click.argument("slug", required=False)
@click.option("--json", "as_json", is_flag=True)
def budget_show(slug: str | None, as_json: bool) -> None:
    """Budget, credits used (settled), held (open reservations) and left, per project."""
    store = open_store()
    projects = [store.projects.get_project(slug)] if slug else store.projects.list_projects()
    rows = []
    for p in projects:
        used = sum((u.credits for u in store.ledger.usage(p.slug)), Decimal("0E-8"))
        held = sum((r.amount for r in store.ledger.reservations(p.slug, state="open")), Decimal("0E-8"))
        left = None if p.budget_credits is None else max(p.budget_credits - used - held, Decimal("0E-8"))
        rows.append({"project": p.slug, "account": p.account, "budget": p.budget_credits, "used": used,
                     "held": held, "left": left})
    if as_json:
        click.echo(dump_json(rows))
        return
    if not rows:
        click.echo("no projects")
    for r in rows:
        budget = "none" if r["budget"] is None else f"{r['budget']:f}"
        left = "-" if r["left"] is None else f"{r['left']:f}"
        click.echo(f"{r['project']}: budget {budget}, used {r['used']:f}, held {r['held']:f}, left {left} "
                   f"(account {r['account']})")


# ---------------------------------------------------------------- SCD-2 history (mounted under pricing/credits)
@click.command("history")
@click.argument("model", required=False)
@click.option("--json", "as_json", is_flag=True)
def pricing_history_command(model: str | None, as_json: bool) -> None:
    """Every price row (SCD-2): the period it was in force and its USD per million tokens."""
    rows = open_store().ledger.pricing_history(model)
    if as_json:
        click.echo(dump_json([r.__dict__ for r in rows]))
        return
    if not rows:
        click.echo("no prices set")
    for r in rows:
        cached = "=input" if r.cached_input_usd_per_m is None else r.cached_input_usd_per_m
        until = "now (current)" if r.valid_to is None else r.valid_to.isoformat()
        click.echo(f"row {r.id}: {r.model} {r.provider}/{r.tier} input {r.input_usd_per_m} cached {cached} "
                   f"output {r.output_usd_per_m} USD/M, from {r.valid_from.isoformat()} until {until}")


@click.group("multiplier")
def multiplier_group() -> None:
    """The USD to credits multiplier (SCD-2: a change never re-prices past calls)."""


@multiplier_group.command("set")
@click.argument("credits_per_usd")
def multiplier_set(credits_per_usd: str) -> None:
    try:
        row_id = open_store().ledger.set_multiplier(Decimal(credits_per_usd))
    except (InvalidOperation, ValueError) as exc:
        fail(f"not a valid multiplier {credits_per_usd!r}: {exc}")
    click.echo(f"multiplier {credits_per_usd} credits/USD now in force: row {row_id}")


@multiplier_group.command("history")
@click.option("--json", "as_json", is_flag=True)
def multiplier_history(as_json: bool) -> None:
    rows = open_store().ledger.multiplier_history()
    if as_json:
        click.echo(dump_json([r.__dict__ for r in rows]))
        return
    for r in rows:
        until = "now (current)" if r.valid_to is None else r.valid_to.isoformat()
        click.echo(f"row {r.id}: {r.credits_per_usd} credits/USD from {r.valid_from.isoformat()} until {until}")


@click.command("set-default")
@click.argument("amount")
def default_credits_command(amount: str) -> None:
    """Credits a new account starts with (SCD-2; existing accounts are not touched)."""
    try:
        row_id = open_store().ledger.set_default_credits(Decimal(amount))
    except (InvalidOperation, ValueError) as exc:
        fail(f"not a valid amount {amount!r}: {exc}")
    click.echo(f"new accounts now start with {amount} credits: row {row_id}")
