"""`agentr bench e2e --written-abstracts [FILE]`: which abstract each review's `abstract` project is made from
(its published one where review.json has one, else the written one, else none), and that the source is carried
into the JSON, the means and the table. The CLI runs in-process with the three costly steps (an `agentr run`
project and the two baselines) replaced by stand-ins that record what they were given: the selection, not the
product, is under test here (tests/integration/bench/test_bench_e2e.py runs the real chain)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from agentr_dagster.bench import e2e
from agentr_dagster.bench.queries import review_abstract
from tests.support.cli import agentr

# invented reviews: two includes and two excludes each
REVIEWS = {
    "Invented_Kelp": {"question": "Do kelp baths relieve gout flares in adults?", "published": None},
    "Invented_Moss": {"question": "Which moss species indicate air pollution in cities?",
                      "published": "# Moss as a city air monitor\n\nWe review moss species that indicate pollution."},
    "Invented_Sand": {"question": "How do dunes move on windy beaches?", "published": None},
}
WRITTEN = {"Invented_Kelp": ("Kelp baths for gout: a systematic review", "Adults with gout bathed in kelp."),
           "Invented_Moss": ("Moss indicators", "Never used: Moss has a published abstract.")}


def _write_reviews(root: Path) -> Path:
    for name, review in REVIEWS.items():
        folder = root / name
        folder.mkdir(parents=True)
        words = name.split("_")[1].lower()
        pd.DataFrame({"record_id": [f"{words}{i}" for i in range(4)],
                      "title": [f"{words} study {i}" for i in range(4)], "abstract": [""] * 4,
                      "label_included": [1, 1, 0, 0], "doi": [""] * 4}).to_csv(folder / "papers.csv", index=False)
        meta = {"name": name, "question": review["question"]}
        if review["published"]:
            meta["published_abstract"] = review["published"]
        (folder / "review.json").write_text(json.dumps(meta), encoding="utf-8")
    return root


def _written_file(path: Path) -> Path:
    path.write_text(json.dumps({"_about": "invented", "abstracts": [
        {"name": n, "title": t, "abstract": a} for n, (t, a) in WRITTEN.items()]}), encoding="utf-8")
    return path


def test_a_published_abstract_wins_then_the_written_one_then_none(tmp_path: Path):
    root = _write_reviews(tmp_path / "reviews")
    written = {"Invented_Kelp": "Kelp. Written.", "Invented_Moss": "Moss. Written."}
    assert review_abstract(root / "Invented_Kelp", "Invented_Kelp", written) == ("Kelp. Written.", "written")
    text, source = review_abstract(root / "Invented_Moss", "Invented_Moss", written)
    assert source == "published" and text.startswith("Moss as a city air monitor. We review")
    assert review_abstract(root / "Invented_Sand", "Invented_Sand", written) == ("", "")
    assert review_abstract(root / "Invented_Kelp", "Invented_Kelp", None) == ("", "")


@pytest.fixture
def stand_ins(monkeypatch):
    """Each project "finds" its review's records in order; the texts it was given are recorded by slug."""
    texts: dict[str, str] = {}

    def run_project(cli_main, server, work, slug, text, seeds_csv=None, background_min_records=None, keep_exports=None):
        texts[slug] = text
        name = next(n for n in REVIEWS if e2e._slug(n) in slug)
        words = name.split("_")[1].lower()
        frame = pd.DataFrame({"title": [f"{words} study {i}" for i in range(4)], "doi": [""] * 4})
        backgrounds = {"intent_background": "none", "prf": {"ran": False, "reason": "stand-in"}}
        return frame, "4 papers have a current score", 0.0, backgrounds

    def baseline(*args, **kwargs):
        return e2e._figures([], {0, 1}, 4, 0)

    monkeypatch.setattr(e2e, "run_project", run_project)
    monkeypatch.setattr(e2e, "or_of_words", lambda *a, **k: {"query": "", **baseline()})
    monkeypatch.setattr(e2e, "screen_expert_list", baseline)
    return texts


def test_the_cli_runs_an_abstract_project_from_the_written_abstract_and_marks_its_source(tmp_path, stand_ins):
    root = _write_reviews(tmp_path / "reviews")
    out = tmp_path / "e2e.json"
    result = agentr("bench", "e2e", str(root), "--seeds", "0", "--no-progress", "--out", str(out),
                    "--written-abstracts", str(_written_file(tmp_path / "written.json")))
    assert result.exit_code == 0, result.output
    data = json.loads(out.read_text())
    by_name = {r["name"]: r for r in data["reviews"]}
    assert by_name["Invented_Kelp"]["abstract_source"] == "written"
    assert by_name["Invented_Kelp"]["runs"]["abstract"]["source"] == "written"
    assert stand_ins[e2e._slug("Invented_Kelp-abstract")] == "Kelp baths for gout: a systematic review. Adults " \
                                                             "with gout bathed in kelp."
    assert by_name["Invented_Moss"]["runs"]["abstract"]["source"] == "published"  # keeps its published one
    assert stand_ins[e2e._slug("Invented_Moss-abstract")].startswith("Moss as a city air monitor. We review")
    assert set(by_name["Invented_Sand"]["runs"]) == {"question"} and "abstract_source" not in by_name["Invented_Sand"]
    assert "source" not in by_name["Invented_Kelp"]["runs"]["question"]
    means = data["summary"]["all"]  # written and published abstracts are averaged apart
    assert (means["question"]["n"], means["abstract (written)"]["n"], means["abstract (published)"]["n"]) == (3, 1, 1)
    assert "| Invented_Kelp | non-drug | abstract (written) | 1.000 |" in result.output
    assert "| Invented_Moss | non-drug | abstract (published) | 1.000 |" in result.output
    assert data["written_abstracts"].endswith("written.json")


def test_without_the_option_only_a_published_abstract_gets_a_project(tmp_path, stand_ins):
    root = _write_reviews(tmp_path / "reviews")
    result = agentr("bench", "e2e", str(root), "--seeds", "0", "--no-progress", "--out", str(tmp_path / "e.json"))
    assert result.exit_code == 0, result.output
    runs = {r["name"]: set(r["runs"]) for r in json.loads((tmp_path / "e.json").read_text())["reviews"]}
    assert runs == {"Invented_Kelp": {"question"}, "Invented_Moss": {"question", "abstract"},
                    "Invented_Sand": {"question"}}


def test_the_bundled_file_is_taken_without_a_value_and_a_missing_file_is_refused(tmp_path, stand_ins):
    root = _write_reviews(tmp_path / "reviews")
    # without a value (the next token an option): the bundled file, which has none of these invented names
    result = agentr("bench", "e2e", str(root), "--written-abstracts", "--seeds", "0", "--no-progress", "--out",
                    str(tmp_path / "e.json"))
    assert result.exit_code == 0, result.output
    assert json.loads((tmp_path / "e.json").read_text())["written_abstracts"].endswith("written_abstracts.json")
    result = agentr("bench", "e2e", str(root), "--written-abstracts", str(tmp_path / "none.json"), "--out",
                    str(tmp_path / "e.json"))
    assert result.exit_code == 2 and "no such file" in result.output
