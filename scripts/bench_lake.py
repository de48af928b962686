"""Paper-lake benchmark: index a synthetic corpus, time hybrid queries, report peak memory.

    .venv/bin/python scripts/bench_lake.py                      # 100,000 papers, 4 files, 2 parse workers
    .venv/bin/python scripts/bench_lake.py --papers 20000 --queries 100
    .venv/bin/python scripts/bench_lake.py --quality ../shared/data/screening   # fusion quality on real reviews

Scale run: the corpus is generated first (CSV, arXiv-style JSONL and OpenAlex-style JSONL with inverted-index
abstracts; topic-structured text with a long tail of rare words and about 1,500 characters per paper), then a
*fresh* process runs ``agentr_dagster.lake.add_files`` on it, opens the lake and times ``Lake.search`` on
short keyword queries and long question-like queries, and reports its own peak RSS (``ru_maxrss``) and the
parse workers' peak. Targets (issue 6): 100,000 papers indexed in under 2 minutes on 2 cores, hybrid query
p95 under 50 ms, peak memory under 2 GB.

Quality run (``--quality DIR``): every review folder's ``papers.csv`` goes into one lake (a shared lake of mixed
topics), then each review's question (and, separately, its short title) ranks that review's records by BM25
alone, dense cosine alone, plain RRF and weighted RRF; prints WSS@95 per review and the mean, plus recall of
the review's includes in the top 200 of the whole lake.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


# ------------------------------------------------------------------------------------------------ corpus


def _real_words() -> list[str]:
    """Real English vocabulary, by frequency, from the bundled demo abstracts."""
    import re
    from collections import Counter

    text = (ROOT / "agentr_dagster" / "data" / "demo" / "papers.csv").read_text(encoding="utf-8").lower()
    counts = Counter(re.findall(r"[a-z][a-z-]{1,20}", text))
    return [w for w, _ in counts.most_common()]


def _pseudo_words(rng: np.random.Generator, n: int) -> list[str]:
    onsets = list("bcdfghklmnprstvz") + ["br", "cr", "tr", "st", "pl", "gr", "ch", "th", "sh"]
    vowels = ["a", "e", "i", "o", "u", "io", "ea", "ou"]
    codas = ["", "", "", "n", "r", "s", "l", "m", "x", "nt", "st"]
    seen: set[str] = set()
    out: list[str] = []
    while len(out) < n:
        k = int(rng.integers(2, 5))
        w = "".join(onsets[rng.integers(len(onsets))] + vowels[rng.integers(len(vowels))] for _ in range(k))
        w += codas[rng.integers(len(codas))]
        if w not in seen:
            seen.add(w)
            out.append(w)
    return out


def _zipf_probs(n: int, s: float = 1.07) -> np.ndarray:
    p = 1.0 / np.arange(1, n + 1) ** s
    return p / p.sum()


class Corpus:
    """Topic-structured synthetic papers: common English words, topic words, and a long tail of rare ones."""

    def __init__(self, seed: int = 7, topics: int = 400, rare_words: int = 150_000):
        self.rng = np.random.default_rng(seed)
        self.common = np.array(_real_words())
        pseudo = _pseudo_words(self.rng, rare_words + topics * 40)
        self.rare = np.array(pseudo[:rare_words])
        topic_pool = np.array(pseudo[rare_words:])
        self.topic_words = [
            np.concatenate([topic_pool[t * 40 : (t + 1) * 40], self.rng.choice(self.common[200:], 60, replace=False)])
            for t in range(topics)
        ]
        # cumulative distributions, sampled by searchsorted (rng.choice(p=...) rebuilds them on every call)
        self.c_common = np.cumsum(_zipf_probs(len(self.common)))
        self.c_topic = np.cumsum(_zipf_probs(100, 0.9))
        self.c_rare = np.cumsum(_zipf_probs(len(self.rare), 0.8))

    def _draw(self, words: np.ndarray, cdf: np.ndarray, n: int) -> np.ndarray:
        return words[np.minimum(np.searchsorted(cdf, self.rng.random(n)), len(words) - 1)]

    def _words(self, topic: int, n: int) -> list[str]:
        kind = self.rng.random(n)
        out = np.empty(n, dtype=object)
        a, b = kind < 0.55, (kind >= 0.55) & (kind < 0.92)
        c = ~(a | b)
        out[a] = self._draw(self.common, self.c_common, int(a.sum()))
        out[b] = self._draw(self.topic_words[topic], self.c_topic, int(b.sum()))
        out[c] = self._draw(self.rare, self.c_rare, int(c.sum()))
        return list(out)

    def paper(self, i: int) -> dict:
        topic = int(self.rng.integers(len(self.topic_words)))
        title = " ".join(self._words(topic, int(self.rng.integers(6, 14)))).capitalize()
        words = self._words(topic, int(self.rng.integers(150, 260)))
        sentences, start = [], 0
        while start < len(words):
            end = start + int(self.rng.integers(12, 28))
            sentences.append(" ".join(words[start:end]).capitalize() + ".")
            start = end
        year = int(self.rng.integers(1990, 2026))
        doi = f"10.5555/synth.{i}" if self.rng.random() < 0.7 else ""
        return {"topic": topic, "title": title, "abstract": " ".join(sentences), "year": year, "doi": doi}

    def query(self, long: bool) -> str:
        topic = int(self.rng.integers(len(self.topic_words)))
        if long:
            return " ".join(self._words(topic, int(self.rng.integers(40, 80))))
        return " ".join(self.rng.choice(self.topic_words[topic][:40], int(self.rng.integers(2, 6))))


def write_corpus(out: Path, papers: int, files: int, seed: int) -> list[Path]:
    corpus = Corpus(seed)
    out.mkdir(parents=True, exist_ok=True)
    per_file = -(-papers // files)
    paths = []
    i = 0
    for f in range(files):
        kind = ("csv", "arxiv", "openalex")[f % 3]
        path = out / f"part-{f:02d}.{'csv' if kind == 'csv' else 'jsonl'}"
        with path.open("w", encoding="utf-8", newline="") as handle:
            writer = csv.writer(handle) if kind == "csv" else None
            if writer:
                writer.writerow(["record_id", "title", "abstract", "year", "doi", "authors"])
            for _ in range(min(per_file, papers - i)):
                p = corpus.paper(i)
                authors = f"Author {i % 997}, Writer {i % 89}"
                if kind == "csv":
                    writer.writerow([i, p["title"], p["abstract"], p["year"], p["doi"], authors])
                elif kind == "arxiv":
                    handle.write(json.dumps({
                        "id": f"{2000 + i % 20}.{i:05d}", "title": p["title"], "abstract": p["abstract"],
                        "authors": authors, "update_date": f"{p['year']}-01-15", "doi": p["doi"] or None,
                    }) + "\n")
                else:
                    index: dict[str, list[int]] = {}
                    for pos, word in enumerate(p["abstract"].split()):
                        index.setdefault(word, []).append(pos)
                    handle.write(json.dumps({
                        "id": f"https://openalex.org/W{i}", "title": p["title"], "publication_year": p["year"],
                        "doi": f"https://doi.org/{p['doi']}" if p["doi"] else None,
                        "abstract_inverted_index": index,
                        "authorships": [{"author": {"display_name": a.strip()}} for a in authors.split(",")],
                    }) + "\n")
                i += 1
        paths.append(path)
    return paths


# ------------------------------------------------------------------------------------------------ phases


def _rss_mb(who: int) -> float:
    return resource.getrusage(who).ru_maxrss / 1024.0  # Linux: KiB


def run_index_phase(args: argparse.Namespace) -> dict:
    """In a fresh process: index the files, open the lake, time queries. Prints one JSON line."""
    os.environ["AGENTR_LAKE_DIR"] = str(args.lake)
    from agentr_dagster.lake import Lake, add_files

    paths = sorted(Path(args.corpus).glob("part-*"))
    started, cpu0 = time.perf_counter(), time.process_time()
    report = add_files(paths, workers=args.workers)
    index_seconds = time.perf_counter() - started
    index_cpu = time.process_time() - cpu0
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    workers_cpu = children.ru_utime + children.ru_stime
    rejected = [f.name for f in report.rejected]

    t0 = time.perf_counter()
    lake = Lake.open()
    lake.check_model()
    open_seconds = time.perf_counter() - t0
    corpus = Corpus(args.seed)  # the corpus's own vocabulary, so queries hit real topics ...
    corpus.rng = np.random.default_rng(args.seed + 1)  # ... drawn independently of the papers
    queries = [corpus.query(long=i % 2 == 1) for i in range(args.queries)]
    for q in queries[:5]:  # warm the word cache and page in the memory maps, as a long-lived process has
        lake.search(q, 10)
    times = {"short": [], "long": []}
    for i, q in enumerate(queries):
        t0 = time.perf_counter()
        lake.search(q, 10)
        times["long" if i % 2 else "short"].append((time.perf_counter() - t0) * 1000)
    every = times["short"] + times["long"]
    t0 = time.perf_counter()
    mask = lake.boolean_mask(" OR ".join(corpus.query(long=False).split()[:2]))
    boolean_ms = (time.perf_counter() - t0) * 1000

    # a re-import of one file: every record is a duplicate and the file's hash is known, so nothing is profiled
    t0 = time.perf_counter()
    again = add_files(paths[:1])
    reimport_seconds = time.perf_counter() - t0
    return {
        "papers": report.papers, "files": len(paths), "rejected": rejected, "generation": report.generation,
        "index_seconds": round(index_seconds, 2), "timings": report.timings,
        "index_cpu_seconds": round(index_cpu, 2), "parse_workers_cpu_seconds": round(workers_cpu, 2),
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "open_seconds": round(open_seconds, 3),
        "query_ms": {
            "n": len(every), "p50": round(float(np.percentile(every, 50)), 2),
            "p95": round(float(np.percentile(every, 95)), 2), "max": round(float(np.max(every)), 2),
            "short_p95": round(float(np.percentile(times["short"], 95)), 2),
            "long_p95": round(float(np.percentile(times["long"], 95)), 2),
        },
        "boolean_first_ms": round(boolean_ms, 1), "boolean_matches": int(mask.sum()),
        "reimport_seconds": round(reimport_seconds, 2),
        "reimport_already_ingested": bool(again.files[0].already_ingested),
        "peak_rss_mb": round(_rss_mb(resource.RUSAGE_SELF), 1),
        "peak_rss_parse_workers_mb": round(_rss_mb(resource.RUSAGE_CHILDREN), 1),
        "disk_mb": round(sum(f.stat().st_size for f in Path(args.lake).rglob("*") if f.is_file()) / 1e6, 1),
    }


def run_scale(args: argparse.Namespace) -> None:
    work = Path(args.dir) if args.dir else Path(tempfile.mkdtemp(prefix="bench-lake-"))
    corpus_dir, lake = work / "corpus", work / "lake"
    shutil.rmtree(lake, ignore_errors=True)
    if not sorted(corpus_dir.glob("part-*")) or args.regenerate:
        shutil.rmtree(corpus_dir, ignore_errors=True)
        t0 = time.perf_counter()
        paths = write_corpus(corpus_dir, args.papers, args.files, args.seed)
        size = sum(p.stat().st_size for p in paths) / 1e6
        took = time.perf_counter() - t0
        print(f"generated {args.papers} papers in {len(paths)} files ({size:.0f} MB) in {took:.0f}s", file=sys.stderr)
    cmd = [sys.executable, __file__, "--phase", "index", "--corpus", str(corpus_dir), "--lake", str(lake),
           "--workers", str(args.workers), "--queries", str(args.queries), "--seed", str(args.seed)]
    done = subprocess.run(cmd, check=True, capture_output=True, text=True)
    result = json.loads(done.stdout.strip().splitlines()[-1])
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        q = result["query_ms"]
        print(f"lake: {result['papers']} papers from {result['files']} files, cpu count {os.cpu_count()}")
        print(f"index (parse + profile + bm25 + write): {result['index_seconds']:.1f} s wall   {result['timings']}")
        print(f"  cpu: {result['index_cpu_seconds']:.1f} s in the indexing process + "
              f"{result['parse_workers_cpu_seconds']:.1f} s in parse workers; load average {result['load_average']}")
        print(f"open: {result['open_seconds']:.2f} s   disk: {result['disk_mb']} MB")
        print(f"hybrid query (k=10, n={q['n']}): p50 {q['p50']} ms, p95 {q['p95']} ms, max {q['max']} ms "
              f"(short p95 {q['short_p95']}, long p95 {q['long_p95']})")
        print(f"boolean filter over every paper (first call, texts loaded): {result['boolean_first_ms']} ms")
        print(f"re-import of an ingested file: {result['reimport_seconds']} s "
              f"(already ingested: {result['reimport_already_ingested']})")
        print(f"peak RSS: {result['peak_rss_mb']} MB (parse workers: {result['peak_rss_parse_workers_mb']} MB)")
    if not args.dir:
        shutil.rmtree(work, ignore_errors=True)


# ------------------------------------------------------------------------------------------------ quality


def run_quality(args: argparse.Namespace) -> None:
    import pandas as pd

    from agentr_dagster.domain.contracts import PaperRecord
    from agentr_dagster.imports import paper_key
    from agentr_dagster.lake import FusionWeights, Lake, add_files, fuse
    from agentr_dagster.screening.metrics import wss_at

    reviews = sorted(p.parent for p in Path(args.quality).glob("*/review.json"))
    work = Path(tempfile.mkdtemp(prefix="bench-lake-quality-"))
    files = []
    for folder in reviews:
        target = work / "files" / f"{folder.name}.csv"
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(folder / "papers_unlabeled.csv" if (folder / "papers_unlabeled.csv").exists()
                        else folder / "papers.csv", target)
        files.append(target)
    t0 = time.perf_counter()
    add_files(files, root=work / "lake", workers=args.workers)
    lake = Lake.open(work / "lake")
    print(f"one lake of {lake.n} papers from {len(reviews)} reviews in {time.perf_counter() - t0:.0f}s")
    key_to_id = {k: i for i, k in enumerate(lake._table().column("paper_key").to_pylist())}
    configs = {
        "bm25": FusionWeights(dense=0.0, lexical=1.0), "dense": FusionWeights(dense=1.0, lexical=0.0),
        "rrf": FusionWeights(dense=1.0, lexical=1.0), "rrf_d0.5": FusionWeights(dense=0.5, lexical=1.0),
        "default": FusionWeights(),
    }
    for field in ("question", "title"):
        wss = {c: [] for c in configs}
        recall = {c: [] for c in configs}
        print(f"\nWSS@95 within each review, query = review {field}:")
        print(f"{'review':<34}" + "".join(f"{c:>10}" for c in configs))
        for folder in reviews:
            review = json.loads((folder / "review.json").read_text(encoding="utf-8"))
            frame = pd.read_csv(folder / "papers.csv", keep_default_na=False, dtype=str)
            labels: dict[int, int] = {}
            for title, year, doi, inc in zip(frame.title, frame.year, frame.doi, frame.label_included, strict=True):
                try:
                    rec = PaperRecord(title=title, year=int(year) if year.strip() else None, doi=doi or None)
                except ValueError:
                    continue
                lake_id = key_to_id.get(paper_key(rec))
                if lake_id is not None:
                    labels[lake_id] = max(labels.get(lake_id, 0), int(inc))
            ids = np.array(sorted(labels))
            mask = np.zeros(lake.n, dtype=bool)
            mask[ids] = True
            lexical, dense = lake.query_scores(review[field])
            included = {i for i in ids.tolist() if labels[i]}
            row = f"{folder.name[:33]:<34}"
            for name, w in configs.items():
                local = FusionWeights(dense=w.dense, lexical=w.lexical, k=w.k, depth=len(ids))
                top, _, _, _ = fuse(lexical, dense, len(ids), weights=local, mask=mask)
                rest = [i for i in ids.tolist() if i not in set(top.tolist())]
                wss[name].append(wss_at([labels[i] for i in [*top.tolist(), *rest]]))
                whole, _, _, _ = fuse(lexical, dense, 200, weights=w)
                recall[name].append(len(included & set(whole.tolist())) / max(1, len(included)))
                row += f"{wss[name][-1]:>10.3f}"
            print(row)
        print(f"{'MEAN WSS@95':<34}" + "".join(f"{np.mean(wss[c]):>10.3f}" for c in configs))
        print(f"{'MEAN recall@200 (whole lake)':<34}" + "".join(f"{np.mean(recall[c]):>10.3f}" for c in configs))
    shutil.rmtree(work, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--papers", type=int, default=100_000)
    parser.add_argument("--files", type=int, default=4)
    parser.add_argument("--workers", type=int, default=2, help="parse processes")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--dir", default=None, help="keep the corpus and lake here (reused on the next run)")
    parser.add_argument("--regenerate", action="store_true")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--quality", default=None, help="a folder of labelled reviews (papers.csv + review.json)")
    parser.add_argument("--phase", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--corpus", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--lake", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.phase == "index":
        print(json.dumps(run_index_phase(args)))
    elif args.quality:
        run_quality(args)
    else:
        run_scale(args)


if __name__ == "__main__":
    main()
