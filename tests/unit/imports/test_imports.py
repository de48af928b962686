"""Unit tests for the candidate-paper importers: one small inline sample per format and case."""

from __future__ import annotations

import codecs
import contextlib
import json
import pickle
import time

import pytest

from agentr_dagster.domain.contracts import PaperRecord
from agentr_dagster.imports import (
    PAPER_KEY_MAX_CHARS,
    SUPPORTED_SUFFIXES,
    ImportFileError,
    ImportLimits,
    ImportResult,
    RowIssue,
    content_hash,
    dedupe,
    first_author_key,
    paper_key,
    paper_key_for,
    parse_bytes,
    parse_file,
    title_key,
)
from agentr_dagster.imports.latex import latex_to_text
from tests.support.import_samples import MEDLINE, WOS


def parse(text: str | bytes, suffix: str, **kw) -> ImportResult:
    data = text.encode("utf-8") if isinstance(text, str) else text
    return parse_bytes(data, suffix, name="sample" + suffix, **kw)


def titles(result: ImportResult) -> list[str]:
    return [r.title for r in result.records]


def reasons(issues: list[RowIssue]) -> str:
    return " | ".join(f"{i.row}:{i.column}:{i.reason}" for i in issues)


# ---------------------------------------------------------------------------------------------------------
# API surface
# ---------------------------------------------------------------------------------------------------------


def test_error_names_row_and_column_and_survives_pickle():
    err = ImportFileError("The year is not a number.", row=7, column="Year")
    assert (err.row, err.column) == (7, "Year")
    assert str(err) == "Row 7, column 'Year': The year is not a number."
    assert isinstance(err, ValueError)
    assert str(ImportFileError("plain")) == "plain"
    again = pickle.loads(pickle.dumps(err))
    assert (str(again), again.row, again.column) == (str(err), 7, "Year")


def test_suffixes_and_limits_defaults():
    assert SUPPORTED_SUFFIXES == (
        ".csv", ".tsv", ".xlsx", ".bib", ".ris", ".jsonl", ".json", ".nbib", ".medline", ".ciw", ".txt", ".xml"
    )
    limits = ImportLimits()
    assert (limits.max_bytes, limits.max_rows, limits.max_field_chars) == (50_000_000, 100_000, 20_000)


def test_unsupported_suffix_is_an_import_error():
    with pytest.raises(ImportFileError, match="Unsupported file type '.docx'"):
        parse_bytes(b"title\nx\n", ".docx")


def test_suffix_without_dot_and_upper_case():
    assert titles(parse_bytes(b"title\nA\n", "CSV")) == ["A"]


# ---------------------------------------------------------------------------------------------------------
# Tagged exports: PubMed (MEDLINE) and Web of Science
# ---------------------------------------------------------------------------------------------------------

# The samples MEDLINE and WOS live in tests/import_samples.py (the sensor's tests drop them into the inbox too).


@pytest.mark.parametrize("suffix", [".nbib", ".medline", ".txt"])
def test_medline_export(suffix):
    result = parse(MEDLINE, suffix)
    assert result.format == "medline"
    first, second = result.records
    assert first.title == "Metformin versus glibenclamide in type 2 diabetes: a randomized controlled trial."
    assert first.abstract == "BACKGROUND: We compared two drugs. RESULTS: Both lowered HbA1c."
    assert (first.year, first.doi, first.venue) == (2004, "10.2337/diacare.27.3.1", "Diabetes care")
    assert first.authors == ["Smith, John", "Doe, Anna"]  # full names (FAU) before initials (AU)
    assert (first.source_id, first.url) == ("15001234", "https://pubmed.ncbi.nlm.nih.gov/15001234/")
    assert (first.source_row, second.source_row) == (1, 20)
    assert (second.title, second.year, second.venue, second.doi) == ("A record that lost its blank line.", 2006,
                                                                       "Lancet", None)
    assert reasons(result.dropped) == "17:TI:missing title"


@pytest.mark.parametrize("suffix", [".ciw", ".txt"])
def test_web_of_science_plain_text_export(suffix):
    result = parse(WOS, suffix)
    assert result.format == "wos"
    first, second = result.records
    assert first.title == "Active learning for citation screening in systematic reviews"
    assert first.abstract == "We propose a method. It works well."
    assert first.authors == ["Smith, John", "Doe, Anna"]  # every continuation line of AF is an author
    assert (first.year, first.doi, first.venue) == (2018, "10.1016/j.jclinepi.2018.01.001",
                                                    "JOURNAL OF CLINICAL EPIDEMIOLOGY")
    assert first.source_id == "WOS:000123456700001"
    assert (second.title, second.authors, second.source_row) == ("A second record", ["Lee, K"], 18)


def test_txt_is_read_by_its_content():
    tab_delimited = "PT\tAU\tTI\tSO\tAB\tPY\tDI\nJ\tSmith, J\tA tab-delimited record\tJ\tText.\t2017\t10.1000/t\n"
    assert titles(parse(tab_delimited, ".txt")) == ["A tab-delimited record"]
    assert parse(tab_delimited, ".txt").records[0].doi == "10.1000/t"
    with pytest.raises(ImportFileError, match="not a PubMed .MEDLINE. export"):
        parse("Some notes about papers I want to read.\nAnother line.\n", ".txt")
    with pytest.raises(ImportFileError, match="looks like RIS"):
        parse("TY  - JOUR\nTI  - A RIS file saved as text\nER  - \n", ".txt")


def test_medline_and_wos_files_import_into_the_lake_like_any_other(tmp_path):
    from agentr_dagster.imports import dedupe

    (tmp_path / "pubmed.nbib").write_text(MEDLINE, encoding="utf-8")
    (tmp_path / "savedrecs.txt").write_text(WOS, encoding="utf-8")
    records = parse_file(tmp_path / "pubmed.nbib").records + parse_file(tmp_path / "savedrecs.txt").records
    unique, pairs = dedupe(records)
    assert len(unique) == 4 and not pairs
    assert {r.source_format for r in unique} == {"medline", "wos"}


STYLE = '<style face="normal" font="default" size="100%">{}</style>'
ENDNOTE = (
    '<?xml version="1.0" encoding="UTF-8" ?><xml><records>'
    '<record><rec-number>1</rec-number><ref-type name="Journal Article">17</ref-type>'
    "<contributors><authors><author>" + STYLE.format("Smith, John") + "</author><author>"
    + STYLE.format("Doe, Anna") + "</author></authors></contributors>"
    "<titles><title>" + STYLE.format("Active learning for ") + '<style face="italic">citation</style>'
    + STYLE.format(" screening") + "</title><secondary-title>" + STYLE.format("Syst Rev") + "</secondary-title>"
    "</titles><periodical><full-title>" + STYLE.format("Systematic Reviews") + "</full-title></periodical>"
    "<dates><year>" + STYLE.format("2019") + "</year></dates>"
    "<abstract>" + STYLE.format("We screen &amp; rank.") + "</abstract>"
    "<electronic-resource-num>" + STYLE.format("10.1186/s13643-019-0001-1") + "</electronic-resource-num>"
    "<urls><related-urls><url>" + STYLE.format("https://example.org/a") + "</url></related-urls></urls></record>"
    "<record><rec-number>2</rec-number><titles><title>An older export without style runs</title>"
    "<secondary-title>Journal B</secondary-title></titles><dates><year>2001</year></dates></record>"
    "<record><rec-number>3</rec-number><abstract>No title here.</abstract></record>"
    "</records></xml>"
)


def test_endnote_xml_export():
    result = parse(ENDNOTE, ".xml")
    assert result.format == "endnote-xml"
    first, second = result.records
    assert first.title == "Active learning for citation screening"  # the style runs joined
    assert (first.abstract, first.year, first.doi) == ("We screen & rank.", 2019, "10.1186/s13643-019-0001-1")
    assert (first.venue, first.url, first.authors) == ("Systematic Reviews", "https://example.org/a",
                                                       ["Smith, John", "Doe, Anna"])
    assert (second.title, second.year, second.venue, second.source_row) == (
        "An older export without style runs", 2001, "Journal B", 2)
    assert reasons(result.dropped) == "3:titles/title:missing title"


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ('<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]>'
         "<xml><records><record><titles><title>&e;</title></titles></record></records></xml>", "refused for safety"),
        ('<!DOCTYPE l [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;">]><xml><records><record>'
         "<titles><title>&b;</title></titles></record></records></xml>", "refused for safety"),
        ("<xml><records><record><titles><title>x</titles>", "not well-formed"),
        ("<PubmedArticleSet><PubmedArticle/></PubmedArticleSet>", "root is <PubmedArticleSet>"),
        ("<xml>" + "<a>" * 200_000 + "</a>" * 200_000 + "</xml>", "No EndNote XML records"),
    ],
    ids=["external-entity", "entity-expansion", "broken", "other-xml", "deep-nesting"],
)
def test_endnote_xml_hostile_or_foreign_input_is_a_clear_error(data, message):
    with pytest.raises(ImportFileError, match=message):
        parse(data, ".xml")


def test_an_endnote_export_saved_as_csv_gets_a_hint():
    with pytest.raises(ImportFileError, match="looks like EndNote XML; save it with a .xml suffix"):
        parse(ENDNOTE, ".csv")


def _workbook(*sheets: tuple[str, list[list[object]]]) -> bytes:
    import io

    from openpyxl import Workbook

    book = Workbook()
    book.remove(book.active)
    for title, rows in sheets:
        sheet = book.create_sheet(title)
        for row in rows:
            sheet.append(row)
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def test_xlsx_first_sheet_with_a_title_column():
    import datetime as dt

    data = _workbook(
        ("Notes", [["Reading list for the review"], ["ask Anna"]]),
        ("Candidates", [
            [],
            ["Title", "Abstract Note", "Publication Year", "DOI", "Added"],
            ["Deep learning for screening", "We screen.", 2019, "https://doi.org/10.1000/X1", dt.date(2024, 5, 1)],
            [None, None, None, None, None],
            ["=HYPERLINK(\"http://evil\")", "A formula title", 2020.0, None, None],
            ["", "No title in this row", 2021, None, None],
            ["Active learning in reviews", None, "2018", "10.1000/x2", None],
        ]),
    )
    result = parse(data, ".xlsx")
    assert result.format == "xlsx"
    assert titles(result) == ["Deep learning for screening", "Active learning in reviews"]
    first, second = result.records
    assert (first.abstract, first.year, first.doi, first.source_row) == ("We screen.", 2019, "10.1000/x1", 3)
    assert (second.year, second.doi, second.source_row) == (2018, "10.1000/x2", 7)
    # A formula is never evaluated: its cached value is read, and a workbook never opened in Excel has none.
    assert reasons(result.dropped) == "5:Title:missing title | 6:Title:missing title"


def test_xlsx_rows_are_numbered_as_the_spreadsheet_shows_them():
    data = _workbook(("S", [["Title", "Year"], ["One paper", 2001], [], ["Two paper", 2002]]))
    result = parse(data, ".xlsx")
    assert [(r.title, r.year, r.source_row) for r in result.records] == [("One paper", 2001, 2), ("Two paper", 2002, 4)]


def test_xlsx_bad_workbooks_are_clear_errors():
    import io
    import zipfile

    with pytest.raises(ImportFileError, match="No sheet has a title column.*'Name'"):
        parse(_workbook(("S", [["Name", "Colour"], ["x", "blue"]])), ".xlsx")
    with pytest.raises(ImportFileError, match="header row but no data rows"):
        parse(_workbook(("S", [["Title", "Year"]])), ".xlsx")
    with pytest.raises(ImportFileError, match="empty"):
        parse(b"", ".xlsx")
    with pytest.raises(ImportFileError, match="not a workbook.*save it with a .csv"):
        parse("title,year\nA,2020\n", ".xlsx")
    with pytest.raises(ImportFileError, match="not a workbook.*PDF"):
        parse(b"%PDF-1.7 ...", ".xlsx")
    good = _workbook(("S", [["Title"], ["A paper"]]))
    with pytest.raises(ImportFileError, match="not a valid workbook"):
        parse(good[: len(good) // 2], ".xlsx")
    docx = io.BytesIO()
    with zipfile.ZipFile(docx, "w") as archive:
        archive.writestr("word/document.xml", "<w:document/>")
    with pytest.raises(ImportFileError, match="without a workbook in it"):
        parse(docx.getvalue(), ".xlsx")
    bomb = io.BytesIO()
    with zipfile.ZipFile(bomb, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("xl/workbook.xml", "<workbook/>")
        archive.writestr("xl/worksheets/sheet1.xml", b"\0" * 3_000_000)
    assert len(bomb.getvalue()) < 20_000
    with pytest.raises(ImportFileError, match="would inflate to 3,000,011 bytes"):
        parse(bomb.getvalue(), ".xlsx", limits=ImportLimits(max_bytes=100_000))


def test_a_workbook_saved_as_csv_is_told_its_suffix():
    with pytest.raises(ImportFileError, match="a workbook keeps its .xlsx suffix"):
        parse(_workbook(("S", [["Title"], ["A paper"]])), ".csv")


# ---------------------------------------------------------------------------------------------------------
# CSV / TSV
# ---------------------------------------------------------------------------------------------------------


def test_csv_basic_fields_and_provenance():
    result = parse(
        "record_id,Title,Abstract,Publication Year,DOI,Author(s),Journal,URL\n"
        "r1,First paper,An abstract.,2020,https://doi.org/10.1000/ABC,Smith J; Doe K,J Tests,https://ex.org/1\n",
        ".csv",
    )
    assert result.format == "csv" and result.encoding == "utf-8"
    (rec,) = result.records
    assert rec == PaperRecord(
        title="First paper",
        abstract="An abstract.",
        year=2020,
        doi="10.1000/abc",
        authors=["Smith J", "Doe K"],
        venue="J Tests",
        url="https://ex.org/1",
        source_id="r1",
        source_format="csv",
        source_file="sample.csv",
        source_row=2,
    )
    assert result.dropped == [] and result.cleaned == []


@pytest.mark.parametrize(
    ("header", "field", "expected"),
    [
        ("Article Title", "title", "X"),
        ("TI", "title", "X"),
        ("Document Title", "title", "X"),
    ],
)
def test_csv_title_variants(header, field, expected):
    result = parse(f"{header}\nX\n", ".csv")
    assert getattr(result.records[0], field) == expected


def test_csv_header_variants_for_other_fields():
    result = parse(
        "TI,AB,PY,AU,Source title,id,DI\nT,The abstract,1999,Lee M and Park S,Venue V,ID-9,10.1000/q\n", ".csv"
    )
    rec = result.records[0]
    assert (rec.abstract, rec.year, rec.authors, rec.venue, rec.source_id, rec.doi) == (
        "The abstract",
        1999,
        ["Lee M", "Park S"],
        "Venue V",
        "ID-9",
        "10.1000/q",
    )
    zotero = parse('"Title","Abstract Note","Publication Year","Author"\n"Z","abs","2001","Doe, J; Roe, R"\n', ".csv")
    assert zotero.records[0].abstract == "abs" and zotero.records[0].authors == ["Doe, J", "Roe, R"]


def test_tsv_and_delimiter_sniffing():
    assert titles(parse("title\tyear\nTabbed, with comma\t2020\n", ".tsv")) == ["Tabbed, with comma"]
    assert titles(parse("title;year\nSemi;2020\n", ".csv")) == ["Semi"]
    assert titles(parse("sep=|\ntitle|year\nPiped|2020\n", ".csv")) == ["Piped"]
    assert titles(parse("sep=\t\ntitle\tyear\nTabbed via hint, really\t2020\n", ".csv")) == ["Tabbed via hint, really"]


def test_csv_without_title_column_names_the_columns_found():
    with pytest.raises(ImportFileError) as info:
        parse("name,summary,when\nA,B,2020\n", ".csv")
    message = str(info.value)
    assert "No title column" in message and "'name', 'summary', 'when'" in message
    assert info.value.row == 1


def test_csv_missing_titles_and_empty_rows_are_dropped_with_reasons():
    result = parse("title,year\n,2020\nGood,2021\n\n,,\n   ,2022\n", ".csv")
    assert titles(result) == ["Good"]
    assert [(i.row, i.reason) for i in result.dropped] == [
        (2, "missing title"),
        (4, "empty row"),
        (5, "empty row"),
        (6, "missing title"),
    ]
    assert result.dropped[0].column == "title"


def test_csv_header_only_and_all_rows_bad_are_rejected():
    with pytest.raises(ImportFileError, match="no data rows"):
        parse("title,year\n", ".csv")
    with pytest.raises(ImportFileError, match="No usable paper records.*row 2: missing title"):
        parse("title,year\n,2020\n,2021\n", ".csv")


def test_csv_duplicates_are_dropped_keeping_first():
    result = parse(
        "title,year,doi\nSame DOI a,2020,10.1000/d1\nSame DOI b,2020,10.1000/D1\n"
        "Exact Title!,2019,\nexact title,2019,\n",
        ".csv",
    )
    assert titles(result) == ["Same DOI a", "Exact Title!"]
    text = reasons(result.dropped)
    assert "3:None:duplicate of row 2 (same DOI 10.1000/d1)" in text
    assert "5:None:duplicate of row 4 (same title and year)" in text


def test_csv_formula_cells_are_kept_as_data():
    result = parse('title,abstract\n"=HYPERLINK(""http://x"",""y"")",=1+1\n@SUM(A1),-2+3\n', ".csv")
    assert titles(result) == ['=HYPERLINK("http://x","y")', "@SUM(A1)"]
    assert result.records[0].abstract == "=1+1"


def test_csv_long_fields_are_truncated_with_reason():
    limits = ImportLimits(max_field_chars=50)
    result = parse("title,abstract\n" + "T" * 80 + "," + "a" * 120 + "\n", ".csv", limits=limits)
    rec = result.records[0]
    assert len(rec.title) == 50 and len(rec.abstract) == 50
    assert "title truncated from 80 to 50 characters" in reasons(result.cleaned)
    assert "abstract truncated from 120 to 50 characters" in reasons(result.cleaned)


def test_title_longer_than_contract_limit_is_truncated_even_with_default_limits():
    result = parse("title\n" + "word " * 400 + "\n", ".csv")
    assert len(result.records[0].title) <= 1000
    assert "title truncated" in reasons(result.cleaned)


def test_csv_control_characters_removed_with_reason():
    result = parse("title,abstract\nBell\x07 \x1b[1mbold\x1b[0m \u202eflip\u200b,ok\x01?\n", ".csv")
    assert titles(result) == ["Bell bold flip"]
    assert "removed" in reasons(result.cleaned) and "title" in reasons(result.cleaned)


def test_csv_bad_year_doi_url_are_cleaned_not_fatal():
    result = parse("title,year,doi,url\nA,3000,nonsense,javascript:alert(1)\nB,May 2018,doi: 10.1000/X.,\n", ".csv")
    a, b = result.records
    assert (a.year, a.doi, a.url) == (None, None, None)
    assert (b.year, b.doi) == (2018, "10.1000/x")
    text = reasons(result.cleaned)
    assert "outside 1000-2200" in text and "is not a DOI" in text and "not an http(s) URL" in text


def test_csv_unterminated_quote_drops_the_swallowing_row():
    result = parse('title,abstract\nGood,fine\nBad,"never closed\nMore,rows\n', ".csv")
    assert titles(result) == ["Good"]
    assert "unterminated quote" in reasons(result.dropped)


def test_tsv_with_stray_quotes_reads_quotes_as_text():
    result = parse('TI\tPY\n"Quoted start\t2018\nSecond\t2019\n', ".tsv")
    assert titles(result) == ['"Quoted start', "Second"]
    assert "quotes read as ordinary characters" in reasons(result.cleaned)
    assert titles(parse('TI\tAB\nA\t"quoted, with comma"\n', ".tsv")) == ["A"]


def test_csv_mixed_line_endings():
    result = parse(b"title,year\r\nA,2001\nB,2002\rC,2003\r\n", ".csv")
    assert titles(result) == ["A", "B", "C"]
    assert [r.source_row for r in result.records] == [2, 3, 4]


def test_csv_extra_cells_noted():
    result = parse("title,year\nA,2001,surplus\n", ".csv")
    assert titles(result) == ["A"] and "extra cells ignored" in reasons(result.cleaned)


def test_bibtex_content_in_csv_gets_a_hint():
    with pytest.raises(ImportFileError, match="looks like BibTeX"):
        parse("@article{k, title={X}}\n", ".csv")


# ---------------------------------------------------------------------------------------------------------
# Encodings and binary input
# ---------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "encoding"),
    [
        ("title\nÜber café\n".encode(), "utf-8"),
        (codecs.BOM_UTF8 + "title\nÜber café\n".encode(), "utf-8-sig"),
        (codecs.BOM_UTF16_LE + "title\nÜber café\n".encode("utf-16-le"), "utf-16-le"),
        (codecs.BOM_UTF16_BE + "title\nÜber café\n".encode("utf-16-be"), "utf-16-be"),
        ("title\nÜber café\n".encode("cp1252"), "cp1252"),
        ("title\nÜber café\n".encode("latin-1"), "cp1252"),
    ],
)
def test_encodings(data, encoding):
    result = parse(data, ".csv")
    assert result.encoding == encoding
    assert titles(result) == ["Über café"]


def test_cp1252_smart_quotes_and_mixed_file():
    assert titles(parse("title\n“Quoted” – dash\n".encode("cp1252"), ".csv")) == ["“Quoted” – dash"]
    mixed = "title\nZürich\n".encode() + "Genève\n".encode("cp1252")
    result = parse(mixed, ".csv")
    assert titles(result) == ["Zürich", "Genève"] and result.encoding == "utf-8+cp1252"


def test_bom_inside_header_is_ignored():
    assert titles(parse(codecs.BOM_UTF8 + codecs.BOM_UTF8 + b"title\nX\n", ".csv")) == ["X"]


@pytest.mark.parametrize(
    ("data", "match"),
    [
        (b"title\nA\x00B\n", "NUL bytes"),
        (b"%PDF-1.5\n...", "PDF"),
        (b"PK\x03\x04rest", "ZIP"),
        (b"", "empty"),
        (b"  \n\n", "whitespace"),
        (codecs.BOM_UTF16_LE + b"t\x00i\x00\x00\xd8", "not valid UTF-16"),
    ],
)
def test_unusable_bytes_rejected(data, match):
    with pytest.raises(ImportFileError, match=match):
        parse(data, ".csv")


# ---------------------------------------------------------------------------------------------------------
# BibTeX
# ---------------------------------------------------------------------------------------------------------

BIB = r"""
@article{smith2020,
  title = {{The} \emph{Great} caf\'e of \"Uber {$\alpha$}-stable {DNA}},
  author = {Smith, John and M{\"u}ller, J{\"o}rg and others},
  journal = {J. Tests},
  year = {2020},
  doi = {https://doi.org/10.1000/BIB1},
  abstract = {We test 50\% of things \& more --- quickly.},
  url = {https://example.org/b1}
}
@inproceedings{doe2019, title = "A {Quoted} Title", booktitle = {Proc. X}, year = 2019}
@misc{arx, title = {On arXiv}, eprint = {2101.00001}, archivePrefix = {arXiv}, date = {2021-01-05}}
"""


def test_bibtex_fields_latex_and_provenance():
    result = parse(BIB, ".bib")
    assert result.format == "bibtex"
    first, second, third = result.records
    assert first.title == "The Great café of Über α-stable DNA"
    assert first.authors == ["Smith, John", "Müller, Jörg"]
    assert first.abstract == "We test 50% of things & more — quickly."
    assert (first.year, first.doi, first.venue, first.url) == (
        2020,
        "10.1000/bib1",
        "J. Tests",
        "https://example.org/b1",
    )
    assert (first.source_id, first.source_row, first.source_format) == ("smith2020", 2, "bibtex")
    assert (second.title, second.venue, second.year) == ("A Quoted Title", "Proc. X", 2019)
    assert (third.url, third.year) == ("https://arxiv.org/abs/2101.00001", 2021)


def test_bibtex_broken_entry_dropped_rest_kept():
    result = parse(
        "@article{a, title={Good one}}\n@article{b, title={never closed\n@misc{c, title={Good two}}\n", ".bib"
    )
    assert titles(result) == ["Good one", "Good two"]
    assert result.dropped[0].row == 2 and "unparsable BibTeX entry" in result.dropped[0].reason


def test_bibtex_duplicate_fields_keep_first_with_note():
    result = parse("@article{a, title={One}, title={Two}}\n", ".bib")
    assert titles(result) == ["One"] and "Duplicate field" in reasons(result.cleaned)


def test_bibtex_without_entries_rejected():
    with pytest.raises(ImportFileError, match="No BibTeX entries"):
        parse("just prose, no entries\n", ".bib")


@pytest.mark.parametrize(
    ("latex", "text"),
    [
        (r"caf\'{e} na\"{\i}ve", "café naïve"),
        (r"\c{c}a \v{s} \ss{} \o", "ça š ß ø"),
        (r"\textbf{Bold} and \textit{it}", "Bold and it"),
        (r"100\% \$5 \{x\}", "100% $5 {x}"),
        ("{" * 500 + "deep" + "}" * 500, "deep"),
        (r"\unknowncommand{arg} tail\\", "arg tail "),
    ],
)
def test_latex_to_text(latex, text):
    assert " ".join(latex_to_text(latex).split()) == " ".join(text.split())


# ---------------------------------------------------------------------------------------------------------
# RIS
# ---------------------------------------------------------------------------------------------------------

RIS = """TY  - JOUR
TI  - RIS article one
AU  - Smith, John
AU  - Doe, Jane
PY  - 2020///
T2  - Journal R
AB  - An abstract.
DO  - 10.1000/ris1
UR  - https://example.org/r1
ID  - rid1
ER  -

TY  - CONF
T1  - RIS paper two
Y1  - 2019/05/01
N2  - Second abstract
ER  -
"""


def test_ris_fields():
    result = parse(RIS, ".ris")
    assert result.format == "ris"
    one, two = result.records
    assert (one.title, one.authors, one.year, one.venue, one.abstract) == (
        "RIS article one",
        ["Smith, John", "Doe, Jane"],
        2020,
        "Journal R",
        "An abstract.",
    )
    assert (one.doi, one.url, one.source_id, one.source_row) == ("10.1000/ris1", "https://example.org/r1", "rid1", 1)
    assert (two.title, two.year, two.abstract, two.source_row) == ("RIS paper two", 2019, "Second abstract", 13)


def test_ris_missing_er_and_ty_and_sloppy_spacing():
    result = parse("TY - JOUR\nTI - One\ncontinued\nTI  - Two without TY\nER  - \nTY  - JOUR\nTI  - Three\n", ".ris")
    assert titles(result) == ["One continued", "Three"]  # a repeated TI keeps the first
    assert "6:None:record has no ER" in reasons(result.cleaned)
    orphan = parse("TI  - No TY\nER  - \n", ".ris")
    assert titles(orphan) == ["No TY"] and "no TY" in reasons(orphan.cleaned)


def test_ris_record_without_title_dropped():
    result = parse("TY  - JOUR\nAU  - X\nER  - \nTY  - JOUR\nTI  - Has title\nER  - \n", ".ris")
    assert titles(result) == ["Has title"] and result.dropped[0].reason == "missing title"


def test_ris_garbage_rejected():
    with pytest.raises(ImportFileError, match="No RIS records"):
        parse("not\nris\n", ".ris")


# ---------------------------------------------------------------------------------------------------------
# JSON Lines / JSON
# ---------------------------------------------------------------------------------------------------------

OPENALEX = {
    "id": "https://openalex.org/W2741809807",
    "doi": "https://doi.org/10.7717/PEERJ.4375",
    "title": "The state of OA",
    "display_name": "The state of OA",
    "publication_year": 2018,
    "authorships": [{"author": {"display_name": "Heather Piwowar"}}, {"author": {"display_name": "Jason Priem"}}],
    "primary_location": {"source": {"display_name": "PeerJ"}, "landing_page_url": "https://doi.org/10.7717/peerj.4375"},
    "abstract_inverted_index": {"Despite": [0], "growing": [1], "interest": [2], "in": [3, 5], "OA": [4], "x": [6]},
}
ARXIV = {
    "id": "0704.0001",
    "submitter": "Pavel Nadolsky",
    "authors": "C. Bal\\'azs, E. L. Berger, P. M. Nadolsky, C.-P. Yuan",
    "title": "Calculation of prompt diphoton production cross sections at Tevatron and\n  LHC energies",
    "journal-ref": "Phys.Rev.D76:013009,2007",
    "doi": "10.1103/PhysRevD.76.013009",
    "abstract": "  A fully differential calculation in perturbative quantum chromodynamics is\npresented.\n",
    "versions": [{"version": "v1", "created": "Mon, 2 Apr 2007 19:18:42 GMT"}],
    "update_date": "2008-11-13",
}


def test_jsonl_openalex():
    result = parse(json.dumps(OPENALEX) + "\n", ".jsonl")
    assert result.format == "jsonl-openalex"
    rec = result.records[0]
    assert rec.abstract == "Despite growing interest in OA in x"
    assert (rec.doi, rec.year, rec.venue, rec.source_id) == (
        "10.7717/peerj.4375",
        2018,
        "PeerJ",
        "https://openalex.org/W2741809807",
    )
    assert rec.authors == ["Heather Piwowar", "Jason Priem"] and rec.source_format == "jsonl-openalex"


def test_openalex_hostile_inverted_index_is_bounded():
    work = dict(OPENALEX, abstract_inverted_index={"a": [0, 10**15, -3, "1", True], "b": [1], "c": "nope"})
    result = parse(json.dumps(work), ".jsonl")
    assert result.records[0].abstract == "a b"
    assert "skipped 5 invalid position(s)" in reasons(result.cleaned)
    many = dict(OPENALEX, abstract_inverted_index={"w": list(range(500))})
    capped = parse(json.dumps(many), ".jsonl", limits=ImportLimits(max_field_chars=100))
    assert len(capped.records[0].abstract) <= 100 and "kept the first 100 words" in reasons(capped.cleaned)


def test_jsonl_arxiv_with_and_without_authors_parsed():
    result = parse(json.dumps(ARXIV) + "\n", ".jsonl")
    assert result.format == "jsonl-arxiv"
    rec = result.records[0]
    assert rec.title.startswith("Calculation of prompt") and "\n" not in rec.title
    assert rec.year == 2007 and rec.venue == "Phys.Rev.D76:013009,2007"
    assert rec.authors == ["C. Bal\\'azs", "E. L. Berger", "P. M. Nadolsky", "C.-P. Yuan"]
    assert rec.url == "https://arxiv.org/abs/0704.0001" and rec.doi == "10.1103/physrevd.76.013009"
    parsed = dict(ARXIV, authors_parsed=[["Balázs", "C.", ""], ["Yuan", "C. -P.", ""]])
    assert parse(json.dumps(parsed), ".jsonl").records[0].authors == ["C. Balázs", "C. -P. Yuan"]
    no_versions = {k: v for k, v in ARXIV.items() if k != "versions"}
    assert parse(json.dumps(no_versions), ".jsonl").records[0].year == 2008


def test_jsonl_plain_and_mixed_label():
    plain = {"title": "Plain", "abstract": "a", "year": 2020, "authors": ["A", "B"], "doi": "10.1000/p"}
    assert parse(json.dumps(plain), ".jsonl").format == "jsonl"
    mixed = parse(json.dumps(OPENALEX) + "\n" + json.dumps(ARXIV) + "\n", ".jsonl")
    assert mixed.format == "jsonl" and len(mixed.records) == 2
    assert [r.source_format for r in mixed.records] == ["jsonl-openalex", "jsonl-arxiv"]


def test_jsonl_malformed_lines_dropped_with_line_numbers():
    text = '{"title": "one"}\n{broken\n\n[1]\n{"title": "two"}\n'
    result = parse(text, ".jsonl")
    assert titles(result) == ["one", "two"]
    assert [(i.row, i.reason.split(":")[0]) for i in result.dropped] == [
        (2, "line is not valid JSON"),
        (4, "line is list, not a JSON object"),
    ]


def test_jsonl_all_bad_rejected_with_line():
    with pytest.raises(ImportFileError) as info:
        parse("{nope\n{also nope\n", ".jsonl")
    assert info.value.row == 1 and "No line is a valid JSON object" in str(info.value)


def test_jsonl_wrong_types_never_crash():
    lines = [
        {"title": ["a", "list"], "year": "c. 1999", "authors": "X; Y"},
        {"title": {"x": 1}},
        {"title": "NaN", "year": float("nan"), "authors": [{"family": "F", "given": "G"}, 3]},
        {"title": "Bool", "year": True, "doi": False, "url": 7},
    ]
    result = parse("\n".join(json.dumps(o) for o in lines), ".jsonl")
    assert titles(result) == ["a list", "NaN", "Bool"]
    assert result.records[0].year == 1999 and result.records[0].authors == ["X", "Y"]
    assert result.records[1].authors == ["G F"] and result.records[1].year is None
    assert "missing title" in reasons(result.dropped)


def test_json_array_openalex_page_and_single_object():
    assert len(parse(json.dumps([OPENALEX, ARXIV]), ".json").records) == 2
    page = parse(json.dumps({"meta": {}, "results": [OPENALEX]}), ".json")
    assert page.format == "jsonl-openalex" and page.records[0].source_row == 1
    assert titles(parse(json.dumps({"title": "Solo"}), ".json")) == ["Solo"]


def test_json_invalid_or_wrong_shape_rejected():
    with pytest.raises(ImportFileError, match="not valid JSON"):
        parse('[{"title": "x"', ".json")
    with pytest.raises(ImportFileError, match="expected an array"):
        parse('"just a string"', ".json")
    with pytest.raises(ImportFileError, match="empty"):
        parse("[]", ".json")


def test_deeply_nested_json_is_an_import_error():
    with pytest.raises(ImportFileError):
        parse("[" * 100_000 + "]" * 100_000, ".json")
    result = parse("[" * 100_000 + "\n" + '{"title": "ok"}\n', ".jsonl")
    assert titles(result) == ["ok"] and len(result.dropped) == 1


def test_surrogates_and_nul_escapes_removed():
    result = parse('{"title": "A \\ud800 B \\u0000 C"}\n', ".jsonl")
    assert titles(result) == ["A B C"] and "removed 2" in reasons(result.cleaned)


# ---------------------------------------------------------------------------------------------------------
# Limits and files
# ---------------------------------------------------------------------------------------------------------


def test_row_limit_rejects_the_file():
    data = "title\n" + "".join(f"Paper {i}\n" for i in range(20))
    with pytest.raises(ImportFileError, match="more than 10 records") as info:
        parse(data, ".csv", limits=ImportLimits(max_rows=10))
    assert info.value.row == 12
    assert len(parse(data, ".csv", limits=ImportLimits(max_rows=20)).records) == 20


def test_byte_limit_on_bytes():
    with pytest.raises(ImportFileError, match="over the import limit"):
        parse(b"title\n" + b"x" * 100, ".csv", limits=ImportLimits(max_bytes=50))


def test_parse_file_reads_by_suffix(tmp_path):
    path = tmp_path / "refs.RIS"
    path.write_text(RIS, encoding="utf-8")
    result = parse_file(path)
    assert result.format == "ris" and result.records[0].source_file == "refs.RIS"


def test_parse_file_missing_directory_and_bad_suffix(tmp_path):
    with pytest.raises(ImportFileError, match="does not exist"):
        parse_file(tmp_path / "nope.csv")
    folder = tmp_path / "folder.csv"
    folder.mkdir()
    with pytest.raises(ImportFileError, match="not a regular file"):
        parse_file(folder)
    with pytest.raises(ImportFileError, match="Unsupported"):
        parse_file(tmp_path / "x.docx")


# ---------------------------------------------------------------------------------------------------------
# Keys, hashes, dedupe
# ---------------------------------------------------------------------------------------------------------


def rec(title: str, year: int | None = 2020, doi: str | None = None, abstract: str = "", row: int = 1) -> PaperRecord:
    return PaperRecord(title=title, year=year, doi=doi, abstract=abstract, source_row=row)


def test_paper_key():
    assert paper_key(rec("X", doi="https://doi.org/10.1000/ABC")) == "doi:10.1000/abc"
    assert paper_key(rec("The  Café, Revisited!")) == "t:the cafe revisited|2020"
    assert paper_key(rec("The Cafe revisited", year=None)) == "t:the cafe revisited|"
    assert paper_key(rec("???")) == "t:???|2020"


def test_paper_key_fits_the_store_and_keeps_long_keys_distinct():
    from agentr_dagster.store.schema import papers

    assert papers.c.paper_key.type.length == PAPER_KEY_MAX_CHARS
    one, two = rec("word " * 199 + "one"), rec("word " * 199 + "two")
    assert len(paper_key(one)) == PAPER_KEY_MAX_CHARS and paper_key(one) != paper_key(two)
    assert paper_key(one) == paper_key(rec("Word " * 199 + "ONE."))  # same normalised title, same key
    assert paper_key(one).startswith("t:word word ")
    assert len(paper_key(rec("X", doi="10.1000/" + "x" * 300))) == PAPER_KEY_MAX_CHARS
    short = rec("Short title")
    assert paper_key(short) == paper_key_for(None, title_key("Short title", 2020)) == "t:short title|2020"


def test_content_hash_depends_on_title_and_abstract_only():
    a = rec("Title  one", abstract="Some\nabstract")
    b = PaperRecord(title="Title one", abstract="Some abstract", year=1999, doi="10.1/z", venue="V")
    assert content_hash(a) == content_hash(b)
    assert len(content_hash(a)) == 64 and int(content_hash(a), 16) >= 0
    assert content_hash(a) != content_hash(rec("Title one", abstract="Other abstract"))
    assert content_hash(a) != content_hash(rec("Title two", abstract="Some abstract"))


def test_dedupe_doi_title_fuzzy_and_guards():
    records = [
        rec("A randomized trial of screening methods", doi="10.1000/a", row=1),
        rec("Different title entirely", doi="10.1000/A", row=2),  # same DOI
        rec("A Randomized Trial of Screening Methods.", row=3),  # same title+year, no DOI
        rec("A randomised trial of screening methods", row=4),  # fuzzy
        rec("A randomized trial of screening methods", year=2021, row=5),  # other year: kept
        rec("A randomized trial of screening methods", doi="10.1000/other", row=6),  # other DOI: kept
        rec("Outcomes of the screening trial, part 1", row=7),
        rec("Outcomes of the screening trial, part 2", row=8),  # numbers differ: kept
    ]
    unique, pairs = dedupe(records)
    assert [r.source_row for r in unique] == [1, 5, 6, 7, 8]
    assert [(d.source_row, k.source_row) for d, k in pairs] == [(2, 1), (3, 1), (4, 1)]


def test_dedupe_matches_a_title_when_one_side_has_no_year():
    records = [
        rec("Screening methods for systematic reviews", year=2019, row=1),
        rec("Screening methods for systematic reviews.", year=None, row=2),  # no year: the same paper
        rec("Screening methods for systematic reviews", year=2021, row=3),  # two known years differ: kept
        rec("Editorial", year=2019, row=4),
        rec("Editorial", year=None, row=5),  # too short to match without a year
        rec("A new paper, first seen without a year", year=None, row=6),
        rec("A new paper, first seen without a year", year=2022, row=7),
        rec("A new paper, first seen without a year", year=2022, doi="10.1000/x", row=8),
    ]
    unique, pairs = dedupe(records)
    assert [r.source_row for r in unique] == [1, 3, 4, 5, 6]
    assert [(d.source_row, k.source_row) for d, k in pairs] == [(2, 1), (7, 6), (8, 6)]
    again, more = dedupe(unique)
    assert again == unique and not more


def test_a_title_without_a_year_needs_the_same_first_author_when_both_are_known():
    def paper(title, year, authors, row):
        return PaperRecord(title=title, year=year, authors=authors, source_row=row)

    editorial, tools, screening = (
        "Introduction to the special issue", "Screening tools for living reviews", "Machine learning for screening")
    records = [
        paper(editorial, 2019, ["Smith, John", "Doe, A"], 1),
        paper(editorial, None, ["Jones, Mary"], 2),  # another author's editorial: another paper
        paper(tools, 2020, ["van der Berg, Jan"], 3),
        paper(tools, None, ["J. van der Berg"], 4),  # the same first author, written the other way round
        paper(screening, None, [], 5),
        paper(screening, 2021, ["Lee K"], 6),  # no authors on one side: nothing says otherwise
        paper(editorial, 2019, ["Brown, K"], 7),  # same title and year: one paper key, so one paper, as before
    ]
    unique, pairs = dedupe(records)
    assert [r.source_row for r in unique] == [1, 2, 3, 5]
    assert [(d.source_row, k.source_row) for d, k in pairs] == [(4, 3), (6, 5), (7, 1)]
    assert first_author_key(["  ", "Müller, Jörg"]) == "muller" and first_author_key([]) is None
    assert first_author_key(["Smith et al."]) == first_author_key(["Smith JK"]) == "smith"
    assert first_author_key(["Xiang Li"]) == "li"  # a two-letter surname is not initials


def test_dedupe_keeps_same_titled_papers_with_different_abstracts():
    one = rec("Critic systems", abstract="We take a visual analytics approach to operational models. " * 5, row=1)
    two = rec("Critic Systems", abstract="Human-computer collaboration is necessary for solving problems. " * 5, row=2)
    same = rec("Critic systems.", abstract=one.abstract + " (c) 2016 Elsevier.", row=3)
    unique, pairs = dedupe([one, two, same])
    assert unique == [one, two] and pairs == [(same, one)]


def test_dedupe_splits_each_abstract_once(monkeypatch):
    # One title, 300 different long abstracts: each record is compared with many earlier ones on its abstract;
    # splitting both abstracts per comparison made this quadratic in splits (the main cost of large imports).
    import agentr_dagster.imports.identity as identity_module

    splits = []
    original = identity_module.abstract_words
    monkeypatch.setattr(identity_module, "abstract_words", lambda text: splits.append(1) or original(text))
    records = [rec("a randomized trial of screening methods", abstract=" ".join(f"r{i}x{j}" for j in range(200)),
                   row=i) for i in range(300)]
    unique, pairs = dedupe(records)
    assert len(unique) == len(records) and not pairs
    assert len(splits) <= len(records)


def test_dedupe_keeps_the_first_occurrence():
    first = rec("Same paper title here", row=1)
    second = rec("Same paper title here", abstract="Has an abstract", row=2)
    unique, pairs = dedupe([first, second])
    assert unique == [first] and pairs == [(second, first)]


def test_dedupe_is_fast_on_many_similar_titles():
    records = [rec(f"the effect of screening method number {i} on outcomes", row=i) for i in range(3000)]
    start = time.process_time()  # CPU seconds of this process: a loaded machine does not make it slower
    unique, _ = dedupe(records)
    assert len(unique) == 3000
    assert time.process_time() - start < 5


# ---------------------------------------------------------------------------------------------------------
# No super-linear blow-ups on hostile shapes (each would take tens of seconds if quadratic)
# ---------------------------------------------------------------------------------------------------------

MB = 1_000_000


@pytest.mark.parametrize(
    ("data", "suffix"),
    [
        (b"TY  - JOUR\nTI  - t\n" + b"continuation\n" * (MB // 13) + b"ER  - \n", ".ris"),
        (b"title,authors\nX," + b" " * MB + b"\n", ".csv"),
        (b'title,authors\nX,"' + b" \n" * (MB // 2) + b'"\n', ".csv"),
        (json.dumps({"title": "x", "authors": " " * MB, "versions": []}).encode(), ".jsonl"),
        (b"@a{" * (MB // 3), ".bib"),
        (b"@a{k, title={" + b"\\'{" * (MB // 3) + b"}}", ".bib"),
        (b"title\n\x1b[" + b"0" * MB + b"\n", ".csv"),
        (b"@a{k, title={t}, howpublished={" + b" " * MB + b"x}}", ".bib"),
    ],
    ids=[
        "ris-continuations",
        "author-spaces",
        "author-newlines",
        "arxiv-authors",
        "bib-starts",
        "latex",
        "ansi",
        "bib-url",
    ],
)
def test_hostile_shapes_stay_linear(data, suffix):
    start = time.process_time()  # CPU seconds of this process: a loaded machine does not make it slower
    with contextlib.suppress(ImportFileError):
        parse_bytes(data, suffix)
    assert time.process_time() - start < 5
