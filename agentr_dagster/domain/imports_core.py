"""Shared pieces of the candidate-paper importers: the error type, issues, limits, text cleaning and the
collector that turns one untrusted row into a validated :class:`PaperRecord` (or a recorded reason why not).

Everything that comes out of a file is treated as hostile: any field may be missing, of the wrong type,
enormous, full of control characters or LaTeX. Cleaning is recorded per row; nothing is silently changed
except whitespace and Unicode normalisation (NFC).

Pure Python; no Dagster imports.
"""

from __future__ import annotations

import functools
import math
import re
import unicodedata
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from agentr_dagster.domain.contracts import PaperRecord

# --------------------------------------------------------------------------------------------------------
# Public types (re-exported by agentr_dagster.domain.imports)
# --------------------------------------------------------------------------------------------------------


class ImportFileError(ValueError):
    """A file (or bytes) that cannot be imported. ``str()`` is a sentence naming the row/column when known."""

    def __init__(self, message: str, *, row: int | None = None, column: str | None = None):
        self.message = message
        self.row = row
        self.column = column
        super().__init__(self._render())

    def _render(self) -> str:
        where = []
        if self.row is not None:
            where.append(f"row {self.row}")
        if self.column is not None:
            where.append(f"column '{self.column}'")
        if not where:
            return self.message
        place = ", ".join(where)
        return f"{place[0].upper()}{place[1:]}: {self.message}"

    def __str__(self) -> str:
        return self._render()

    def __reduce__(self):
        return (functools.partial(type(self), self.message, row=self.row, column=self.column), ())


class UnexpectedImportError(ImportFileError):
    """An ImportFileError wrapping an exception the parsers did not anticipate (a bug to fix, not bad input).

    Callers see an ordinary :class:`ImportFileError`; tests assert this subclass never appears.
    """


@dataclass
class RowIssue:
    """A dropped or cleaned row and why.

    ``row`` is 1-based and means what a person would look for: the spreadsheet row for CSV/TSV (the header
    is row 1), the line number for JSONL, BibTeX and RIS (where the entry starts), the element number for a
    JSON array. ``column`` is the header, key or tag as written in the file, when one applies.
    """

    row: int
    column: str | None
    reason: str


@dataclass(frozen=True)
class ImportLimits:
    max_bytes: int = 50_000_000
    max_rows: int = 100_000
    max_field_chars: int = 20_000

    def __post_init__(self) -> None:
        for name in ("max_bytes", "max_rows", "max_field_chars"):
            if not isinstance(getattr(self, name), int) or getattr(self, name) < 1:
                raise ValueError(f"ImportLimits.{name} must be a positive integer")


# --------------------------------------------------------------------------------------------------------
# Text cleaning
# --------------------------------------------------------------------------------------------------------

#: Characters turned into a plain space before whitespace is collapsed.
_SPACE_LIKE = re.compile(r"[\t\n\r\x0b\x0c\x85\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]")
#: Characters removed (and counted): C0/C1 controls, DEL, lone surrogates, BOMs inside text, zero-width
#: space / word joiner, bidi embeddings/overrides/isolates ("Trojan source"), interlinear annotations,
#: noncharacters and Unicode tag characters (invisible "ASCII smuggling").
_INVISIBLE = re.compile(
    "[\x00-\x08\x0e-\x1f\x7f-\x84\x86-\x9f\ud800-\udfff\ufeff\u200b\u2060-\u2064\u202a-\u202e"
    "\u2066-\u2069\ufff9-\ufffb\ufffe\uffff\U000e0000-\U000e007f]"
)


#: Terminal escape sequences (colour codes, OSC titles/hyperlinks): removed whole, not just their ESC.
_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]{0,1000}(?:\x07|\x1b\\)|\x9b[0-?]*[ -/]*[@-~]")


def clip(value: object, limit: int = 60) -> str:
    """A short, printable rendering of untrusted text for error messages."""
    if isinstance(value, str):
        text = value
    elif isinstance(value, int) and not -(10**30) < value < 10**30:
        text = "a very large number"
    else:
        text = repr(value)
    text = _INVISIBLE.sub("", _SPACE_LIKE.sub(" ", text[: limit * 4]))
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def clean_text(value: str, max_chars: int) -> tuple[str, int, int]:
    """Return (clean text, number of invisible characters removed, original length if truncated else 0)."""
    original_len = len(value)
    # Bound the work on absurd inputs; the original length is still reported.
    if original_len > 4 * max_chars + 10_000:
        value = value[: 4 * max_chars + 10_000]
    value = _SPACE_LIKE.sub(" ", value)
    stripped = _INVISIBLE.sub("", _ANSI.sub("", value))
    removed = len(value) - len(stripped)
    text = " ".join(unicodedata.normalize("NFC", stripped).split())
    truncated = 0
    if len(text) > max_chars:
        truncated = original_len
        text = text[:max_chars].rstrip()
    return text, removed, truncated


# --------------------------------------------------------------------------------------------------------
# LaTeX to text (fast, regex-based, for BibTeX fields)
# --------------------------------------------------------------------------------------------------------

_ACCENT_MARKS = {
    "'": "\u0301", "`": "\u0300", "^": "\u0302", '"': "\u0308", "~": "\u0303", "=": "\u0304", ".": "\u0307",
    "u": "\u0306", "v": "\u030c", "H": "\u030b", "c": "\u0327", "k": "\u0328", "r": "\u030a", "d": "\u0323",
    "b": "\u0331",
}  # fmt: skip
_SPECIAL_LETTERS = {
    "ss": "ß", "ae": "æ", "AE": "Æ", "oe": "œ", "OE": "Œ", "aa": "å", "AA": "Å", "o": "ø", "O": "Ø",
    "l": "ł", "L": "Ł", "i": "ı", "j": "ȷ",
}  # fmt: skip
_NAMED = {
    "alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ε", "varepsilon": "ε", "zeta": "ζ",
    "eta": "η", "theta": "θ", "kappa": "κ", "lambda": "λ", "mu": "μ", "nu": "ν", "xi": "ξ", "pi": "π",
    "rho": "ρ", "sigma": "σ", "tau": "τ", "phi": "φ", "varphi": "φ", "chi": "χ", "psi": "ψ", "omega": "ω",
    "Gamma": "Γ", "Delta": "Δ", "Theta": "Θ", "Lambda": "Λ", "Pi": "Π", "Sigma": "Σ", "Phi": "Φ",
    "Psi": "Ψ", "Omega": "Ω", "LaTeX": "LaTeX", "TeX": "TeX", "BibTeX": "BibTeX", "times": "×",
    "pm": "±", "leq": "≤", "geq": "≥", "le": "≤", "ge": "≥", "neq": "≠", "approx": "≈", "infty": "∞",
    "rightarrow": "→", "to": "→", "leftarrow": "←", "textendash": "–", "textemdash": "—", "ldots": "…",
    "dots": "…", "textregistered": "®", "texttrademark": "™", "copyright": "©", "S": "§", "P": "¶",
    "euro": "€", "pounds": "£", "textdegree": "°", "degree": "°",
}  # fmt: skip
_LATEX_ACCENT = re.compile(r"\\([`'^\"~=.])\s*(?:\{\s*\\?([A-Za-z])\s*\}|\\?([A-Za-z]))")
_LATEX_LETTER_ACCENT = re.compile(r"\\([uvHckrdb])(?:\s*\{\s*\\?([A-Za-z])\s*\}|\s+([A-Za-z])(?![A-Za-z]))")
_LATEX_SPECIAL = re.compile(r"\\(ss|ae|AE|oe|OE|aa|AA|o|O|l|L|i|j)(?![A-Za-z])(?:\s*\{\})?")
_LATEX_ESCAPE = re.compile(r"\\([&%$#_{}])")
_LATEX_COMMAND = re.compile(r"\\([A-Za-z]+)\*?")
_LATEX_SYMBOL = re.compile(r"\\[^A-Za-z]?")
_ESCAPE_HOLD = {"{": "\ue000", "}": "\ue001", "$": "\ue002", "&": "&", "%": "%", "#": "#", "_": "_"}
_ESCAPE_BACK = str.maketrans({"\ue000": "{", "\ue001": "}", "\ue002": "$"})


def _accent(mark: str, letter: str) -> str:
    return unicodedata.normalize("NFC", letter + _ACCENT_MARKS[mark])


def latex_to_text(value: str) -> str:
    """Turn BibTeX/LaTeX markup into plain text: accents, escapes, formatting commands, braces, math `$`.

    Linear-time regex passes (no recursion), so hostile nesting cannot blow the stack.
    """
    if not any(ch in value for ch in "\\{}$~`'-"):
        return value
    text = value.replace("\ue000", "").replace("\ue001", "").replace("\ue002", "")
    text = _LATEX_ESCAPE.sub(lambda m: _ESCAPE_HOLD[m.group(1)], text)
    text = _LATEX_ACCENT.sub(lambda m: _accent(m.group(1), m.group(2) or m.group(3)), text)
    text = _LATEX_LETTER_ACCENT.sub(lambda m: _accent(m.group(1), m.group(2) or m.group(3)), text)
    text = _LATEX_SPECIAL.sub(lambda m: _SPECIAL_LETTERS[m.group(1)], text)
    text = _LATEX_COMMAND.sub(lambda m: _NAMED.get(m.group(1), ""), text)
    text = text.replace("\\\\", " ")
    text = _LATEX_SYMBOL.sub(" ", text)
    text = text.replace("---", "—").replace("--", "–").replace("``", "“").replace("''", "”")
    text = text.replace("~", " ").replace("{", "").replace("}", "").replace("$", "")
    return text.translate(_ESCAPE_BACK)


# --------------------------------------------------------------------------------------------------------
# Field coercion
# --------------------------------------------------------------------------------------------------------

_YEAR_RE = re.compile(r"(?<!\d)(\d{4})(?!\d)")
_DOI_RE = re.compile(r"10\.\d{4,9}/[^\s\"<>]+", re.IGNORECASE)
_URL_RE = re.compile(r"https?://[^\s<>\"']+", re.IGNORECASE)
# Whitespace is collapsed first so that no pattern scans a long whitespace run from every position.
_HSPACE_RUN = re.compile(r"[^\S\n]+")
_NEWLINE_RUN = re.compile(r" ?\n[ \n]*")
_AUTHOR_SPLIT = re.compile(r" ?; ?|\n| and ", re.IGNORECASE)
_AUTHOR_SPLIT_COMMAS = re.compile(r" ?[;,] ?|\n| and ", re.IGNORECASE)
_MAX_AUTHORS = 1000
_MAX_AUTHOR_CHARS = 300
_SHORT_FIELD_CHARS = 1000
_MAX_DOI_CHARS = 300
_MAX_URL_CHARS = 2000
_TITLE_CHARS = 1000  # PaperRecord's limit
_ABSTRACT_CHARS = 20_000  # PaperRecord's limit


def _type_name(value: object) -> str:
    return {dict: "an object", list: "a list", bool: "a boolean"}.get(type(value), type(value).__name__)


def as_text(value: object) -> tuple[str | None, str | None]:
    """Untrusted value -> (string or None, note about an ignored value or None)."""
    if value is None:
        return None, None
    if isinstance(value, str):
        return value, None
    if isinstance(value, bool):
        return None, "has a boolean value; ignored"
    if isinstance(value, int):
        if not -(10**30) < value < 10**30:
            return None, "is a very large number; ignored"
        return str(value), None
    if isinstance(value, float):
        if not math.isfinite(value):
            return None, f"has the non-finite number {value}; ignored"
        return (str(int(value)) if value.is_integer() else str(value)), None
    if isinstance(value, (list, tuple)):
        parts = [p for p in value if isinstance(p, str) and p.strip()]
        if parts and len(parts) == len(value):
            return " ".join(parts), None
        if parts:
            return " ".join(parts), "is a list with non-text items; kept its text items"
        return None, f"is {_type_name(value)} with no text; ignored"
    return None, f"is {_type_name(value)}, not text; ignored"


def coerce_year(value: object, _depth: int = 0) -> tuple[int | None, str | None]:
    if value is None or value == "":
        return None, None
    if isinstance(value, bool):
        return None, "year is a boolean; ignored"
    if isinstance(value, int):
        year = value
    elif isinstance(value, float):
        if not math.isfinite(value) or not value.is_integer():
            return None, f"year {clip(value)} is not a whole number; ignored"
        year = int(value)
    elif isinstance(value, str):
        match = _YEAR_RE.search(value[:200])
        if not match:
            return None, f"year {clip(value)!r} has no 4-digit year; ignored"
        year = int(match.group(1))
    elif isinstance(value, (list, tuple)) and value and _depth < 3:  # CSL date-parts [[2020, 5]]
        return coerce_year(value[0], _depth + 1)
    else:
        return None, f"year is {_type_name(value)}; ignored"
    if not 1000 <= year <= 2200:
        return None, f"year {clip(year)} is outside 1000-2200; ignored"
    return year, None


def coerce_doi(value: object) -> tuple[str | None, str | None]:
    text, note = as_text(value)
    if text is None:
        return None, (f"doi {note}" if note else None)
    text = text.strip()
    if not text:
        return None, None
    probe = text[:1000]
    if "%2f" in probe.lower():
        probe = re.sub("%2f", "/", probe, flags=re.IGNORECASE)
    match = _DOI_RE.search(probe)
    if not match:
        return None, f"doi {clip(text)!r} is not a DOI; ignored"
    doi = match.group(0).rstrip(".,;:")
    while doi.endswith(")") and doi.count(")") > doi.count("("):
        doi = doi[:-1]
    doi = _INVISIBLE.sub("", doi)
    if len(doi) > _MAX_DOI_CHARS:
        return None, f"doi is {len(doi)} characters long; ignored"
    return doi.lower(), None


def coerce_url(value: object) -> tuple[str | None, str | None]:
    candidates: list[object] = list(value) if isinstance(value, (list, tuple)) else [value]
    bad: str | None = None
    for item in candidates[:50]:
        text, note = as_text(item)
        if text is None:
            bad = bad or (f"url {note}" if note else None)
            continue
        if not text.strip():
            continue
        match = _URL_RE.search(_INVISIBLE.sub("", text[: _MAX_URL_CHARS * 2]))
        if match and len(match.group(0)) <= _MAX_URL_CHARS:
            return match.group(0).rstrip(".,;"), None
        bad = bad or f"url {clip(text)!r} is not an http(s) URL; ignored"
    return None, bad


def split_authors(text: str, *, commas: bool = False) -> list[str]:
    """Split a names string on ';', newlines and ' and ' (and ',' when ``commas``, as in arXiv records)."""
    text = _NEWLINE_RUN.sub("\n", _HSPACE_RUN.sub(" ", text[:200_000]))
    pattern = _AUTHOR_SPLIT_COMMAS if commas else _AUTHOR_SPLIT
    return [part.strip() for part in pattern.split(text) if part.strip()]


def author_name(item: object, _depth: int = 0) -> str | None:
    """One author from a string, a CSL/OpenAlex-style dict or a [last, first, suffix] list."""
    if isinstance(item, str):
        return item
    if isinstance(item, dict):
        for key in ("display_name", "name", "literal", "full_name", "fullname"):
            if isinstance(item.get(key), str) and item[key].strip():
                return item[key]
        given, family = item.get("given"), item.get("family")
        parts = [p for p in (given, family) if isinstance(p, str) and p.strip()]
        if parts:
            return " ".join(parts)
        inner = item.get("author")
        if isinstance(inner, dict) and _depth < 2:
            return author_name(inner, _depth + 1)
        return None
    if isinstance(item, (list, tuple)) and item and all(isinstance(p, str) for p in item):
        last, first, *rest = [*item, ""]
        return " ".join(p for p in (first, last, *rest) if p.strip())
    return None


def coerce_authors(value: object) -> tuple[list[str], list[str]]:
    notes: list[str] = []
    if value is None:
        return [], notes
    if isinstance(value, str):
        raw: list[object] = list(split_authors(value))
    elif isinstance(value, (list, tuple)):
        raw = list(value[: _MAX_AUTHORS * 2])
    elif isinstance(value, dict):
        raw = [value]
    else:
        return [], [f"authors is {_type_name(value)}; ignored"]
    names: list[str] = []
    skipped = 0
    removed_total = 0
    for item in raw:
        name = author_name(item)
        if name is None:
            skipped += 1
            continue
        name, removed, _ = clean_text(name, _MAX_AUTHOR_CHARS)
        removed_total += removed
        if name and name.casefold() not in ("others", "et al", "et al."):
            names.append(name)
    if skipped:
        notes.append(f"authors: skipped {skipped} item(s) that were not names")
    if removed_total:
        notes.append(f"removed {removed_total} control or invisible character(s) from authors")
    if len(names) > _MAX_AUTHORS:
        notes.append(f"authors: kept the first {_MAX_AUTHORS} of {len(names)} names")
        names = names[:_MAX_AUTHORS]
    return names, notes


# --------------------------------------------------------------------------------------------------------
# The collector: raw row -> PaperRecord or a recorded reason
# --------------------------------------------------------------------------------------------------------

FIELDS = ("title", "abstract", "year", "doi", "authors", "venue", "url", "source_id")


class Collector:
    """Accumulates records, dropped rows and cleaning notes for one file."""

    def __init__(self, name: str, limits: ImportLimits):
        self.name = name
        self.limits = limits
        self.records: list[PaperRecord] = []
        self.dropped: list[RowIssue] = []
        self.cleaned: list[RowIssue] = []
        self.rows_seen = 0

    def count_row(self, row: int) -> None:
        self.rows_seen += 1
        if self.rows_seen > self.limits.max_rows:
            raise self.too_many_rows(row)

    def too_many_rows(self, row: int) -> ImportFileError:
        return ImportFileError(
            f"The file has more than {self.limits.max_rows:,} records, the import limit; split it into smaller files.",
            row=row,
        )

    def drop(self, row: int, column: str | None, reason: str) -> None:
        self.dropped.append(RowIssue(row, column, reason))

    def clean(self, row: int, column: str | None, reason: str) -> None:
        self.cleaned.append(RowIssue(row, column, reason))

    def _text_field(self, row: int, field: str, value: object, column: str, max_chars: int) -> str | None:
        text, note = as_text(value)
        if note:
            self.clean(row, column, f"{field} {note}")
        if text is None:
            return None
        text, removed, truncated = clean_text(text, max_chars)
        if removed:
            self.clean(row, column, f"removed {removed} control or invisible character(s) from {field}")
        if truncated:
            self.clean(row, column, f"{field} truncated from {truncated:,} to {max_chars:,} characters")
        return text or None

    def add(
        self,
        row: int,
        raw: dict[str, Any],
        *,
        source_format: str,
        columns: dict[str, str] | None = None,
    ) -> PaperRecord | None:
        """Validate one row. ``raw`` maps FIELDS to untrusted values; ``columns`` maps them to file names."""
        columns = columns or {}
        limit = self.limits.max_field_chars

        def col(field: str) -> str:
            return columns.get(field, field)

        title = self._text_field(row, "title", raw.get("title"), col("title"), min(_TITLE_CHARS, limit))
        if not title:
            self.drop(row, col("title"), "missing title")
            return None
        abstract = self._text_field(row, "abstract", raw.get("abstract"), col("abstract"), min(_ABSTRACT_CHARS, limit))
        short = min(_SHORT_FIELD_CHARS, limit)
        venue = self._text_field(row, "venue", raw.get("venue"), col("venue"), short)
        source_id = self._text_field(row, "source_id", raw.get("source_id"), col("source_id"), short)
        year, note = coerce_year(raw.get("year"))
        if note:
            self.clean(row, col("year"), note)
        doi, note = coerce_doi(raw.get("doi"))
        if note:
            self.clean(row, col("doi"), note)
        url, note = coerce_url(raw.get("url"))
        if note:
            self.clean(row, col("url"), note)
        authors, notes = coerce_authors(raw.get("authors"))
        for note in notes:
            self.clean(row, col("authors"), note)
        try:
            record = PaperRecord(
                title=title,
                abstract=abstract or "",
                year=year,
                doi=doi,
                authors=authors,
                venue=venue,
                url=url,
                source_id=source_id,
                source_format=source_format,
                source_file=self.name,
                source_row=row,
            )
        except ValidationError as exc:  # defensive: the cleaning above should make this unreachable
            first = exc.errors()[0] if exc.errors() else {"loc": (), "msg": str(exc)}
            where = ".".join(str(p) for p in first.get("loc", ())) or None
            self.drop(row, where, f"invalid record: {clip(first.get('msg', ''), 200)}")
            return None
        self.records.append(record)
        return record
