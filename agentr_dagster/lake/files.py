"""On-disk layout of the lake: immutable generations switched atomically, one writer at a time.

    $AGENTR_HOME/lake/            ($AGENTR_LAKE_DIR overrides)
      .lock                       flock held by the one writer
      CURRENT                     name of the live generation, replaced with os.replace
      gen-000007/
        manifest.json             counts, analyzer and model versions, the files ingested (by sha256)
        papers.parquet            one row per paper (lake_id = row number): metadata, keys, content hash
        sources.parquet           one row per imported record (duplicates included): provenance
        emb.npy                   (n, dim) float32 static embeddings, memory-mapped by readers
        terms.npy, term_offsets.npy   every paper's lexical term ids (CSR): the profile cache BM25 is rebuilt from
        bm25/                     the bm25s index (CSC score matrix + vocabulary), memory-mapped by readers

A writer builds a new generation in a temporary directory, renames it into place and only then points CURRENT
at it, so a reader sees the old generation or the new one, never half of one; a crash leaves at most a
temporary directory that the next writer removes. The two previous generations are kept for readers that
opened them just before a switch.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

KEEP_PREVIOUS = 2
_GEN_PREFIX = "gen-"
_TMP_MARK = ".tmp-"


def lake_dir() -> Path:
    """``$AGENTR_LAKE_DIR`` if set, else ``$AGENTR_HOME/lake``."""
    from agentr_dagster.settings import lake_dir as configured_lake_dir

    return configured_lake_dir()


def gen_name(number: int) -> str:
    return f"{_GEN_PREFIX}{number:06d}"


def current_generation(root: Path) -> Path | None:
    """The live generation directory, or None for an empty lake."""
    try:
        name = (root / "CURRENT").read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        return None
    if not name.startswith(_GEN_PREFIX) or "/" in name:
        raise RuntimeError(f"lake at {root}: CURRENT names {name!r}, not a generation")
    return root / name


def generation_number(path: Path | None) -> int:
    return int(path.name[len(_GEN_PREFIX) :]) if path is not None else 0


@contextlib.contextmanager
def writer_lock(root: Path) -> Iterator[None]:
    """Exclusive across processes (flock); released when the process dies, so a crash never wedges the lake."""
    root.mkdir(parents=True, exist_ok=True)
    with open(root / ".lock", "a+") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def new_tmp_dir(root: Path, number: int) -> Path:
    path = root / f"{gen_name(number)}{_TMP_MARK}{os.getpid()}"
    if path.exists():
        shutil.rmtree(path)
    path.mkdir(parents=True)
    return path


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def publish(root: Path, tmp: Path, number: int) -> Path:
    """Rename the finished temporary directory into place and switch CURRENT to it (call under the lock)."""
    final = root / gen_name(number)
    if final.exists():  # left by a writer that crashed between rename and switch: never live, safe to replace
        shutil.rmtree(final)
    os.rename(tmp, final)
    pointer = root / f"CURRENT{_TMP_MARK}{os.getpid()}"
    with open(pointer, "w", encoding="utf-8") as handle:
        handle.write(final.name + "\n")
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(pointer, root / "CURRENT")
    _fsync_dir(root)
    return final


def prune(root: Path) -> None:
    """Remove generations older than the live one minus KEEP_PREVIOUS, and temporary leftovers (under the lock)."""
    live = current_generation(root)
    live_number = generation_number(live)
    for entry in root.iterdir():
        if _TMP_MARK in entry.name:
            shutil.rmtree(entry, ignore_errors=True) if entry.is_dir() else entry.unlink(missing_ok=True)
        elif entry.name.startswith(_GEN_PREFIX) and entry.is_dir():
            try:
                number = int(entry.name[len(_GEN_PREFIX) :])
            except ValueError:
                continue
            if number < live_number - KEEP_PREVIOUS or number > live_number:
                shutil.rmtree(entry, ignore_errors=True)


def write_json(path: Path, value: dict) -> None:
    path.write_text(json.dumps(value, indent=1, ensure_ascii=False, sort_keys=True), encoding="utf-8")


def read_json(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))
