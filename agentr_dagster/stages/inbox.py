"""The drop folder's state, without Dagster: which files are complete enough to import, and what `agentr inbox`
lists (pending, deferred, processed, rejected, each with its reason).

A file is imported only once it is complete: its size and modification time unchanged between two sensor ticks
(the stamps of one tick are the sensor's cursor for the next). Files being written by the documented convention
are never looked at: a hidden name (`.papers.csv`, renamed to `papers.csv` when complete) or a download
suffix (`.part`, `.crdownload`, ...).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from agentr_dagster.domain.hashing import file_sha256
from agentr_dagster.imports import SUPPORTED_SUFFIXES
from agentr_dagster.settings import inbox_dir, processed_dir, rejected_dir
from agentr_dagster.stages.intake import (
    ABSTRACT_SUFFIXES,
    ERROR_SUFFIX,
    InboxItem,
    import_summary,
    printable,
    scan_inbox,
)
from agentr_dagster.store.rows import ImportedFile

# Names that browsers and copy tools give a file until it is complete: deferred, never rejected.
PARTIAL_SUFFIXES = (".part", ".partial", ".crdownload", ".download", ".filepart", ".tmp")
MAX_TRACKED = 5000  # files whose stamps one cursor keeps (a bigger drop is taken in turn: ticks are batched anyway)
NEW_FILE = "new since the last tick: imported on the next one if its size and modification time stay the same"

Stamp = tuple[int, int]  # (size in bytes, modification time in nanoseconds)


def inbox_name(item: InboxItem, inbox: Path) -> str:
    """The file as dropped, relative to the inbox (`my-review/papers.csv`, `my-review.md`): printable."""
    try:
        return printable(str(item.path.relative_to(inbox)))
    except ValueError:
        return printable(item.path.name)


def stamp(path: Path) -> Stamp | None:
    try:
        info = path.lstat()
    except OSError:
        return None  # gone since the scan
    return info.st_size, info.st_mtime_ns


def is_partial(name: str) -> bool:
    return name.lower().endswith(PARTIAL_SUFFIXES)


@dataclass(frozen=True)
class Deferred:
    """A file left in the inbox this tick, and why."""

    item: InboxItem
    name: str
    reason: str


@dataclass
class Settled:
    ready: list[InboxItem] = field(default_factory=list)  # complete: unchanged since the last tick
    deferred: list[Deferred] = field(default_factory=list)
    stamps: dict[str, Stamp] = field(default_factory=dict)  # this tick's, for the next one (the cursor)


def _change(before: Sequence[int], now: Stamp) -> str:
    if before[0] != now[0]:
        return f"still being written: {before[0]:,} -> {now[0]:,} bytes since the last tick"
    return "still being written: modified since the last tick"


def settle(items: Sequence[InboxItem], inbox: Path, previous: Mapping[str, Sequence[int]]) -> Settled:
    """Split the scanned files into those complete enough to import (same size and modification time as at the
    previous tick's stamps) and those that wait, with this tick's stamps for the next."""
    out = Settled()
    for item in items:
        name = inbox_name(item, inbox)
        if is_partial(item.path.name):
            out.deferred.append(Deferred(item, name, "an unfinished download: taken once renamed to its final name"))
            continue
        now = stamp(item.path)
        if now is None:
            continue
        if len(out.stamps) < MAX_TRACKED:
            out.stamps[name] = now
        before = previous.get(name)
        if before is None:
            out.deferred.append(Deferred(item, name, NEW_FILE))
        elif tuple(before) != now:
            out.deferred.append(Deferred(item, name, _change(before, now)))
        else:
            out.ready.append(item)
    return out


def encode_stamps(stamps: Mapping[str, Stamp]) -> str:
    return json.dumps({"v": 1, "files": {name: list(s) for name, s in stamps.items()}}, sort_keys=True)


def decode_stamps(cursor: str | None) -> dict[str, Stamp]:
    """The stamps a cursor holds; an empty or foreign cursor holds none (every file then waits one tick)."""
    try:
        files = json.loads(cursor or "{}").get("files", {})
        return {str(k): (int(v[0]), int(v[1])) for k, v in files.items()}
    except (ValueError, TypeError, AttributeError, IndexError, KeyError):
        return {}


# ---------------------------------------------------------------- what `agentr inbox` lists
@dataclass
class InboxFile:
    state: str  # "pending" | "deferred" | "processed" | "rejected"
    project: str | None
    file: str  # as dropped, relative to the inbox
    size: int | None
    at: datetime | None  # modified (pending, deferred, processed) or rejected at
    reason: str
    moved_to: str | None = None  # rejected: where the file is kept (its reason in <that>.error.txt beside it)


def _modified(path: Path) -> tuple[int | None, datetime | None]:
    try:
        info = path.lstat()
    except OSError:
        return None, None
    return info.st_size, datetime.fromtimestamp(info.st_mtime, timezone.utc)


def _known_type(name: str) -> bool:
    return name.lower().endswith(tuple(SUPPORTED_SUFFIXES) + ABSTRACT_SUFFIXES)


def _hidden_in_progress(inbox: Path) -> list[tuple[Path, str]]:
    """Hidden files named like an import (`.papers.csv`): being written by the convention; other hidden files
    (`.DS_Store`) are not the inbox's business."""
    found: list[tuple[Path, str]] = []
    folders = [(inbox, None)] + [(p, p.name) for p in sorted(inbox.iterdir())
                                 if p.is_dir() and not p.is_symlink() and not p.name.startswith(".")
                                 and p.name not in ("rejected", "processed")]
    for folder, project in folders:
        for entry in sorted(folder.iterdir()):
            if entry.name.startswith(".") and entry.is_file() and _known_type(entry.name[1:]):
                found.append((entry, project or Path(entry.name[1:]).stem))
    return found


def pending_files(home: Path | None, stamps: Mapping[str, Sequence[int]] | None) -> list[InboxFile]:
    """Files waiting in the inbox, judged as the sensor judges them (``stamps``: its cursor; None when no
    sensor has looked yet)."""
    inbox = inbox_dir(home)
    if not inbox.is_dir():
        return []
    files: list[InboxFile] = []
    for item in scan_inbox(inbox, None):
        name = inbox_name(item, inbox)
        size, at = _modified(item.path)
        now = stamp(item.path)
        before = None if stamps is None else stamps.get(name)
        if is_partial(item.path.name):
            state, reason = "deferred", "an unfinished download: taken once renamed to its final name"
        elif stamps is None:
            state, reason = "pending", ("the sensor has not looked yet (it imports a file once its size and "
                                        "modification time are unchanged across two ticks)")
        elif before is None:
            state, reason = "pending", "not seen by the sensor yet: " + NEW_FILE
        elif now is not None and tuple(before) != now:
            state, reason = "deferred", _change(before, now)
        else:
            state, reason = "pending", "complete (unchanged since the sensor's last tick): imported on its next tick"
        if item.kind == "unknown":
            reason += "; not an abstract (.md/.txt) or a paper file: it will be rejected"
        files.append(InboxFile(state, item.slug if item.kind != "unknown" else None, name, size, at, reason))
    for path, project in _hidden_in_progress(inbox):
        size, at = _modified(path)
        files.append(InboxFile("deferred", project, printable(str(path.relative_to(inbox))), size, at,
                               "a hidden name: being written; taken once renamed without the leading dot"))
    return files


def processed_files(home: Path | None, imports: Mapping[tuple[str, str], ImportedFile] | None = None
                    ) -> list[InboxFile]:
    """Files the drop folder took; a paper file's reason says what its import did (counts, each dropped row) when
    ``imports`` ((project, sha256) -> the store's record of the import) has it."""
    folder = processed_dir(home)
    files: list[InboxFile] = []
    if not folder.is_dir():
        return files
    for project in sorted(p for p in folder.iterdir() if p.is_dir()):
        for path in sorted(p for p in project.iterdir() if p.is_file()):
            size, at = _modified(path)
            kind = "abstract" if path.suffix.lower() in ABSTRACT_SUFFIXES and path.stem == project.name else "papers"
            reason = f"imported ({kind})"
            record = (imports or {}).get((project.name, file_sha256(path))) if kind == "papers" and imports else None
            if record is not None and record.counted:  # counted: the counts are set (together)
                reason += ": " + import_summary(record.added or 0, record.duplicates or 0,
                                                (record.dropped or 0) + (record.in_file_duplicates or 0), record.notes)
            files.append(InboxFile("processed", printable(project.name), printable(f"{project.name}/{path.name}"),
                                   size, at, printable(reason)))
    return files


def read_error_file(path: Path) -> dict[str, str]:
    """The `key: value` lines of a `<name>.error.txt` (the reason is the last key and runs to the end)."""
    fields: dict[str, str] = {}
    text = path.read_text(encoding="utf-8", errors="replace")
    head, sep, reason = text.partition("\nreason: ")
    for line in head.splitlines():
        key, colon, value = line.partition(": ")
        if colon:
            fields[key.strip()] = value.strip()
    if sep:
        fields["reason"] = reason.strip()
    return fields


def _parse_time(text: str | None) -> datetime | None:
    for fmt in ("%Y-%m-%d %H:%M:%S UTC", "%Y%m%dT%H%M%S UTC"):  # the second: error files written before 0.2
        try:
            return datetime.strptime(text or "", fmt).replace(tzinfo=timezone.utc)
        except ValueError:
            continue
    return None


def rejected_files(home: Path | None) -> list[InboxFile]:
    """Every rejected file with its reason: `rejected/<project>/<name>` beside `<name>.error.txt` (and, from
    before rejections kept their project, `rejected/<name>`)."""
    folder = rejected_dir(home)
    files: list[InboxFile] = []
    if not folder.is_dir():
        return files
    for error in sorted(folder.rglob(f"*{ERROR_SUFFIX}")):
        fields = read_error_file(error)
        kept = error.with_name(error.name[: -len(ERROR_SUFFIX)])
        size, _ = _modified(kept)
        in_folder = error.parent != folder
        project = fields.get("project") or (printable(error.parent.name) if in_folder else None)
        files.append(InboxFile(
            "rejected", None if project in (None, "none") else project,
            fields.get("came from", fields.get("file", printable(kept.name))).removeprefix("inbox/"),
            size, _parse_time(fields.get("rejected at")), fields.get("reason", "(no reason recorded)"),
            printable(str(kept)),
        ))
    return files


def inbox_listing(home: Path | None, stamps: Mapping[str, Sequence[int]] | None,
                  imports: Mapping[tuple[str, str], ImportedFile] | None = None) -> list[InboxFile]:
    """Pending and deferred files first, then processed (with what each import did), then rejected."""
    return [*pending_files(home, stamps), *processed_files(home, imports), *rejected_files(home)]
