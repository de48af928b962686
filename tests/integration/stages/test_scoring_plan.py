"""paper_scores in relevance order with an LLM on the scripted server: weak labels and re-ranking, the stopping
rule, the credit budget, resuming with a larger budget (no call twice, the ledger clean), and the export of
papers never sent (``not_scored: below cut-off``, with their relevance)."""

from __future__ import annotations

from decimal import Decimal

import pytest

from agentr_dagster.defs import checks
from agentr_dagster.llm.backends import LLMStageBackend
from agentr_dagster.llm.gateway import LLMSettings, OpenAICompatibleBackend
from agentr_dagster.screening.metrics import wss_at
from agentr_dagster.stages.exports import BELOW_CUTOFF, scores_dataframe
from agentr_dagster.stages.intake import add_papers_file, add_project
from agentr_dagster.stages.intent import run_intent
from agentr_dagster.stages.relevance import rank_project
from agentr_dagster.stages.scoring import ScoringPlan, score_project, summary_text
from agentr_dagster.stages.staleness import project_gap
from agentr_dagster.store.verify import verify_ledger
from agentr_dagster.testing.responders import stage_of
from tests.support.review import QUESTION, oracle_responder, synthetic_review, write_review

SLUG = "plan-review"
MODEL = "scripted-model"


@pytest.fixture
def review(tmp_path):
    return synthetic_review()


@pytest.fixture
def project(sqlite_store, tmp_path, review, scripted_server):
    """A project on SQLite with the synthetic review's candidates, its intent (one LLM call) and relevance."""
    store = sqlite_store
    server = scripted_server(oracle_responder(set(review.loc[review.label_included == 1, "title"])))
    store.ledger.set_pricing(MODEL, Decimal("2.50"), Decimal("10.00"))
    store.ledger.ensure_account("default")
    add_project(store, SLUG, QUESTION)
    add_papers_file(store, SLUG, write_review(review, tmp_path))
    backend = _backend(store, server)
    run_intent(store, backend, SLUG)
    rank_project(store, SLUG)
    return store, server, backend


def _backend(store, server) -> LLMStageBackend:
    settings = LLMSettings(base_url=server.base_url, api_key="sk-test", model=MODEL, backoff_base_s=0.05)
    return LLMStageBackend(OpenAICompatibleBackend(settings, store))


def _score_titles(server) -> list[str]:
    titles = []
    for body in server.requests:
        if stage_of(body) == "score":
            user = next(m["content"] for m in body["messages"] if m.get("role") == "user")
            titles.append(user.split("Title: ", 1)[1].splitlines()[0].strip())
    return titles


def _labels_in_export_order(store, review) -> list[int]:
    label = dict(zip(review.record_id, review.label_included, strict=True))
    return [label[sid] for sid in scores_dataframe(store, SLUG)["source_id"]]


def test_stop_at_recall_scores_the_relevant_first_and_exports_the_rest_below_the_cut_off(project, review):
    store, server, backend = project
    # 12 relevant of 108: recall >= 0.95 would mean none left, which only ~95 % of the papers could show; at 0.8
    # three may be left, and a run of excludes after the relevant ones shows it before the end
    summary = score_project(store, backend, SLUG, concurrency=4, plan=ScoringPlan(stop_at_recall=0.8))

    total, relevant = len(review), int(review.label_included.sum())
    assert summary.stop_reason == "target_recall" and summary.complete and not summary.failed
    assert summary.scored + summary.below_cutoff == total and summary.below_cutoff > 0
    titles = _score_titles(server)
    assert len(titles) == summary.scored == len(set(titles))  # one call per paper scored, none for the rest
    wanted = set(review.loc[review.label_included == 1, "title"])
    assert wanted <= set(titles)  # every relevant paper was scored before the rule stopped
    assert summary.recall_bound is not None and summary.recall_bound >= 0.8
    assert summary.recall.stop and summary.recall.recall_lower == summary.recall_bound
    assert "recall >= " in summary_text(summary) and "target 0.8 reached" in summary_text(summary)
    saved = store.results.latest_artifact(SLUG, "score_queue").payload["recall"]
    assert saved["recall_interval"] == [round(summary.recall_bound, 4), 1.0] and saved["stop"]

    frame = scores_dataframe(store, SLUG)
    assert len(frame) == total and set(frame["source_id"]) == set(review.record_id)
    below = frame[frame["not_scored"] == BELOW_CUTOFF]
    assert len(below) == summary.below_cutoff
    assert below["c1_score"].isna().all() and below["relevance"].notna().all()
    assert (below["order_source"] == "ranker").all()
    assert frame["llm_judgement"].is_monotonic_decreasing
    assert frame.head(relevant)["source_id"].isin(review.loc[review.label_included == 1, "record_id"]).all()
    assert wss_at(_labels_in_export_order(store, review)) > 0.5

    # a decision, not a gap: the check passes, nothing is left to repair, and the ledger is clean
    check = checks.evaluate_scores(store, SLUG, MODEL)
    assert check.passed and check.metadata["below_cutoff"].value == str(summary.below_cutoff)
    assert project_gap(store, SLUG, model=MODEL).papers_missing == 0
    assert verify_ledger(store).ok


def test_a_target_the_evidence_cannot_support_early_scores_every_paper_and_says_so(project, review):
    """12 relevant papers: recall >= 0.95 means none is left, which no run of excludes short of the end shows at
    95 % confidence; the rule keeps going (the old point-process bound stopped here), and its last word is on
    everything scored."""
    store, server, backend = project
    plan = ScoringPlan(stop_at_recall=0.95, model=False)  # the sample test alone (AGENTR_STOP_MODEL=0)
    summary = score_project(store, backend, SLUG, concurrency=4, plan=plan)
    assert summary.stop_reason is None and summary.below_cutoff == 0 and summary.scored == len(review)
    assert summary.recall.recall_lower == 1.0 and summary.recall.reason == "every paper is screened"
    assert "recall >= 1.000 at 95 % confidence" in summary_text(summary)


def test_the_decaying_rate_model_stops_the_same_run_sooner_with_every_relevant_paper_scored(project, review):
    """The default rule: once the includes have thinned out along the order and the sample alone shows the floor
    (0.85), the decaying-rate model may stop before the end. Here it stops with all 12 relevant papers scored, and
    the summary says what the bound rests on."""
    store, server, backend = project
    summary = score_project(store, backend, SLUG, concurrency=4, plan=ScoringPlan(stop_at_recall=0.95))
    assert summary.stop_reason == "target_recall" and summary.scored < len(review)
    recall = summary.recall
    assert recall.stop and recall.basis == "model" and recall.found == 12
    assert recall.sample_lower is not None and recall.sample_lower < 0.95 <= recall.recall_lower
    assert "under the decaying-rate model" in summary_text(summary)


def test_budget_stops_scoring_cleanly_and_a_larger_budget_resumes_without_calling_twice(project, review):
    store, server, backend = project
    first = score_project(store, backend, SLUG, concurrency=4, plan=ScoringPlan(budget_credits=Decimal("40")))
    spent = sum(u.credits for u in store.ledger.usage(SLUG) if u.stage == "score")
    assert first.stop_reason == "budget" and not first.failed and first.complete
    assert 0 < first.scored < len(review) and first.below_cutoff == len(review) - first.scored
    per_call = spent / first.scored
    assert spent <= Decimal("40") + per_call  # no batch the average call cost said would pass the budget
    assert first.scored >= 5
    assert (scores_dataframe(store, SLUG)["not_scored"] == BELOW_CUTOFF).sum() == first.below_cutoff

    # the same budget again: nothing left to spend, no call
    calls = server.calls
    again = score_project(store, backend, SLUG, plan=ScoringPlan(budget_credits=Decimal("40")))
    assert again.stop_reason == "budget" and again.scored == 0 and server.calls == calls

    # a larger budget continues where the first run stopped, and scores every paper without a repeat
    more = score_project(store, backend, SLUG, concurrency=4, plan=ScoringPlan(budget_credits=Decimal("1000")))
    assert more.stop_reason is None and more.reused == first.scored and more.below_cutoff == 0
    titles = _score_titles(server)
    assert len(titles) == len(set(titles)) == len(review)
    frame = scores_dataframe(store, SLUG)
    assert (frame["not_scored"] == "").all() and (frame["order_source"] == "llm").all()
    assert checks.evaluate_scores(store, SLUG, MODEL).passed
    report = verify_ledger(store)
    assert report.ok, report.violations


def test_without_a_plan_every_candidate_is_scored_in_relevance_order(project, review):
    store, server, backend = project
    summary = score_project(store, backend, SLUG, concurrency=2)
    assert summary.stop_reason is None and summary.scored == len(review) and summary.below_cutoff == 0
    order = _score_titles(server)
    # the relevance asset's order: the relevant papers were sent first
    wanted = set(review.loc[review.label_included == 1, "title"])
    assert wanted <= set(order[: 2 * len(wanted)])
    assert store.results.latest_artifact(SLUG, "score_queue").payload["reranked"] is False


def test_the_chain_with_stop_at_recall_in_the_resource_config_stops_early_and_passes_its_checks(
        store, tmp_path, review, scripted_server, monkeypatch):
    """Through Dagster, on SQLite and PostgreSQL: `LLMResource(settings={"stop_at_recall": ...})` is what `agentr run
    --stop-at-recall` sets; the stop is a success, every check passes, the export has a row per paper."""
    import pandas as pd
    from dagster import DagsterInstance, materialize

    from agentr_dagster.defs.assets import project_assets
    from agentr_dagster.defs.resources import LLMResource, SourcesResource, StoreResource

    monkeypatch.setenv("AGENTR_HOME", str(tmp_path / "home"))
    server = scripted_server(oracle_responder(set(review.loc[review.label_included == 1, "title"])))
    store.ledger.set_pricing(MODEL, Decimal("2.50"), Decimal("10.00"))
    store.ledger.ensure_account("default")
    add_project(store, SLUG, QUESTION)
    add_papers_file(store, SLUG, write_review(review, tmp_path))
    instance = DagsterInstance.ephemeral()
    instance.add_dynamic_partitions("projects", [SLUG])
    llm = LLMResource(base_url=server.base_url, api_key="sk-test", settings={"model": MODEL, "stop_at_recall": 0.8})
    result = materialize(project_assets, partition_key=SLUG, instance=instance,
                         resources={"store": StoreResource(database_url=store.url), "llm": llm,
                                    "sources": SourcesResource()})
    assert result.success
    assert all(e.passed for e in result.get_asset_check_evaluations())
    [mat] = result.asset_materializations_for_node("paper_scores")
    meta = {k: v.value for k, v in mat.metadata.items()}
    assert meta["stop_reason"] == "target_recall" and meta["below_cutoff"] > 0
    assert meta["scored_now"] + meta["below_cutoff"] == len(review)
    assert meta["recall_interval"][0] >= 0.8 and meta["recall_interval"][1] == 1.0
    assert meta["recall_confidence"] == 0.95 and "target 0.8 reached" in meta["stopping"]
    # the estimate with its interval, as docs/stopping.md says: the bound, the point estimate inside the interval
    assert meta["recall_lower_bound"] == meta["recall_interval"][0] <= meta["recall_estimate"] <= 1.0
    assert 0 <= meta["includes_left_upper"] < meta["below_cutoff"]
    export = pd.read_parquet(tmp_path / "home" / "results" / SLUG / "scores.parquet")
    assert len(export) == len(review) and (export["not_scored"] == BELOW_CUTOFF).sum() == meta["below_cutoff"]
    assert verify_ledger(store).ok


def test_a_persons_label_outweighs_the_models_in_the_re_ranked_queue(project, review):
    from agentr_dagster.stages.relevance import WEAK_LABEL_WEIGHT, RelevanceQueue, current_relevance, person_labels

    store, _, _ = project
    papers = store.projects.list_papers(SLUG)
    by_source = {p.source_id: p.id for p in papers}
    relevant = [by_source[r] for r in review.loc[review.label_included == 1, "record_id"]]
    others = [by_source[r] for r in review.loc[review.label_included == 0, "record_id"]]
    doubted, unjudged = relevant[0], relevant[7]
    store.labels.set_label(SLUG, doubted, "exclude")  # the person disagrees with the model on this paper
    store.labels.set_label(SLUG, unjudged, "include")  # and decided one the model has not seen
    weak = {pid: 1 for pid in relevant[:6]} | {pid: 0 for pid in others[:20]}
    queue = RelevanceQueue(QUESTION, papers, person_labels(store, SLUG), current_relevance(store, SLUG))
    before = queue.order()
    queue.rerank(weak)
    assert queue.training[doubted] == (0, 1.0) and queue.training[unjudged] == (1, 1.0)
    assert queue.training[relevant[1]] == (1, WEAK_LABEL_WEIGHT) < (1, 1.0)
    assert len(queue.training) == len(weak) + 1 and queue.order() != before


def test_the_re_ranked_queue_blends_in_the_order_the_run_started_from(project, review):
    """The learner's prior is the relevance stage's own zero-shot order (same encoders, transformer included, same
    cleaned question): with nothing but excludes to learn from, the queue keeps that order. (The queue used to
    build its features without the transformer, so its prior was another, weaker order than the stored one.)"""
    from agentr_dagster.stages.relevance import RelevanceQueue, current_relevance, relevance_question

    store, _, _ = project
    queue = RelevanceQueue(relevance_question(store, SLUG), store.projects.list_papers(SLUG), {},
                           current_relevance(store, SLUG))
    start = queue.order()
    last = set(start[-5:])
    queue.rerank(dict.fromkeys(last, 0))
    assert queue.reranked and queue.order(last) == [pid for pid in start if pid not in last]
