"""What the code location declares, read from the Definitions without an instance: checks described, LLM
assets in the llm pool, sensors and schedules aimed right, waiting assets after candidate_papers."""

from __future__ import annotations

from agentr_dagster.defs import checks
from agentr_dagster.defs.assets import pipeline_assets, project_assets
from agentr_dagster.defs.waiting import CANDIDATE_DEPENDENT


def test_every_check_has_a_description():
    for asset in project_assets:
        for spec in asset.check_specs:
            assert spec.description, spec.key


def test_synthesis_checks_have_descriptions():
    assert checks.TAXONOMY_CHECK.description and checks.DRAFT_CHECK.description


def test_every_asset_that_calls_the_llm_is_in_the_llm_pool():
    """The pool limit is what keeps all workers together inside the endpoint's rate limits: an LLM-calling asset
    outside it would escape the limit."""
    from dagster import AssetsDefinition

    from agentr_dagster.definitions import defs

    callers = {}
    for assets_def in defs.assets:
        if not isinstance(assets_def, AssetsDefinition):
            continue  # an AssetSpec (the observed `inbox`) runs no op
        for key in assets_def.keys:
            callers[key.to_user_string()] = ("llm" in assets_def.required_resource_keys, assets_def.op.pool)
    assert {"research_intent", "search_queries", "paper_scores"} <= {k for k, (calls, _) in callers.items() if calls}
    for name, (calls, pool) in callers.items():
        assert (pool == "llm") == calls, f"{name}: calls the LLM: {calls}, pool: {pool}"


def test_the_code_location_runs_the_labels_sensor_on_the_ranking_and_what_follows_it():
    from agentr_dagster.definitions import defs

    sensor = defs.resolve_sensor_def("labels_sensor")
    graph = defs.resolve_asset_graph()
    targeted = {k.to_user_string() for k in sensor.asset_selection.resolve(graph)}
    assert {"relevance", "paper_scores", "score_exports", "research_landscape", "related_work"} <= targeted
    assert not {"research_intent", "search_queries", "candidate_papers"} & targeted


def test_the_living_review_schedule_is_stopped_by_default_on_the_configured_cron(monkeypatch):
    from dagster import DefaultScheduleStatus

    from agentr_dagster.definitions import build_definitions

    monkeypatch.setenv("AGENTR_LIVING_REVIEW_CRON", "30 5 * * *")
    # read from the Definitions as built (resolving them would load state from whatever instance is current)
    [schedule] = [s for s in build_definitions().schedules if s.name == "living_review"]
    assert schedule.default_status == DefaultScheduleStatus.STOPPED and schedule.cron_schedule == "30 5 * * *"
    assert schedule.job_name == "project_pipeline"
    chain = {key.to_user_string() for asset in pipeline_assets for key in asset.keys}
    assert "snowball" not in chain and "candidate_papers" in chain  # snowballing on request only


def test_every_asset_after_candidate_papers_waits_for_candidates():
    """An asset added after candidate_papers (or after anything made from it) must wait too, not fail: it is
    declared output_required=False and wrapped in @waits_for_candidates (defs/waiting.py)."""
    from dagster import AssetKey

    from agentr_dagster.definitions import build_definitions

    graph = build_definitions().resolve_asset_graph()
    after, todo = set(), [AssetKey("candidate_papers")]
    while todo:
        for child in graph.get(todo.pop()).child_keys:
            if child not in after:
                after.add(child)
                todo.append(child)
    names = {key.to_user_string() for key in after}
    assert names and names <= set(CANDIDATE_DEPENDENT), sorted(names - set(CANDIDATE_DEPENDENT))
    for key in after:
        assert graph.get(key).is_materializable
        spec = graph.assets_def_for_key(key).specs_by_key[key]
        assert spec.skippable, f"{key.to_user_string()} needs output_required=False to wait for candidates"
