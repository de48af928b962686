"""What must be re-run, decided without Dagster (stages/staleness.py): the repair schedule's gates and the labels
sensor's re-rank decision. The Dagster sides are tested in tests/integration/recovery and tests/integration/defs."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from agentr_dagster.stages.staleness import (
    FAILED_STATE_CLASS,
    LabelsDecision,
    RepairView,
    labels_decision,
    quiet_for,
    repair_decision,
)
from agentr_dagster.store.labels import LabelsState

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=timezone.utc)


def test_repair_decision_rules():
    base = RepairView("p", active=True, complete=False, in_flight=False, last_failure_class="transient",
                      credits_available=True, attempts_today=0)
    assert repair_decision(base, 2)[0]
    assert repair_decision(RepairView(**{**base.__dict__, "last_failure_class": None}), 2)[0]  # never run
    for change, why in [
        ({"active": False}, "deleted"), ({"complete": True}, "complete"), ({"in_flight": True}, "running"),
        ({"complete": True, "waiting_for_candidates": True}, "waiting for candidates"),
        ({"last_failure_class": "permanent"}, "needs a person"), ({"last_failure_class": "orphan"}, "person"),
        ({"last_failure_class": "no_credits", "credits_available": False}, "top-up"),
        ({"attempts_today": 2}, "limit 2"), ({"attempts_today": 1}, None),
    ]:
        go, reason = repair_decision(RepairView(**{**base.__dict__, **change}), 2)
        assert go is (why is None) and (why is None or why in reason), (change, reason)
    assert not repair_decision(base, 0)[0]  # N = 0 turns repair off


def test_an_interrupted_stage_counts_as_a_transient_failure_and_invalid_output_is_not_a_stage_state():
    assert FAILED_STATE_CLASS["reinitiated"] == FAILED_STATE_CLASS["in_progress"] == "transient"
    assert FAILED_STATE_CLASS["failed_no_credits"] == "no_credits"
    assert "completed" not in FAILED_STATE_CLASS and "invalid_output" not in FAILED_STATE_CLASS.values()


def _state(count: int, includes: int, ago: float | None) -> LabelsState:
    last = "" if ago is None else (NOW - timedelta(seconds=ago)).isoformat()
    return LabelsState("p", count, includes, last)


def _decide(state: LabelsState, before: str | None, *, has_run: bool = True, quiet: float = 30.0,
            queued: str | None = None) -> tuple[LabelsDecision, list[str]]:
    asked: list[str] = []

    def queued_run() -> str | None:
        asked.append(state.slug)
        return queued

    return labels_decision(state, before, has_run=has_run, now=NOW, quiet_seconds=quiet,
                           queued_run=queued_run), asked


def test_unchanged_labels_and_a_project_without_labels_need_nothing():
    state = _state(3, 1, ago=600)
    decision, asked = _decide(state, state.fingerprint)
    assert decision == LabelsDecision(False, state.fingerprint) and asked == []
    empty = _state(0, 0, ago=None)
    assert _decide(empty, None)[0] == LabelsDecision(False, empty.fingerprint)


def test_a_project_never_run_only_records_its_labels():
    state = _state(2, 1, ago=600)
    decision, asked = _decide(state, None, has_run=False)
    assert not decision.rerank and decision.cursor == state.fingerprint and "not run yet" in decision.line
    assert asked == []


def test_labels_still_changing_wait_and_keep_the_old_cursor_entry():
    state = _state(4, 2, ago=5)
    decision, asked = _decide(state, "3:1:earlier")
    assert not decision.rerank and decision.cursor == "3:1:earlier" and "the newest 5 s ago" in decision.line
    assert _decide(state, None)[0].cursor is None  # a first sighting stays out of the cursor until quiet
    assert asked == []  # run storage is not asked while the labels change


def test_quiet_labels_rerank_unless_a_queued_run_absorbs_them():
    state = _state(4, 2, ago=31)
    decision, asked = _decide(state, "3:1:earlier")
    assert decision.rerank and decision.cursor == state.fingerprint and "2 includes): re-ranking" in decision.line
    assert asked == ["p"]
    absorbed, _ = _decide(state, "3:1:earlier", queued="0123456789abcdef")
    assert not absorbed.rerank and absorbed.cursor == state.fingerprint and "run 01234567, queued" in absorbed.line


def test_quiet_for_reads_naive_times_as_utc_and_no_time_as_long_ago():
    assert quiet_for((NOW - timedelta(seconds=7)).replace(tzinfo=None).isoformat(), NOW) == 7
    assert quiet_for("", NOW) == float("inf")
