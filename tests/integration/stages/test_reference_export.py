"""`agentr export --format ris|bib`: the candidates (or the labelled includes) as files a reference manager takes,
read back by the project's own RIS and BibTeX importers with every record and every DOI kept, the label a
keyword and the relevance and rank a note."""

from __future__ import annotations

import csv
import math

import pytest

from agentr_dagster.cli.common import open_store
from agentr_dagster.imports import parse_file
from agentr_dagster.settings import results_dir
from agentr_dagster.stages.reference_export import review_note, to_bibtex, to_ris
from tests.support import ABSTRACT, DEMO
from tests.support.cli import agentr

AWKWARD = [  # what trips a writer: TeX specials, braces, unicode, a RIS tag inside a value, no DOI, no authors
    {"record_id": "x1", "title": "Costs & benefits of {screening}: 50% less work for $0 with C# and ~tilde_",
     "abstract": "ER  - not the end of a record. Ünïcödé α-β tests; a line\nbreak inside the abstract text here.",
     "year": "2021", "doi": "10.1000/ABC(12)_3"},
    {"record_id": "x2", "title": "An untitled-looking study without a DOI of any kind at all", "abstract":
     "A plain abstract of a study that has no DOI and no authors listed anywhere in its record.", "year": "",
     "doi": ""},
]


@pytest.fixture
def project(tmp_path):
    (tmp_path / "abstract.md").write_text(ABSTRACT)
    papers = tmp_path / "papers.csv"
    with open(DEMO / "papers.csv", newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    for i, row in enumerate(rows):  # the demo has no DOIs or authors: give them some, in several shapes
        row["doi"] = row["doi"] or f"10.5555/Demo.{row['record_id']}-{i}"
        row["authors"] = f"Müller, Anna; O'Brien, Seán; van der Berg, J.{i}" if i % 2 else ""
    with papers.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=[*rows[0], "authors"])
        writer.writeheader()
        writer.writerows(rows + AWKWARD)
    assert agentr("project", "add", "refs", "--abstract", str(tmp_path / "abstract.md")).exit_code == 0
    assert agentr("papers", "add", "refs", str(papers)).exit_code == 0
    store = open_store()
    stored = store.projects.list_papers("refs")
    assert agentr("label", "refs", f"id:{stored[0].id}", "include").exit_code == 0
    assert agentr("label", "refs", f"id:{stored[-2].id}", "include").exit_code == 0
    assert agentr("label", "refs", f"id:{stored[1].id}", "exclude").exit_code == 0
    return store, stored


@pytest.mark.parametrize("fmt", ["ris", "bib"])
def test_exported_candidates_come_back_through_our_importers_with_every_record_and_doi(project, fmt):
    store, stored = project
    result = agentr("export", "refs", "--format", fmt)
    assert result.exit_code == 0, result.output
    path = results_dir("refs") / f"candidates.{fmt}"
    assert f"{path} ({len(stored)} records)" in result.output

    back = parse_file(path)
    assert back.dropped == [] and len(back.records) == len(stored)
    assert sorted(r.doi for r in back.records if r.doi) == sorted(p.doi for p in stored if p.doi)
    assert sum(1 for p in stored if p.doi) >= 20
    by_title = {r.title: r for r in back.records}
    for paper in stored:
        assert paper.title in by_title, paper.title  # every title as stored, specials and unicode included
        assert by_title[paper.title].year == paper.year
        assert list(by_title[paper.title].authors) == list(paper.authors)
    text = path.read_text(encoding="utf-8")
    tag = {"ris": "KW  - agentr:", "bib": "keywords = {agentr:"}[fmt]
    assert text.count(f"{tag}include") == 2 and text.count(f"{tag}exclude") == 1
    assert text.count(f"{tag}unlabelled") == len(stored) - 3
    assert text.count(f"rank 1 of {len(stored)}") == 1

    included = agentr("export", "refs", "--format", fmt, "--only", "included")
    assert included.exit_code == 0 and "(2 records)" in included.output
    kept = parse_file(results_dir("refs") / f"included.{fmt}").records
    assert sorted(r.title for r in kept) == sorted(p.title for p in (stored[0], stored[-2]))


def test_the_note_carries_the_label_relevance_and_rank():
    row = {"paper_id": 7, "rank": 3, "title": "A title", "authors": "Ng, A.; Smith, B.", "year": 2020,
           "doi": "10.1/x", "venue": "J", "label": "include", "relevance": 0.91234, "abstract": "Text", "url": None}
    assert review_note(row, 40) == "agentr label: include; relevance P(include) 0.9123; rank 3 of 40"
    ris = to_ris([row], 40)
    assert "AU  - Ng, A.\nAU  - Smith, B." in ris and "N1  - agentr label: include; relevance" in ris
    bib = to_bibtex([{**row, "relevance": math.nan, "label": ""}], 40)
    assert "author = {Ng, A. and Smith, B.}" in bib
    assert "note = {agentr label: unlabelled; rank 3 of 40}" in bib and "keywords = {agentr:unlabelled}" in bib
