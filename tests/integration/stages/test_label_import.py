"""Screening decisions from files, matched to a project's papers and stored (SQLite and PostgreSQL)."""

from __future__ import annotations

import pytest

from agentr_dagster.stages.intake import IntakeError, add_papers_file, add_project
from agentr_dagster.stages.labels import import_labels_file, is_labels_file
from tests.support import ABSTRACT
from tests.support.label_samples import asreview_v1, asreview_v2, papers_csv


@pytest.fixture
def project(store, tmp_path):
    add_project(store, "lab", ABSTRACT)
    path = tmp_path / "candidates.csv"
    path.write_text(papers_csv())
    assert add_papers_file(store, "lab", path).added == 5
    return {p.source_id: p for p in store.projects.list_papers("lab")}


def labels_of(store) -> dict[str, str]:
    by_id = {p.id: p.source_id for p in store.projects.list_papers("lab")}
    return {by_id[row.paper_id]: row.label for row in store.labels.list_labels("lab")}


def test_decisions_match_by_record_id_doi_and_title_and_the_rest_is_reported(store, tmp_path, project):
    path = tmp_path / "screened.csv"
    path.write_text(
        "record_id,doi,title,included\n"
        "R1,,,1\n"                                                    # the user's record id
        ",https://doi.org/10.1000/STOP.3,,1\n"                         # a DOI
        ",,\"A SURVEY of bird-migration in Northern Europe.\",0\n"     # a title, normalised
        "R2,,Soil microbiomes under drought stress,0\n"                # R2's id but R5's title: R5
        "R9,,A paper nobody imported,1\n"
        "R3,,,\n"                                                      # not labelled yet
    )
    imported = import_labels_file(store, "lab", path)
    assert (imported.rows, imported.matched, imported.added) == (5, 4, 4)
    assert imported.matched_by == {"record_id": 1, "doi": 1, "title": 2}
    assert imported.unmatched == ["row 6: record id R9: no paper with this record id; no paper with this title"]
    assert imported.skipped == ["row 7: not labelled"]
    assert labels_of(store) == {"R1": "include", "R3": "include", "R4": "exclude", "R5": "exclude"}
    note = {r.paper_id: r.note for r in store.labels.list_labels("lab")}[project["R1"].id]
    assert note == "from screened.csv (row 2)"

    # The same file again changes nothing, so the labels' state (what the labels sensor watches) stays put.
    state = {s.slug: s.fingerprint for s in store.labels.states()}["lab"]
    again = import_labels_file(store, "lab", path)
    assert (again.added, again.changed, again.unchanged) == (0, 0, 4)
    assert {s.slug: s.fingerprint for s in store.labels.states()}["lab"] == state

    # A changed decision moves it.
    path.write_text("record_id,label\nR4,include\n")
    changed = import_labels_file(store, "lab", path)
    assert (changed.added, changed.changed) == (0, 1)
    after = {s.slug: s for s in store.labels.states()}["lab"]
    assert after.fingerprint != state and (after.count, after.includes) == (4, 3)


def test_a_file_naming_no_paper_stores_nothing(store, tmp_path, project):
    path = tmp_path / "labels.csv"
    path.write_text("record_id,included\nX1,1\nX2,0\n")
    with pytest.raises(IntakeError, match="none of its 2 decisions names a paper"):
        import_labels_file(store, "lab", path)
    assert store.labels.list_labels("lab") == []


@pytest.mark.parametrize("export", [asreview_v2({0: 1, 1: 0, 3: None}), asreview_v1({0: 1, 1: 0, 3: None})],
                         ids=["lab2", "lab1"])
def test_an_asreview_project_export_labels_the_project(store, tmp_path, project, export):
    path = tmp_path / "screening.asreview"
    path.write_bytes(export)
    assert is_labels_file(path)
    imported = import_labels_file(store, "lab", path)
    assert imported.format == "asreview" and imported.matched == 2 and not imported.unmatched
    assert labels_of(store) == {"R1": "include", "R2": "exclude"}


def test_which_drop_folder_files_are_labels(tmp_path):
    files = {
        "asreview_dataset_export.csv": "record_id,title,abstract,included\n1,a,b,1\n",
        "decisions.xlsx": "",  # named as labels: a labels file even before its content is read
        "scopus.csv": "Title,Abstract,DOI\nA,B,10.1/x\n",
        "papers_unlabeled.csv": "record_id,title,abstract\n1,a,b\n",
        "refs.ris": "TY  - JOUR\nER  - \n",
    }
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    assert {name: is_labels_file(tmp_path / name) for name in files} == {
        "asreview_dataset_export.csv": True, "decisions.xlsx": True, "scopus.csv": False, "papers_unlabeled.csv": False,
        "refs.ris": False}
