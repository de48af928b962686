"""The scoring plan's stopping rule: ``--stop-at-recall`` alone gets the rule's own (95 %) confidence."""

from __future__ import annotations

import pytest

from agentr_dagster.domain.recall_stopping import DEFAULT_CONFIDENCE
from agentr_dagster.stages.scoring import ScoringPlan


def test_a_plan_with_a_target_uses_the_rules_default_confidence():
    plan = ScoringPlan(stop_at_recall=0.95)
    assert plan.confidence == DEFAULT_CONFIDENCE == 0.95
    assert plan.describe()["confidence"] == 0.95 and plan.may_stop


@pytest.mark.parametrize("target", [0, 1.2])
def test_a_target_outside_0_1_is_refused(target):
    with pytest.raises(ValueError, match="stop_at_recall"):
        ScoringPlan(stop_at_recall=target)
