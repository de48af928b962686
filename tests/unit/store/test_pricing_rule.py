"""The ledger's pricing rule and usage validation as pure functions (the ledger itself: tests/integration/store)."""

from __future__ import annotations

import random
from decimal import Decimal

import pytest

from agentr_dagster.domain import pricing
from agentr_dagster.store import UsageIn

D = Decimal


def test_cost_rule():
    prices = pricing.Prices(D("2.5"), D("10"), D("1.25"))
    # 1000 fresh input at 2.5/M + 500 cached at 1.25/M + 200 output at 10/M
    cost = pricing.cost_usd(1500, 200, 500, prices)
    assert cost == D("0.0025") + D("0.000625") + D("0.002")
    assert pricing.credits_for(cost, 1000) == D("5.12500000")
    # cached price defaults to the input price
    assert pricing.cost_usd(1000, 0, 400, pricing.Prices(D("3"), D("0"))) == D("0.003")
    # quantised to 8 places, half-up
    assert pricing.cost_usd(1, 0, 0, pricing.Prices(D("0.005"), D("0"))) == D("0.00000001")
    assert pricing.charge(10, 10, 0, None, 1000) == (D(0), D(0))
    with pytest.raises(ValueError):
        pricing.cost_usd(10, 0, 11, prices)
    with pytest.raises(ValueError):
        pricing.cost_usd(-1, 0, 0, prices)
    assert pricing.to_decimal(0.1) == D("0.1")


def test_estimate_is_an_upper_bound():
    prices = pricing.Prices(D("0.15"), D("0.6"), D("0.075"))
    rng = random.Random(7)
    for _ in range(200):
        inp, out_max = rng.randint(0, 20000), rng.randint(0, 4000)
        est = pricing.estimate_credits(inp, out_max, prices, 1000)
        actual = pricing.charge(inp, rng.randint(0, out_max), rng.randint(0, inp), prices, 1000)[1]
        assert est >= actual
    assert pricing.estimate_credits(1, 1, None, 1000) == 0


def test_usage_in_validation():
    with pytest.raises(ValueError):
        UsageIn(model="m", input_tokens=1, output_tokens=0, cached_input_tokens=2)
    with pytest.raises(ValueError):
        UsageIn(model="m", input_tokens=-1, output_tokens=0)
    with pytest.raises(ValueError):
        UsageIn(model="m", input_tokens=1, output_tokens=0, bogus=1)
