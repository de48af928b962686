"""Queries checked against seed studies through the real store: the asset check, the search_queries asset's
metadata, and the LLM path's one repair round against a real OpenAI-compatible server on loopback."""

from __future__ import annotations

import json
from collections import Counter

from dagster import DagsterInstance, materialize

from agentr_dagster.defs import checks
from agentr_dagster.defs.assets.project import research_intent, search_queries
from agentr_dagster.defs.resources import LLMResource, SourcesResource, StoreResource
from agentr_dagster.llm.backends import make_backend
from agentr_dagster.stages.intake import add_project
from agentr_dagster.stages.intent import run_intent
from agentr_dagster.stages.queries import current_queries, run_queries
from agentr_dagster.stages.seeds import SEEDS_STAGE, parse_seed_text, project_seed_studies
from agentr_dagster.testing.responders import intent_payload, queries_payload, stage_of

QUESTION = (
    "Is insufficient sleep associated with depression in adolescents? Include cohort and cross-sectional studies "
    "of adolescents. Exclude studies of shift workers."
)
FOUND = "Short sleep and depressive symptoms in adolescents"
LOST = "Insomnia and mood disorders in teenagers"  # names none of the question's sleep words


def _save_seeds(store, slug: str, text: str) -> None:
    store.results.save_artifact(slug, SEEDS_STAGE, {"seeds": parse_seed_text(text)}, prompt_version=None,
                                model=None, backend=None, input_hash=None)


def _offline_project(store, slug: str) -> None:
    add_project(store, slug, QUESTION)
    backend = make_backend(None, store)
    run_intent(store, backend, slug)
    run_queries(store, backend, slug)


def test_seed_file_lines_and_csv():
    lines = parse_seed_text("# seeds\n10.1000/ABC.1\nhttps://doi.org/10.1000/xyz\nA title of a study\n\n")
    assert lines == [{"title": "", "abstract": "", "doi": "10.1000/abc.1"},
                     {"title": "", "abstract": "", "doi": "10.1000/xyz"},
                     {"title": "A title of a study", "abstract": "", "doi": ""}]
    table = parse_seed_text('title,abstract,doi\n"Sleep, mood",An abstract.,10.1000/Q\n')
    assert table == [{"title": "Sleep, mood", "abstract": "An abstract.", "doi": "10.1000/q"}]


def test_seed_recall_check_warns_below_the_floor_and_names_the_losing_block(store):
    slug = "seed-check"
    _offline_project(store, slug)
    no_seeds = checks.evaluate_seed_recall(store, slug)
    assert no_seeds.passed and "no seed studies" in no_seeds.description

    _save_seeds(store, slug, f"{FOUND}\n{LOST}\n10.9999/not.in.project\n")
    studies, unresolved = project_seed_studies(store, slug)
    assert [s.title for s in studies] == [FOUND, LOST] and unresolved == ["10.9999/not.in.project"]
    result = checks.evaluate_seed_recall(store, slug)
    assert not result.passed and result.severity.value == "WARN"
    assert "recall on 2 seed studies 0.50" in result.description
    assert "1 seed DOI(s) not among the project's papers" in result.description
    missed = result.metadata["missed"].value
    assert missed[0]["title"] == LOST and missed[0]["facets"]
    assert result.metadata["widened_query"].value  # a proposal built from the missed study's own words

    _save_seeds(store, slug, f"{FOUND}\n")
    assert checks.evaluate_seed_recall(store, slug).passed


def test_search_queries_asset_reports_seed_recall(store, tmp_path, monkeypatch):
    monkeypatch.setenv("AGENTR_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("AGENTR_LLM_BASE_URL", raising=False)
    slug = "seed-asset"
    add_project(store, slug, QUESTION)
    _save_seeds(store, slug, f"{FOUND}\n{LOST}\n")
    instance = DagsterInstance.ephemeral()
    instance.add_dynamic_partitions("projects", [slug])
    result = materialize([research_intent, search_queries], partition_key=slug, instance=instance,
                         resources={"store": StoreResource(database_url=store.url), "llm": LLMResource(),
                                    "sources": SourcesResource()})
    assert result.success
    event = next(e for e in result.get_asset_materialization_events() if e.asset_key.path[-1] == "search_queries")
    metadata = {k: v.value for k, v in event.materialization.metadata.items()}
    # the offline query is widened by the seeds' own terms before it is stored: the lost seed is found now
    assert metadata["seed_recall_before_seed_terms"] == 0.5 and metadata["seed_recall_after_seed_terms"] == 1.0
    assert metadata["seed_recall"] == 1.0 and metadata["seed_studies"] == 2
    assert metadata["seed_terms_added"] != "none" and metadata["seeds_missed"] == "none"
    evaluations = {e.check_name: e for e in result.get_asset_check_evaluations()}
    assert evaluations["seed_recall"].passed is True


def test_llm_queries_get_one_repair_round_with_the_missed_seeds(store, scripted_server):
    bad = {**queries_payload(), "boolean_query": '(sleep OR insomnia) AND ("randomized controlled trial" OR cohort)'}
    good = {**queries_payload(), "boolean_query": '(sleep* OR insomnia) AND (depress* OR mood) AND (adolesc* OR teen*)'}

    def responder(body: dict) -> str:
        stage = stage_of(body)
        if stage == "intent":
            return json.dumps(intent_payload())
        repairing = "Revise the JSON answer" in body["messages"][-1]["content"]
        return json.dumps(good if repairing else bad)

    server = scripted_server(responder)
    slug = "llm-seeds"
    add_project(store, slug, QUESTION)
    _save_seeds(store, slug, f"{FOUND}\n{LOST}\n")
    backend = make_backend(LLMResource(base_url=server.base_url, api_key="sk-test",
                                       settings={"model": "scripted-model"}).llm_settings(), store)
    run_intent(store, backend, slug)
    run_queries(store, backend, slug)
    assert Counter(stage_of(r) for r in server.requests) == {"intent": 1, "queries": 2}  # one repair, no more
    feedback = server.requests[-1]["messages"][-1]["content"]
    assert "study-design block" in feedback and LOST in feedback and FOUND in feedback
    assert "finds only 0 of 2" in feedback
    assert current_queries(store, slug).boolean_query == good["boolean_query"]
    assert len(store.ledger.usage(slug)) == server.calls  # the repair is a real, charged call


def test_llm_queries_without_problems_make_no_extra_call(store, scripted_server):
    good = {**queries_payload(), "boolean_query": '(sleep* OR insomnia) AND (depress* OR mood)'}

    def responder(body: dict) -> str:
        return json.dumps(intent_payload() if stage_of(body) == "intent" else good)

    server = scripted_server(responder)
    slug = "llm-no-repair"
    add_project(store, slug, QUESTION)
    backend = make_backend(LLMResource(base_url=server.base_url, api_key="sk-test",
                                       settings={"model": "scripted-model"}).llm_settings(), store)
    run_intent(store, backend, slug)
    run_queries(store, backend, slug)
    assert server.calls == 2


def test_the_lake_is_the_background_that_tells_boilerplate_once_it_is_large_enough(tmp_path, monkeypatch):
    from agentr_dagster.domain import specificity
    from agentr_dagster.lake import add_records, lake_background

    root = tmp_path / "lake"
    assert lake_background(root) is None  # no lake yet
    add_records([{"title": f"Paper {i} on topic {i}", "abstract": "Copyright 2020. All rights reserved."
                  if i else "Gabapentin for neuropathic pain."} for i in range(4)], root=root)
    assert lake_background(root) is None  # 4 papers: too few to judge by
    monkeypatch.setattr(specificity, "MIN_BACKGROUND_RECORDS", 4)
    share = lake_background(root)
    assert share is not None
    assert share("rights reserved") == 0.75 and share('"rights reserved"') == 0.75 and share("gabapentin") == 0.25


def test_the_lake_tells_how_far_a_query_reaches_off_topic_once_it_is_large_enough(tmp_path, monkeypatch):
    from agentr_dagster.domain import specificity
    from agentr_dagster.domain.boolean_query import parse_boolean_query
    from agentr_dagster.lake import add_records, lake_query_share

    root = tmp_path / "lake"
    assert lake_query_share(root) is None  # no lake yet
    add_records([{"title": f"Vorlixamab in glimmer syndrome, report {i}" if i < 2 else f"Aspirin, report {i}",
                  "abstract": "Headache." if i % 2 else "Fever."} for i in range(8)], root=root)
    assert lake_query_share(root) is None  # 8 papers: too few to judge by
    monkeypatch.setattr(specificity, "MIN_BACKGROUND_RECORDS", 8)
    share = lake_query_share(root)
    assert share is not None
    assert share(parse_boolean_query('vorlixamab AND "glimmer syndrome"')) == 0.25
    assert share(parse_boolean_query("vorlixamab OR headache")) == 0.625
