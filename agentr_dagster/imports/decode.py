"""Bytes to text: byte-order marks, encodings, NUL bytes, binary files.

UTF-8 (with or without BOM), UTF-16/32 with BOM, BOM-less UTF-16 (detected), and a cp1252 / Latin-1 fallback
(per byte, so a mostly-UTF-8 file with a few stray cp1252 bytes still reads right). Binary files (NUL bytes,
known magic numbers, mostly control characters) are rejected with a sentence saying what they look like.

Pure logic: no Dagster imports.
"""

from __future__ import annotations

import codecs
import re

from agentr_dagster.imports.errors import ImportFileError

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


def looks_binary(text: str) -> bool:
    """Mostly control characters (at least 16, over a tenth of the first 100,000 characters): no text export."""
    sample = text[:100_000]
    controls = len(_BINARY_CONTROLS.findall(sample))
    return controls >= 16 and controls > 0.1 * len(sample)


def _reject_binary_text(text: str) -> None:
    if looks_binary(text):
        sample = text[:100_000]  # counted again only to say how many, on the way out
        controls = len(_BINARY_CONTROLS.findall(sample))
        raise ImportFileError(
            f"The file is mostly control characters ({controls} in the first {len(sample):,}); it looks like "
            "a binary file, not a text export."
        )
