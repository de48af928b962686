"""Screening decisions read from labels tables and ASReview project exports (pure readers)."""

from __future__ import annotations

import io
import zipfile

import pytest
from openpyxl import Workbook

from agentr_dagster.imports import ImportFileError
from agentr_dagster.imports.asreview import read_asreview_project
from agentr_dagster.imports.labels import decision_of, read_label_table, table_header
from agentr_dagster.imports.records import ImportLimits
from tests.support.label_samples import asreview_v1, asreview_v2


def test_an_asreview_dataset_export_keeps_decisions_and_skips_the_unlabelled():
    data = (b"record_id,title,doi,included\n"
            b"R1,Active learning,https://doi.org/10.1000/AL.1,1\n"
            b"R2,LLM selectors,,0\n"
            b"R3,Stopping rules,,-1\n"
            b"R4,Birds,,\n"
            b"R5,Soil,,maybe\n")
    table = read_label_table(data, ".csv")
    assert [(e.record_id, e.label) for e in table.entries] == [("R1", 1), ("R2", 0)]
    assert table.entries[0].doi == "10.1000/al.1"  # the store's form: no resolver prefix, lower case
    assert table.skipped == [(4, "not labelled"), (5, "not labelled"), (6, "'maybe' is not a decision")]
    assert table.columns == {"decision": "included", "record_id": "record_id", "doi": "doi", "title": "title"}


def test_a_semicolon_sheet_with_words_and_only_titles():
    data = "Title;Decision\nActive learning;Include\nBirds;exclude\n".encode("cp1252")
    table = read_label_table(data, ".csv")
    assert [(e.title, e.label, e.record_id) for e in table.entries] == [("Active learning", 1, None),
                                                                       ("Birds", 0, None)]


def test_an_excel_sheet_of_decisions_is_found_among_sheets():
    workbook = Workbook()
    workbook.active.append(["notes"])
    workbook.active.append(["screened by two people"])
    sheet = workbook.create_sheet("decisions")
    sheet.append(["PMID", "Label included"])
    sheet.append([12345, 1])
    sheet.append([67890, 0])
    buffer = io.BytesIO()
    workbook.save(buffer)
    table = read_label_table(buffer.getvalue(), ".xlsx")
    assert [(e.record_id, e.label) for e in table.entries] == [("12345", 1), ("67890", 0)]
    assert table.format == "xlsx"


@pytest.mark.parametrize(("data", "message"), [
    (b"record_id,title\nR1,Active learning\n", "no decision column"),
    (b"included,notes\n1,good\n", "no column names the papers"),
    (b"record_id,included\nR1,\nR2,-1\n", "no row has a decision"),
    (b"", "empty"),
])
def test_an_unusable_table_says_why(data, message):
    with pytest.raises(ImportFileError, match=message):
        read_label_table(data, ".csv")


def test_the_header_alone_tells_a_labels_table_from_a_paper_file():
    assert table_header(b"record_id,title,included\n1,a,1\n", ".csv") == ["record_id", "title", "included"]
    assert table_header(b"\x00\x01binary", ".csv") == []
    assert table_header(b"PK\x03\x04not really", ".xlsx") == []
    big = b"title,abstract\n" + b"x,y\n" * 40_000  # only the head is read
    assert table_header(big, ".csv") == ["title", "abstract"]


def test_decision_values():
    assert [decision_of(v) for v in ("1", "yes", "Relevant", "TRUE", "0", "no", "irrelevant", "-1", "", None, "2")] \
        == [1, 1, 1, 1, 0, 0, 0, None, None, None, None]


def test_an_asreview_lab2_project_names_records_by_title_doi_and_the_users_id():
    table = read_asreview_project(asreview_v2({0: 1, 1: 0, 2: None, 3: 0}))
    got = {(e.record_id, e.title[:20], e.doi, e.label) for e in table.entries}
    assert got == {
        ("R1", "Active learning for ", "10.1000/al.1", 1),
        ("R2", "Large language model", None, 0),
        ("R4", "A survey of bird mig", None, 0),
    }  # the pending record 2 is left out
    assert table.format == "asreview"


def test_a_project_zipped_inside_its_folder_and_a_changed_decision():
    data = asreview_v2({0: 0, 4: 1}, folder="my-project/")
    table = read_asreview_project(data)
    assert {(e.record_id, e.label) for e in table.entries} == {("R1", 0), ("R5", 1)}


def test_an_asreview_lab1_project_maps_record_ids_to_data_file_rows():
    table = read_asreview_project(asreview_v1({0: 1, 2: 1, 3: 0}))
    assert {(e.title[:15], e.doi, e.label, e.record_id) for e in table.entries} == {
        ("Active learning", "10.1000/al.1", 1, None),
        ("Stopping rules ", "10.1000/stop.3", 1, None),
        ("A survey of bir", None, 0, None),
    }


def _zip(members: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, content in members.items():
            archive.writestr(name, content)
    return out.getvalue()


@pytest.mark.parametrize(("data", "message"), [
    (b"not a zip at all", "ZIP archive"),
    (_zip({"readme.txt": b"hello"}), "no project.json"),
    (_zip({"project.json": b"{not json"}), "not valid JSON"),
    (_zip({"project.json": b'{"reviews": []}'}), "no review results"),
    (_zip({"project.json": b'{"reviews": [{"id": "r"}], "datasets": [{"name": "a.csv"}]}',
           "reviews/r/results.db": b"garbage, not sqlite", "data_store.db": b"x"}), "not a readable ASReview"),
])
def test_a_broken_asreview_file_says_why(data, message):
    with pytest.raises(ImportFileError, match=message):
        read_asreview_project(data)


def test_an_asreview_archive_that_would_inflate_past_the_limit_is_refused_unopened():
    data = _zip({"project.json": b"{}", "big.bin": b"\0" * 2_000_000})
    with pytest.raises(ImportFileError, match="inflate"):
        read_asreview_project(data, ImportLimits(max_bytes=100_000))

