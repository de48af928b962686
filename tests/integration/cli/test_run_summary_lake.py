"""`agentr run` of a project whose candidates grew from the paper lake says how many came from the user's files and
how many the run retrieved from the lake: a 4-paper file gave `38 of 38 papers have a current score` without a
word on where the other 34 came from. Offline backend."""

from __future__ import annotations

import csv
from pathlib import Path

import agentr_dagster.data
from tests.support.cli import agentr

DEMO = Path(agentr_dagster.data.__file__).parent / "demo"



def test_the_summary_counts_papers_retrieved_from_the_lake(tmp_path):
    rows = list(csv.reader((DEMO / "papers.csv").open(encoding="utf-8")))
    four = tmp_path / "four.csv"
    with four.open("w", newline="", encoding="utf-8") as handle:
        csv.writer(handle).writerows(rows[:5])
    assert agentr("lake", "add", str(DEMO / "papers.csv")).exit_code == 0
    assert agentr("project", "add", "grown", "--abstract", str(DEMO / "abstract.md")).exit_code == 0
    assert agentr("papers", "add", "grown", str(four)).exit_code == 0

    result = agentr("run", "grown", "--no-progress")
    assert result.exit_code == 0, result.output
    line = next(line for line in result.output.splitlines() if "have a current score for grown" in line)
    total = int(line.split(" of ", 1)[1].split()[0])
    assert total > 4, line
    assert f"papers (4 from your files, {total - 4} retrieved from the paper lake: `agentr lake info`)" in line


def test_the_summary_names_the_searches_when_every_paper_came_from_them():
    from agentr_dagster.cli.run import _origin_note

    searched = ["openalex:boolean; pubmed:boolean", "europepmc:string-01"] * 153
    assert _origin_note(searched) == " (306 found by the source searches)"  # was "306 retrieved from the paper lake"
    mixed = ["import:papers.csv; openalex:boolean", "lake:boolean", "backward:3", "pubmed:boolean"]
    assert _origin_note(mixed) == (" (1 from your files, 1 found by the source searches, 1 by citation chasing, "
                                   "1 retrieved from the paper lake: `agentr lake info`)")
    assert _origin_note(["import:papers.csv"] * 4) == ""
