"""Which reader reads a file: by its suffix, then, where several formats share a suffix (``.txt``), by content.

:data:`READERS` is the one table of formats: suffix -> the readers that may read it. A suffix with one reader is
read by it outright (a ``.ris`` file is RIS, and says why not if it is not); a suffix with several is read by the
first whose sniffer recognises the content. The table's order is the order :data:`SUPPORTED_SUFFIXES` lists.

Pure logic: no Dagster imports.
"""

from __future__ import annotations

from agentr_dagster.imports import bibtex, csv_table, endnote, json_records, medline, ris, wos, xlsx
from agentr_dagster.imports.cleaning import clip
from agentr_dagster.imports.errors import ImportFileError
from agentr_dagster.imports.hints import sniff_hint
from agentr_dagster.imports.reader import Reader

READERS: dict[str, tuple[Reader, ...]] = {
    ".csv": (csv_table.CSV,),
    ".tsv": (csv_table.TSV,),
    ".xlsx": (xlsx.XLSX,),
    ".bib": (bibtex.BIBTEX,),
    ".ris": (ris.RIS,),
    ".jsonl": (json_records.JSON_LINES,),
    ".json": (json_records.JSON_DOCUMENT,),
    ".nbib": (medline.MEDLINE,),
    ".medline": (medline.MEDLINE,),
    ".ciw": (wos.WOS,),
    ".txt": (medline.MEDLINE, wos.WOS, csv_table.TSV),  # by content: a PubMed or Web of Science export, or TSV
    ".xml": (endnote.ENDNOTE,),
}

SUPPORTED_SUFFIXES: tuple[str, ...] = tuple(READERS)


def normalise_suffix(suffix: str) -> str:
    """``"CSV"`` or ``".csv"`` -> ``".csv"``; an unsupported suffix is an :class:`ImportFileError`."""
    suffix = (suffix or "").strip().lower()
    if suffix and not suffix.startswith("."):
        suffix = "." + suffix
    if suffix not in READERS:
        raise ImportFileError(
            f"Unsupported file type {clip(suffix or '(none)', 20)!r}; use one of {', '.join(SUPPORTED_SUFFIXES)}."
        )
    return suffix


def binary_reader(suffix: str) -> Reader | None:
    """The reader of a binary format (read from the bytes, before any decoding), if ``suffix`` names one."""
    readers = READERS[suffix]
    return readers[0] if readers[0].binary else None


def text_reader(suffix: str, text: str) -> Reader:
    """The reader for decoded ``text`` of a file with ``suffix`` (normalised): the suffix's only reader, or the
    first of its readers whose sniffer recognises the text."""
    readers = READERS[suffix]
    if len(readers) == 1:
        return readers[0]
    for reader in readers:
        if reader.sniff(text):
            return reader
    kinds = [reader.describes for reader in readers]
    raise ImportFileError(
        f"The {suffix} file is not {', '.join(kinds[:-1])} or {kinds[-1]}." + sniff_hint(text, suffix)
    )
