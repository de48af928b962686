"""Usage reports as pandas frames: by project, stage, model and day, in tokens, USD and credits.

Money stays exact: cost and credit columns hold ``Decimal`` values (object dtype), summed with Decimal
arithmetic, and are written as their decimal strings in JSON and CSV. Every figure comes from the usage rows,
each of which was priced once, at call time, by the pricing and multiplier rows it names; the per-call frame
carries those rows' prices too, so a reader can redo any cost by hand:

    cost_usd = (input_tokens - cached_input_tokens) × input_usd_per_m / 1e6
             + cached_input_tokens × cached_input_usd_per_m / 1e6 + output_tokens × output_usd_per_m / 1e6
    credits  = cost_usd × credits_per_usd
"""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING, Any

import pandas as pd

if TYPE_CHECKING:
    from agentr_dagster.store import DomainStore

GROUP_KEYS = ("project", "stage", "model", "day")
TOKEN_COLUMNS = ("input_tokens", "cached_input_tokens", "output_tokens", "total_tokens")
MONEY_COLUMNS = ("cost_usd", "credits")
SUM_COLUMNS = ("calls", *TOKEN_COLUMNS, *MONEY_COLUMNS)
NO_PROJECT = "(none)"
NO_STAGE = "(none)"

CALL_COLUMNS = [
    "usage_id", "project", "stage", "model", "provider", "day", "created_at", "paper_id", "run_id",
    "reservation_id", "input_tokens", "cached_input_tokens", "output_tokens", "total_tokens", "cost_usd", "credits",
    "pricing_id", "input_usd_per_m", "cached_input_usd_per_m", "output_usd_per_m", "multiplier_id",
    "credits_per_usd", "latency_ms",
]


def usage_calls_frame(store: DomainStore, slug: str | None = None, *, run_id: str | None = None) -> pd.DataFrame:
    """One row per LLM call, with the prices and multiplier it was charged at (deleted projects included)."""
    rows = store.ledger.usage(slug)
    if run_id is not None:
        rows = [r for r in rows if r.run_id == run_id]
    prices = {p.id: p for p in store.ledger.pricing_history()} if rows else {}
    multipliers = {m.id: m for m in store.ledger.multiplier_history()} if rows else {}
    records = []
    for r in rows:
        price = prices.get(r.pricing_id) if r.pricing_id is not None else None
        multiplier = multipliers.get(r.multiplier_id)
        records.append({
            "usage_id": r.id,
            "project": r.slug or NO_PROJECT,
            "stage": r.stage or NO_STAGE,
            "model": r.model,
            "provider": r.provider,
            "day": r.created_at.date().isoformat(),  # UTC day
            "created_at": r.created_at.isoformat(),
            "paper_id": r.paper_id,
            "run_id": r.run_id,
            "reservation_id": r.reservation_id,
            "input_tokens": r.input_tokens,
            "cached_input_tokens": r.cached_input_tokens,
            "output_tokens": r.output_tokens,
            "total_tokens": r.input_tokens + r.output_tokens,
            "cost_usd": r.cost_usd,
            "credits": r.credits,
            "pricing_id": r.pricing_id,
            "input_usd_per_m": price.input_usd_per_m if price else None,
            "cached_input_usd_per_m": (
                (price.cached_input_usd_per_m if price.cached_input_usd_per_m is not None else price.input_usd_per_m)
                if price else None
            ),
            "output_usd_per_m": price.output_usd_per_m if price else None,
            "multiplier_id": r.multiplier_id,
            "credits_per_usd": multiplier.credits_per_usd if multiplier else None,
            "latency_ms": r.latency_ms,
        })
    frame = pd.DataFrame(records, columns=CALL_COLUMNS)
    for column in ("paper_id", "reservation_id", "pricing_id", "latency_ms"):
        frame[column] = frame[column].astype("Int64")
    return frame


def aggregate(calls: pd.DataFrame, by: tuple[str, ...] | list[str] = GROUP_KEYS) -> pd.DataFrame:
    """Sum calls, tokens, USD and credits over ``by`` (any of project, stage, model, provider, day)."""
    by = list(by)
    unknown = [k for k in by if k not in calls.columns]
    if unknown:
        raise ValueError(f"cannot group usage by {', '.join(unknown)}")
    columns = [*by, *SUM_COLUMNS]
    if calls.empty:
        return pd.DataFrame(columns=columns)
    work = calls.assign(calls=1)
    if not by:
        return pd.DataFrame([totals_of(calls)], columns=columns)
    summed = {c: (c, _decimal_sum if c in MONEY_COLUMNS else "sum") for c in SUM_COLUMNS}
    out = work.groupby(by, sort=True, dropna=False).agg(**summed).reset_index()
    for column in ("calls", *TOKEN_COLUMNS):
        out[column] = out[column].astype("int64")
    return out[columns]


def _decimal_sum(values: pd.Series) -> Decimal:
    return sum((Decimal(v) for v in values), Decimal("0E-8"))


def usage_report(
    store: DomainStore, slug: str | None = None, by: tuple[str, ...] | list[str] = GROUP_KEYS
) -> pd.DataFrame:
    """Usage by project, stage, model and day (or the keys given), with calls, tokens, USD and credits."""
    return aggregate(usage_calls_frame(store, slug), by)


def usage_totals(
    store: DomainStore, slug: str | None = None, *, stage: str | None = None, run_id: str | None = None
) -> dict:
    """Calls, tokens, USD and credits in all (optionally of one stage and/or one Dagster run)."""
    calls = usage_calls_frame(store, slug, run_id=run_id)
    if stage is not None:
        calls = calls[calls["stage"] == stage]
    return totals_of(calls)


def totals_of(calls: pd.DataFrame) -> dict[str, Any]:
    return {
        "calls": len(calls),
        **{c: int(calls[c].sum()) if len(calls) else 0 for c in TOKEN_COLUMNS},
        **{c: _decimal_sum(calls[c]) for c in MONEY_COLUMNS},
    }


def records(frame: pd.DataFrame) -> list[dict[str, Any]]:
    """JSON-ready rows: money as exact decimal strings, missing values as None."""
    out = []
    for row in frame.to_dict(orient="records"):
        out.append({k: _jsonable(v) for k, v in row.items()})
    return out


def _jsonable(value: Any) -> Any:
    if isinstance(value, Decimal):
        return format(value, "f")  # "0.00000000", never "0E-8"
    if value is None or value is pd.NA or (isinstance(value, float) and value != value):
        return None
    if hasattr(value, "item"):  # numpy scalars
        return value.item()
    return value


def format_table(frame: pd.DataFrame, totals: dict[str, Any] | None = None) -> str:
    """A plain-text table and, below it, the totals line (``total: calls=... credits=...``)."""
    if frame.empty:
        return "no usage recorded"
    shown = frame.copy()
    for column in MONEY_COLUMNS:
        if column in shown:
            shown[column] = shown[column].map(lambda v: f"{Decimal(v):.8f}")
    text = shown.to_string(index=False)
    if totals is not None:
        text += "\n" + totals_line(totals)
    return text


def totals_line(totals: dict[str, Any]) -> str:
    parts = [f"{k}={(f'{v:.8f}' if isinstance(v, Decimal) else v)}" for k, v in totals.items()]
    return "total: " + "  ".join(parts)
