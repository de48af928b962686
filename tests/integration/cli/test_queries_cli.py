"""`agentr queries <slug>` and `agentr bench queries DIR`, run as a user runs them (real store, offline backend)."""

from __future__ import annotations

import csv
import json
from pathlib import Path

from click.testing import CliRunner

from agentr_dagster.cli import main
from agentr_dagster.cli.common import open_store
from agentr_dagster.llm.backends import NO_BACKGROUND, make_backend
from agentr_dagster.llm.offline.concepts import QUERY_SHAPES, SHAPES_WITH_EVERY_CONCEPT
from agentr_dagster.stages.intake import add_project
from agentr_dagster.stages.intent import run_intent
from agentr_dagster.stages.queries import run_queries

QUESTION = (
    "What is the comparative effectiveness and harms of triptans, such as sumatriptan and rizatriptan, for the "
    "acute treatment of migraine in adults? The records come from a Drug Effectiveness Review Project (DERP) "
    "drug class review prepared by the Oregon Evidence-based Practice Center. Relevant studies are randomized "
    "controlled trials that compare drugs within the class head to head or against placebo."
)


def agentr(*args: str):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def _project(slug: str) -> None:
    store = open_store()
    add_project(store, slug, QUESTION)
    backend = make_backend(None, store)
    run_intent(store, backend, slug)
    run_queries(store, backend, slug)


def test_queries_prints_intent_blocks_and_each_dialect(tmp_path):
    _project("triptans")
    result = agentr("queries", "triptans")
    assert result.exit_code == 0, result.output
    out = result.output
    assert "concept blocks:" in out and "[required]" in out and "sumatriptan" in out
    assert f"terms judged by: {NO_BACKGROUND}" in out  # a fresh lake, no source: general English alone
    assert "pubmed:" in out and "[tiab]" in out and "europepmc:" in out and "arxiv:" in out
    assert "openalex: filter=title_and_abstract.search:" in out
    for boilerplate in ("Oregon", "class head", "Review Project"):
        assert boilerplate not in out.split("problem:")[1].split("\n", 1)[1]  # nowhere but the question

    data = json.loads(agentr("queries", "triptans", "--json").output)
    assert data["intent"]["concepts"][0]["required"] is True
    assert set(data["dialects"]) == {"pubmed", "europepmc", "arxiv", "openalex"}
    assert data["seed_check"]["recall"] is None


def test_queries_with_a_seed_file_reports_recall_and_a_widened_query(tmp_path):
    _project("triptans-seeds")
    seeds = tmp_path / "seeds.txt"
    seeds.write_text("Sumatriptan nasal spray for migraine attacks\nEletriptan versus placebo in cluster headache\n"
                     "10.1000/missing.doi\n")
    result = agentr("queries", "triptans-seeds", "--seeds", str(seeds))
    assert result.exit_code == 0, result.output
    assert "stored 3 seed studies" in result.output
    assert "seed check: recall on 2 seed studies 0.50" in result.output
    assert "missed: Eletriptan versus placebo in cluster headache" in result.output
    assert "widened query:" in result.output and "eletriptan" in result.output.split("widened query:")[1]
    assert "1 seed DOI(s) not among the project's papers" in result.output


def test_queries_of_an_unknown_project_fails_cleanly():
    result = CliRunner().invoke(main, ["queries", "no-such-project"])
    assert result.exit_code == 1 and "error:" in result.output


def _review(root: Path, name: str, question: str, rows: list[tuple[str, str, int]], **meta: str) -> None:
    folder = root / name
    folder.mkdir(parents=True)
    (folder / "review.json").write_text(json.dumps({"name": name, "question": question, **meta}))
    with open(folder / "papers.csv", "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["record_id", "title", "abstract", "label_included"])
        for i, (title, abstract, label) in enumerate(rows):
            writer.writerow([i, title, abstract, label])


SLEEP_ABSTRACT = (
    "# Insufficient sleep and depression in adolescents: a systematic review\n\nObjectiveTo assess whether "
    "insufficient sleep is associated with depression in adolescents. MethodsWe searched PubMed and PsycINFO; "
    "the protocol was registered in PROSPERO (CRD42099000001). ResultsTwelve cohorts (n = 3400) were included."
)


def test_bench_queries_on_labelled_review_folders(tmp_path):
    _review(tmp_path, "triptans", QUESTION, [
        ("Sumatriptan for acute migraine", "A randomized trial.", 1),
        ("Rizatriptan versus placebo", "Migraine attacks in adults.", 1),
        ("Triptans in menstrual migraine", "", 1),
        ("Topiramate for migraine prophylaxis", "A randomized trial.", 0),
        ("Statins and cholesterol", "Cardiovascular outcomes.", 0),
        ("Sumatriptan pharmacokinetics in healthy volunteers", "", 0),
    ])
    _review(tmp_path, "sleep", "Is insufficient sleep associated with depression in adolescents? Exclude adults.", [
        ("Short sleep and depression in adolescents", "A cohort.", 1),
        ("Insomnia and depressive symptoms in teens", "Sleep problems predicted mood.", 1),
        ("Sleep apnoea in adults", "Obstructive sleep apnoea.", 0),
        ("Depression in older adults", "A survey.", 0),
    ], published_abstract=SLEEP_ABSTRACT)
    abstracts = tmp_path / "abstracts.json"
    abstracts.write_text(json.dumps([{"name": "migraine-review", "title": "Triptans for acute migraine: a "
                                      "systematic review", "abstract": "We searched MEDLINE. Triptans relieve "
                                      "migraine attacks (RR 1.5, 95% CI 1.2 to 1.9)."}]))
    out_file = tmp_path / "bench.json"
    result = agentr("bench", "queries", str(tmp_path), "--seeds", "1", "--out", str(out_file),
                    "--abstracts", str(abstracts))
    assert result.exit_code == 0, result.output
    assert "mean all (2)" in result.output and "leave-one-review-out shape (every concept)" in result.output
    data = json.loads(out_file.read_text())
    by_name = {r["name"]: r for r in data["reviews"]}
    triptans = by_name["triptans"]
    assert triptans["boolean"]["recall"] == 1.0
    assert triptans["boolean"]["share"] < triptans["baseline"]["share"]  # fewer records than the OR of words
    assert triptans["kind"] == "effectiveness" and by_name["sleep"]["kind"] == "association"
    assert "seeded" in triptans and triptans["seeded"]["seeds"] == 1
    assert set(data["summary"]["all"]["by_shape"]) == set(QUERY_SHAPES)
    loo = data["summary"]["leave_one_out_shape"]
    assert set(loo["picked"]) == {"triptans", "sleep"}
    assert set(loo["picked"].values()) <= set(SHAPES_WITH_EVERY_CONCEPT)  # never the main block alone
    # the shipped shape's figures are the Boolean query's own
    assert triptans["by_shape"][data["summary"]["query_shape"]]["recall"] == triptans["boolean"]["recall"]
    # pooled: the triptans query matches none of the sleep review's records, and the records it matches in the
    # pool are counted against its own N
    assert triptans["boolean"]["off_topic"] == 0.0
    assert triptans["boolean"]["pool_matched"] == triptans["boolean"]["matched"]
    assert triptans["boolean"]["ratio_n"] == round(triptans["boolean"]["matched"] / 6, 3)
    assert "off%" in result.output and "mean non-drug (2)" in result.output
    # the published abstract gets its own query, judged on the same includes
    sleep = by_name["sleep"]
    assert sleep["abstract"]["boolean"]["recall"] == 1.0 and "pubmed" not in sleep["abstract"]["boolean_query"]
    assert data["summary"]["abstract"]["n"] == 1
    # an unlabelled abstract: its query and what it matches in the pool
    (row,) = data["unlabelled_abstracts"]
    assert "triptan" in row["boolean_query"].casefold() and "medline" not in row["boolean_query"].casefold()
    assert row["pool_owners"] == ["triptans"]


def test_bench_queries_judges_each_review_from_a_written_abstract_too(tmp_path):
    root = tmp_path / "reviews"
    root.mkdir()
    _review(root, "triptans", QUESTION, [
        ("Sumatriptan for acute migraine", "A randomized trial.", 1),
        ("Rizatriptan versus placebo", "Migraine attacks in adults.", 1),
        ("Topiramate for migraine prophylaxis", "A randomized trial.", 0),
        ("Statins and cholesterol", "Cardiovascular outcomes.", 0),
    ])
    _review(root, "sleep", "Is insufficient sleep associated with depression in adolescents? Exclude adults.", [
        ("Short sleep and depression in adolescents", "A cohort.", 1),
        ("Depression in older adults", "A survey.", 0),
    ], published_abstract=SLEEP_ABSTRACT)
    written = tmp_path / "written.json"
    written.write_text(json.dumps({"_about": "invented", "abstracts": [
        {"name": "triptans", "title": "Triptans for acute migraine: a systematic review",
         "abstract": "We searched MEDLINE to 2020. Trials of sumatriptan, rizatriptan and zolmitriptan versus "
                     "placebo were included (RR 1.5, 95% CI 1.2 to 1.9)."},
        {"name": "sleep", "title": "Not used", "abstract": "The published abstract is kept."}]}))
    out_file = tmp_path / "bench.json"
    result = agentr("bench", "queries", str(root), "--seeds", "0", "--out", str(out_file),
                    "--written-abstracts", str(written))
    assert result.exit_code == 0, result.output
    data = json.loads(out_file.read_text())
    by_name = {r["name"]: r for r in data["reviews"]}
    assert by_name["triptans"]["abstract"]["source"] == "written"
    assert by_name["triptans"]["abstract"]["boolean"]["recall"] == 1.0
    assert by_name["sleep"]["abstract"]["source"] == "published"
    assert data["summary"]["abstract_sources"] == {"published": 1, "written": 1}
    assert data["summary"]["abstract_drug"]["n"] + data["summary"]["abstract_non_drug"]["n"] == 2
    assert "abs-writ" in result.output and "abs-publ" in result.output and "reviews meeting both bars" in result.output
    missing = agentr("bench", "queries", str(root), "--seeds", "0", "--written-abstracts", str(tmp_path / "no.json"))
    assert missing.exit_code != 0


def test_bench_queries_without_a_background_gives_the_query_a_fresh_project_gets(tmp_path):
    root = tmp_path / "reviews"
    root.mkdir()
    _review(root, "triptans", QUESTION, [
        ("Sumatriptan for acute migraine", "A randomized trial.", 1),
        ("Topiramate for migraine prophylaxis", "A randomized trial.", 0),
    ])
    _review(root, "sleep", "Is insufficient sleep associated with depression in adolescents? Exclude adults.", [
        ("Short sleep and depression in adolescents", "A cohort.", 1),
        ("Depression in older adults", "A survey.", 0),
    ])
    out_file = tmp_path / "bench.json"
    result = agentr("bench", "queries", str(root), "--seeds", "0", "--background", "none", "--out", str(out_file))
    assert result.exit_code == 0, result.output
    assert "no background (a fresh project)" in result.output
    data = json.loads(out_file.read_text())
    assert data["background"] == "none"
    _project("fresh-triptans")  # the product's path in a fresh home: no lake, no candidates, no source counts
    stored = json.loads(agentr("queries", "fresh-triptans", "--json").output)["queries"]["boolean_query"]
    bench = {r["name"]: r for r in data["reviews"]}["triptans"]["boolean_query"]
    assert bench == stored
