"""Generate the hostile import corpus: small files that exercise every way a candidate-paper file goes wrong.

Run from the repository root:  .venv/bin/python tests/hostile/make_corpus.py

Writes the files next to this script. ``build()`` also says what parsing each file must produce; the
generator is deterministic, and tests/test_imports_hostile.py checks the committed files match its output.
Every file stays under 50 KB: "too big" and "too many rows" are tested with small ImportLimits instead.
"""

from __future__ import annotations

import codecs
import json
import random
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
MAX_FILE_BYTES = 50_000

HEADER = "title,abstract,year,doi,authors\n"
GOOD_ROWS = (
    'Deep learning for citation screening,"We screen citations with neural models.",2020,10.1000/aaa1,'
    "Smith J; Doe K\n"
    "Active learning in systematic reviews,Fewer labels are needed.,2019,10.1000/aaa2,Lee M and Park S\n"
    'Large language models as reviewers,"LLMs judge relevance, sometimes well.",2023,,Chen X\n'
)


def ok(records: int | None = None, **extra: Any) -> dict[str, Any]:
    return {"outcome": "ok", "records": records, **extra}


def reject(message: str, **extra: Any) -> dict[str, Any]:
    return {"outcome": "reject", "message": message, **extra}


def _openalex(i: int, **over: Any) -> dict[str, Any]:
    work = {
        "id": f"https://openalex.org/W{1000 + i}",
        "doi": f"https://doi.org/10.5555/oa.{i}",
        "title": f"OpenAlex work number {i} on screening",
        "publication_year": 2018 + i % 5,
        "authorships": [{"author": {"display_name": f"Author {i}"}}],
        "primary_location": {"source": {"display_name": "Journal of Tests"}, "landing_page_url": f"https://ex.org/{i}"},
        "abstract_inverted_index": {"We": [0], "study": [1], "screening": [2, 4], "and": [3]},
    }
    work.update(over)
    return work


def _arxiv(i: int, **over: Any) -> dict[str, Any]:
    rec = {
        "id": f"0704.{i:04d}",
        "submitter": "Someone",
        "authors": "C. Bal\\'azs, E. L. Berger and P. M. Nadolsky",
        "title": f"Calculation of prompt   diphoton\n  production {i}",
        "journal-ref": "Phys.Rev.D76:013009,2007",
        "doi": f"10.1103/PhysRevD.76.0130{i:02d}",
        "abstract": "  A fully differential calculation in perturbative QCD is presented.\n",
        "versions": [{"version": "v1", "created": "Mon, 2 Apr 2007 19:18:42 GMT"}],
        "update_date": "2008-11-13",
        "authors_parsed": [["Balázs", "C.", ""], ["Berger", "E. L.", ""]],
    }
    rec.update(over)
    return rec


def _lines(objs: list[Any]) -> str:
    return "".join(json.dumps(o, ensure_ascii=False) + "\n" for o in objs)


def build() -> dict[str, tuple[bytes, dict[str, Any]]]:
    """name -> (content, expectation)."""
    rng = random.Random(20240611)
    files: dict[str, tuple[bytes, dict[str, Any]]] = {}

    def add(name: str, content: bytes | str, expect: dict[str, Any]) -> None:
        data = content.encode("utf-8") if isinstance(content, str) else content
        assert len(data) < MAX_FILE_BYTES, (name, len(data))
        files[name] = (data, expect)

    good = HEADER + GOOD_ROWS

    # ---- encodings -------------------------------------------------------------------------------------
    add("enc_utf8.csv", good, ok(3, encoding="utf-8"))
    add("enc_utf8_bom.csv", codecs.BOM_UTF8 + good.encode(), ok(3, encoding="utf-8-sig"))
    add("enc_utf16le_bom.csv", codecs.BOM_UTF16_LE + good.encode("utf-16-le"), ok(3, encoding="utf-16-le"))
    add("enc_utf16be_bom.csv", codecs.BOM_UTF16_BE + good.encode("utf-16-be"), ok(3, encoding="utf-16-be"))
    add("enc_utf16le_nobom.tsv", good.replace(",", "\t").encode("utf-16-le"), ok(encoding="utf-16-le"))
    add("enc_utf32le_bom.csv", codecs.BOM_UTF32_LE + good.encode("utf-32-le"), ok(3, encoding="utf-32-le"))
    latin = "title,abstract\nCafé society and naïve résumés,Über straße – “quoted”\n"
    add("enc_cp1252.csv", latin.encode("cp1252"), ok(1, encoding="cp1252", titles=["Café society and naïve résumés"]))
    add("enc_latin1.csv", "title\nEl niño año\n".encode("latin-1"), ok(1, encoding="cp1252"))
    mixed = "title,abstract\nZürich in UTF-8,ok\n".encode() + "Genève in cp1252,ok\n".encode("cp1252")
    add(
        "enc_mixed_utf8_cp1252.csv",
        mixed,
        ok(2, encoding="utf-8+cp1252", titles=["Zürich in UTF-8", "Genève in cp1252"]),
    )
    add(
        "enc_bad_utf16_odd_length.csv",
        codecs.BOM_UTF16_LE + "title\nabc\n".encode("utf-16-le") + b"\x00\xd8",
        reject("UTF-16"),
    )

    # ---- binary ------------------------------------------------------------------------------------------
    add("bin_nul_bytes.csv", bytes(rng.randrange(256) for _ in range(2000)), reject("binary"))
    add("bin_pdf_renamed.csv", b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog >>\nendobj\n", reject("PDF"))
    add(
        "bin_xlsx_renamed.csv",
        b"PK\x03\x04\x14\x00\x06\x00" + bytes(rng.randrange(256) for _ in range(500)),
        reject("ZIP"),
    )
    add("bin_gzip_renamed.jsonl", b"\x1f\x8b\x08\x00" + bytes(rng.randrange(256) for _ in range(300)), reject("gzip"))
    add("bin_png_renamed.ris", b"\x89PNG\r\n\x1a\n" + bytes(200), reject("PNG"))
    noise = bytes(rng.choice([*range(1, 9), *range(14, 32), *range(128, 160)]) for _ in range(1500))
    add("bin_control_noise.bib", noise, reject("control characters"))

    # ---- emptiness ---------------------------------------------------------------------------------------
    add("empty.csv", b"", reject("empty"))
    add("empty.jsonl", b"", reject("empty"))
    add("whitespace_only.ris", " \n\r\n\t \n", reject("whitespace"))
    add("header_only.csv", HEADER, reject("no data rows"))
    add("empty_rows.csv", HEADER + "\n,,,,\n" + GOOD_ROWS + "\n\n ,  , ,,\n", ok(3, min_dropped=3))

    # ---- structure -------------------------------------------------------------------------------------
    add("mixed_line_endings.csv", HEADER.replace("\n", "\r\n") + GOOD_ROWS.replace("\n", "\r", 1), ok(3))
    add(
        "no_title_column.csv",
        "name,summary_text,when\nA,B,2020\n",
        reject("Columns found: 'name', 'summary_text', 'when'"),
    )
    add("bibtex_in_csv.csv", "@article{k, title={Misnamed}}\n", reject("BibTeX"))
    add("one_long_line.csv", "x" * 40_000, reject("No title column"))
    add("semicolon_delimited.csv", HEADER.replace(",", ";") + "Semicolons everywhere;abs;2021;;A\n", ok(1))
    add("excel_sep_line.csv", "sep=|\ntitle|year\nPipe separated|2022\n", ok(1))
    add("ragged_rows.csv", HEADER + "Too many cells,a,2020,,X,extra1,extra2\nToo few cells\n", ok(2, min_cleaned=1))
    add(
        "unterminated_quote.csv",
        HEADER + GOOD_ROWS + 'Broken row,"this quote never ends,2020\nMore,rows,2021\n',
        ok(3, min_dropped=1),
    )
    add("duplicate_headers.csv", "title,title,abstract\n,Second title column wins,abs\nFirst,Second,abs\n", ok(2))
    wide = ",".join([f"col{i}" for i in range(500)] + ["title"]) + "\n" + ",".join(["v"] * 500 + ["Wide file"]) + "\n"
    add("many_columns.csv", wide, ok(1))
    rows = "".join(f"Row paper {i},abstract {i},{1990 + i % 30},,\n" for i in range(300))
    add("many_rows.csv", HEADER + rows, ok(300))

    # ---- header dialects ---------------------------------------------------------------------------------
    add(
        "wos_tab.tsv",
        "PT\tAU\tTI\tSO\tAB\tPY\tDI\tUT\nJ\tSmith, J; Doe, K\tWeb of Science style\tJ TESTS\tAbs.\t2017\t"
        "10.1000/wos1\tWOS:000123\n",
        ok(1, titles=["Web of Science style"]),
    )
    add(
        "scopus.csv",
        'Authors,Title,Year,Source title,DOI,Abstract,EID\n"Smith J., Doe K.",Scopus style,2016,Journal A,'
        "10.1000/sc1,Abs,2-s2.0-1\n",
        ok(1),
    )
    add(
        "zotero.csv",
        '"Key","Item Type","Publication Year","Author","Title","Publication Title","DOI","Url","Abstract Note"\n'
        '"ABCD1234","journalArticle","2015","Doe, Jane; Roe, Rick","Zotero style","J Z","10.1000/z1",'
        '"https://example.org/z","An abstract"\n',
        ok(1),
    )
    add(
        "wos_stray_quote.tsv",
        'TI\tPY\tAB\n"Quoted start of a title\t2018\tabs\nSecond record\t2019\tabs "with quote\n',
        ok(2, min_cleaned=1, titles=['"Quoted start of a title', "Second record"]),
    )
    add("pubmed_style.csv", "record_id,Article Title,AB,PY\n123,PubMed-ish,Abs,1999\n", ok(1))

    # ---- row content -------------------------------------------------------------------------------------
    add(
        "duplicates.csv",
        HEADER + GOOD_ROWS + GOOD_ROWS + "DEEP LEARNING for citation screening!,x,2020,,\n",
        ok(3, min_dropped=4),
    )
    add(
        "fuzzy_duplicates.csv",
        HEADER + "A randomized trial of screening methods for reviews,a,2020,,\n"
        "A randomised trial of screening methods for reviews,b,2020,,\n"
        "A randomized trial of screening methods for reviews part 2,c,2020,,\n",
        ok(2, min_dropped=1),
    )
    add(
        "missing_titles.csv",
        HEADER + ",abs only,2020,,\n" + GOOD_ROWS + '"   ",blank title,2021,,\n',
        ok(3, min_dropped=2),
    )
    add("all_missing_titles.csv", HEADER + ",a,2020,,\n,b,2021,,\n", reject("No usable paper records"))
    add(
        "long_fields.csv",
        HEADER + "T" * 1500 + "," + "word " * 7000 + ",2020,,\n",
        ok(1, min_cleaned=2),
    )
    add(
        "control_chars.csv",
        HEADER + "Bell\x07 and \x1b[31mred\x1b[0m title\u202e\u200b\U000e0041,abs\x01tract\x7f,2020,,Smith\x02 J\n",
        ok(1, min_cleaned=2, titles=["Bell and red title"]),
    )
    add(
        "formula_cells.csv",
        HEADER + '"=HYPERLINK(""http://evil.example"",""click"")",abs,2020,,\n+cmd|\' /C calc\'!A0,abs,2020,,\n'
        "@SUM(1+1),abs,2020,,\n-2+3,abs,2020,,\n",
        ok(4, titles=['=HYPERLINK("http://evil.example","click")', "+cmd|' /C calc'!A0", "@SUM(1+1)", "-2+3"]),
    )
    # Identifiers the importer keeps but PostgreSQL's varchar(255) columns would refuse.
    add(
        "long_identifiers.csv",
        "title,doi,record_id\nLong identifiers," + "10.1000/" + "x" * 280 + "," + "s" * 600 + "\n",
        ok(1),
    )
    add(
        "bad_values.csv",
        "title,year,doi,url\nBad values kept,99999,not a doi,javascript:alert(1)\nMore bad,abc,doi:10.1000/OK1.,"
        "https://example.org/ok\n",
        ok(2, min_cleaned=4),
    )

    # ---- BibTeX ------------------------------------------------------------------------------------------
    bib_good = (
        "@article{smith2020,\n  title = {{The} \\emph{Great} caf\\'e of \\\"Uber $\\alpha$-stable {DNA}},\n"
        '  author = {Smith, John and M{\\"u}ller, J{\\"o}rg and others},\n  journal = {J. Tests},\n'
        "  year = {2020},\n  doi = {10.1000/bib1},\n  abstract = {We test 50\\% of things \\& more.}\n}\n"
        '@inproceedings{doe2019, title="Quoted title", booktitle={Proc. X}, year=2019, author={Doe, Jane}}\n'
        "@string{jt = {Journal of Strings}}\n@article{str1, title={Uses a string}, journal=jt, year=2018}\n"
    )
    add(
        "bib_good.bib", bib_good, ok(3, titles=["The Great café of Über α-stable DNA", "Quoted title", "Uses a string"])
    )
    add(
        "bib_malformed_entry.bib",
        bib_good + "@article{broken, title = {never closed\n@misc{after, title={After the break}}\n",
        ok(min_dropped=1),
    )
    add("bib_garbage.bib", "this is not bibtex at all\njust words\n", reject("No BibTeX entries"))
    add(
        "bib_duplicate_keys.bib", "@article{a, title={One}, title={Two}, year=2001}\n@article{a, title={Three}}\n", ok()
    )
    add(
        "bib_unbalanced_braces.bib",
        "@article{x, title={Unbalanced {braces}, year=2000}\n@article{y, title={Fine}}\n",
        ok(),
    )
    add("bib_deep_braces.bib", "@article{deep, title={" + "{" * 3000 + "Deep" + "}" * 3000 + "}}\n", ok())
    add("bib_no_titles.bib", "@article{a, author={Nobody}}\n@book{b, year=2000}\n", reject("No usable"))

    # ---- RIS ---------------------------------------------------------------------------------------------
    ris_good = (
        "TY  - JOUR\nTI  - RIS article one\nAU  - Smith, John\nAU  - Doe, Jane\nPY  - 2020///\nT2  - Journal R\n"
        "AB  - An abstract.\nDO  - 10.1000/ris1\nUR  - https://example.org/r1\nER  - \n\n"
        "TY  - CONF\nT1  - RIS paper two\nY1  - 2019/05/01\nN2  - Second abstract\nER  - \n"
    )
    add("ris_good.ris", ris_good, ok(2))
    add("ris_crlf_mixed.ris", ris_good.replace("\n", "\r\n", 5).replace("\n", "\r", 3), ok(2))
    add("ris_no_er.ris", "TY  - JOUR\nTI  - No end one\nTY  - JOUR\nTI  - No end two\n", ok(2, min_cleaned=2))
    add(
        "ris_sloppy_tags.ris",
        "Provider: Somewhere\nTY - JOUR\nTI - Single spaced tags\ncontinued title line\nXX  - unknown tag\n"
        "ER -\nTI  - Record without TY\nER  - \n",
        ok(2),
    )
    add("ris_garbage.ris", "hello\nworld\nnot ris\n", reject("No RIS records"))
    add("ris_no_titles.ris", "TY  - JOUR\nAU  - Nobody\nER  - \n", reject("No usable"))

    # ---- JSON Lines / JSON ---------------------------------------------------------------------------
    add("openalex.jsonl", _lines([_openalex(i) for i in range(5)]), ok(5, format="jsonl-openalex"))
    hostile_oa = [
        _openalex(1, abstract_inverted_index={"huge": [10**12], "neg": [-1], "str": ["0"], "ok": [0], "b": [True]}),
        _openalex(2, abstract_inverted_index=[1, 2, 3], authorships={"not": "a list"}),
        _openalex(3, title=["list", "title"], publication_year="MMXX", doi=12345),
        _openalex(4, title={"nested": "dict"}),
        _openalex(5, abstract_inverted_index={"w": list(range(0, 3000))}),
    ]
    add("openalex_hostile.jsonl", _lines(hostile_oa), ok(4, min_dropped=1, min_cleaned=4))
    add("arxiv.jsonl", _lines([_arxiv(i) for i in range(1, 4)]), ok(3, format="jsonl-arxiv"))
    plain = [{"title": "Plain one", "abstract": "a", "year": 2020}, {"Title": "Plain two", "Abstract Note": "b"}]
    add("plain.jsonl", _lines(plain), ok(2, format="jsonl"))
    add(
        "jsonl_malformed_lines.jsonl",
        _lines(plain) + '{"title": "truncated\n[1, 2]\n"a string"\n{bad}\n' + _lines([_arxiv(7)]),
        ok(3, min_dropped=4),
    )
    add("jsonl_all_bad.jsonl", "{nope\n[[[\n'single quotes'\n", reject("No line is a valid JSON object"))
    add("jsonl_deep_nesting.jsonl", "[" * 20000 + "]" * 20000 + "\n" + _lines(plain), ok(2, min_dropped=1))
    add(
        "jsonl_wrong_types.jsonl",
        _lines(
            [
                {"title": 123, "year": "2020"},
                {"title": None, "abstract": "no title"},
                {"title": "NaN year", "year": float("nan"), "authors": {"name": "Solo"}},
                {"title": "Inf year", "year": float("inf"), "authors": [1, None, "Real Name"]},
                {"title": "Float year", "year": 2020.0, "doi": ["10.1000/list"]},
                {"title": True},
            ]
        ),
        ok(4, min_dropped=2),
    )
    add(
        "jsonl_surrogates.jsonl",
        '{"title": "Lone \\ud800 surrogate \\u0000 nul", "abstract": "\\udfff"}\n',
        ok(1, min_cleaned=1),
    )
    add(
        "jsonl_bigint.jsonl",
        '{"title": "Big int year", "year": ' + "9" * 5000 + "}\n" + _lines(plain),
        ok(2, min_dropped=1),
    )
    add("jsonl_huge_year_int.jsonl", '{"title": "Huge year", "year": ' + "9" * 100 + "}\n", ok(1, min_cleaned=1))
    add("json_array.json", json.dumps([_openalex(1), _arxiv(2), plain[0]], indent=2), ok(3))
    add("json_openalex_page.json", json.dumps({"meta": {"count": 2}, "results": [_openalex(1), _openalex(2)]}), ok(2))
    add("json_scalar.json", "42", reject("expected an array"))
    add("json_truncated.json", json.dumps([plain[0], plain[1]])[:-10], reject("not valid JSON"))
    add("json_empty_array.json", "[]", reject("empty"))
    add("json_jsonl_misnamed.json", _lines(plain), ok(2))

    # PubMed (MEDLINE), Web of Science plain text, EndNote XML, and .txt read by its content
    medline = (
        "PMID- 1\nTI  - Metformin in type 2 diabetes: a randomized\n      trial.\nAB  - Abstract.\nDP  - 2004 Mar\n"
        "LID - 10.1000/pm1 [doi]\nFAU - Smith, John\n\nPMID- 2\nAB  - No title.\n\n"
        "PMID- 3\nTI  - \u202eReversed \x1b[31mcolour\x1b[0m title\nDP  - 99999\n"
    )
    add("medline.nbib", medline, ok(2, format="medline", min_dropped=1, min_cleaned=2))
    add("medline_as_txt.txt", medline.replace("\n", "\r\n"), ok(2, format="medline"))
    add("medline_garbage.medline", "PMID-\nnot really\n      continued\n", reject("No usable"))
    wos = "FN Clarivate Analytics Web of Science\nVR 1.0\nPT J\nAF Smith, John\n   Doe, Anna\nTI A title\n   more\n"
    add("wos_no_er.ciw", wos + "PT J\nTI Second without ER\n", ok(2, format="wos"))
    wos_frame = "FN Clarivate Analytics Web of Science\nVR 1.0\nEF\n"
    add("wos_only_frame.txt", wos_frame, reject("No Web of Science records"))
    add("notes.txt", "My reading list\nAsk Anna about the trials.\n", reject("not a PubMed (MEDLINE) export"))
    endnote = (
        '<?xml version="1.0" encoding="UTF-8"?><xml><records><record><titles><title><style>Styled </style>'
        "<style>title</style></title></titles><dates><year>2019</year></dates></record>"
        "<record><titles><title></title></titles></record></records></xml>"
    )
    add("endnote.xml", endnote, ok(1, format="endnote-xml", min_dropped=1))
    add("xml_entities.xml", '<!DOCTYPE x [<!ENTITY a "aaaa"><!ENTITY b "&a;&a;&a;&a;">]><xml><records><record>'
        "<titles><title>&b;</title></titles></record></records></xml>", reject("refused for safety"))
    add("xml_external_entity.xml", '<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><xml><records><record>'
        "<titles><title>&e;</title></titles></record></records></xml>", reject("refused for safety"))
    add("xml_truncated.xml", endnote[:-30], reject("not well-formed"))
    add("xml_html_page.xml", "<!doctype html><html><body>Not an export</body></html>", reject("not well-formed"))

    # Excel workbooks
    book = _workbook([["Title", "Abstract", "Publication Year", "DOI"], ["Workbook paper one", "Abs", 2019, None],
                      [None, "no title", 2020, None], ["=1+1", "a formula cell is never evaluated", 2021, None],
                      ["Workbook paper two", "", "2018", "10.1000/wb2"]])
    add("xlsx_good.xlsx", book, ok(2, format="xlsx", min_dropped=2))
    add("xlsx_truncated.xlsx", book[: len(book) // 2], reject("not a valid workbook"))
    add("xlsx_csv_renamed.xlsx", HEADER + GOOD_ROWS, reject("save it with a .csv"))
    add("xlsx_saved_as_csv.csv", book, reject("a workbook keeps its .xlsx suffix"))
    add("xlsx_no_title_column.xlsx", _workbook([["Name", "Colour"], ["x", "blue"]]), reject("No sheet has a title"))
    return files


def _workbook(rows: list[list[Any]]) -> bytes:
    """An .xlsx with one sheet, byte-for-byte reproducible (fixed timestamps inside and on the ZIP entries)."""
    import datetime as dt
    import io
    import zipfile

    from openpyxl import Workbook

    book = Workbook()
    for row in rows:
        book.active.append(row)
    book.properties.created = book.properties.modified = dt.datetime(2020, 1, 1)
    raw = io.BytesIO()
    book.save(raw)
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(raw.getvalue())) as src, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            body = src.read(info.filename)
            if info.filename == "docProps/core.xml":  # openpyxl stamps the save time here
                import re

                body = re.sub(rb"<dcterms:modified[^>]*>[^<]*</dcterms:modified>", b"", body)
            dst.writestr(zipfile.ZipInfo(info.filename, date_time=(2020, 1, 1, 0, 0, 0)), body)
    return out.getvalue()


ABSTRACTS_DIR = HERE / "abstracts"
ABSTRACT_TEXT = (
    "Systematic reviews in software engineering need reproducible screening. We propose an auditable "
    "pipeline that scores candidate papers against a structured research intent.\n"
    "Société, naïve “quotes” and résumé survive every encoding.\n"
)


def build_abstracts() -> dict[str, tuple[bytes, dict[str, Any]]]:
    """Abstract files (``.md`` / ``.txt``) for the drop folder and ``agentr project add``: name -> (content,
    expectation). "ok" ones must be stored containing ``contains``; "reject" ones refused with ``message``."""
    rng = random.Random(20240612)
    files: dict[str, tuple[bytes, dict[str, Any]]] = {}

    def add(name: str, content: bytes, expect: dict[str, Any]) -> None:
        assert len(content) < MAX_FILE_BYTES, (name, len(content))
        files[name] = (content, expect)

    text = ABSTRACT_TEXT
    ok_abstract = ok(contains="Société, naïve “quotes” and résumé")
    add("abs_utf8.md", text.encode(), ok_abstract)
    add("abs_utf8_bom.md", codecs.BOM_UTF8 + text.encode(), ok_abstract)
    add("abs_utf16le_bom.txt", codecs.BOM_UTF16_LE + text.encode("utf-16-le"), ok_abstract)
    add("abs_utf16be_bom.md", codecs.BOM_UTF16_BE + text.encode("utf-16-be"), ok_abstract)
    add("abs_utf16le_nobom.md", text.encode("utf-16-le"), ok_abstract)
    add("abs_utf32le_bom.md", codecs.BOM_UTF32_LE + text.encode("utf-32-le"), ok_abstract)
    add("abs_cp1252.txt", text.encode("cp1252"), ok_abstract)
    add("abs_latin1.md", text.replace("“", '"').replace("”", '"').encode("latin-1"),
        ok(contains='Société, naïve "quotes" and résumé'))
    add("abs_mixed_line_endings.md", text.replace("\n", "\r\n", 1).encode() + b"Last line.\r", ok_abstract)
    add(
        "abs_hidden_controls.md",
        ("\u202e" + text.replace("reproducible", "repro\u200bducible\x1b[31m") + "\U000e0041\x07").encode(),
        ok(contains="need reproducible screening", absent=["\u202e", "\u200b", "\x1b", "\U000e0041", "\x07"]),
    )
    add("abs_empty.md", b"", reject("empty"))
    add("abs_whitespace.txt", b" \r\n\t \n", reject("too short"))
    add("abs_too_short.md", b"Four words only here", reject("too short"))
    add("abs_nul_bytes.md", bytes(rng.randrange(256) for _ in range(3000)), reject("binary"))
    add("abs_pdf_renamed.md", b"%PDF-1.4\n1 0 obj << >> endobj\n", reject("PDF"))
    add("abs_docx_renamed.txt", b"PK\x03\x04" + bytes(rng.randrange(256) for _ in range(400)), reject("ZIP"))
    add("abs_png_renamed.md", b"\x89PNG\r\n\x1a\n" + bytes(100), reject("PNG"))
    add("abs_elf_renamed.txt", b"\x7fELF\x02\x01\x01" + bytes(300), reject("executable"))
    noise = bytes(rng.choice([*range(1, 9), *range(14, 32)]) for _ in range(1200))
    add("abs_control_noise.md", noise, reject("control characters"))
    add("abs_bad_utf16_odd_length.md", codecs.BOM_UTF16_LE + text.encode("utf-16-le") + b"\x00\xd8", reject("UTF-16"))
    return files


def make_runtime_cases(folder: Path) -> list[tuple[Path, str, dict[str, Any]]]:
    """Files that cannot be committed (sparse, links, pipes, odd names), made at test time in `folder`.

    Returns (path, where, expectation) for each; `where` is "project" for a candidate-paper file (dropped
    in inbox/<slug>/, or given to `agentr papers add`) and "top" for an abstract.
    """
    import os

    folder.mkdir(parents=True, exist_ok=True)
    good = (HEADER + GOOD_ROWS).encode()
    made: list[tuple[Path, str, dict[str, Any]]] = []

    def regular(name: str | bytes, content: bytes, where: str, expect: dict[str, Any]) -> None:
        path = Path(os.fsdecode(os.path.join(os.fsencode(folder), os.fsencode(name))))
        path.write_bytes(content)
        made.append((path, where, expect))

    def sparse(name: str, size: int, where: str) -> None:
        path = folder / name
        with path.open("wb") as handle:  # nothing written: the size is claimed, not stored
            handle.truncate(size)
        made.append((path, where, reject("too large")))

    sparse("sparse_2gb.csv", 2 * 1024**3, "project")
    sparse("sparse_60mb.jsonl", 60_000_000, "project")
    sparse("sparse_2gb_abstract.md", 2 * 1024**3, "top")
    links = {"link_to_passwd.csv": "/etc/passwd", "link_to_dir.bib": "/etc", "link_dangling.ris": "/nonexistent/x"}
    for name, target in links.items():
        os.symlink(target, folder / name)
        made.append((folder / name, "project", reject("symbolic links")))
    os.symlink("/etc/hostname", folder / "link_abstract.md")
    made.append((folder / "link_abstract.md", "top", reject("symbolic links")))
    os.mkfifo(folder / "named_pipe.csv")
    made.append((folder / "named_pipe.csv", "project", reject("named pipe")))
    (folder / "folder.csv").mkdir()
    (folder / "folder.csv" / "inner.csv").write_bytes(good)
    made.append((folder / "folder.csv", "project", reject("folder")))
    regular(b"caf\xe9-latin1-name.csv", good, "project", reject("undecodable"))
    regular("two\nlines.csv", good, "project", reject("control characters"))
    regular("evil\u202ecod.exe.csv", good, "project", reject("control characters"))  # right-to-left override
    regular("x" * 240 + ".csv", b"name,colour\nfoo,blue\n", "project", reject("No title column"))
    # A dot-name is a hidden file to the drop folder (left alone: partial uploads look like that).
    regular("..\\..\\backslash-traversal.csv", good, "project", ok(3, sensor="ignored"))
    regular("spaces and (parens) [1].csv", good, "project", ok(3))
    regular("notes.docx", b"PK\x03\x04" + bytes(50), "project", reject("unsupported file type"))
    regular("no_suffix", good, "project", reject("unsupported file type"))
    regular("double.csv.exe", good, "project", reject("unsupported file type"))
    return made


def main(out_dir: Path = HERE) -> None:
    files = build()
    for name, (data, _) in sorted(files.items()):
        (out_dir / name).write_bytes(data)
    abstracts = build_abstracts()
    (out_dir / "abstracts").mkdir(exist_ok=True)
    for name, (data, _) in sorted(abstracts.items()):
        (out_dir / "abstracts" / name).write_bytes(data)
    print(f"wrote {len(files)} files to {out_dir} and {len(abstracts)} to {out_dir / 'abstracts'}")


if __name__ == "__main__":
    main()
