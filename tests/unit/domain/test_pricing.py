"""The pricing rule refuses token counts no endpoint can report: negative, fractional or boolean, in every
position (input, output, cached input, the estimate's maximum output), with prices or without."""

from __future__ import annotations

from decimal import Decimal

import pytest

from agentr_dagster.domain.pricing import Prices, charge, cost_usd, estimate_credits

PRICES = Prices(Decimal("1"), Decimal("2"), Decimal("0.5"))


@pytest.mark.parametrize("prices", [PRICES, None])
@pytest.mark.parametrize("tokens", [(-1, 0, 0), (10, -1, 0), (10, 0, -1), (1.5, 0, 0), (10, True, 0), (10, 0, 0.0)])
def test_charge_refuses_impossible_token_counts(tokens, prices):
    with pytest.raises(ValueError, match="non-negative integer"):
        charge(*tokens, prices, Decimal(1000))


@pytest.mark.parametrize("prices", [PRICES, None])
@pytest.mark.parametrize("tokens", [(-1, 10), (10, -1), (10, 2.0)])
def test_estimate_refuses_impossible_token_counts(tokens, prices):
    with pytest.raises(ValueError, match="non-negative integer"):
        estimate_credits(*tokens, prices, Decimal(1000))


def test_zero_counts_are_fine_and_cached_tokens_are_priced_apart():
    assert charge(0, 0, 0, PRICES, Decimal(1000)) == (Decimal(0), Decimal(0))
    # 600k fresh input at 1, 400k cached at 0.5, 1M output at 2 USD per million
    assert cost_usd(1_000_000, 1_000_000, 400_000, PRICES) == Decimal("2.80000000")
    with pytest.raises(ValueError, match="cannot exceed"):
        cost_usd(10, 0, 11, PRICES)
