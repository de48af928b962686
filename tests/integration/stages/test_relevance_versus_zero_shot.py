"""A re-rank says how far it moved from the question's own order: the relevance stage's outcome carries the
comparison once it learns from labels (stored with the ranking, so a reused ranking still has it), the relevance
asset's metadata shows it, and `agentr rerank` prints its sentence."""

from __future__ import annotations

import pandas as pd
from click.testing import CliRunner
from dagster import AssetSelection, DagsterInstance, materialize

from agentr_dagster.cli import main
from agentr_dagster.defs.assets import project_assets
from agentr_dagster.defs.resources import LLMResource, SourcesResource, StoreResource
from agentr_dagster.stages.intake import add_papers_file, add_project
from agentr_dagster.stages.relevance import rank_project

SLUG = "versus"
QUESTION = ("Do community gardens improve the diet of urban households? We review trials and cohort studies of "
            "allotment and community garden programmes that report fruit and vegetable intake.")
TOPICS = {
    "garden": ("Community garden programme and vegetable intake, cohort {i}",
               "Urban households joining an allotment programme reported fruit and vegetable intake over "
               "{i} seasons; garden plots raised daily servings."),
    "bridge": ("Fatigue cracks in steel railway bridges, case {i}",
               "Strain gauges on riveted girders measured stress cycles over {i} years; cracks grew at "
               "welded joints under freight loads."),
    "enzyme": ("Enzyme kinetics of a thermophilic protease, assay {i}",
               "Purified protease from hot-spring bacteria was assayed at {i} temperatures; activity peaked "
               "near 70 degrees."),
}


def _project(store, tmp_path) -> dict[str, list[int]]:
    add_project(store, SLUG, QUESTION)
    rows = [{"title": t.format(i=i), "abstract": a.format(i=i), "year": 1990 + i}
            for i in range(10) for t, a in TOPICS.values()]
    csv = tmp_path / "papers.csv"
    pd.DataFrame(rows).to_csv(csv, index=False)
    add_papers_file(store, SLUG, csv)
    papers = store.projects.list_papers(SLUG)
    return {name: [p.id for p in papers if p.title.startswith(t.split()[0])] for name, (t, _) in TOPICS.items()}


def _relevance_metadata(store) -> dict:
    instance = DagsterInstance.ephemeral()
    instance.add_dynamic_partitions("projects", [SLUG])
    result = materialize(
        project_assets, partition_key=SLUG, instance=instance, selection=AssetSelection.assets("relevance"),
        resources={"store": StoreResource(database_url=store.url), "llm": LLMResource(), "sources": SourcesResource()},
    )
    assert result.success
    [mat] = result.asset_materializations_for_node("relevance")
    return {k: v.value for k, v in mat.metadata.items()}


def _rerank_output(monkeypatch, url: str) -> str:
    monkeypatch.setenv("AGENTR_DATABASE_URL", url)
    out = CliRunner().invoke(main, ["rerank", SLUG, "--top", "3"], catch_exceptions=False)
    assert out.exit_code == 0, out.output
    return out.output


def test_a_rerank_reports_how_far_it_moved_from_the_zero_shot_order(sqlite_store, sqlite_url, tmp_path,
                                                                    monkeypatch):
    ids = _project(sqlite_store, tmp_path)

    zero = rank_project(sqlite_store, SLUG)  # no labels: nothing learnt, nothing to compare
    assert zero.method == "zero-shot" and zero.versus_zero_shot is None
    assert not any(k.startswith("versus_zero_shot") for k in _relevance_metadata(sqlite_store))
    assert "the re-rank keeps" not in _rerank_output(monkeypatch, sqlite_url)

    for pid in ids["garden"][:2]:
        sqlite_store.labels.set_label(SLUG, pid, "include")
    for pid in ids["bridge"][:1] + ids["enzyme"][:1]:
        sqlite_store.labels.set_label(SLUG, pid, "exclude")
    learnt = rank_project(sqlite_store, SLUG)
    versus = learnt.versus_zero_shot
    assert learnt.method == "active" and not learnt.reused and versus is not None
    # the 26 unlabelled papers compared, their top 10 (at least 10: 20 % would be 5)
    assert (versus.labels, versus.includes, versus.unlabelled, versus.top_k) == (4, 2, 26, 10)
    assert 0 <= versus.overlap <= 10 and versus.spearman is not None and -1 <= versus.spearman <= 1
    assert versus.prior_weight is not None and versus.prior_weight >= 0  # the default learner keeps its blend
    sentence = versus.sentence
    assert sentence.startswith(f"after 4 labels (2 includes) the re-rank keeps {versus.overlap} of the zero-shot "
                               "top 10 of the 26 unlabelled papers")
    # the caution rule on these figures: under 5 includes, so it is said exactly when under half the top is kept
    assert ("Caution:" in sentence) == (versus.overlap < 5)

    again = rank_project(sqlite_store, SLUG)  # unchanged inputs: the stored ranking and its comparison
    assert again.reused and again.versus_zero_shot == versus

    meta = _relevance_metadata(sqlite_store)  # the UI: numbers and the sentence
    assert meta["versus_zero_shot"] == sentence
    assert (meta["versus_zero_shot_top_k"], meta["versus_zero_shot_overlap"]) == (10, versus.overlap)
    assert meta["versus_zero_shot_spearman"] == versus.spearman
    assert meta["versus_zero_shot_prior_weight"] == versus.prior_weight
    assert meta["versus_zero_shot_caution"] is versus.caution

    # `agentr rerank` ranks the same labels with the same engine: the same sentence
    assert sentence in _rerank_output(monkeypatch, sqlite_url).splitlines()

    for pid in ids["garden"][:2] + ids["bridge"][:1] + ids["enzyme"][:1]:  # labels cleared: zero-shot again
        sqlite_store.labels.set_label(SLUG, pid, "clear")
    cleared = rank_project(sqlite_store, SLUG)
    assert cleared.method == "zero-shot" and cleared.versus_zero_shot is None


def test_a_rerank_far_from_the_question_on_few_includes_says_so(sqlite_store, sqlite_url, tmp_path, monkeypatch):
    ids = _project(sqlite_store, tmp_path)
    # the person includes what the question does not ask for: the learner follows the labels, away from its order
    for pid in ids["bridge"][:2]:
        sqlite_store.labels.set_label(SLUG, pid, "include")
    for pid in ids["garden"][:1] + ids["enzyme"][:1]:
        sqlite_store.labels.set_label(SLUG, pid, "exclude")
    versus = rank_project(sqlite_store, SLUG).versus_zero_shot
    assert versus is not None and versus.overlap < 5 and versus.caution  # under half of the top, 2 includes
    assert "Caution: on only 2 includes the learner has moved far from the question's order" in versus.sentence
    meta = _relevance_metadata(sqlite_store)
    assert meta["versus_zero_shot"] == versus.sentence and meta["versus_zero_shot_caution"] is True
    assert versus.sentence in _rerank_output(monkeypatch, sqlite_url).splitlines()
