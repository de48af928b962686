"""`agentr bench pipeline DIR`: the main job run as a user runs it, judged on labelled reviews.

DIR holds review folders shaped like ``../shared/data/screening/<name>/`` (``review.json`` with the question,
``papers_unlabeled.csv`` for the candidates, ``papers.csv`` with ``label_included`` for judging). For each review,
in a fresh ``AGENTR_HOME`` (its own SQLite store and Dagster instance), the real CLI is invoked:

    agentr project add <slug> --abstract question.md
    agentr papers add <slug> papers_unlabeled.csv
    agentr run <slug> --no-progress [--stop-at-recall R]
    agentr export <slug> --format csv --out <dir>
    agentr screen --question question.md --papers papers_unlabeled.csv --out screen.csv

and the export's row order, mapped back to the user's record ids (its ``source_id``), is scored with WSS@95 and
recall at 10 %/20 % (:mod:`agentr_dagster.screening.metrics`) beside ``agentr screen``'s order and plain BM25 of
the question. The labels are used only for judging (and, with ``--oracle``, by the scripted server).

With ``oracle=True`` the run goes through the LLM path against the scripted OpenAI-compatible server on loopback,
whose scoring answers come from the labels (a perfect screener: an included paper gets high similarity and C2,
an excluded one low), with ``agentr run --stop-at-recall``; reported per review: scoring calls made, the share
of the includes scored when scoring stopped, and the calls saved against scoring every candidate.
"""

from __future__ import annotations

import math
import tempfile
import time
from collections.abc import Callable
from difflib import SequenceMatcher
from pathlib import Path
from typing import Any

import click
import numpy as np
import pandas as pd

from agentr_dagster.bench.screening import Review, _plain_texts, discover_reviews, load_review
from agentr_dagster.imports import normalise_title
from agentr_dagster.screening.metrics import evaluate_order
from agentr_dagster.screening.rankers.lexical import bm25_baseline_scores
from agentr_dagster.screening.scores import order_from_scores

__all__ = ["format_pipeline", "run_pipeline_bench"]

METHODS = ("export", "screen", "bm25")
METRICS = ("wss95", "recall10", "recall20")
ORACLE_MODEL = "oracle-screener"
UNLABELLED = "papers_unlabeled.csv"


class BenchStepError(RuntimeError):
    """A CLI step of the bench failed; the message holds its output."""


def _slug(name: str) -> str:
    cleaned = "".join(ch if ch.isalnum() else "-" for ch in name.lower()).strip("-")
    return "-".join(part for part in cleaned.split("-") if part)[:60] or "review"


class _Cli:
    """The ``agentr`` command line, invoked in-process with one review's environment."""

    def __init__(self, main: click.Command, env: dict[str, str | None]):
        from click.testing import CliRunner

        self.main, self.env, self.runner = main, env, CliRunner()

    def __call__(self, *args: str) -> str:
        result = self.runner.invoke(self.main, list(args), env=self.env, catch_exceptions=True)
        if result.exit_code != 0:
            detail = (result.output or "")[-2000:]
            if result.exception is not None and not isinstance(result.exception, SystemExit):
                detail += f"\n{type(result.exception).__name__}: {result.exception}"
            raise BenchStepError(f"agentr {' '.join(args[:2])} failed (exit {result.exit_code}): {detail.strip()}")
        return result.output


def _export_order(export_csv: Path, review: Review, store, slug: str) -> tuple[np.ndarray, int]:
    """The export's rows as positions into the review's records, best first; records the export does not hold
    (merged with a duplicate at import, or dropped) follow their duplicate when the title matches, else come
    (or a near-identical one), else come last in file order. Returns (order, number of records not in the
    export)."""
    frame = pd.read_csv(export_csv, dtype=str, keep_default_na=False)
    if "source_id" in frame.columns:
        ids = [s.strip() for s in frame["source_id"]]
    else:  # an export without the user's id: back through the store's paper id
        source = {str(p.id): (p.source_id or "") for p in store.projects.list_papers(slug)}
        ids = [source.get(str(pid).strip(), "") for pid in frame["paper_id"]]
    position = {rid: i for i, rid in enumerate(review.record_ids)}
    titles = [normalise_title(str(t)) for t in frame.get("title", pd.Series([""] * len(frame)))]
    placed: list[list[int]] = [[] for _ in range(len(frame))]
    taken: set[int] = set()
    for row, rid in enumerate(ids):
        index = position.get(rid)
        if index is not None and index not in taken:
            placed[row].append(index)
            taken.add(index)
    row_of_title = {}
    for row, title in enumerate(titles):
        row_of_title.setdefault(title, row)
    tail: list[int] = []
    for index, title in enumerate(review.titles):
        if index in taken:
            continue
        title = normalise_title(title) if title.strip() else ""
        row = (row_of_title.get(title) if title in row_of_title else _near_title(title, titles)) if title else None
        (placed[row] if row is not None else tail).append(index)
    order = [i for group in placed for i in group] + tail
    return np.asarray(order, dtype=np.int64), len(review.record_ids) - len(taken)


def _near_title(title: str, titles: list[str]) -> int | None:
    """The export row whose title is near-identical (the importer merges those as duplicates), if any."""
    for row, other in enumerate(titles):
        matcher = SequenceMatcher(None, title, other, autojunk=False)
        if matcher.real_quick_ratio() >= 0.9 and matcher.quick_ratio() >= 0.9 and matcher.ratio() >= 0.9:
            return row
    return None


def _screen_order(screen_csv: Path, review: Review) -> np.ndarray:
    frame = pd.read_csv(screen_csv, dtype=str, keep_default_na=False).sort_values(
        "rank", key=lambda s: s.astype(int), kind="stable")
    position = {rid: i for i, rid in enumerate(review.record_ids)}
    order = [position[r] for r in frame["record_id"] if r in position]
    seen = set(order)
    return np.asarray(order + [i for i in range(len(review.record_ids)) if i not in seen], dtype=np.int64)


def _metrics(order: np.ndarray, labels: np.ndarray) -> dict[str, float]:
    return {k: float(round(v, 4)) for k, v in evaluate_order(labels[order]).items()}


def _oracle_server(review: Review):
    from agentr_dagster.testing.responders import oracle_responder
    from agentr_dagster.testing.scripted_server import ScriptedOpenAIServer

    included = {normalise_title(t) for t, y in zip(review.titles, review.labels, strict=True) if y and t.strip()}
    responder = oracle_responder(included, normalise=normalise_title)
    return ScriptedOpenAIServer(responder, model=ORACLE_MODEL).start(), responder, included


def _run_supports_stop_rule() -> bool:
    from agentr_dagster.cli.run import run

    return any(p.name == "stop_at_recall" for p in run.params)


def bench_review(folder: Path, work: Path, *, cli_main: click.Command, oracle: bool, stop_at_recall: float | None,
                 say: Callable[[str], None]) -> dict[str, Any]:
    """One review through the CLI in a fresh home under ``work``: figures for every method."""
    from agentr_dagster.store import DomainStore

    review = load_review(folder)
    papers_csv = folder / UNLABELLED
    if not papers_csv.is_file():
        raise FileNotFoundError(f"{folder} has no {UNLABELLED} (the candidates the main job is given)")
    slug, home = _slug(review.name), work / _slug(review.name)
    home.mkdir(parents=True)
    question = home / "question.md"
    question.write_text(review.question + "\n", encoding="utf-8")
    database_url = f"sqlite:///{home / 'store.db'}"
    env: dict[str, str | None] = {
        "AGENTR_HOME": str(home), "DAGSTER_HOME": None, "AGENTR_DATABASE_URL": database_url,
        "AGENTR_LAKE_DIR": str(home / "lake"), "AGENTR_LLM_BASE_URL": None, "AGENTR_REDIS_URL": None,
        "AGENTR_LLM_RPM": None, "AGENTR_LLM_TPM": None, "AGENTR_LLM_MAX_CONCURRENT": None,
    }
    server = responder = None
    if oracle:
        server, responder, included = _oracle_server(review)
        env.update(AGENTR_LLM_BASE_URL=server.base_url, AGENTR_LLM_MODEL=ORACLE_MODEL,
                   AGENTR_LLM_API_KEY="sk-bench-oracle-not-a-key", AGENTR_LLM_PROVIDER=None)
    cli = _Cli(cli_main, env)
    y = review.labels
    entry: dict[str, Any] = {"name": review.name, "n_records": len(y), "n_included": int(y.sum()), "methods": {}}
    try:
        t0 = time.perf_counter()
        cli("project", "add", slug, "--abstract", str(question))
        cli("papers", "add", slug, str(papers_csv))
        if oracle:
            cli("pricing", "set", ORACLE_MODEL, "--input", "0.15", "--output", "0.60")
            cli("credits", "grant", "1000000000", "--note", "bench pipeline --oracle")
        run_args = ["run", slug, "--no-progress"]
        if stop_at_recall is not None:
            run_args += ["--stop-at-recall", str(stop_at_recall)]
        cli(*run_args)
        cli("export", slug, "--format", "csv", "--out", str(home / "export"))
        run_s = time.perf_counter() - t0
        store = DomainStore(database_url)
        order, missing = _export_order(home / "export" / "scores.csv", review, store, slug)
        entry["methods"]["export"] = {**_metrics(order, y), "seconds": round(run_s, 2)}
        entry["not_in_export"] = missing
        entry["papers_in_project"] = store.projects.count_papers(slug)
        if oracle:
            scored = set(responder.scored)
            found = sum(1 for t in included if t in scored)
            calls = len(responder.scored)
            n = entry["papers_in_project"]
            entry["oracle"] = {
                "calls": calls, "papers": n, "recall_at_stop": round(found / len(included), 4) if included else None,
                "calls_saved": n - calls, "calls_saved_share": round(1 - calls / n, 4) if n else None,
                "stop_at_recall": stop_at_recall,
            }
        t0 = time.perf_counter()
        cli("screen", "--question", str(question), "--papers", str(papers_csv), "--out", str(home / "screen.csv"))
        entry["methods"]["screen"] = {**_metrics(_screen_order(home / "screen.csv", review), y),
                                      "seconds": round(time.perf_counter() - t0, 2)}
    finally:
        if server is not None:
            server.stop()
    t0 = time.perf_counter()
    bm25 = order_from_scores(bm25_baseline_scores(review.question, _plain_texts(review)))
    entry["methods"]["bm25"] = {**_metrics(bm25, y), "seconds": round(time.perf_counter() - t0, 2)}
    line = "  ".join(f"{m}={entry['methods'][m]['wss95']:.3f}" for m in METHODS)
    if oracle:
        o = entry["oracle"]
        line += f"  oracle: {o['calls']}/{o['papers']} calls, recall at stop {o['recall_at_stop']}"
    say(f"{review.name}: {line}  ({entry['methods']['export']['seconds']:.0f}s)")
    return entry


def _mean(values: list[float]) -> float | None:
    vals = [v for v in values if v is not None and not (isinstance(v, float) and math.isnan(v))]
    return round(float(np.mean(vals)), 4) if vals else None


def run_pipeline_bench(root: Path, *, cli_main: click.Command, oracle: bool = False,
                       stop_at_recall: float | None = None, names: list[str] | None = None,
                       progress: Callable[[str], None] | None = None) -> dict:
    """Every review under ``root`` (or those in ``names``), through ``cli_main`` (the ``agentr`` root command:
    passed in, so this module does not import the CLI that mounts it). ``oracle`` needs ``stop_at_recall``
    (default 0.95)."""
    say = progress or (lambda _line: None)
    folders = discover_reviews(Path(root))
    if names:
        wanted = set(names)
        folders = [f for f in folders if f.name in wanted]
        unknown = wanted - {f.name for f in folders}
        if unknown:
            raise FileNotFoundError(f"no review folder {', '.join(sorted(unknown))} under {root}")
    if not folders:
        raise FileNotFoundError(f"no review folders with papers.csv under {root}")
    if oracle and stop_at_recall is None:
        stop_at_recall = 0.95
    if stop_at_recall is not None and not _run_supports_stop_rule():
        raise RuntimeError("this build's `agentr run` has no --stop-at-recall (the stopping rule)")
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="agentr-bench-pipeline-") as tmp:
        reviews = [bench_review(f, Path(tmp), cli_main=cli_main, oracle=oracle, stop_at_recall=stop_at_recall, say=say)
                   for f in folders]
    mean = {m: {k: _mean([r["methods"][m][k] for r in reviews]) for k in METRICS} for m in METHODS}
    result: dict[str, Any] = {
        "dir": str(root), "oracle": oracle, "stop_at_recall": stop_at_recall, "reviews": reviews, "mean": mean,
        "export_at_least_screen": sum(
            1 for r in reviews if r["methods"]["export"]["wss95"] >= r["methods"]["screen"]["wss95"] - 1e-9),
        "seconds": round(time.perf_counter() - started, 1),
    }
    if oracle:
        shares = [r["oracle"]["calls"] / r["oracle"]["papers"] for r in reviews if r["oracle"]["papers"]]
        recalls = [r["oracle"]["recall_at_stop"] for r in reviews]
        result["oracle_summary"] = {
            "mean_calls_share": _mean(shares),
            "mean_recall_at_stop": _mean(recalls),
            "reviews_reaching_target": sum(1 for v in recalls if v is not None and v >= stop_at_recall - 1e-9),
        }
    return result


def format_pipeline(result: dict) -> str:
    """Per review WSS@95 and recall@10/20 % of the export order, `agentr screen` and BM25; then the means."""
    names = [r["name"] for r in result["reviews"]]
    w = max([len("review"), len("mean"), *(len(n) for n in names)]) + 2
    cols = [(m, k) for m in METHODS for k in METRICS]
    head = "review".ljust(w) + "".join(f"{m}:{k.replace('recall', 'r@')}".rjust(14) for m, k in cols)
    lines = ["WSS@95 and recall at 10 %/20 % of the list (export = the main job's export order)", head]
    for r in result["reviews"]:
        lines.append(r["name"].ljust(w) + "".join(f"{r['methods'][m][k]:.3f}".rjust(14) for m, k in cols))
    lines.append("mean".ljust(w) + "".join(
        (f"{result['mean'][m][k]:.3f}" if result["mean"][m][k] is not None else "-").rjust(14) for m, k in cols))
    lines.append(f"export >= screen (WSS@95) on {result['export_at_least_screen']} of {len(names)} reviews")
    if result.get("oracle"):
        lines += ["", f"LLM path, oracle screener, --stop-at-recall {result['stop_at_recall']}",
                  "review".ljust(w) + "calls".rjust(8) + "papers".rjust(8) + "recall@stop".rjust(13)
                  + "saved".rjust(8) + "saved %".rjust(9)]
        for r in result["reviews"]:
            o = r["oracle"]
            share = f"{100 * o['calls_saved_share']:.1f}" if o["calls_saved_share"] is not None else "-"
            lines.append(r["name"].ljust(w) + f"{o['calls']:>8}{o['papers']:>8}{o['recall_at_stop']!s:>13}"
                         f"{o['calls_saved']:>8}{share:>9}")
        s = result["oracle_summary"]
        lines.append(f"mean calls / papers {s['mean_calls_share']}, mean recall at stop {s['mean_recall_at_stop']}, "
                     f"{s['reviews_reaching_target']} of {len(names)} reviews reached {result['stop_at_recall']}")
    lines.append(f"seconds: {result['seconds']}")
    return "\n".join(lines)
