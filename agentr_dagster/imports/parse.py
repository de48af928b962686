"""The entry points: a file or its bytes -> :class:`ImportResult` (records de-duplicated, every dropped row and
cleaned value listed), or :class:`ImportFileError` saying why the file is unusable.

Limits are checked before work: the file's size before reading it, then the reader enforces the record count
and the collector the field lengths. Whatever a reader raises besides :class:`ImportFileError` surfaces as
:class:`UnexpectedImportError` (a bug to fix), so callers see one error type.

Pure logic: no Dagster imports.
"""

from __future__ import annotations

import stat
from pathlib import Path

from agentr_dagster.imports.cleaning import clip
from agentr_dagster.imports.decode import decode
from agentr_dagster.imports.dedup import dedupe_with_reasons
from agentr_dagster.imports.errors import ImportFileError, UnexpectedImportError
from agentr_dagster.imports.records import Collector, ImportLimits, ImportResult
from agentr_dagster.imports.registry import binary_reader, normalise_suffix, text_reader


def _fmt_bytes(size: int) -> str:
    if size >= 1_000_000:
        return f"{size / 1_000_000:.1f} MB"
    if size >= 1_000:
        return f"{size / 1_000:.1f} KB"
    return f"{size} bytes"


def parse_file(path: Path, limits: ImportLimits = ImportLimits()) -> ImportResult:
    """Parse a candidate-paper file chosen by its suffix. Checks the size before reading a byte."""
    path = Path(path)
    suffix = normalise_suffix(path.suffix)
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
    suffix = normalise_suffix(suffix)
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
    collector = Collector(name, limits)
    reader = binary_reader(suffix)
    if reader is not None:  # a workbook: a ZIP of XML parts, not text
        fmt = reader.read(data, collector)
        return _result(fmt, collector, fmt)
    text, encoding = decode(data)
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if not text.strip():
        raise ImportFileError("The file contains only whitespace.")
    fmt = text_reader(suffix, text).read(text, collector)
    return _result(fmt, collector, encoding)


def _result(fmt: str, collector: Collector, encoding: str) -> ImportResult:
    """De-duplicate what the reader collected; a file without one usable record is an error."""
    unique, reasons = dedupe_with_reasons(collector.records)
    for dropped_record, kept, why in reasons:
        collector.drop(dropped_record.source_row or 0, None, f"duplicate of row {kept.source_row} ({why})",
                       duplicate=True)
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
