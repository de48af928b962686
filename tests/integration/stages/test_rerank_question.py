"""`agentr rerank` and the relevance stage rank against one text: a project whose abstract is empty ranks against its
intent in both, so both give the same order (real SQLite store, the real engine, the CLI)."""

from __future__ import annotations

import pandas as pd
import sqlalchemy as sa
from click.testing import CliRunner

from agentr_dagster.cli import main
from agentr_dagster.stages.intake import add_papers_file, add_project
from agentr_dagster.stages.relevance import current_relevance, rank_project
from agentr_dagster.store import schema as t

SLUG = "no-abstract"
TOPICS = [
    ("Beekeeping and winter colony losses, apiary {i}",
     "Hives kept by hobby beekeepers lost colonies over {i} winters; varroa mite counts predicted the losses."),
    ("Tidal energy turbines in narrow straits, site {i}",
     "Blade loads of seabed turbines were logged over {i} tidal cycles; wake effects lowered the yield."),
    ("Medieval parish records of grain prices, county {i}",
     "Account rolls of {i} manors list wheat and barley prices after poor harvests and floods."),
]


def _project_without_abstract(store, tmp_path, labelled: bool) -> None:
    add_project(store, SLUG, "A placeholder abstract about grain prices in medieval account rolls.")
    rows = [{"title": title.format(i=i), "abstract": text.format(i=i), "year": 1980 + i}
            for i in range(8) for title, text in TOPICS]
    csv = tmp_path / "papers.csv"
    pd.DataFrame(rows).to_csv(csv, index=False)
    add_papers_file(store, SLUG, csv)
    # a project row without an abstract (create_project refuses one): only its intent says what it asks
    with store.engine.begin() as conn:
        conn.execute(sa.update(t.projects).where(t.projects.c.slug == SLUG).values(abstract=""))
    store.results.save_artifact(
        SLUG, "intent", {"problem_statement": "Why do honey bee colonies die over winter in managed apiaries?",
                         "seed_keywords": ["varroa mites", "colony losses", "beekeeping"]},
        prompt_version="test", model=None, backend=None, input_hash="intent-test")
    if labelled:
        papers = store.projects.list_papers(SLUG)
        bees = [p.id for p in papers if p.title.startswith("Beekeeping")]
        tides = [p.id for p in papers if p.title.startswith("Tidal")]
        store.labels.set_label(SLUG, bees[0], "include")
        store.labels.set_label(SLUG, tides[0], "exclude")


def _rerank_order(monkeypatch, url: str, tmp_path) -> list[int]:
    monkeypatch.setenv("AGENTR_DATABASE_URL", url)
    out = tmp_path / "rerank.csv"
    result = CliRunner().invoke(main, ["rerank", SLUG, "--out", str(out)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return [int(pid) for pid in pd.read_csv(out)["paper_id"]]


def _stage_order(store) -> list[int]:
    rank_project(store, SLUG)
    return [row.paper_id for row in sorted(current_relevance(store, SLUG).values(), key=lambda r: r.rank)]


def test_rerank_ranks_a_project_without_abstract_against_its_intent_as_the_stage_does(
        sqlite_store, sqlite_url, tmp_path, monkeypatch):
    _project_without_abstract(sqlite_store, tmp_path, labelled=False)
    stage = _stage_order(sqlite_store)
    by_id = {p.id: p.title for p in sqlite_store.projects.list_papers(SLUG)}
    # the intent asks about bees: the stage's top papers are the beekeeping ones
    assert all(by_id[pid].startswith("Beekeeping") for pid in stage[:8])
    assert _rerank_order(monkeypatch, sqlite_url, tmp_path) == stage


def test_with_labels_rerank_and_the_stage_still_give_one_order(sqlite_store, sqlite_url, tmp_path, monkeypatch):
    _project_without_abstract(sqlite_store, tmp_path, labelled=True)
    stage = _stage_order(sqlite_store)
    assert _rerank_order(monkeypatch, sqlite_url, tmp_path) == stage
