"""The lake in a project: retrieval by the project's queries into `candidate_papers` (on a real Dagster
instance), relevance-feedback labels in the domain store (SQLite and PostgreSQL), the label-learning re-ranking,
and the `agentr lake` / `label` / `labels` / `rerank` commands."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner
from dagster import DagsterInstance, materialize

from agentr_dagster.cli import main
from agentr_dagster.defs.assets.project import candidate_papers, research_intent, search_queries
from agentr_dagster.defs.resources import LLMResource, SourcesResource, StoreResource
from agentr_dagster.lake import add_files
from agentr_dagster.llm.backends import OfflineStageBackend
from agentr_dagster.stages.candidates import project_queries, retrieve_for_project
from agentr_dagster.stages.feedback import list_labels, rerank
from agentr_dagster.stages.intake import add_papers_file, add_project
from agentr_dagster.stages.intent import run_intent
from agentr_dagster.stages.labels import find_paper as resolve_paper
from agentr_dagster.stages.labels import set_label
from agentr_dagster.stages.queries import current_queries, run_queries
from agentr_dagster.store import OrphanError, StoreError
from tests.support import DEMO

ABSTRACT = (DEMO / "abstract.md").read_text()

OFF_TOPIC = [
    ("Coral reef bleaching under marine heat waves", "Sea surface temperature anomalies bleach corals on reefs."),
    ("Drought tolerance of wheat cultivars", "Field trials compare wheat yield under water deficit."),
    ("Beta blockers after myocardial infarction", "A randomised trial of beta blockers in heart patients."),
    ("Migratory routes of arctic terns", "Tracking devices map the flight paths of terns."),
    ("Soil microbiome after forest fires", "Sequencing shows fungal communities recover slowly."),
    ("Volcanic ash and aviation safety", "Jet engines ingest ash particles during eruptions."),
    ("Glacier retreat in the Andes", "Satellite imagery measures ice loss since 1990."),
    ("Antibiotic resistance in hospital wastewater", "Resistant bacteria survive treatment plants."),
]


def lake_files(tmp_path: Path) -> list[Path]:
    off = tmp_path / "off-topic.csv"
    pd.DataFrame({"title": [t for t, _ in OFF_TOPIC], "abstract": [a for _, a in OFF_TOPIC],
                  "year": [2015 + i for i in range(len(OFF_TOPIC))]}).to_csv(off, index=False)
    return [DEMO / "papers.csv", off]


def project_with_queries(store, slug: str, tmp_path: Path, imported: int = 10) -> None:
    add_project(store, slug, ABSTRACT)
    first = tmp_path / f"{slug}-first.csv"
    pd.read_csv(DEMO / "papers.csv").head(imported).to_csv(first, index=False)
    add_papers_file(store, slug, first)
    backend = OfflineStageBackend()
    run_intent(store, backend, slug)
    run_queries(store, backend, slug)


def test_retrieval_adds_lake_hits_with_the_queries_that_found_them(store, tmp_path):
    slug = "lake-retrieval"
    project_with_queries(store, slug, tmp_path)
    assert retrieve_for_project(store, slug) is None  # empty lake: imports only
    add_files(lake_files(tmp_path))
    summary = retrieve_for_project(store, slug, per_query=5)
    assert summary is not None and not summary.reused
    names = [q.name for q in summary.queries]
    assert names == ["boolean", "keywords"] + [f"string-{i:02d}" for i in range(1, 11)]
    assert all(len(q.hits) <= 5 for q in summary.queries) and summary.found >= 5
    papers = store.projects.list_papers(slug)
    from_lake = [p for p in papers if p.provenance.get("source") == "lake"]
    assert len(papers) == 10 + summary.added and len(from_lake) == summary.added > 0
    assert len({p.paper_key for p in papers}) == len(papers)  # the 10 imported ones were not added again
    off_topic = {t for t, _ in OFF_TOPIC}
    assert not off_topic & {p.title for p in from_lake}  # the project's queries find its own field
    for paper in from_lake:
        assert paper.provenance["found_by"] and set(paper.provenance["found_by"]) <= set(names)
        assert paper.provenance["format"] == "csv" and paper.provenance["lake_generation"] == 1
    artifact = store.results.latest_artifact(slug, "retrieval")
    assert [q["name"] for q in artifact.payload["queries"]] == names
    assert artifact.payload["added"] == summary.added
    assert summary.metadata()["lake_added"] == summary.added and "| boolean |" in summary.markdown()

    again = retrieve_for_project(store, slug, per_query=5)
    assert again.reused and again.added == 0 and len(store.projects.list_papers(slug)) == len(papers)


def test_a_paper_imported_from_a_file_and_retrieved_from_the_lake_is_one_paper(store, tmp_path):
    # A 5,000-character title (kept as 1,000 by the importers) and a DOI longer than the store keeps: both
    # paths key the paper the same way (imports.paper_key, bounded; the DOI left out before keying).
    slug = "lake-long-title"
    project_with_queries(store, slug, tmp_path, imported=1)
    title = ("Automated screening of candidate papers for systematic reviews. " * 80)[:5000]
    assert len(title) == 5000
    long_doi = "10.1000/" + "x" * 262
    papers = tmp_path / "long.csv"
    pd.DataFrame({"title": [title, "Screening tools for systematic reviews with a long identifier"],
                  "abstract": [" ".join(ABSTRACT.split()), "Tools that screen candidate papers for reviews."],
                  "year": [2021, 2022], "doi": ["", long_doi]}).to_csv(papers, index=False)
    assert add_papers_file(store, slug, papers).added == 2
    stored = {p.title[:40]: p.paper_key for p in store.projects.list_papers(slug)}
    long_key = stored[title[:40]]
    assert len(long_key) <= 255

    add_files([DEMO / "papers.csv", papers])
    summary = retrieve_for_project(store, slug, per_query=60)  # more than the lake holds: every paper is a hit
    hits = {h["paper_key"] for q in summary.queries for h in q.hits}
    assert long_key in hits  # the lake keys the paper as the import did
    titles = [p.title for p in store.projects.list_papers(slug)]
    assert sum(t.startswith(title[:200]) for t in titles) == 1
    assert sum(t.startswith("Screening tools for systematic reviews") for t in titles) == 1
    assert len(titles) == 1 + 2 + summary.added and summary.added > 0


def test_project_queries_are_the_boolean_keywords_and_ten_strings(store, tmp_path):
    slug = "lake-queries"
    project_with_queries(store, slug, tmp_path, imported=1)
    queries = current_queries(store, slug)
    specs = project_queries(queries)
    assert specs[0] == ("boolean", "boolean", queries.boolean_query)
    assert specs[1][2] == "; ".join(queries.expanded_keywords)
    assert [s[2] for s in specs[2:]] == queries.search_strings


def _asset_metadata(result, asset: str) -> dict:
    for event in result.get_asset_materialization_events():
        if event.asset_key.path[-1] == asset:
            return {k: v.value for k, v in event.materialization.metadata.items()}
    raise AssertionError(f"no materialization of {asset}")


def test_candidate_papers_asset_retrieves_from_the_lake(sqlite_store, tmp_path):
    slug = "lake-asset"
    add_project(sqlite_store, slug, ABSTRACT)
    first = tmp_path / "first.csv"
    pd.read_csv(DEMO / "papers.csv").head(5).to_csv(first, index=False)
    add_papers_file(sqlite_store, slug, first)
    instance = DagsterInstance.ephemeral()
    instance.add_dynamic_partitions("projects", [slug])
    resources = {"store": StoreResource(database_url=sqlite_store.url), "llm": LLMResource(),
                 "sources": SourcesResource()}
    chain = [research_intent, search_queries, candidate_papers]

    result = materialize(chain, partition_key=slug, instance=instance, resources=resources)
    meta = _asset_metadata(result, "candidate_papers")
    assert meta["papers"] == 5 and "lake_papers" not in meta  # empty lake: as before

    add_files(lake_files(tmp_path))
    result = materialize(chain, partition_key=slug, instance=instance, resources=resources)
    meta = _asset_metadata(result, "candidate_papers")
    assert meta["lake_papers"] == 48 and meta["lake_added"] > 0
    assert meta["papers"] == 5 + meta["lake_added"]
    assert set(meta) >= {"hits_boolean", "hits_keywords", "hits_string_01", "hits_string_10", "lake_queries"}
    assert "string-10" in meta["lake_queries"]


# ---------------------------------------------------------------------------------------------- labels


def test_labels_are_stored_changed_and_cleared(store, tmp_path):
    slug = "labels"
    add_project(store, slug, ABSTRACT)
    csv = tmp_path / "p.csv"
    pd.DataFrame({"title": ["Alpha study of testing", "Beta study of testing", "Gamma"],
                  "abstract": ["a", "b", "c"], "doi": ["10.1000/alpha", "", ""],
                  "year": [2001, 2002, 2003]}).to_csv(csv, index=False)
    add_papers_file(store, slug, csv)
    alpha, beta, gamma = store.projects.list_papers(slug)

    assert resolve_paper(store, slug, str(alpha.id)).id == alpha.id
    assert resolve_paper(store, slug, "https://doi.org/10.1000/ALPHA").id == alpha.id
    assert resolve_paper(store, slug, beta.paper_key).id == beta.id
    assert resolve_paper(store, slug, "gamma").id == gamma.id
    with pytest.raises(StoreError, match="no live paper"):
        resolve_paper(store, slug, "delta")

    row = set_label(store, slug, str(alpha.id), "include", note="core paper")
    assert row.label == "include" and row.note == "core paper"
    set_label(store, slug, "10.1000/alpha", "exclude")
    set_label(store, slug, beta.paper_key, "include")
    labels = list_labels(store, slug)
    assert [(r.paper_id, r.label) for r in labels] == [(alpha.id, "exclude"), (beta.id, "include")]
    assert labels[0].updated_at >= labels[0].created_at
    assert set_label(store, slug, str(alpha.id), "clear") is None
    assert [r.paper_id for r in list_labels(store, slug)] == [beta.id]
    with pytest.raises(ValueError):
        set_label(store, slug, str(beta.id), "maybe")

    other = "labels-other"
    add_project(store, other, ABSTRACT)
    with pytest.raises(StoreError):
        set_label(store, other, str(beta.id), "include")  # not that project's paper

    store.projects.soft_delete_project(slug)
    with pytest.raises((OrphanError, StoreError)):
        set_label(store, slug, str(beta.id), "exclude")


def test_rerank_learns_from_labels(sqlite_store, tmp_path):
    slug = "rerank"
    add_project(sqlite_store, slug, "A study of methods and their evaluation across several application areas, "
                                    "comparing approaches and reporting results.")
    topics = {
        "bird": ("Bird migration tracked with GPS tags {i}", "Migratory birds fly south; GPS tags record flight "
                 "routes, stopover sites and wing beats of songbirds {i}."),
        "chip": ("Low-power chip design for sensors {i}", "Transistor layouts cut leakage current in silicon "
                 "chips; the circuit saves battery power in sensor nodes {i}."),
    }
    rows = [{"title": t.format(i=i), "abstract": a.format(i=i), "year": 2000 + i}
            for i in range(12) for t, a in topics.values()]
    csv = tmp_path / "two-topics.csv"
    pd.DataFrame(rows).to_csv(csv, index=False)
    add_papers_file(sqlite_store, slug, csv)
    papers = sqlite_store.projects.list_papers(slug)
    bird = [p for p in papers if p.title.startswith("Bird")]
    chip = [p for p in papers if p.title.startswith("Low-power")]

    zero = rerank(sqlite_store, slug)
    assert len(zero) == 24 and set(zero["method"]) == {"zero-shot"} and zero["rank"].tolist() == list(range(1, 25))

    for p in bird[:2]:
        set_label(sqlite_store, slug, str(p.id), "include")
    for p in chip[:2]:
        set_label(sqlite_store, slug, str(p.id), "exclude")
    ranked = rerank(sqlite_store, slug)
    assert set(ranked["method"]) == {"active"}
    assert ranked["label"].tolist()[:2] == ["include", "include"] and ranked["label"].tolist()[-2:] == ["exclude"] * 2
    bird_ids = {p.id for p in bird[2:]}

    def mean_bird_position(frame: pd.DataFrame) -> float:
        unlabelled = frame[~frame["paper_id"].isin([p.id for p in bird[:2] + chip[:2]])].reset_index(drop=True)
        return float(unlabelled.index[unlabelled["paper_id"].isin(bird_ids)].to_series().mean())

    # what the labels taught: unlabelled bird papers move up, ahead of the chips (10 birds, 10 chips left)
    # with the transformer the zero-shot order may already be perfect (mean position 4.5): labels keep it there
    assert mean_bird_position(ranked) <= min(mean_bird_position(zero), 9.5 - 2)


# ---------------------------------------------------------------------------------------------- commands


def agentr(*args: str):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def test_lake_and_feedback_commands(tmp_path):
    files = lake_files(tmp_path)
    empty = agentr("lake", "search", "anything", "--json")
    assert empty.exit_code == 0 and json.loads(empty.output)["hits"] == []

    bad = tmp_path / "bad.ris"
    bad.write_text("no ris here at all\n")
    added = agentr("lake", "add", *map(str, files), str(bad))
    assert added.exit_code == 2 and "papers.csv (csv): 40 added" in added.output
    assert "rejected bad.ris" in added.output
    again = agentr("lake", "add", str(files[0]), "--json")
    assert again.exit_code == 0 and json.loads(again.output)["files"][0]["already_ingested"]

    found = json.loads(agentr("lake", "search", "software cost estimation", "--k", "3", "--json").output)
    assert found["lake_papers"] == 48 and len(found["hits"]) == 3
    assert {"lake_id", "rank", "score", "cosine", "bm25", "title", "doi"} <= set(found["hits"][0])
    text = agentr("lake", "search", '"cost estimat*" OR (reuse AND software)', "--boolean", "--k", "2")
    assert text.exit_code == 0 and "1. [" in text.output
    broken = agentr("lake", "search", '"unbalanced', "--boolean")
    assert broken.exit_code == 2 and "does not parse" in broken.output
    info = json.loads(agentr("lake", "info", "--json").output)
    assert info["papers"] == 48 and info["generation"] == 1

    abstract = tmp_path / "abstract.md"
    abstract.write_text(ABSTRACT)
    assert agentr("project", "add", "cli-feedback", "--abstract", str(abstract)).exit_code == 0
    assert agentr("papers", "add", "cli-feedback", str(DEMO / "papers.csv")).exit_code == 0
    ranked = json.loads(agentr("rerank", "cli-feedback", "--top", "5", "--json").output)
    assert len(ranked) == 5 and ranked[0]["rank"] == 1 and ranked[0]["method"] == "zero-shot"
    labelled = agentr("label", "cli-feedback", str(ranked[3]["paper_id"]), "include")
    assert labelled.exit_code == 0 and "labelled include" in labelled.output
    assert agentr("label", "cli-feedback", str(ranked[4]["paper_id"]), "exclude").exit_code == 0
    assert agentr("label", "cli-feedback", "no such paper", "include").exit_code == 1
    listing = json.loads(agentr("labels", "cli-feedback", "--json").output)
    assert [r["label"] for r in listing] == ["include", "exclude"]
    out = tmp_path / "ranking.csv"
    after = agentr("rerank", "cli-feedback", "--out", str(out))
    assert after.exit_code == 0 and "method active" in after.output
    frame = pd.read_csv(out, keep_default_na=False)
    assert len(frame) == 40 and frame["paper_id"].iloc[0] == ranked[3]["paper_id"]
    assert frame["label"].iloc[-1] == "exclude"
