"""Leave-one-review-out choice of the pseudo-relevance feedback run (invented figures)."""

from __future__ import annotations

from agentr_dagster.bench.pseudo import leave_one_out_pseudo


def _row(recall: float, off_topic: float, ratio_n: float = 1.0) -> dict:
    return {"recall": recall, "off_topic": off_topic, "ratio_n": ratio_n, "added": {}}


def _review(name: str, drug: bool, unrefined: dict, refined: dict) -> dict:
    return {"name": name, "drug": drug, "pseudo": {"runs": {"0/0.0": unrefined, "5/2.0": refined}}}


def test_each_review_gets_the_run_chosen_on_the_others_and_groups_are_reported_apart():
    gains = (_row(0.8, 0.01), _row(0.95, 0.02))  # the refined query meets the bars where the unrefined did not
    loses = (_row(0.95, 0.01), _row(0.97, 0.09))  # ... and here reaches off-topic
    reviews = [_review("a", True, *gains), _review("b", False, *gains), _review("c", True, *loses),
               _review("d", False, *loses)]
    loo = leave_one_out_pseudo(reviews)
    assert loo is not None
    # a held-out review's own figures never enter its pick: the others' majority decides
    assert loo["picked"] == {"a": "0/0.0", "b": "0/0.0", "c": "5/2.0", "d": "5/2.0"}
    assert loo["all"]["unrefined"]["meeting_bars"] == 2
    assert loo["all"]["held_out"]["meeting_bars"] == 0
    assert loo["drug"]["held_out"]["n"] == 2 and loo["non_drug"]["unrefined"]["meeting_bars"] == 1
    assert loo["grid"]["5/2.0"]["meeting_bars"] == 2
