"""`agentr credits grant|balance`, `agentr pricing set` and `agentr usage`: credits, prices and what calls cost."""

from __future__ import annotations

from decimal import Decimal

import click

from agentr_dagster.cli.common import echo_json, open_store


@click.group("credits")
def credits() -> None:
    """Credit balances."""


@credits.command("grant")
@click.argument("amount", type=float)
@click.option("--account", default="default", show_default=True)
@click.option("--note", default="manual grant")
def credits_grant(amount: float, account: str, note: str) -> None:
    store = open_store()
    store.ledger.ensure_account(account)
    balance = store.ledger.grant(account, Decimal(str(amount)), note=note)
    click.echo(f"{account}: balance {balance:f} credits")


@credits.command("balance")
@click.option("--account", default="default", show_default=True)
def credits_balance(account: str) -> None:
    store = open_store()
    store.ledger.ensure_account(account)
    click.echo(f"{account}: balance {store.ledger.balance(account):f} credits")


@click.group("pricing")
def pricing() -> None:
    """Model prices (SCD-2 history: a change never re-prices past calls)."""


@pricing.command("set")
@click.argument("model")
@click.option("--input", "input_price", type=float, required=True, help="USD per million input tokens")
@click.option("--output", "output_price", type=float, required=True, help="USD per million output tokens")
@click.option("--cached-input", type=float, default=None, help="USD per million cached input tokens")
@click.option("--provider", default="default", show_default=True)
@click.option("--tier", default="standard", show_default=True)
def pricing_set(model, input_price, output_price, cached_input, provider, tier) -> None:
    row_id = open_store().ledger.set_pricing(
        model, Decimal(str(input_price)), Decimal(str(output_price)),
        None if cached_input is None else Decimal(str(cached_input)), provider=provider, tier=tier,
    )
    click.echo(f"pricing for {model} ({provider}/{tier}) now in force: row {row_id}")


@click.command("usage")
@click.argument("slug", required=False)
@click.option("--json", "as_json", is_flag=True)
@click.option("--calls", "per_call", is_flag=True, help="One row per call, with the price and multiplier it paid.")
def usage(slug: str | None, as_json: bool, per_call: bool) -> None:
    """LLM usage by project, stage, model and (UTC) day: calls, tokens, USD and credits, with totals; then the
    operator waste (calls the endpoint served, or may have served, that no project is charged for), per cause."""
    from agentr_dagster.stages.usage import aggregate, format_table, records, totals_of, usage_calls_frame
    from agentr_dagster.store.verify import waste_figures, waste_summary

    store = open_store()
    calls = usage_calls_frame(store, slug)
    frame = calls if per_call else aggregate(calls)
    if as_json:
        echo_json(records(frame))
        return
    click.echo(format_table(frame, totals_of(calls)))
    click.echo(waste_summary(waste_figures(store.ledger.waste(slug))))
