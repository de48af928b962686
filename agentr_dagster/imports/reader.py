"""The reader contract: what one import format gives the registry (:mod:`agentr_dagster.imports.registry`).

A reader takes the file's content — decoded text with ``\\n`` line endings, or the raw bytes for a ``binary``
format such as a workbook — feeds one raw record at a time to a :class:`Collector` and returns the format label
that :class:`ImportResult` reports. It raises only :class:`ImportFileError`. Its ``sniff`` says whether a text
looks like its format; the registry asks it only for a suffix that several formats share (``.txt``).

Pure logic: no Dagster imports.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from agentr_dagster.imports.records import Collector


def _any_text(text: str) -> bool:
    return True


@dataclass(frozen=True)
class Reader:
    name: str
    #: content (text, or bytes when ``binary``), collector -> the format label ("ris", "jsonl-openalex", ...)
    read: Callable[[Any, Collector], str]
    #: decoded text -> whether it looks like this format (consulted only where a suffix is shared)
    sniff: Callable[[str], bool] = _any_text
    #: what ``sniff`` recognises, for the error when no reader of a shared suffix recognises a file
    describes: str = ""
    #: read the raw bytes instead of decoded text (the suffix is then this reader's alone)
    binary: bool = False
