"""A project without candidates is a valid state: an abstract dropped alone runs (through the real sensor and
the real job on a real instance) to "waiting for candidates" (each later asset materialised as such, saying
what to do) and succeeds; the repair schedule leaves it alone;
papers dropped later complete the chain. Domain store on SQLite and PostgreSQL, offline backend."""

from __future__ import annotations

from datetime import datetime, timezone

import pandas as pd
from dagster import AssetCheckSeverity, DagsterInstance, SensorResult

from agentr_dagster.defs.schedules import repair_requests
from agentr_dagster.defs.waiting import CANDIDATE_DEPENDENT
from agentr_dagster.stages.staleness import project_gap
from tests.support import ABSTRACT, DEMO
from tests.support.sensor import SensorTicks

SLUG = "alone-first"
LATER = ["relevance", "paper_scores", "score_exports", "research_landscape", "related_work"]  # the job's steps


def _launch(result: SensorResult, instance: DagsterInstance, job):
    """What the daemon does with a tick's result: add the partitions, run each request."""
    assert isinstance(result, SensorResult) and len(result.run_requests) == 1, result
    for add in result.dynamic_partitions_requests:
        instance.add_dynamic_partitions(add.partitions_def_name, list(add.partition_keys))
    request = result.run_requests[0]
    return job.execute_in_process(partition_key=request.partition_key, instance=instance, tags=request.tags,
                                  raise_on_error=False)


def _materialized(run) -> set[str]:
    return {e.asset_key.to_user_string() for e in run.get_asset_materialization_events()}


def test_an_abstract_alone_waits_for_candidates_then_papers_complete_the_chain(store, tmp_path, monkeypatch):
    from agentr_dagster.definitions import build_definitions
    from agentr_dagster.defs.partitions import PIPELINE_JOB

    home = tmp_path / "home"
    monkeypatch.setenv("AGENTR_HOME", str(home))
    monkeypatch.setenv("AGENTR_DATABASE_URL", store.url)
    (home / "inbox").mkdir(parents=True)
    job = build_definitions().resolve_job_def(PIPELINE_JOB)
    instance = DagsterInstance.ephemeral()
    ticks = SensorTicks(store.url, instance)

    (home / "inbox" / f"{SLUG}.md").write_text(ABSTRACT)
    run = _launch(ticks.settled(), instance, job)
    assert run.success
    # Every asset after candidate_papers materialises as "waiting for candidates" (an empty result), saying what
    # it waits for and what to do: the first thing its partition page in the UI shows.
    assert _materialized(run) == {"research_intent", "search_queries", "candidate_papers", *LATER}
    steps = {e.step_key: e.event_type_value for e in run.all_events if e.step_key and e.is_step_event
             and e.event_type_value in ("STEP_SUCCESS", "STEP_SKIPPED", "STEP_FAILURE")}
    assert {steps[a] for a in LATER} == {"STEP_SUCCESS"}
    waiting = {e.asset_key.to_user_string(): e.event_specific_data.materialization
               for e in run.all_events if e.event_type_value == "ASSET_MATERIALIZATION"}
    assert set(CANDIDATE_DEPENDENT) >= set(LATER)
    for name in ["candidate_papers", *LATER]:  # candidate_papers itself says so first too
        mat = waiting[name]
        assert mat.partition == SLUG
        assert list(mat.metadata)[:3] == ["status", "waits_for", "next"], name
        assert mat.metadata["status"].value == "waiting for candidates"
        assert mat.metadata["waits_for"].value.startswith("candidate papers: none imported")
        assert mat.metadata["next"].value == (f"add papers: agentr papers add {SLUG} FILE..., "
                                              f"or drop a file in inbox/{SLUG}/")
        assert mat.metadata["papers"].value == 0
    checks = {e.event_specific_data.check_name: e.event_specific_data for e in run.all_events
              if e.event_type_value == "ASSET_CHECK_EVALUATION"}
    # No candidates warns (has_candidates), and the checks of the assets that wait were not evaluated: all fail
    # at WARN severity, which leaves the run successful. The checks before them pass.
    failed = {name for name, c in checks.items() if not c.passed}
    assert failed == {"has_candidates", "every_paper_ranked", "every_paper_scored", "export_row_count",
                      "prisma_boxes_add_up", "taxonomy_structure", "draft_validates"}, [
        (c.check_name, c.description) for c in checks.values()]
    assert {checks[name].severity for name in failed} == {AssetCheckSeverity.WARN}
    assert checks["has_candidates"].description.startswith("waiting for candidates: add papers")
    assert checks["every_paper_ranked"].description.startswith("not evaluated: waiting for candidates")
    assert checks["every_paper_ranked"].metadata["status"].value == "waiting for candidates"
    assert set(checks) == {"intent_matches_contract", "queries_parse_and_count", "seed_recall", *failed}
    assert store.lifecycle.failures(SLUG) == []
    assert not (home / "results" / SLUG / "scores.csv").exists()

    # The repair schedule has nothing to repair: a run would change nothing.
    gap = project_gap(store, SLUG)
    assert gap.complete and gap.waiting and "agentr papers add" in gap.waiting
    requests, lines = repair_requests(store, instance, datetime.now(timezone.utc), uses_llm=False)
    assert requests == [] and lines == [f"{SLUG}: skip: waiting for candidates (no papers yet): a run would have "
                                        "nothing to do"]

    # Papers dropped later complete the chain.
    (home / "inbox" / SLUG).mkdir()
    pd.read_csv(DEMO / "papers.csv").head(6).to_csv(home / "inbox" / SLUG / "papers.csv", index=False)
    run = _launch(ticks.settled(), instance, job)
    assert run.success
    assert _materialized(run) >= {"candidate_papers", *LATER}
    assert not [m for m in run.get_asset_materialization_events()
                if "status" in m.materialization.metadata
                and m.materialization.metadata["status"].value == "waiting for candidates"]
    assert len(pd.read_csv(home / "results" / SLUG / "scores.csv")) == 6
    assert (home / "results" / SLUG / "related_work.md").exists()
    assert project_gap(store, SLUG).complete and project_gap(store, SLUG).waiting is None
