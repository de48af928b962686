"""The cost rule, as pure Decimal arithmetic (no I/O, no Dagster).

    cost_usd = (input - cached) × input_price / 1e6 + cached × cached_price / 1e6 + output × output_price / 1e6
    credits  = cost_usd × credits_per_usd

Prices are USD per million tokens; the cached-input price defaults to the input price. ``input_tokens`` counts
all prompt tokens, cached ones included (the OpenAI convention). Results are quantised to 8 places
(``Numeric(18, 8)``), half-up for charges; estimates round up (ceiling) so a reservation is an upper bound.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_CEILING, ROUND_HALF_UP, Decimal, InvalidOperation

QUANTUM = Decimal("0.00000001")
MILLION = Decimal(1_000_000)
ZERO = Decimal("0").quantize(QUANTUM)


def to_decimal(value: object) -> Decimal:
    """Exact conversion for money-like inputs: ``Decimal``, ``int``, ``str``; floats go through ``repr``."""
    if isinstance(value, bool):
        raise TypeError("a bool is not an amount")
    if isinstance(value, Decimal):
        result = value
    elif isinstance(value, float):
        result = Decimal(repr(value))
    elif isinstance(value, (int, str)):
        try:
            result = Decimal(value.strip() if isinstance(value, str) else value)
        except InvalidOperation as exc:
            raise ValueError(f"not a number: {value!r}") from exc
    else:
        raise TypeError(f"not an amount: {type(value).__name__}")
    if not result.is_finite():
        raise ValueError(f"not a finite amount: {value!r}")
    return result


def quantize(value: object, rounding: str = ROUND_HALF_UP) -> Decimal:
    return to_decimal(value).quantize(QUANTUM, rounding=rounding)


@dataclass(frozen=True)
class Prices:
    """USD per million tokens."""

    input_usd_per_m: Decimal
    output_usd_per_m: Decimal
    cached_input_usd_per_m: Decimal | None = None

    @property
    def cached_price(self) -> Decimal:
        return self.input_usd_per_m if self.cached_input_usd_per_m is None else self.cached_input_usd_per_m


def _check_tokens(**tokens: int) -> None:
    for name, value in tokens.items():
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ValueError(f"{name} must be a non-negative integer, got {value!r}")


def _raw_cost(input_tokens: int, output_tokens: int, cached_input_tokens: int, prices: Prices) -> Decimal:
    _check_tokens(input_tokens=input_tokens, output_tokens=output_tokens, cached_input_tokens=cached_input_tokens)
    if cached_input_tokens > input_tokens:
        raise ValueError(f"cached_input_tokens ({cached_input_tokens}) cannot exceed input_tokens ({input_tokens})")
    inp = to_decimal(prices.input_usd_per_m)
    out = to_decimal(prices.output_usd_per_m)
    cached = to_decimal(prices.cached_price)
    return (
        Decimal(input_tokens - cached_input_tokens) * inp
        + Decimal(cached_input_tokens) * cached
        + Decimal(output_tokens) * out
    ) / MILLION


def cost_usd(input_tokens: int, output_tokens: int, cached_input_tokens: int, prices: Prices) -> Decimal:
    """Actual cost of one call in USD, 8 places, half-up."""
    return quantize(_raw_cost(input_tokens, output_tokens, cached_input_tokens, prices))


def credits_for(cost: object, credits_per_usd: object) -> Decimal:
    """Credits charged for a USD cost under a multiplier, 8 places, half-up."""
    return quantize(to_decimal(cost) * to_decimal(credits_per_usd))


def charge(
    input_tokens: int,
    output_tokens: int,
    cached_input_tokens: int,
    prices: Prices | None,
    credits_per_usd: object,
) -> tuple[Decimal, Decimal]:
    """``(cost_usd, credits)`` of one call; a model without prices costs nothing."""
    if prices is None:
        _check_tokens(input_tokens=input_tokens, output_tokens=output_tokens, cached_input_tokens=cached_input_tokens)
        return ZERO, ZERO
    cost = cost_usd(input_tokens, output_tokens, cached_input_tokens, prices)
    return cost, credits_for(cost, credits_per_usd)


def estimate_credits(
    input_tokens: int, max_output_tokens: int, prices: Prices | None, credits_per_usd: object
) -> Decimal:
    """Upper bound on the credits of a call: every input token at the full input price, the output at its
    maximum, rounded up at both steps."""
    if prices is None:
        _check_tokens(input_tokens=input_tokens, max_output_tokens=max_output_tokens)
        return ZERO
    # cached tokens are never dearer than fresh ones in practice; take the larger price to stay an upper bound
    priciest_input = max(to_decimal(prices.input_usd_per_m), to_decimal(prices.cached_price))
    upper = Prices(priciest_input, to_decimal(prices.output_usd_per_m))
    cost = quantize(_raw_cost(input_tokens, max_output_tokens, 0, upper), ROUND_CEILING)
    return quantize(cost * to_decimal(credits_per_usd), ROUND_CEILING)
