"""Lenient reading of the CSV files that `agentr screen` and `agentr bench screening` take (pure logic).

One decoder for every text file a user hands us (:func:`agentr_dagster.imports.decode`: UTF-8 with or
without a byte-order mark, UTF-16/32, stray cp1252 bytes), then a CSV reader that guesses the delimiter and keeps
every row: a row with too many fields keeps its extra fields joined into the last column, so no record is lost.
"""

from __future__ import annotations

import csv
import io

import pandas as pd

from agentr_dagster.imports import ImportFileError, binary_file_kind, decode

__all__ = ["ImportFileError", "decode_text", "read_table"]


def decode_text(raw: bytes) -> str:
    """Text of a user's file, whatever its encoding. A known binary format (a spreadsheet, an archive...) raises
    :class:`ImportFileError`; anything else is read, never refused: stray NUL bytes are dropped and what no
    decoder accepts (a broken byte-order mark, say) is read as UTF-8 with replacement characters, so a screening
    list with one odd byte still gets ranked."""
    if not raw.strip():
        return ""
    what = binary_file_kind(raw)
    if what:
        raise ImportFileError(f"The file is {what}, not a CSV or text file.")
    try:
        text, _ = decode(raw)
    except ImportFileError:
        try:
            text, _ = decode(raw.replace(b"\x00", b""))
        except ImportFileError:
            text = raw.replace(b"\x00", b"").decode("utf-8", errors="replace")
    return text.replace("\x00", "").lstrip("\ufeff")


def read_table(raw: bytes) -> pd.DataFrame:
    """A CSV (comma, semicolon, tab or pipe separated) as a frame of strings; empty cells are ``""``. Header names
    are stripped of spaces. An empty file gives an empty ``record_id,title,abstract`` frame."""
    text = decode_text(raw)
    if not text.strip():
        return pd.DataFrame(columns=["record_id", "title", "abstract"])
    try:
        sep = csv.Sniffer().sniff(text[:20000], delimiters=",;\t|").delimiter
    except csv.Error:
        sep = ","
    try:
        df = pd.read_csv(io.StringIO(text), dtype=str, keep_default_na=False, sep=sep)
    except Exception:  # ragged rows: read again, folding extra fields into the last column
        try:
            header = next(csv.reader(io.StringIO(text), delimiter=sep), [])
        except csv.Error as exc:
            raise ImportFileError(f"The file could not be read as a CSV table: {str(exc).split(' - ')[0]}.") from exc
        width = max(len(header), 1)

        def fold(fields: list[str]) -> list[str]:
            return [*fields[: width - 1], sep.join(fields[width - 1 :])]

        try:
            df = pd.read_csv(
                io.StringIO(text), dtype=str, keep_default_na=False, sep=sep, engine="python", on_bad_lines=fold
            )
        except (csv.Error, ValueError) as exc:  # not a table at all (random bytes, a stray control character)
            raise ImportFileError(f"The file could not be read as a CSV table: {str(exc).split(' - ')[0]}.") from exc
    df.columns = [str(c).strip() for c in df.columns]
    return df
