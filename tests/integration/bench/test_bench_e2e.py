"""`agentr bench e2e` on two tiny synthetic review folders pooled into one corpus: the real CLI chain (project add,
run against the pooled OpenAlex/PubMed/Europe PMC replay, export), and figures that agree with what can be worked out
by hand: the OR-of-words baseline's papers are the pool's records its query matches, the expert list's recall is 1,
each recall is the includes found over the includes, effort never falls as the level rises."""

from __future__ import annotations

import json

import pandas as pd

from agentr_dagster.bench.e2e import effort
from agentr_dagster.domain.boolean_query import matches, parse_boolean_query
from agentr_dagster.llm.offline.concepts import content_words_baseline
from tests.support.cli import agentr

# two topics with no content word in common: each review's records are the other's distractors
TOPICS = {
    "Synthetic_Schema": {
        "question": "Is schema therapy effective for adults with borderline personality disorder compared with "
                    "usual psychotherapy?",
        "include": "Schema therapy for borderline personality disorder {i}: a randomised trial of outpatients",
        "include_abstract": "Adults with borderline personality disorder received schema therapy or usual "
                            "psychotherapy; schema therapy reduced symptoms in trial {i}.",
        "exclude": "Mindfulness apps for workplace stress {i}",
        "exclude_abstract": "Employees used mindfulness apps; stress questionnaires were collected in survey {i}.",
    },
    "Synthetic_Rivers": {
        "question": "Which sediment transport models predict riverbed erosion downstream of hydropower dams?",
        "include": "Sediment transport model of riverbed erosion below hydropower dam {i}",
        "include_abstract": "We calibrate a sediment transport model that predicts riverbed erosion downstream "
                            "of hydropower dam {i}.",
        "exclude": "Urban heat islands in coastal cities {i}",
        "exclude_abstract": "Satellite land surface temperatures describe urban heat islands in coastal city {i}.",
        "published_abstract": "Hydropower dams trap sediment; we review sediment transport models of riverbed "
                              "erosion downstream of dams.",
    },
}


def write_reviews(root, includes=7, excludes=5):
    for name, topic in TOPICS.items():
        folder = root / name
        folder.mkdir(parents=True)
        rows = [(f"{name[10:13]}{i}", topic["include"].format(i=i), topic["include_abstract"].format(i=i), 1)
                for i in range(includes)]
        rows += [(f"{name[10:13]}x{i}", topic["exclude"].format(i=i), topic["exclude_abstract"].format(i=i), 0)
                 for i in range(excludes)]
        frame = pd.DataFrame(rows, columns=["record_id", "title", "abstract", "label_included"])
        frame = frame.assign(year="2020", doi="")
        frame.to_csv(folder / "papers.csv", index=False)
        frame.drop(columns="label_included").to_csv(folder / "papers_unlabeled.csv", index=False)
        meta = {"name": name, "question": topic["question"]}
        if "published_abstract" in topic:
            meta["published_abstract"] = topic["published_abstract"]
        (folder / "review.json").write_text(json.dumps(meta), encoding="utf-8")
    return root


def test_effort_is_rows_read_to_reach_each_level_over_n():
    # 4 includes; found at rows 1, 3, 3 (two in one row) and 6; N = 10
    figures = effort([1, 0, 2, 0, 0, 1], includes=4, n_expert=10)
    assert figures["rows_0.9"] == 6 and figures["0.9"] == 0.6  # ceil(0.9 * 4) = 4 includes
    figures = effort([1, 0, 2, 0, 0, 1], includes=10, n_expert=20)
    assert figures["0.9"] is None and figures["rows_0.95"] is None  # never reaches 9 of 10
    assert effort([1, 1], includes=2, n_expert=4)["0.9"] == 0.5


def test_the_e2e_bench_runs_every_review_against_the_pool_and_reports_consistent_figures(tmp_path):
    root = write_reviews(tmp_path / "reviews")
    out = tmp_path / "e2e.json"
    kept = tmp_path / "kept"
    result = agentr("bench", "e2e", str(root), "--out", str(out), "--no-progress", "--keep-exports", str(kept))
    assert result.exit_code == 0, result.output
    data = json.loads(out.read_text())
    assert data["complete"] and data["pool"] == {"reviews": 2, "records": 24, "papers": 24}
    # every project's export is kept, one file per run, its rows the papers the run counted
    assert len(list(kept.glob("*.csv"))) == 6
    schema_question = pd.read_csv(kept / "synthetic-schema-question.csv")
    assert len(schema_question) == next(r for r in json.loads(out.read_text())["reviews"]
                                        if r["name"] == "Synthetic_Schema")["runs"]["question"]["papers"]
    assert "found_by" in schema_question.columns
    assert "| Synthetic_Schema | non-drug | question |" in result.output
    pool = {(name, i): (t, a) for name in TOPICS for i, (t, a) in enumerate(
        pd.read_csv(root / name / "papers.csv")[["title", "abstract"]].itertuples(index=False))}
    by_name = {r["name"]: r for r in data["reviews"]}
    assert set(by_name) == set(TOPICS)
    assert set(by_name["Synthetic_Rivers"]["runs"]) == {"question", "question+seeds", "abstract", "abstract+seeds"}
    assert set(by_name["Synthetic_Schema"]["runs"]) == {"question", "question+seeds"}
    assert by_name["Synthetic_Rivers"]["runs"]["abstract"]["source"] == "published"
    for name, entry in by_name.items():
        assert (entry["n_records"], entry["n_includes"]) == (12, 7)
        for label, run in entry["runs"].items():
            wanted = 7 - 5 if "seeds" in label else 7  # with seeds: the includes other than the 5 given
            assert run["recall"] == round(run["includes_found"] / wanted, 4)
            assert run["retrieved_vs_n"] == round(run["papers"] / 12, 4) and run["papers"] <= 24
            assert "found by the source searches" in run["summary"]  # no file imported: all came from the searches
            assert "paper lake" not in run["summary"]
            levels = [run["effort"]["0.9"], run["effort"]["0.95"]]
            if None not in levels:
                assert levels[0] <= levels[1]
        # the OR of the question's words, worked out by hand over the pool (the cap of 200 is not reached)
        query = parse_boolean_query(content_words_baseline(TOPICS[name]["question"]))
        matched = [key for key, (t, a) in pool.items() if matches(query, f"{t} {a}")]
        baseline = entry["or_of_words"]
        assert baseline["papers"] == len(matched)
        found = sum(1 for owner, i in matched if owner == name and i < 7)
        assert baseline["includes_found"] == found and baseline["recall"] == round(found / 7, 4)
        # the expert's own list, ranked: every include is there; effort to 90 % is at most the whole list
        expert = entry["screen_expert_list"]
        assert expert["recall"] == 1.0 and expert["retrieved_vs_n"] == 1.0
        assert 7 <= expert["effort"]["rows_0.95"] <= 12 and expert["effort"]["0.95"] <= 1.0
    means = data["summary"]["by_group"]["non-drug"]
    assert means["n"] == 2 and means["question"]["n"] == 2 and means["abstract (published)"]["n"] == 1
    recalls = [by_name[n]["runs"]["question"]["recall"] for n in TOPICS]
    assert means["question"]["recall"] == round(sum(recalls) / 2, 4)


# a third review of many invented topics, so that the pool (with the two above) holds the 1,000 records any
# background needs; it is never benched, only served
_WORDS = ("glacier", "violin", "orchard", "turbine", "lichen", "comet", "basalt", "tariff", "sonnet", "falcon",
          "harbour", "quartz", "meadow", "ledger", "cactus", "trumpet", "canyon", "pottery", "monsoon", "walnut")


def _write_many_topics(root, records=1000):
    folder = root / "Synthetic_ManyTopics"
    folder.mkdir(parents=True)
    rows = [(f"m{i}", f"{_WORDS[i % 20].title()} and {_WORDS[(i // 20) % 20]} survey {i}",
             f"A survey of {_WORDS[i % 20]} and {_WORDS[(i * 7) % 20]} in region {i}.", int(i < 10))
            for i in range(records)]
    frame = pd.DataFrame(rows, columns=["record_id", "title", "abstract", "label_included"]).assign(year="2020",
                                                                                                    doi="")
    frame.to_csv(folder / "papers.csv", index=False)
    frame.drop(columns="label_included").to_csv(folder / "papers_unlabeled.csv", index=False)
    (folder / "review.json").write_text(json.dumps({"name": "Synthetic_ManyTopics",
                                                    "question": "Which glaciers retreat fastest?"}), encoding="utf-8")


def test_the_pool_stands_for_a_general_database_only_with_the_option(tmp_path):
    root = write_reviews(tmp_path / "reviews")
    _write_many_topics(root)
    data = {}
    for flag in ("", "--pool-as-database"):
        out = tmp_path / f"e2e{flag}.json"
        args = ["bench", "e2e", str(root), "--review", "Synthetic_Rivers", "--seeds", "0", "--no-progress",
                "--out", str(out)]
        result = agentr(*args, *([flag] if flag else []))
        assert result.exit_code == 0, result.output
        data[flag] = json.loads(out.read_text())
        data[flag]["output"] = result.output
    off, on = data[""], data["--pool-as-database"]
    papers = on["pool"]["papers"]
    assert papers == off["pool"]["papers"] == 1024
    # without the option: the product's bar, far above the pool; no source background, no feedback
    assert off["pool_as_database"] is False and off["source_background_min_records"] == 1_000_000
    assert "AGENTR_SOURCE_BACKGROUND_MIN_RECORDS=1000000 (the product's default)" in off["output"]
    off_runs = off["reviews"][0]["runs"]
    assert set(off_runs) == {"question", "abstract"}
    assert all(run["intent_background"].startswith("none") for run in off_runs.values())
    assert off_runs["abstract"]["prf"]["ran"] is False
    assert off_runs["abstract"]["prf"]["reason"].startswith("no background of many topics")
    # with it: each run's bar is the pool's paper count, the intent is judged by the source's hit counts, and the
    # feedback weighs the abstract's terms by them (a question is skipped, as the product skips it)
    assert on["pool_as_database"] is True and on["source_background_min_records"] == papers
    assert f"AGENTR_SOURCE_BACKGROUND_MIN_RECORDS={papers}, so" in on["output"]
    on_runs = on["reviews"][0]["runs"]
    hit_counts = f"openalex hit counts ({papers} records)"
    assert all(run["intent_background"] == hit_counts for run in on_runs.values())
    assert all(run["boolean_query"] for run in [*on_runs.values(), *off_runs.values()])
    assert on_runs["question"]["prf"] == {"ran": False, "reason": "the project's text is a review question"}
    assert on_runs["abstract"]["prf"]["ran"] is True and on_runs["abstract"]["prf"]["background"] == hit_counts
    assert f"| Synthetic_Rivers | abstract (published) | {hit_counts} |" in on["output"]
