"""Import candidate-paper files (CSV/TSV, Excel, BibTeX, RIS, MEDLINE, Web of Science, EndNote XML, JSON Lines,
JSON), hardened against hostile input.

Contract:

* :func:`parse_file` / :func:`parse_bytes` return an :class:`ImportResult` whose records are valid
  :class:`PaperRecord` objects, de-duplicated within the file, with every dropped row and every cleaned
  value listed with its reason; or they raise :class:`ImportFileError` saying why the file is unusable
  (with row and column when one applies). Nothing else escapes for bad input.
* A file that is entirely bad is rejected; a partially bad file keeps its good rows.
* Limits (:class:`ImportLimits`) are checked before work: file size before reading, record count while
  reading, field length per value (truncated with a note).
* Decoding: UTF-8 (with or without BOM), UTF-16/32 with BOM, BOM-less UTF-16 (detected), and a cp1252 /
  Latin-1 fallback (per byte, so a mostly-UTF-8 file with a few stray cp1252 bytes still reads right).
  Binary files (NUL bytes, known magic numbers, mostly control characters) are rejected.
* Formula-looking cells (``=SUM(...)``) are kept as data; export safety is the exporter's job.

Pure Python; no Dagster imports.
"""

from __future__ import annotations

import codecs
import difflib
import hashlib
import re
import stat
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

from agentr_dagster.domain.contracts import PaperRecord
from agentr_dagster.domain.imports_core import Collector as _Collector
from agentr_dagster.domain.imports_core import (
    ImportFileError,
    ImportLimits,
    RowIssue,
    UnexpectedImportError,
    clip,
)
from agentr_dagster.domain.imports_endnote import parse_endnote_xml
from agentr_dagster.domain.imports_formats import (
    parse_bibtex,
    parse_csv,
    parse_json_document,
    parse_json_lines,
    parse_ris,
    sniff_hint,
)
from agentr_dagster.domain.imports_tagged import looks_like_medline, looks_like_wos, parse_medline, parse_wos
from agentr_dagster.domain.imports_xlsx import parse_xlsx

__all__ = [
    "PAPER_KEY_MAX_CHARS",
    "SUPPORTED_SUFFIXES",
    "ImportFileError",
    "ImportLimits",
    "ImportResult",
    "RowIssue",
    "content_hash",
    "dedupe",
    "paper_key",
    "paper_key_for",
    "parse_bytes",
    "parse_file",
    "title_key",
]

SUPPORTED_SUFFIXES = (
    ".csv", ".tsv", ".xlsx", ".bib", ".ris", ".jsonl", ".json", ".nbib", ".medline", ".ciw", ".txt", ".xml"
)
# A .txt file is read by its content: a PubMed (MEDLINE) or Web of Science export, or a tab-separated table.


@dataclass
class ImportResult:
    # "csv" | "xlsx" | "bibtex" | "ris" | "medline" | "wos" | "endnote-xml" | "jsonl-openalex" | "jsonl-arxiv" |
    # "jsonl"
    format: str
    records: list[PaperRecord]
    dropped: list[RowIssue] = field(default_factory=list)
    cleaned: list[RowIssue] = field(default_factory=list)
    encoding: str = "utf-8"


# --------------------------------------------------------------------------------------------------------
# Entry points
# --------------------------------------------------------------------------------------------------------


def _fmt_bytes(size: int) -> str:
    if size >= 1_000_000:
        return f"{size / 1_000_000:.1f} MB"
    if size >= 1_000:
        return f"{size / 1_000:.1f} KB"
    return f"{size} bytes"


def _suffix(suffix: str) -> str:
    suffix = (suffix or "").strip().lower()
    if suffix and not suffix.startswith("."):
        suffix = "." + suffix
    if suffix not in SUPPORTED_SUFFIXES:
        raise ImportFileError(
            f"Unsupported file type {clip(suffix or '(none)', 20)!r}; use one of {', '.join(SUPPORTED_SUFFIXES)}."
        )
    return suffix


def parse_file(path: Path, limits: ImportLimits = ImportLimits()) -> ImportResult:
    """Parse a candidate-paper file chosen by its suffix. Checks the size before reading a byte."""
    path = Path(path)
    suffix = _suffix(path.suffix)
    try:
        info = path.stat()
    except FileNotFoundError as exc:
        raise ImportFileError(f"The file {clip(path.name)!r} does not exist.") from exc
    except OSError as exc:
        raise ImportFileError(f"The file {clip(path.name)!r} cannot be read: {exc.strerror or exc}.") from exc
    if not stat.S_ISREG(info.st_mode):
        raise ImportFileError(f"{clip(path.name)!r} is not a regular file.")
    if info.st_size > limits.max_bytes:
        raise ImportFileError(
            f"The file is {_fmt_bytes(info.st_size)}, over the import limit of {_fmt_bytes(limits.max_bytes)}; "
            "split it into smaller files."
        )
    try:
        with path.open("rb") as handle:
            data = handle.read(limits.max_bytes + 1)
    except OSError as exc:
        raise ImportFileError(f"The file {clip(path.name)!r} cannot be read: {exc.strerror or exc}.") from exc
    return parse_bytes(data, suffix, name=path.name, limits=limits)


def parse_bytes(data: bytes, suffix: str, name: str = "<bytes>", limits: ImportLimits = ImportLimits()) -> ImportResult:
    """Parse file content given its suffix (``".csv"`` or ``"csv"``). Raises only ImportFileError."""
    suffix = _suffix(suffix)
    data = bytes(data)
    if len(data) > limits.max_bytes:
        raise ImportFileError(
            f"The file is over the import limit of {_fmt_bytes(limits.max_bytes)}; split it into smaller files."
        )
    try:
        return _parse(data, suffix, name, limits)
    except ImportFileError:
        raise
    except RecursionError as exc:
        raise ImportFileError("The file is nested too deeply to read.") from exc
    except MemoryError as exc:
        raise ImportFileError("The file needs too much memory to read; split it into smaller files.") from exc
    except Exception as exc:  # a parser bug must still surface as the one clear error type
        raise UnexpectedImportError(
            f"The file could not be read ({type(exc).__name__}: {clip(str(exc), 120)})."
        ) from exc


def _parse(data: bytes, suffix: str, name: str, limits: ImportLimits) -> ImportResult:
    collector = _Collector(name, limits)
    if suffix == ".xlsx":  # a ZIP of XML parts, not text
        if not data:
            raise ImportFileError("The file is empty.")
        if not data.startswith(b"PK\x03\x04"):
            raise ImportFileError("The .xlsx file is not a workbook (a workbook is a ZIP archive)." + _kind_hint(data))
        return _result(parse_xlsx(data, collector), collector, "xlsx")
    text, encoding = decode(data)
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if not text.strip():
        raise ImportFileError("The file contains only whitespace.")
    if suffix in (".csv", ".tsv"):
        fmt = parse_csv(text, collector, tsv=suffix == ".tsv")
    elif suffix == ".bib":
        fmt = parse_bibtex(text, collector)
    elif suffix == ".ris":
        fmt = parse_ris(text, collector)
    elif suffix in (".nbib", ".medline"):
        fmt = parse_medline(text, collector)
    elif suffix == ".ciw":
        fmt = parse_wos(text, collector)
    elif suffix == ".txt":
        fmt = _parse_txt(text, collector)
    elif suffix == ".xml":
        fmt = parse_endnote_xml(text, collector)
    elif suffix == ".jsonl":
        fmt = parse_json_lines(text, collector)
    else:
        fmt = parse_json_document(text, collector)
    return _result(fmt, collector, encoding)


def _kind_hint(data: bytes) -> str:
    kind = binary_file_kind(data)
    if kind:
        return f" It is {kind}."
    head = data[:2000].decode("utf-8", errors="replace").lstrip("\ufeff")
    if "," in head or "\t" in head:
        return " It looks like text: save it with a .csv or .tsv suffix."
    return ""


def _result(fmt: str, collector: _Collector, encoding: str) -> ImportResult:
    """De-duplicate what the reader collected; a file without one usable record is an error."""
    unique, reasons = _dedupe(collector.records)
    for dropped_record, kept, why in reasons:
        collector.drop(dropped_record.source_row or 0, None, f"duplicate of row {kept.source_row} ({why})")
    if not unique:
        issues = sorted(collector.dropped, key=lambda issue: issue.row)
        shown = "; ".join(f"row {i.row}: {i.reason}" for i in issues[:3])
        more = f"; and {len(issues) - 3} more" if len(issues) > 3 else ""
        raise ImportFileError(f"No usable paper records in the file ({shown}{more}).")
    return ImportResult(
        format=fmt,
        records=unique,
        dropped=sorted(collector.dropped, key=lambda issue: issue.row),
        cleaned=sorted(collector.cleaned, key=lambda issue: issue.row),
        encoding=encoding,
    )


def _parse_txt(text: str, collector: _Collector) -> str:
    """A .txt export, by its content: MEDLINE, Web of Science plain text, or a tab-separated table (Web of
    Science's and Scopus' tab-delimited exports)."""
    if looks_like_medline(text):
        return parse_medline(text, collector)
    if looks_like_wos(text):
        return parse_wos(text, collector)
    first_line = text.lstrip("\ufeff").split("\n", 1)[0]
    if "\t" in first_line:
        return parse_csv(text, collector, tsv=True)
    raise ImportFileError(
        "The .txt file is not a PubMed (MEDLINE) export (records starting 'PMID- '), a Web of Science export "
        "('PT J' ... 'ER') or a tab-separated table with a header row." + sniff_hint(text, ".txt")
    )


# --------------------------------------------------------------------------------------------------------
# Decoding
# --------------------------------------------------------------------------------------------------------

_MAGIC = (
    (b"%PDF-", "a PDF document"),
    (b"PK\x03\x04", "a ZIP archive (an .xlsx, .docx or .zip file)"),
    (b"PK\x05\x06", "an empty ZIP archive"),
    (b"\x1f\x8b", "a gzip-compressed file"),
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "a legacy Microsoft Office file (for example .xls)"),
    (b"\x89PNG", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF8", "a GIF image"),
    (b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive"),
    (b"Rar!\x1a\x07", "a RAR archive"),
    (b"SQLite format 3\x00", "an SQLite database"),
    (b"\x7fELF", "an executable program"),
    (b"MZ\x90\x00", "a Windows executable"),
    (b"\xfd7zXZ\x00", "an xz-compressed file"),
    (b"BZh91AY&SY", "a bzip2-compressed file"),
    (b"PAR1", "a Parquet file"),
)
_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32-le", "UTF-32"),
    (codecs.BOM_UTF32_BE, "utf-32-be", "UTF-32"),
    (codecs.BOM_UTF8, "utf-8", "UTF-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le", "UTF-16"),
    (codecs.BOM_UTF16_BE, "utf-16-be", "UTF-16"),
)
_BINARY_CONTROLS = re.compile("[\x00-\x08\x0e-\x1f\x7f-\x9f]")


def _cp1252_byte(byte: int) -> str:
    try:
        return bytes([byte]).decode("cp1252")
    except UnicodeDecodeError:
        return chr(byte)  # the 5 bytes cp1252 leaves undefined: Latin-1 (C1 controls, stripped later)


_CP1252_TABLE = [_cp1252_byte(b) for b in range(256)]


def _cp1252_fallback(error: UnicodeError) -> tuple[str, int]:
    if not isinstance(error, UnicodeDecodeError):
        raise error
    bad = error.object[error.start : error.end]
    return "".join(_CP1252_TABLE[b] for b in bad), error.end


_FALLBACK_HANDLER = "agentr-imports-cp1252-fallback"
codecs.register_error(_FALLBACK_HANDLER, _cp1252_fallback)


def _looks_utf16_without_bom(data: bytes) -> str | None:
    sample = data[:4096]
    if len(sample) < 4:
        return None
    even = sample[0::2].count(0) / len(sample[0::2])
    odd = sample[1::2].count(0) / len(sample[1::2])
    if odd > 0.4 and even < 0.05:
        return "utf-16-le"
    if even > 0.4 and odd < 0.05:
        return "utf-16-be"
    return None


def binary_file_kind(data: bytes) -> str | None:
    """What a known binary format's magic number says the file is ("a ZIP archive ..."), or None."""
    return next((what for magic, what in _MAGIC if data.startswith(magic)), None)


def decode(data: bytes) -> tuple[str, str]:
    """bytes -> (text, encoding label). Raises ImportFileError for binary or undecodable content."""
    if not data:
        raise ImportFileError("The file is empty.")
    what = binary_file_kind(data)
    if what:
        raise ImportFileError(
            f"The file is {what}, not a text export; export the references as CSV, RIS, BibTeX or JSON"
            + ("; a workbook keeps its .xlsx suffix." if data.startswith(b"PK\x03\x04") else ".")
        )
    for bom, codec, label in _BOMS:
        if data.startswith(bom):
            body = data[len(bom) :]
            if codec == "utf-8":
                text, encoding = _decode_utf8_or_cp1252(body)
                return text, "utf-8-sig" if encoding == "utf-8" else f"utf-8-sig+{encoding}"
            try:
                text = body.decode(codec)
            except UnicodeDecodeError as exc:
                raise ImportFileError(
                    f"The file starts with a {label} byte-order mark but is not valid {label} "
                    f"(at byte {exc.start + len(bom)})."
                ) from exc
            _reject_binary_text(text)
            return text, codec
    if b"\x00" in data:
        guess = _looks_utf16_without_bom(data)
        if guess:
            try:
                text = data.decode(guess)
            except UnicodeDecodeError:
                pass
            else:
                _reject_binary_text(text)
                return text, guess
        raise ImportFileError(
            f"The file contains NUL bytes (first at byte {data.index(0)}); it looks like a binary file, "
            "not a text export."
        )
    return _decode_utf8_or_cp1252(data)


def _decode_utf8_or_cp1252(data: bytes) -> tuple[str, str]:
    try:
        text, encoding = data.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        # Mostly UTF-8 with stray single-byte characters, or a cp1252/Latin-1 file: decode what is valid
        # UTF-8 as UTF-8 and every other byte as cp1252.
        has_utf8 = any(ord(ch) > 0x7F for ch in data.decode("utf-8", errors="ignore"))
        if has_utf8:
            text, encoding = data.decode("utf-8", errors=_FALLBACK_HANDLER), "utf-8+cp1252"
        else:
            text, encoding = data.decode("latin-1").translate(_LATIN1_TO_CP1252), "cp1252"
    _reject_binary_text(text)
    return text, encoding


_LATIN1_TO_CP1252 = {b: _CP1252_TABLE[b] for b in range(0x80, 0xA0)}


def _reject_binary_text(text: str) -> None:
    sample = text[:100_000]
    controls = len(_BINARY_CONTROLS.findall(sample))
    if controls >= 16 and controls > 0.1 * len(sample):
        raise ImportFileError(
            f"The file is mostly control characters ({controls} in the first {len(sample):,}); it looks like "
            "a binary file, not a text export."
        )


# --------------------------------------------------------------------------------------------------------
# Keys, hashes, de-duplication
# --------------------------------------------------------------------------------------------------------

_NON_WORD = re.compile(r"[\W_]+")
_WORD = re.compile(r"[^\W_]+")  # the runs _NON_WORD separates
_NUMBERISH = re.compile(r"\b(?:\d+|[ivxlc]{1,6})\b")


def normalise_title(title: str) -> str:
    """Case-folded, accents removed, punctuation to single spaces: "The Café, Revisited!" -> "the cafe revisited"."""
    text = unicodedata.normalize("NFKD", title.casefold())
    text = "".join(ch for ch in text if not unicodedata.combining(ch))
    normal = _NON_WORD.sub(" ", text).strip()
    return normal or " ".join(title.casefold().split())


_INITIALS = re.compile(r"^(?:[A-Z]\.?){1,3}$|^[A-Za-z]\.?$")


def first_author_key(authors: list[str] | None) -> str | None:
    """The first author's surname, normalised: "Smith, John", "John Smith", "Smith JK" -> "smith"; for a
    particle surname the last word ("van der Berg, J." and "J. van der Berg" -> "berg"). None if unknown."""
    name = next((a for a in authors or () if a and a.strip()), None)
    if name is None:
        return None
    if "," in name:
        words = name.split(",", 1)[0].split()
    else:
        words = name.split()
        while len(words) > 1 and words[-1].casefold().strip(".") in ("et", "al"):  # "Smith et al."
            words.pop()
        while len(words) > 1 and _INITIALS.match(words[-1]):  # "Smith JK": initials after the surname
            words.pop()
    if not words:
        return None
    return normalise_title(words[-1]) or None


def authors_disagree(a: str | None, b: str | None) -> bool:
    """Two known first authors with different surnames."""
    return a is not None and b is not None and a != b


PAPER_KEY_MAX_CHARS = 255  # the store's papers.paper_key column (PostgreSQL refuses a longer value)


def title_key(title: str, year: int | None) -> str:
    """``t:<normalised title>|<year>``, unbounded: for matching titles exactly (:func:`paper_key` bounds it)."""
    return f"t:{normalise_title(title)}|{year if year is not None else ''}"


def paper_key(record: PaperRecord) -> str:
    """Stable de-duplication key: ``doi:<doi>`` when a DOI is known, else ``t:<normalised title>|<year>``;
    at most PAPER_KEY_MAX_CHARS characters. The one key every path into a project uses (file imports, lake
    retrieval), so the same paper arriving both ways is one paper."""
    return paper_key_for(record.doi, None if record.doi else title_key(record.title, record.year))


def paper_key_for(doi: str | None, tkey: str | None) -> str:
    """:func:`paper_key` from the record's DOI or, without one, its :func:`title_key` (for callers that keep
    the title key too). A longer key keeps its start and ends in a hash of the whole, so distinct long keys
    (a 1,000-character title) stay distinct."""
    key = f"doi:{doi}" if doi else tkey
    if key is None:
        raise ValueError("paper_key_for needs a DOI or a title key")
    if len(key) <= PAPER_KEY_MAX_CHARS:
        return key
    digest = hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return f"{key[: PAPER_KEY_MAX_CHARS - len(digest) - 1]}#{digest}"


def content_hash(record: PaperRecord) -> str:
    """sha256 (hex) of the whitespace/Unicode-normalised title and abstract: the text scoring depends on."""
    title = " ".join(unicodedata.normalize("NFC", record.title).split())
    abstract = " ".join(unicodedata.normalize("NFC", record.abstract or "").split())
    payload = f"{title}\n{abstract}".encode("utf-8", errors="surrogatepass")
    return hashlib.sha256(payload).hexdigest()


_FUZZY_RATIO = 0.95
_FUZZY_MIN_CHARS = 20
_FUZZY_BLOCK_CAP = 64
# A title this long matches a record without a year (shorter ones, "Editorial", need the same year).
MIN_TITLE_CHARS_ANY_YEAR = 20


_ABSTRACT_MIN_CHARS = 200
_ABSTRACT_MIN_OVERLAP = 0.3


def _abstract_words(abstract: str) -> frozenset[str] | None:
    """The word set :func:`_abstracts_disagree` compares (first 3,000 characters, case-folded), or None for an
    abstract too short to judge by."""
    if len(abstract) < _ABSTRACT_MIN_CHARS:
        return None
    return frozenset(_WORD.findall(abstract[:3000].casefold()))


def _abstracts_disagree(words_a: frozenset[str] | None, words_b: frozenset[str] | None) -> bool:
    """Two substantial abstracts sharing under 30% of their words: different papers with the same title
    (versions of one paper's abstract, truncated or with a copyright line, share far more). Takes the word
    sets of :func:`_abstract_words`, so each abstract is split once however often it is compared."""
    if words_a is None or words_b is None:
        return False
    return len(words_a & words_b) / max(1, min(len(words_a), len(words_b))) < _ABSTRACT_MIN_OVERLAP


class _Title:
    """A record's normalised title with what matching needs, computed once: the numbers in the title, and (on
    first use, as most records are never compared) its abstract's word set and its first author's surname."""

    __slots__ = ("_abstract", "_author", "_authors", "_words", "numbers", "text")

    def __init__(self, text: str, abstract: str = "", authors: list[str] | None = None):
        self.text = text
        self.numbers = frozenset(_NUMBERISH.findall(text))
        self._abstract: str | None = abstract
        self._words: frozenset[str] | None = None
        self._authors: list[str] | None = authors
        self._author: str | None = None

    def author(self) -> str | None:
        if self._authors is not None:
            self._author, self._authors = first_author_key(self._authors), None
        return self._author

    def abstract_words(self) -> frozenset[str] | None:
        if self._abstract is not None:
            self._words, self._abstract = _abstract_words(self._abstract), None
        return self._words


_MIN_LEN_RATIO = 2 * _FUZZY_RATIO / (1 + _FUZZY_RATIO) - 1e-9  # ratio >= r needs len(short)/len(long) >= this


def _fuzzy_candidate(new: _Title, other: _Title) -> bool:
    """The cheap tests a near-identical title must pass: enough length, similar lengths, the same numbers."""
    a, b = other.text, new.text
    if min(len(a), len(b)) < _FUZZY_MIN_CHARS or min(len(a), len(b)) / max(len(a), len(b)) < _MIN_LEN_RATIO:
        return False
    return new.numbers == other.numbers  # "Part 1" vs "Part 2"


def _fuzzy_same(matcher: difflib.SequenceMatcher, other: _Title) -> bool:
    """``matcher`` has the new title as its second sequence (difflib caches that side)."""
    matcher.set_seq1(other.text)
    return matcher.quick_ratio() >= _FUZZY_RATIO and matcher.ratio() >= _FUZZY_RATIO


def _dedupe(records: list[PaperRecord]) -> tuple[list[PaperRecord], list[tuple[PaperRecord, PaperRecord, str]]]:
    unique: list[PaperRecord] = []
    titles: list[_Title] = []
    pairs: list[tuple[PaperRecord, PaperRecord, str]] = []
    by_doi: dict[str, int] = {}
    by_title: dict[str, list[int]] = {}  # normalised title -> slots (at most _FUZZY_BLOCK_CAP)
    blocks: dict[tuple[str, int | None, str], list[int]] = {}

    def conflicts(record: PaperRecord, title: _Title, slot: int) -> bool:
        other = unique[slot]
        if record.doi and other.doi and record.doi != other.doi:
            return True
        return _abstracts_disagree(title.abstract_words(), titles[slot].abstract_words())

    def block_keys(title: str, year: int | None) -> tuple[tuple[str, int | None, str], ...]:
        return (("p", year, title[:8]), ("s", year, title[-8:]))

    def register(slot: int) -> None:
        record, title = unique[slot], titles[slot].text
        if record.doi:
            by_doi.setdefault(record.doi, slot)
        same_title = by_title.setdefault(title, [])
        if len(same_title) < _FUZZY_BLOCK_CAP:  # bounded, like the fuzzy blocks: linear on hostile input
            same_title.append(slot)
        for block in block_keys(title, record.year):
            members = blocks.setdefault(block, [])
            members.append(slot)
            if len(members) > _FUZZY_BLOCK_CAP:
                del members[0]

    for record in records:
        title = _Title(normalise_title(record.title), record.abstract, record.authors)
        slot, why = None, ""
        if record.doi and record.doi in by_doi:
            slot, why = by_doi[record.doi], f"same DOI {record.doi}"
        same_title = by_title.get(title.text, ())
        if slot is None:
            slot = next((c for c in same_title if unique[c].year == record.year and not conflicts(record, title, c)),
                        None)
            why = "same title and year"
        if slot is None and len(title.text) >= MIN_TITLE_CHARS_ANY_YEAR:
            # One side without a year (a reference list or a CSV column left empty) says nothing against the match,
            # unless the first authors differ: a recurring title ("Introduction to the special issue") by another
            # author is another paper. (Same title, same or no year: one paper key, so one paper, as before.)
            slot = next((c for c in same_title if (record.year is None or unique[c].year is None)
                         and not authors_disagree(title.author(), titles[c].author())
                         and not conflicts(record, title, c)), None)
            why = "same title, year missing on one side"
        if slot is None and len(title.text) >= _FUZZY_MIN_CHARS:
            matcher: difflib.SequenceMatcher | None = None  # built on first use: most titles have no candidate
            seen: set[int] = set()
            for block in block_keys(title.text, record.year):
                for candidate in reversed(blocks.get(block, ())):
                    if candidate in seen:
                        continue
                    seen.add(candidate)
                    other = titles[candidate]
                    if not _fuzzy_candidate(title, other) or conflicts(record, title, candidate):
                        continue
                    if matcher is None:
                        matcher = difflib.SequenceMatcher(None, autojunk=False)
                        matcher.set_seq2(title.text)
                    if _fuzzy_same(matcher, other):
                        slot, why = candidate, "near-identical title, same year"
                        break
                if slot is not None:
                    break
        if slot is None:
            unique.append(record)
            titles.append(title)
            register(len(unique) - 1)
            continue
        pairs.append((record, unique[slot], why))
    return unique, pairs


def dedupe(records: list[PaperRecord]) -> tuple[list[PaperRecord], list[tuple[PaperRecord, PaperRecord]]]:
    """Remove duplicates: same DOI, then same normalised title + year, then the same title of at least 20
    characters where one of the two has no year and the first authors' surnames do not differ, then near-identical
    title (difflib ratio >= 0.95, same year, same numbers such as "Part 2"). Records with two different DOIs, or
    two substantial abstracts that share under 30% of their words, are never merged on their titles. The first
    occurrence is always the one kept (so the result is stable and ``dedupe`` of its own output changes
    nothing). Returns (unique records in input order, [(dropped, kept)]).

    Fuzzy matching compares each title with at most 64 recent titles sharing its first or last 8
    normalised characters and year, so the cost stays linear for large or hostile inputs.
    """
    unique, pairs = _dedupe(records)
    return unique, [(dropped, kept) for dropped, kept, _ in pairs]
