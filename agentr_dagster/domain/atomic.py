"""Atomic file replacement with a temporary name unique to the writer.

Two processes exporting the same project at once must not write into one ``scores.xlsx.tmp``: each writes its
own temporary file in the target's directory (same filesystem, so the rename is atomic) and renames it over the
target; a reader sees one whole file or the other, never a mix.
"""

from __future__ import annotations

import contextlib
import os
import uuid
from collections.abc import Callable
from pathlib import Path


def temp_path_for(path: Path) -> Path:
    """A hidden sibling of ``path`` no other writer uses: ``.<name>.<pid>.<random>.tmp``."""
    return path.with_name(f".{path.name}.{os.getpid()}.{uuid.uuid4().hex[:12]}.tmp")


def write_atomically(path: Path, write: Callable[[Path], object]) -> Path:
    """Call ``write(tmp)`` and rename ``tmp`` over ``path``; the temporary file is removed if writing fails."""
    tmp = temp_path_for(path)
    try:
        write(tmp)
        tmp.replace(path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    return path
