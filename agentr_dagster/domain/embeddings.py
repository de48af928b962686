"""Static (model2vec) sentence embeddings, offline and torch-free at run time.

The model is a model2vec distillation of all-MiniLM-L6-v2 built once by ``scripts/build_embedding_model.py``
(``make models``) into :func:`default_model_dir`. Nothing here downloads anything.

API (others code against exactly this)::

    default_model_dir() -> Path
    Embedder.name: str; Embedder.dim: int; Embedder.encode(texts) -> float32 (n, dim), L2-normalised rows
    get_embedder() -> Embedder   # cached singleton
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from agentr_dagster.settings import get_settings, keep_hugging_face_offline

MODEL_ENV_VAR = "AGENTR_MODEL_DIR"
MODEL_NAME = "model2vec:all-MiniLM-L6-v2-distilled"
BUILD_HINT = "run `make models` (or `python scripts/build_embedding_model.py`)"


def default_model_dir() -> Path:
    """``$AGENTR_MODEL_DIR`` if set, else ``~/.cache/agentr-dagster/models/minilm-m2v``."""
    configured = get_settings().encoder.model_dir
    if configured:
        return configured.expanduser()
    return Path.home() / ".cache" / "agentr-dagster" / "models" / "minilm-m2v"


def model_present(path: Path | str) -> bool:
    """True when ``path`` holds a saved model2vec model (config, tokenizer and weights)."""
    p = Path(path)
    return (
        p.is_dir()
        and (p / "config.json").is_file()
        and (p / "tokenizer.json").is_file()
        and any(p.glob("*.safetensors"))
    )


class Embedder:
    """Thin wrapper over a model2vec ``StaticModel``.

    ``encode`` returns float32 rows with unit L2 norm; an empty (or whitespace-only, or non-string) text
    yields an all-zero row, so its cosine with anything is 0. A text none of whose tokens are in the
    vocabulary (e.g. only control characters) also yields a zero row. Never NaN.
    """

    def __init__(self, model_dir: Path | str | None = None, *, name: str = MODEL_NAME):
        path = Path(model_dir).expanduser() if model_dir is not None else default_model_dir()
        if not model_present(path):
            raise RuntimeError(
                f"Static embedding model not found at {path}. To build it (once, offline, ~1 min), "
                f"{BUILD_HINT}. Set ${MODEL_ENV_VAR} to use another location."
            )
        keep_hugging_face_offline()
        from model2vec import StaticModel

        self._model = StaticModel.from_pretrained(str(path))
        self.path = path
        self.name = name
        self.dim = int(self._model.dim)
        self._lock = threading.Lock()

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        texts = list(texts)
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        idx = [i for i, t in enumerate(texts) if isinstance(t, str) and t.strip()]
        if not idx:
            return out
        batch = [texts[i] for i in idx]
        with self._lock:
            vecs = self._model.encode(batch, use_multiprocessing=False, show_progress_bar=False)
        vecs = np.asarray(vecs, dtype=np.float32)
        norms = np.linalg.norm(vecs, axis=1, keepdims=True)
        vecs = np.divide(vecs, norms, out=np.zeros_like(vecs), where=norms > 0)
        out[idx] = vecs
        return out

    def __repr__(self) -> str:  # pragma: no cover - cosmetic
        return f"Embedder(name={self.name!r}, dim={self.dim}, path={str(self.path)!r})"


_LOCK = threading.Lock()
_EMBEDDER: Embedder | None = None


def get_embedder() -> Embedder:
    """Process-wide cached :class:`Embedder` loaded from :func:`default_model_dir`.

    Raises ``RuntimeError`` (with the build command) when the model has not been built.
    """
    global _EMBEDDER
    if _EMBEDDER is None:
        with _LOCK:
            if _EMBEDDER is None:
                _EMBEDDER = Embedder(default_model_dir())
    return _EMBEDDER
