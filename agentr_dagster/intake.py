"""Taking input in: abstracts and candidate-paper files, from the CLI or the drop folder.

Bad input is refused with a reason and never touches stored data: a file is fully parsed and validated
before anything is written, and the write is one call to the store.
"""

from __future__ import annotations

import hashlib
import shutil
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from agentr_dagster.domain.contracts import validate_slug
from agentr_dagster.domain.imports import (
    SUPPORTED_SUFFIXES,
    ImportFileError,
    ImportLimits,
    content_hash,
    paper_key,
    parse_file,
)

ABSTRACT_SUFFIXES = (".md", ".txt")
MAX_ABSTRACT_BYTES = 200_000


class IntakeError(ValueError):
    """Input that cannot be used; the message says why (and where, when known)."""


@dataclass
class PapersAdded:
    slug: str
    file: str
    added: int
    duplicates: int
    dropped: int
    already_imported: bool
    notes: list[str]


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def read_abstract(path: Path) -> str:
    if path.is_symlink():
        raise IntakeError(f"{path.name}: symbolic links are not followed")
    size = path.stat().st_size
    if size > MAX_ABSTRACT_BYTES:
        raise IntakeError(f"{path.name}: {size} bytes is too large for an abstract (limit {MAX_ABSTRACT_BYTES})")
    data = path.read_bytes()
    text = _decode_text(data, path.name)
    text = "\n".join(line.rstrip() for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n"))
    text = text.strip()
    if len(text.split()) < 5:
        raise IntakeError(f"{path.name}: the abstract is empty or too short (need at least 5 words)")
    return text


def _decode_text(data: bytes, name: str) -> str:
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return data.decode("utf-16")
    if b"\x00" in data:
        raise IntakeError(f"{name}: looks like a binary file (NUL bytes), not text")
    for encoding in ("utf-8-sig", "cp1252", "latin-1"):
        try:
            return data.decode(encoding)
        except UnicodeDecodeError:
            continue
    raise IntakeError(f"{name}: cannot decode the text")


def add_project(store, slug: str, abstract: str, *, title: str | None = None, budget_credits=None):
    try:
        validate_slug(slug)
    except ValueError as exc:
        raise IntakeError(str(exc)) from exc
    return store.create_project(slug, abstract, title=title, budget_credits=budget_credits)


def add_papers_file(store, slug: str, path: Path, limits: ImportLimits | None = None) -> PapersAdded:
    """Parse the whole file first; only then store its good records (one store call)."""
    if path.is_symlink():
        raise IntakeError(f"{path.name}: symbolic links are not followed")
    if path.suffix.lower() not in SUPPORTED_SUFFIXES:
        raise IntakeError(
            f"{path.name}: unsupported file type {path.suffix!r}; use one of {', '.join(SUPPORTED_SUFFIXES)}"
        )
    store.get_project(slug)  # raises ProjectNotFound before any parsing work
    sha = file_sha256(path)
    try:
        result = parse_file(path, limits or ImportLimits())
    except ImportFileError as exc:
        raise IntakeError(f"{path.name}: {exc}") from exc
    if not result.records:
        raise IntakeError(f"{path.name}: no usable paper records (every row lacked a title or was invalid)")
    if store.is_file_imported(slug, sha):
        return PapersAdded(slug, path.name, 0, 0, 0, True, ["this exact file was imported before"])
    provenance = {
        "format": result.format,
        "file": path.name,
        "sha256": sha,
        "imported_at": datetime.now(timezone.utc).isoformat(),
    }
    # add_papers is idempotent by paper key, so a crash between these two calls loses nothing.
    added = store.add_papers(slug, result.records, key_fn=paper_key, hash_fn=content_hash, provenance=provenance)
    store.record_imported_file(slug, sha, path.name)
    notes = [f"row {i.row}: {i.reason}" for i in result.dropped[:50]]
    return PapersAdded(slug, path.name, added.added, added.duplicates, len(result.dropped), False, notes)


def quarantine(path: Path, reason: str, rejected_dir: Path) -> Path:
    """Move a file aside with `<name>.error.txt` beside it saying what was wrong."""
    rejected_dir.mkdir(parents=True, exist_ok=True)
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%S")
    target = rejected_dir / path.name
    if target.exists():
        target = rejected_dir / f"{stamp}-{path.name}"
    shutil.move(str(path), target)
    target.with_name(target.name + ".error.txt").write_text(
        f"file: {path.name}\nrejected at: {stamp} UTC\nreason: {reason}\n", encoding="utf-8"
    )
    return target


def archive(path: Path, processed_dir: Path) -> Path:
    processed_dir.mkdir(parents=True, exist_ok=True)
    target = processed_dir / path.name
    if target.exists():
        stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%S%f")
        target = processed_dir / f"{stamp}-{path.name}"
    shutil.move(str(path), target)
    return target


@dataclass(frozen=True)
class InboxItem:
    path: Path
    slug: str
    kind: str  # "abstract" | "papers" | "unknown"


def scan_inbox(inbox: Path, limit: int) -> list[InboxItem]:
    """Files waiting in the drop folder, abstracts first, oldest first, at most `limit` per scan."""
    if not inbox.is_dir():
        return []
    items: list[InboxItem] = []
    for entry in sorted(inbox.iterdir(), key=lambda p: p.name):
        if entry.name.startswith(".") or entry.name in ("rejected", "processed"):
            continue
        if entry.is_dir() and not entry.is_symlink():
            for inner in sorted(entry.iterdir(), key=lambda p: p.name):
                if inner.is_file() or inner.is_symlink():
                    items.append(InboxItem(inner, entry.name, "papers"))
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
