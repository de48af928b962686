"""Property tests: whatever bytes or text arrive, the importers answer with valid records or ImportFileError."""

from __future__ import annotations

import csv
import io
import json
import os

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from agentr_dagster.domain.contracts import PaperRecord
from agentr_dagster.imports import (
    SUPPORTED_SUFFIXES,
    ImportFileError,
    ImportLimits,
    ImportResult,
    UnexpectedImportError,
    content_hash,
    dedupe,
    paper_key,
    parse_bytes,
)
from agentr_dagster.imports.cleaning import clean_text
from agentr_dagster.imports.decode import looks_binary
from agentr_dagster.imports.latex import latex_to_text

# AGENTR_FUZZ_EXAMPLES=5000 for a long fuzzing run; the default keeps the suite fast.
SETTINGS = settings(
    max_examples=int(os.environ.get("AGENTR_FUZZ_EXAMPLES", "120")),
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
LIMITS = ImportLimits(max_bytes=200_000, max_rows=500, max_field_chars=2_000)


def check(data: bytes, suffix: str, limits: ImportLimits = LIMITS) -> ImportResult | None:
    """Parse and assert the contract; returns the result (None when rejected)."""
    try:
        result = parse_bytes(data, suffix, name="prop" + suffix, limits=limits)
    except ImportFileError as exc:
        assert not isinstance(exc, UnexpectedImportError), f"parser bug: {exc!r} (cause {exc.__cause__!r})"
        assert str(exc).strip()
        return None
    assert result.records
    for record in result.records:
        assert isinstance(record, PaperRecord)
        PaperRecord.model_validate(record.model_dump())
        record.model_dump_json().encode("utf-8")
        assert len(record.title) <= min(1000, limits.max_field_chars)
        assert len(record.abstract) <= limits.max_field_chars
    keys = [paper_key(r) for r in result.records]
    assert len(keys) == len(set(keys)), "records are de-duplicated within a file"
    return result


# ---------------------------------------------------------------------------------------------------------
# Arbitrary input for every parser
# ---------------------------------------------------------------------------------------------------------

suffixes = st.sampled_from(SUPPORTED_SUFFIXES)
BOMS = (b"", b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff", b"\xff\xfe\x00\x00")


@SETTINGS
@given(st.binary(max_size=2_000), suffixes, st.sampled_from(BOMS))
def test_arbitrary_bytes_never_raise_anything_else(data, suffix, bom):
    check(bom + data, suffix)


@SETTINGS
@given(st.text(max_size=1_000), suffixes, st.sampled_from(["utf-8", "utf-16", "cp1252"]))
def test_arbitrary_text_never_raises_anything_else(text, suffix, encoding):
    check(text.encode(encoding, errors="replace"), suffix)


# ---------------------------------------------------------------------------------------------------------
# Near-valid input per format (gets past the first checks, into the parsers proper)
# ---------------------------------------------------------------------------------------------------------

cell = st.one_of(
    st.text(max_size=40),
    st.sampled_from(["", "2020", "10.1000/x", "=1+1", '"', '""', "\r", "\n", "a;b and c", "https://x.org", "ÿ"]),
)
headers = st.lists(
    st.sampled_from(["title", "Title", "TI", "abstract", "AB", "year", "PY", "doi", "authors", "Journal", "id", "x"]),
    min_size=1,
    max_size=6,
)


@SETTINGS
@given(headers, st.lists(st.lists(cell, max_size=8), max_size=12), st.sampled_from([",", ";", "\t"]))
def test_csv_like_input(header, rows, delimiter):
    buffer = io.StringIO()
    writer = csv.writer(buffer, delimiter=delimiter)
    writer.writerow(header)
    writer.writerows(rows)
    check(buffer.getvalue().encode("utf-8", errors="replace"), ".tsv" if delimiter == "\t" else ".csv")


@SETTINGS
@given(st.lists(st.text(max_size=30), min_size=1, max_size=12), st.booleans())
def test_csv_raw_cells_joined_badly(cells, crlf):
    newline = "\r\n" if crlf else "\n"
    text = "title,abstract,year" + newline + newline.join(",".join(cells[i : i + 3]) for i in range(0, len(cells), 3))
    check(text.encode("utf-8", errors="replace"), ".csv")


bib_piece = st.one_of(
    st.sampled_from(
        ["@article{", "@misc(", "@string{s = {S}}", "@comment{", "@preamble{", "}", "{", ")", ",", "=", '"', "\\", "%"]
    ),
    st.sampled_from(["title = {", "author = {A and B}", "year = 2020", "doi = {10.1000/b}", "journal = s"]),
    st.text(max_size=20),
)


@SETTINGS
@given(st.lists(bib_piece, max_size=30))
def test_bibtex_like_input(pieces):
    check("".join(pieces).encode("utf-8", errors="replace"), ".bib")


@SETTINGS
@given(st.text(max_size=300))
def test_bibtex_entry_with_arbitrary_title(title):
    check(("@article{k, title = {" + title + "}, year = {2020}}\n").encode("utf-8", errors="replace"), ".bib")


ris_tag = st.sampled_from(["TY", "TI", "T1", "AU", "AB", "PY", "Y1", "DO", "UR", "ER", "JO", "T2", "ID", "KW", "ZZ"])
ris_line = st.one_of(
    st.builds(lambda t, sep, v: f"{t}{sep}{v}", ris_tag, st.sampled_from(["  - ", " - ", "  -", "-", "   - "]), cell),
    st.text(max_size=30),
)


@SETTINGS
@given(st.lists(ris_line, max_size=30), st.sampled_from(["\n", "\r\n", "\r"]))
def test_ris_like_input(lines, newline):
    check(newline.join(lines).encode("utf-8", errors="replace"), ".ris")


json_value = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=20),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=12,
)
paper_keys = st.sampled_from(
    [
        "title", "display_name", "abstract", "abstract_inverted_index", "publication_year", "year", "doi",
        "authorships", "authors", "authors_parsed", "versions", "update_date", "id", "primary_location",
        "journal-ref", "issued", "author", "url",
    ]
)  # fmt: skip
paper_like = st.dictionaries(paper_keys, json_value, max_size=8)


@SETTINGS
@given(st.lists(st.one_of(paper_like, json_value), max_size=10))
def test_jsonl_like_input(objects):
    lines = [json.dumps(o) for o in objects]
    check("\n".join(lines).encode("utf-8"), ".jsonl")
    check(json.dumps(objects).encode("utf-8"), ".json")


@SETTINGS
@given(
    st.dictionaries(st.text(max_size=10), st.lists(st.integers(min_value=-5, max_value=2_000_000), max_size=5)),
    st.text(min_size=1, max_size=50),
)
def test_openalex_inverted_index(index, title):
    work = {"id": "https://openalex.org/W1", "title": title, "abstract_inverted_index": index}
    check(json.dumps(work).encode("utf-8"), ".jsonl")


@SETTINGS
@given(st.lists(st.text(st.characters(blacklist_categories=("Cc", "Cs")), max_size=20), max_size=6))
def test_jsonl_broken_lines(fragments):
    text = '{"title": "anchor paper"}\n' + "\n".join(fragments)
    result = check(text.encode("utf-8", errors="replace"), ".jsonl")
    assert result is not None and "anchor paper" in [r.title for r in result.records]


# ---------------------------------------------------------------------------------------------------------
# Round trips and pure functions
# ---------------------------------------------------------------------------------------------------------


@SETTINGS
@given(st.text(min_size=1, max_size=200).filter(lambda t: clean_text(t, 1000)[0]))
@example(title="0" + "\x1f" * 15 + "\x08")  # found by a CI-like run: a title of control characters
def test_csv_title_round_trip(title):
    buffer = io.StringIO()
    csv.writer(buffer).writerows([["title"], [title]])
    result = check(buffer.getvalue().encode("utf-8", errors="surrogatepass"), ".csv")
    expected = clean_text(title, 1000)[0]
    if "\x00" in title or any(0xD800 <= ord(c) <= 0xDFFF for c in title):
        return  # NUL bytes reject the file; surrogates are not encodable
    if looks_binary(buffer.getvalue()):
        assert result is None  # mostly control characters: rejected as a binary file, as a hostile file is
        return
    assert result is not None and [r.title for r in result.records] == [expected]


@SETTINGS
@given(st.text(max_size=200))
def test_latex_to_text_is_total(text):
    assert isinstance(latex_to_text(text), str)


titles_st = st.sampled_from(["A study of screening", "A study of screening.", "Another paper on reviews", "X"])
records_st = st.lists(
    st.builds(
        lambda t, y, d, a: PaperRecord(title=t, year=y, doi=d, abstract=a),
        titles_st,
        st.sampled_from([None, 2020, 2021]),
        st.sampled_from([None, "10.1000/a", "10.1000/b"]),
        st.sampled_from(["", "abstract"]),
    ),
    max_size=12,
)


@SETTINGS
@given(records_st)
def test_dedupe_invariants(records):
    unique, pairs = dedupe(records)
    assert len(unique) + len(pairs) == len(records)
    assert all(kept in unique or any(kept is d for d, _ in pairs) for _, kept in pairs)
    dois = [r.doi for r in unique if r.doi]
    assert len(dois) == len(set(dois))
    assert len({paper_key(r) for r in unique}) == len(unique)
    again, more = dedupe(unique)
    assert again == unique and more == []


@SETTINGS
@given(st.text(min_size=1, max_size=100).filter(str.strip), st.text(max_size=100))
def test_key_and_hash_are_stable(title, abstract):
    record = PaperRecord(title=title, abstract=abstract)
    spaced = PaperRecord(title=f"  {title} ", abstract=abstract.replace(" ", "  "))
    assert paper_key(record) == paper_key(PaperRecord(title=title, abstract="other"))
    assert content_hash(record) == content_hash(spaced)
    assert len(content_hash(record)) == 64


medline_tag = st.sampled_from(["PMID", "TI", "AB", "FAU", "AU", "DP", "LID", "AID", "JT", "TA", "BTI", "OWN", "X"])
medline_line = st.one_of(
    st.builds(lambda t, sep, v: f"{t:<4}{sep}{v}", medline_tag, st.sampled_from(["- ", "-", " - "]), cell),
    st.builds(lambda v: "      " + v, cell),  # continuation
    st.sampled_from(["", "PMID- 1", "LID - 10.1000/x [doi]", "LID - [doi]"]),
    st.text(max_size=30),
)


@SETTINGS
@given(st.lists(medline_line, max_size=30), st.sampled_from([".nbib", ".txt"]))
def test_medline_like_input(lines, suffix):
    check(("PMID- 123\n" + "\n".join(lines)).encode("utf-8", errors="replace"), suffix)


wos_tag = st.sampled_from(["PT", "AU", "AF", "TI", "AB", "PY", "DI", "SO", "UT", "ER", "EF", "FN", "VR", "ZZ"])
wos_line = st.one_of(
    st.builds(lambda t, v: f"{t} {v}", wos_tag, cell),
    st.builds(lambda v: "   " + v, cell),  # continuation (another author in AU/AF)
    st.sampled_from(["ER", "EF", "PT J", ""]),
    st.text(max_size=30),
)


@SETTINGS
@given(st.lists(wos_line, max_size=30), st.sampled_from([".ciw", ".txt"]))
def test_web_of_science_like_input(lines, suffix):
    check(("FN Clarivate Analytics Web of Science\nVR 1.0\n" + "\n".join(lines)).encode("utf-8", errors="replace"),
          suffix)


xml_piece = st.one_of(
    st.sampled_from([
        "<xml>", "</xml>", "<records>", "</records>", "<record>", "</record>", "<titles><title>", "</title></titles>",
        "<style>", "</style>", "<abstract>", "</abstract>", "<dates><year>2020</year></dates>", "&amp;", "&lt;",
        "<![CDATA[", "]]>", "<!--", "-->", "<?xml version='1.0'?>", "<author>", "</author>", "<",
    ]),
    st.text(max_size=20),
)


@SETTINGS
@given(st.lists(xml_piece, max_size=40))
def test_endnote_xml_like_input(pieces):
    check("".join(pieces).encode("utf-8", errors="replace"), ".xml")


def _small_workbook() -> bytes:
    from openpyxl import Workbook

    book = Workbook()
    for row in (["Title", "Abstract", "Year"], ["A paper", "Its abstract", 2020], ["Another", "", "1999"]):
        book.active.append(row)
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


WORKBOOK = _small_workbook()


@SETTINGS
@given(st.lists(st.tuples(st.integers(0, len(WORKBOOK) - 1), st.integers(0, 255)), max_size=8),
       st.integers(0, len(WORKBOOK)))
def test_damaged_workbooks(flips, cut):
    data = bytearray(WORKBOOK[: max(cut, 4)])
    for index, value in flips:
        if index < len(data):
            data[index] = value
    check(bytes(data), ".xlsx")


@SETTINGS
@given(st.binary(max_size=500))
def test_zip_like_bytes_as_xlsx(tail):
    check(b"PK\x03\x04" + tail, ".xlsx")
