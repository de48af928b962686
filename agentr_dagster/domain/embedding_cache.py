"""Transformer vectors computed once per (text, model) and reused by every project, process and the lake.

A content-addressed file cache under ``$AGENTR_EMBEDDING_CACHE`` (default ``$AGENTR_HOME/embeddings``), one folder
per model name (the name carries the weights' digest, so a rebuilt model never reads another's vectors). A folder
holds append-only parts, ``part-*.npz`` with ``keys`` (16-byte BLAKE2b digests of the texts) and ``vecs``
(float32 rows); each part is written to a temp file and renamed, so readers never see half a part and concurrent
writers never collide (at worst both encode the same text once). Many small parts are merged into one.

Why files, not a store table: the vectors are bulk numeric data read all at once (a 2,000-record project reads
2,000 x 384 floats), the lake is itself files with no store connection, and a numpy part loads 100k vectors in
well under a second where as many rows through SQLAlchemy would take tens.
"""

from __future__ import annotations

import hashlib
import os
import re
import sys
import threading
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Protocol

import numpy as np

from agentr_dagster.domain.progress import progress_for
from agentr_dagster.settings import agentr_home, get_settings

__all__ = ["CachedEncoder", "EmbeddingCache", "default_cache_dir", "text_key"]

_SAVE_EVERY = 2048  # texts encoded between two parts written: a crash loses at most this much work
_MERGE_AT = 32  # parts in one folder before they are merged into one
_PROGRESS_FROM = 256  # encodes of fewer texts show no progress bar


class _Encoder(Protocol):
    name: str
    dim: int

    def encode(self, texts: Sequence[str], progress: Callable[[int], None] | None = None) -> np.ndarray: ...

    def piece_counts(self, words: Sequence[str]) -> list[int]: ...


def default_cache_dir() -> Path:
    configured = get_settings().encoder.embedding_cache
    return configured.expanduser() if configured else agentr_home() / "embeddings"


def text_key(text: str) -> bytes:
    return hashlib.blake2b(text.encode("utf-8"), digest_size=16).digest()


def _folder_name(model: str) -> str:
    return re.sub(r"[^A-Za-z0-9._@-]+", "_", model)


class EmbeddingCache:
    """The cached vectors of one model: ``lookup`` what is known, ``add`` what was computed."""

    def __init__(self, model: str, dim: int, root: Path | None = None):
        self.model = model
        self.dim = dim
        self.folder = (Path(root) if root is not None else default_cache_dir()) / _folder_name(model)
        self._rows: dict[bytes, int] = {}
        self._blocks: list[np.ndarray] = []
        self._n = 0
        self._seen_parts: set[str] = set()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return self._n

    def refresh(self) -> None:
        """Read parts written since the last look (by this process or any other)."""
        if not self.folder.is_dir():
            return
        for part in sorted(self.folder.glob("part-*.npz")):
            if part.name in self._seen_parts:
                continue
            try:
                with np.load(part) as data:
                    keys, vecs = data["keys"], data["vecs"]
            except (OSError, ValueError, KeyError):  # merged away meanwhile, or not ours: the texts are re-encoded
                continue
            self._seen_parts.add(part.name)
            if vecs.ndim != 2 or vecs.shape[1] != self.dim or len(keys) != len(vecs):
                continue
            self._remember(keys, vecs.astype(np.float32, copy=False))

    def _remember(self, keys: np.ndarray, vecs: np.ndarray) -> None:
        fresh = [i for i, k in enumerate(keys) if bytes(k) not in self._rows]
        if not fresh:
            return
        for j, i in enumerate(fresh):
            self._rows[bytes(keys[i])] = self._n + j
        self._blocks.append(vecs[fresh])
        self._n += len(fresh)

    def _matrix(self) -> np.ndarray:
        if len(self._blocks) > 1:
            self._blocks = [np.concatenate(self._blocks)]
        return self._blocks[0] if self._blocks else np.zeros((0, self.dim), np.float32)

    def lookup(self, keys: Sequence[bytes]) -> tuple[np.ndarray, np.ndarray]:
        """(rows found as an (n, dim) array with zeros where missing, boolean mask of the found ones)."""
        with self._lock:
            self.refresh()
            out = np.zeros((len(keys), self.dim), np.float32)
            rows = np.array([self._rows.get(k, -1) for k in keys], dtype=np.int64)
            found = rows >= 0
            if found.any():
                out[found] = self._matrix()[rows[found]]
            return out, found

    def add(self, keys: Sequence[bytes], vecs: np.ndarray) -> None:
        """Write one part with these vectors (atomically) and remember them."""
        if not len(keys):
            return
        key_arr = np.frombuffer(b"".join(keys), dtype=np.uint8).reshape(len(keys), 16)
        vecs = np.asarray(vecs, dtype=np.float32)
        with self._lock:
            self.folder.mkdir(parents=True, exist_ok=True)
            name = f"part-{uuid.uuid4().hex}.npz"
            self._write(name, key_arr, vecs)
            self._seen_parts.add(name)
            self._remember(key_arr, vecs)
            if len(self._seen_parts) >= _MERGE_AT:
                self._merge()

    def _write(self, name: str, keys: np.ndarray, vecs: np.ndarray) -> None:
        tmp = self.folder / f".{name}.{os.getpid()}.tmp"
        with tmp.open("wb") as fh:
            np.savez(fh, keys=keys, vecs=vecs)
        os.replace(tmp, self.folder / name)

    def _merge(self) -> None:
        """All known vectors into one new part, then the parts they came from removed (others' new parts stay)."""
        old = set(self._seen_parts)
        keys = np.zeros((self._n, 16), np.uint8)
        for k, i in self._rows.items():
            keys[i] = np.frombuffer(k, dtype=np.uint8)
        name = f"part-{uuid.uuid4().hex}.npz"
        self._write(name, keys, self._matrix())
        for part in old:
            (self.folder / part).unlink(missing_ok=True)
        self._seen_parts = {name}


class CachedEncoder:
    """An encoder whose vectors go through an :class:`EmbeddingCache`: each distinct text is encoded once,
    ever; the rest are read back. Same contract as the encoder it wraps (``name``, ``dim``, ``encode``)."""

    def __init__(self, encoder: _Encoder, cache: EmbeddingCache | None = None):
        self.encoder = encoder
        self.name = encoder.name
        self.dim = encoder.dim
        self.cache = cache if cache is not None else EmbeddingCache(encoder.name, encoder.dim)
        self.encoded = 0  # texts this object actually ran through the model (the rest came from the cache)

    def piece_counts(self, words: Sequence[str]) -> list[int]:
        return self.encoder.piece_counts(words)

    def encode(self, texts: Sequence[str], progress: Callable[[int], None] | None = None) -> np.ndarray:
        texts = [t if isinstance(t, str) else "" for t in texts]
        keys = [text_key(t) for t in texts]
        out, found = self.cache.lookup(keys)
        missing: dict[bytes, int] = {}
        for i in np.flatnonzero(~found):
            if texts[i].strip():
                missing.setdefault(keys[i], int(i))
        if missing:
            todo = list(missing.values())
            bar = _progress_bar(len(todo), self.name) if progress is None else None
            tick = progress if progress is not None else (bar.update if bar is not None else None)
            try:
                for start in range(0, len(todo), _SAVE_EVERY):
                    chunk = todo[start : start + _SAVE_EVERY]
                    vecs = self.encoder.encode([texts[i] for i in chunk], progress=tick)
                    self.cache.add([keys[i] for i in chunk], vecs)
                    self.encoded += len(chunk)
            finally:
                if bar is not None:
                    bar.close()
            out, _ = self.cache.lookup(keys)
        return out


def _progress_bar(total: int, name: str):
    """Lines to the caller's reporter (a Dagster asset's log: domain/progress.py), else a tqdm bar on stderr."""
    if total < _PROGRESS_FROM:
        return None
    lines = progress_for(total, f"embedding {total:,} texts ({name.split('@')[0]})")
    if lines is not None:
        return lines
    from tqdm import tqdm

    return tqdm(total=total, desc=f"embedding ({name.split('@')[0]})", unit="text", file=sys.stderr,
                mininterval=1.0)
