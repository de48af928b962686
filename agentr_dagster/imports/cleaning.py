"""Cleaning untrusted text: invisible and control characters, terminal escapes, whitespace, length.

Everything that comes out of a file is treated as hostile. Nothing is silently changed except whitespace and
Unicode normalisation (NFC); what :func:`clean_text` removes or truncates is reported so the caller can record it.
Pure logic: no Dagster imports.
"""

from __future__ import annotations

import re
import unicodedata

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


def strip_invisible(text: str) -> str:
    """``text`` without the characters :func:`clean_text` removes (controls, bidi overrides, tag characters...)."""
    return _INVISIBLE.sub("", text)


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
