"""Taking input in: abstracts and candidate-paper files, from the CLI or the drop folder.

Bad input is refused with a reason and never touches stored data: a file is fully parsed and validated
before anything is written, and the write is one call to the store.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import re
import shutil
import stat
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING

import sqlalchemy as sa

from agentr_dagster.domain.contracts import PaperRecord, validate_slug
from agentr_dagster.domain.hashing import file_sha256
from agentr_dagster.imports import (
    SUPPORTED_SUFFIXES,
    ImportFileError,
    ImportLimits,
    content_hash,
    decode,
    paper_key,
    parse_file,
)
from agentr_dagster.settings import get_settings
from agentr_dagster.store.rows import ImportedFile
from agentr_dagster.store.schema import papers as _papers_table

if TYPE_CHECKING:
    from agentr_dagster.store import DomainStore

ABSTRACT_SUFFIXES = (".md", ".txt")
MAX_ABSTRACT_BYTES = 200_000
MAX_NAME_BYTES = 255  # one path component on Linux/macOS file systems


def _column_chars(column: sa.Column) -> int:
    """How many characters a bounded String column keeps."""
    if not isinstance(column.type, sa.String) or column.type.length is None:
        raise TypeError(f"papers.{column.name} is not a bounded String column")
    return column.type.length


_ID_CHARS = {"doi": _column_chars(_papers_table.c.doi), "source_id": _column_chars(_papers_table.c.source_id)}
# Removed from abstracts: terminal escape sequences (colours, titles) whole, then C0/C1 controls (not
# newline/tab), bidi overrides, zero-width and tag characters.
_ANSI_ESCAPE = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]{0,1000}(?:\x07|\x1b\\)")
_ABSTRACT_INVISIBLE = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u200b\u2060\u202a-\u202e\u2066-\u2069\ufeff\U000e0000-\U000e007f]"
)


class IntakeError(ValueError):
    """Input that cannot be used; the message says why (and where, when known)."""


# Failures of the domain database itself, whatever the input: server down or unreachable, connection lost,
# SQLite locked, read-only or unopenable, disk full, pool exhausted.
_STORE_OUTAGES = (
    sa.exc.OperationalError,
    sa.exc.InterfaceError,
    sa.exc.InternalError,
    sa.exc.DisconnectionError,
    sa.exc.TimeoutError,
)


def store_outage(exc: BaseException) -> str | None:
    """A one-line reason when ``exc`` is the domain database failing rather than bad input, else None. A file
    that met such a failure is not to blame: it is kept for a later attempt, never rejected."""
    invalidated = isinstance(exc, sa.exc.DBAPIError) and exc.connection_invalidated
    if not isinstance(exc, _STORE_OUTAGES) and not invalidated:
        return None
    # The driver's message, not SQLAlchemy's (which quotes the statement and its parameters: paper text).
    detail = str(exc.orig) if isinstance(exc, sa.exc.DBAPIError) and exc.orig is not None else str(exc)
    lines = [line.strip() for line in detail.strip().splitlines() if line.strip()]
    return printable(f"{type(exc).__name__}: {lines[0] if lines else 'no detail'}")[:300]


@dataclass
class PapersAdded:
    slug: str
    file: str
    added: int
    duplicates: int
    dropped: int
    already_imported: bool
    notes: list[str]
    cleaned: list[str] = dataclasses.field(default_factory=list)  # values kept but changed (e.g. truncated)


def import_summary(added: int, duplicates: int, dropped: int, notes: list[str], shown: int = 10) -> str:
    """What one file's import did, as `agentr papers add`, the drop folder's log and `agentr inbox` say it: the
    counts, then each dropped row with its reason (the first ``shown``)."""
    text = f"{added} added, {duplicates} duplicates, {dropped} rows dropped"
    if notes:
        more = f"; and {len(notes) - shown} more" if len(notes) > shown else ""
        text += ": " + "; ".join(notes[:shown]) + more
    return text


def printable(text: str) -> str:
    """Untrusted text (a file name, a reason quoting it) made safe to write to a log, a terminal or a UTF-8
    file: undecodable bytes and control characters become visible escapes."""
    text = text.encode("utf-8", "backslashreplace").decode("utf-8")
    return "".join(ch if ch.isprintable() else ascii(ch)[1:-1] for ch in text)


def limits_from_env() -> ImportLimits:
    """Import limits, configurable with AGENTR_IMPORT_MAX_BYTES / _MAX_ROWS / _MAX_FIELD_CHARS."""
    settings, defaults = get_settings(), ImportLimits()
    values = {}
    for field in ("max_bytes", "max_rows", "max_field_chars"):
        configured = getattr(settings.imports, field)
        values[field] = configured if configured is not None else getattr(defaults, field)
    return ImportLimits(**values)


def check_input_file(path: Path, max_bytes: int) -> os.stat_result:
    """Refuse, before opening anything, what must not be read: symlinks, non-regular files (a FIFO would
    block the reader), names that are not valid UTF-8, and files over the size limit (a sparse 2 GB file
    is refused by its size, never hashed or read)."""
    name = printable(path.name)
    if path.is_symlink():
        raise IntakeError(f"{name}: symbolic links are not followed")
    if name != path.name:
        raise IntakeError(f"{name}: the file name has undecodable bytes or control characters; rename the file")
    try:
        info = path.lstat()
    except OSError as exc:
        raise IntakeError(f"{name}: cannot be read ({exc.strerror or exc})") from exc
    if not stat.S_ISREG(info.st_mode):
        what = "a folder" if stat.S_ISDIR(info.st_mode) else "a named pipe, device or socket"
        raise IntakeError(f"{name}: is {what}, not a regular file")
    if info.st_size > max_bytes:
        raise IntakeError(f"{name}: the file is too large ({info.st_size:,} bytes; the limit is {max_bytes:,})")
    return info


def read_abstract(path: Path) -> str:
    check_input_file(path, MAX_ABSTRACT_BYTES)
    data = path.read_bytes()
    text = _decode_text(data, path.name)
    text = "\n".join(line.rstrip() for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n"))
    text = text.strip()
    if len(text.split()) < 5:
        raise IntakeError(f"{path.name}: the abstract is empty or too short (need at least 5 words)")
    return text


def _decode_text(data: bytes, name: str) -> str:
    """The importers' decoder: UTF-8 (BOM or not), UTF-16/32 (BOM, or BOM-less UTF-16), cp1252/Latin-1;
    binary content (NUL bytes, PDF/ZIP/... magic numbers, mostly control characters) is refused."""
    try:
        text, _ = decode(data)
    except ImportFileError as exc:
        raise IntakeError(f"{printable(name)}: {exc}") from exc
    return _ABSTRACT_INVISIBLE.sub("", _ANSI_ESCAPE.sub("", text))


def add_project(store: DomainStore, slug: str, abstract: str, *, title: str | None = None, budget_credits=None):
    try:
        validate_slug(slug)
    except ValueError as exc:
        raise IntakeError(str(exc)) from exc
    return store.projects.create_project(slug, abstract, title=title, budget_credits=budget_credits)


def add_papers_file(store: DomainStore, slug: str, path: Path, limits: ImportLimits | None = None) -> PapersAdded:
    """Parse the whole file first; only then store its good records (one store call)."""
    limits = limits or limits_from_env()
    check_input_file(path, limits.max_bytes)
    if path.suffix.lower() not in SUPPORTED_SUFFIXES:
        raise IntakeError(
            f"{path.name}: unsupported file type {path.suffix!r}; use one of {', '.join(SUPPORTED_SUFFIXES)}"
        )
    store.projects.get_project(slug)  # raises ProjectNotFound before any parsing work
    try:
        result = parse_file(path, limits)
    except ImportFileError as exc:
        raise IntakeError(f"{path.name}: {exc}") from exc
    sha = file_sha256(path)  # after the size check and parse: a huge file is never hashed
    if not result.records:
        raise IntakeError(f"{path.name}: no usable paper records (every row lacked a title, and an abstract of 8+ "
                          "words, or was invalid)")
    if store.projects.is_file_imported(slug, sha):
        return PapersAdded(slug, path.name, 0, 0, 0, True, ["this exact file was imported before"])
    provenance = {
        "format": result.format,
        "file": path.name,
        "sha256": sha,
        "imported_at": datetime.now(timezone.utc).isoformat(),
    }
    records, fitted = fit_to_store(result.records)
    notes = [f"row {i.row}: {i.reason}" for i in result.dropped[:50]] + fitted[:50]
    in_file_duplicates = sum(1 for issue in result.dropped if issue.duplicate)
    imported = ImportedFile(sha, path.name, in_file_duplicates=in_file_duplicates,
                            dropped=len(result.dropped) - in_file_duplicates, notes=notes)
    # The papers and the record of this file land in one transaction: a failure leaves neither (the next tick
    # imports the file again and launches its run), success leaves both (a re-drop is a no-op).
    try:
        added = store.projects.add_papers(slug, records, key_fn=paper_key, hash_fn=content_hash,
                                          provenance=provenance,
                                          imported_file=imported)
    except sa.exc.DataError as exc:  # a value the database refuses: say so briefly (no SQL, no paper text)
        detail = str(exc.orig).strip().splitlines()[0] if exc.orig else type(exc).__name__
        raise IntakeError(f"{path.name}: the database refused a value ({detail}); nothing was stored") from exc
    cleaned = [f"row {i.row}: {i.reason}" for i in result.cleaned]
    return PapersAdded(slug, path.name, added.added, added.duplicates, len(result.dropped), False, notes, cleaned)


def fit_to_store(records: list[PaperRecord]) -> tuple[list[PaperRecord], list[str]]:
    """Leave out identifier values longer than the store's columns keep (the importers allow a 300-character
    DOI and a 1,000-character source id); truncating an identifier would make it wrong. Returns notes.
    Every path into a project (file imports, lake retrieval) applies it before keying with paper_key, so a
    paper whose DOI is left out gets the same title key both ways."""
    fitted: list[PaperRecord] = []
    notes: list[str] = []
    for record in records:
        update: dict[str, None] = {}
        for field, limit in _ID_CHARS.items():
            value = getattr(record, field)
            if value is not None and len(value) > limit:
                update[field] = None
                notes.append(f"row {record.source_row}: {field} of {len(value)} characters is longer than the "
                             f"store keeps ({limit}); left out")
        fitted.append(record.model_copy(update=update) if update else record)
    return fitted, notes


ERROR_SUFFIX = ".error.txt"
UNSORTED = "_unsorted"  # rejected/<this>/: files that name no project (a bad project name, an unknown file type)


def quarantine(path: Path, reason: str, rejected_dir: Path, *, project: str | None = None,
               came_from: str | None = None) -> Path:
    """Move a file aside with `<name>.error.txt` beside it saying what was wrong, when, and (given ``project``)
    which project folder it came from: it then goes to `rejected/<project>/`."""
    folder = rejected_dir / project if project else rejected_dir
    path = _ensure_dir(folder, path, owned=2 if project else 1)
    stamp = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M:%S")
    target = _free_target(folder, path.name, ERROR_SUFFIX)
    shutil.move(str(path), target)
    origin = ""
    if project:
        origin += f"project: {'none' if project == UNSORTED else printable(project)}\n"
    if came_from:
        origin += f"came from: {printable(came_from)}\n"
    # The name and reason may quote hostile bytes; the error file is always valid, printable UTF-8.
    target.with_name(target.name + ERROR_SUFFIX).write_text(
        f"file: {printable(path.name)}\n{origin}rejected at: {stamp} UTC\nreason: {printable(reason)}\n",
        encoding="utf-8",
    )
    return target


def rejection_folder(item: InboxItem) -> str:
    """The project folder a rejected inbox file is kept under: its project folder's name (`inbox/<slug>/x.csv`),
    the project its name gives (`inbox/<slug>.csv`), or `_unsorted` when it names no project."""
    if printable(item.slug) != item.slug or not item.slug or item.slug.startswith("."):
        return UNSORTED
    if item.in_folder:
        return item.slug
    if item.kind == "unknown":
        return UNSORTED
    try:
        validate_slug(item.slug)
    except ValueError:
        return UNSORTED
    return item.slug


def came_from(item: InboxItem) -> str:
    """Where the file was dropped, as the error file names it."""
    return f"inbox/{item.slug}/{item.path.name}" if item.in_folder else f"inbox/{item.path.name}"


def _free_target(directory: Path, name: str, companion: str = "") -> Path:
    """A name in `directory` that neither it nor `name + companion` uses yet: a file rejected twice in the
    same second must not overwrite the first one or its reason."""
    for attempt in range(1000):
        prefix = "" if attempt == 0 else f"{datetime.now(timezone.utc):%Y%m%dT%H%M%S%f}-{attempt}-"
        target = directory / _fit_name(prefix + name, len(companion))
        taken = (target.exists() or target.is_symlink()
                 or (companion and os.path.lexists(target.with_name(target.name + companion))))
        if not taken:
            return target
    raise FileExistsError(f"no free name for {printable(name)} in {directory}")


def _fit_name(name: str, reserve: int = 0) -> str:
    """Shorten a file name (keeping its suffix) so it and `reserve` more bytes fit in one path component."""
    limit = MAX_NAME_BYTES - reserve
    if len(os.fsencode(name)) <= limit:
        return name
    stem, suffix = os.path.splitext(name)
    suffix = suffix if len(os.fsencode(suffix)) < 20 else ""
    digest = hashlib.sha256(os.fsencode(name)).hexdigest()[:8]
    keep = os.fsencode(stem)[: limit - len(os.fsencode(suffix)) - 10].decode("utf-8", "ignore")  # whole chars
    return keep + "~" + digest + suffix


def _ensure_dir(directory: Path, path: Path, owned: int = 1) -> Path:
    """mkdir -p where the last `owned` components are our folders (rejected/, processed/<slug>/): a file or
    a symlink found there (a file dropped as `rejected`, a link to elsewhere) is moved aside first, so
    nothing is ever written through a link. Returns `path`, renamed if it was the thing moved aside."""
    chain = [directory, *directory.parents][:owned][::-1]
    chain[0].parent.mkdir(parents=True, exist_ok=True)
    for part in chain:
        if part.is_symlink() or (part.exists() and not part.is_dir()):
            aside = move_aside(part)
            path = aside if path == part else path
        part.mkdir(exist_ok=True)
    return path


def move_aside(path: Path) -> Path:
    """Rename a file that sits where one of our folders belongs; it is then rejected like any unknown file."""
    aside = path.with_name(f"{path.name}.not-a-folder-{datetime.now(timezone.utc):%Y%m%dT%H%M%S%f}")
    os.replace(path, aside)
    return aside


def archive(path: Path, processed_dir: Path) -> Path:
    path = _ensure_dir(processed_dir, path, owned=2)
    target = _free_target(processed_dir, path.name)
    shutil.move(str(path), target)
    return target


@dataclass(frozen=True)
class InboxItem:
    path: Path
    slug: str
    kind: str  # "abstract" | "papers" | "unknown"
    in_folder: bool = False  # inside inbox/<slug>/ (else at the top of the inbox)


def scan_inbox(inbox: Path, limit: int | None) -> list[InboxItem]:
    """Files waiting in the drop folder, abstracts first, oldest first, at most `limit` per scan (None: all)."""
    if not inbox.is_dir():
        return []
    items: list[InboxItem] = []
    for entry in sorted(inbox.iterdir(), key=lambda p: p.name):
        if entry.name.startswith("."):
            continue
        if entry.name in ("rejected", "processed"):
            if entry.is_dir() and not entry.is_symlink():
                continue
            try:
                entry = move_aside(entry)  # a file or link where our folder belongs: rejected under a new name
            except OSError:
                continue  # cannot rename it (permissions): leave it; quarantine says why when it needs the folder
        if entry.is_dir() and not entry.is_symlink():
            # Everything but hidden files is an item, so a pipe or a sub-folder is rejected with a reason
            # rather than silently left behind.
            for inner in sorted(entry.iterdir(), key=lambda p: p.name):
                if not inner.name.startswith("."):
                    items.append(InboxItem(inner, entry.name, "papers", in_folder=True))
            continue
        suffix = entry.suffix.lower()
        if suffix in ABSTRACT_SUFFIXES:
            items.append(InboxItem(entry, entry.stem, "abstract"))
        elif suffix in SUPPORTED_SUFFIXES:
            items.append(InboxItem(entry, entry.stem, "papers"))
        else:
            items.append(InboxItem(entry, entry.stem, "unknown"))
    items.sort(key=lambda item: (item.kind != "abstract", _mtime(item.path), item.path.name))
    return items[:limit]


def _mtime(path: Path) -> float:
    try:
        return path.lstat().st_mtime
    except OSError:
        return 0.0
