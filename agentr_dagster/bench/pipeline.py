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

With ``labels=True`` (``--labels``; offline path only) a simulated researcher then labels through the workflow
as a user would, starting from the first export (no labels):

    agentr label <slug> <paper_id> include|exclude          # the two priors `agentr bench screening` draws
    agentr run <slug> --no-progress; agentr export ...        # (same seed -> the same two records)
    agentr labels <slug> --import decisions/round-NNN.csv     # the export's top unlabelled rows, decided
    agentr run <slug> --no-progress; agentr export ...        # ... and again, until ceil(0.95 R) includes

Each round reads the export top-down (the order the person reads), skips the rows already labelled, and decides
the next :func:`round_size` rows from the review's labels (a row holding a merged duplicate of an included
record is an include); the decisions go in as a sheet of ``source_id,title,doi,included`` (the export's own
columns). Round sizes: 10 rows, then 25 % of the labels so far once that is more (labelled after each run: 2,
12, 22, 32, 42, 53, 67, 84, ...): a re-run after every label is what learns best but costs a whole
``agentr run`` each, and with rounds growing by a quarter the re-runs stay near log(labels) / log(1.25) while
the early labels, which move the order most, are each followed soon by one. The order scored: the records in
the order they were labelled, then the rest in the last export's order. Reported beside it: bench screening's
``feedback`` mode on the same review (in-process, :func:`agentr_dagster.bench.screening.review_feedback_order`), the
rounds, and per round the labels so far, includes found and the seconds of ``agentr run`` and ``agentr export``. The
reviews run smallest first and the JSON is written after each, so a stopped run leaves the figures of the reviews it
finished. The review's home then shares this process's transformer vector cache (``AGENTR_EMBEDDING_CACHE``), which
the feedback figure reads too: no text is encoded twice, and the first run's seconds leave out texts met before.
"""

from __future__ import annotations

import math
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
import numpy as np
import pandas as pd

from agentr_dagster.bench.screening import Review, _plain_texts, discover_reviews, load_review, review_feedback_order
from agentr_dagster.imports import normalise_title
from agentr_dagster.imports.identity import normal_doi, titles_alike
from agentr_dagster.screening.metrics import evaluate_order
from agentr_dagster.screening.rankers.lexical import bm25_baseline_scores
from agentr_dagster.screening.scores import order_from_scores
from agentr_dagster.screening.simulation import choose_priors

if TYPE_CHECKING:
    from agentr_dagster.store import DomainStore
    from agentr_dagster.testing.responders import OracleResponder
    from agentr_dagster.testing.scripted_server import ScriptedOpenAIServer

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


@dataclass
class ExportRow:
    """One row of the export, as the simulated researcher reads it: the paper and the review's records it stands
    for (its own record first, then records merged into it as duplicates at import)."""

    paper_id: int
    source_id: str
    title: str
    doi: str
    records: list[int] = field(default_factory=list)


def _export_rows(export_csv: Path, review: Review, store: DomainStore,
                 slug: str) -> tuple[list[ExportRow], list[int], int]:
    """The export's rows best first, each with the positions of the review's records it holds. A record the
    export does not hold (merged with a duplicate at import, or dropped) goes with the row of the same title (or
    a near-identical one), else to the tail, in file order. Returns (rows, tail, records matched by id)."""
    frame = pd.read_csv(export_csv, dtype=str, keep_default_na=False)
    if "source_id" in frame.columns:
        ids = [s.strip() for s in frame["source_id"]]
    else:  # an export without the user's id: back through the store's paper id
        source = {str(p.id): (p.source_id or "") for p in store.projects.list_papers(slug)}
        ids = [source.get(str(pid).strip(), "") for pid in frame["paper_id"]]
    raw_titles = list(frame["title"]) if "title" in frame.columns else [""] * len(frame)
    dois = list(frame["doi"]) if "doi" in frame.columns else [""] * len(frame)
    rows = [ExportRow(int(pid), rid, str(title), str(doi))
            for pid, rid, title, doi in zip(frame["paper_id"], ids, raw_titles, dois, strict=True)]
    position = {rid: i for i, rid in enumerate(review.record_ids)}
    titles = [normalise_title(str(t)) for t in raw_titles]
    taken: set[int] = set()
    for row in rows:
        index = position.get(row.source_id)
        if index is not None and index not in taken:
            row.records.append(index)
            taken.add(index)
    # a merged record goes with the row of its DOI, else of its title and year (two papers may share a title),
    # else of its title
    row_of_doi: dict[str, int] = {}
    for i, doi in enumerate(dois):
        key = normal_doi(str(doi))
        if key:
            row_of_doi.setdefault(key, i)
    years = [_year(v) for v in frame["year"]] if "year" in frame.columns else [""] * len(frame)
    row_of_title: dict[str, int] = {}
    row_of_title_year: dict[tuple[str, str], int] = {}
    for i, (title, year) in enumerate(zip(titles, years, strict=True)):
        row_of_title.setdefault(title, i)
        row_of_title_year.setdefault((title, year), i)
    tail: list[int] = []
    for index, title in enumerate(review.titles):
        if index in taken:
            continue
        title = normalise_title(title) if title.strip() else ""
        year = _year(review.years[index]) if index < len(review.years) else ""
        doi = normal_doi(review.dois[index]) if index < len(review.dois) else None
        at = row_of_doi.get(doi) if doi else None
        if at is None and title:
            at = row_of_title_year.get((title, year), row_of_title.get(title))
            at = at if at is not None else _near_title(title, titles)
        (rows[at].records if at is not None else tail).append(index)
    return rows, tail, len(taken)


def _year(value) -> str:
    """A year cell as digits ("2001" from 2001, "2001.0" or " 2001 "; "" when it is not a year)."""
    try:
        return str(int(float(str(value).strip())))
    except (ValueError, OverflowError):
        return ""


def _export_order(export_csv: Path, review: Review, store: DomainStore, slug: str) -> tuple[np.ndarray, int]:
    """The export's rows as positions into the review's records, best first (see :func:`_export_rows`).
    Returns (order, number of records not in the export)."""
    rows, tail, matched = _export_rows(export_csv, review, store, slug)
    order = [i for row in rows for i in row.records] + tail
    return np.asarray(order, dtype=np.int64), len(review.record_ids) - matched


def _near_title(title: str, titles: list[str]) -> int | None:
    """The export row whose title is near-identical (the importer merges those as duplicates), if any."""
    for row, other in enumerate(titles):
        if titles_alike(title, other, 0.9):
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


# -- the simulated researcher (--labels) ---------------------------------------------------------------------

# Round sizes: a person labels the top ``ROUND_FIRST`` unlabelled rows of the export, re-runs, and reads on;
# once they have labelled more, a round is ``ROUND_SHARE`` of what they have labelled so far (a session grows
# with the confidence the list has earned). Re-training after every label is best for quality (bench screening
# does it up to 100 labels) but costs a whole `agentr run` here; growing rounds keep the re-runs to about
# log(labels) / log(1 + share) while every early label, where learning moves the order most, is still
# followed soon by a re-run.
ROUND_FIRST = 10
ROUND_SHARE = 0.25


def round_size(n_labelled: int) -> int:
    """Rows to label before the next `agentr run`, after ``n_labelled`` labels."""
    return max(ROUND_FIRST, math.ceil(ROUND_SHARE * n_labelled))


@dataclass
class _Researcher:
    """What the simulated researcher has labelled: records in the order read, and the papers labelled."""

    labels: np.ndarray
    order: list[int] = field(default_factory=list)
    seen: set[int] = field(default_factory=set)
    papers: dict[int, str] = field(default_factory=dict)  # paper id -> include | exclude

    def read(self, row: ExportRow, first: int | None = None) -> str:
        """Read one export row: its records join the labelled order (``first`` leading), and the paper gets the
        decision its records carry (include when any of them is included: they are one paper)."""
        records = row.records if first is None else [first, *(i for i in row.records if i != first)]
        decision = "include" if any(self.labels[i] for i in records) else "exclude"
        for i in records:
            if i not in self.seen:
                self.order.append(i)
                self.seen.add(i)
        self.papers[row.paper_id] = decision
        return decision

    def found(self) -> int:
        return int(sum(self.labels[i] for i in self.order))


def _write_decisions(path: Path, rows: list[ExportRow], decisions: list[str]) -> None:
    """The rows read this round with the decision made, as a person fills in a column of the export."""
    path.parent.mkdir(parents=True, exist_ok=True)
    pd.DataFrame({"source_id": [r.source_id for r in rows], "title": [r.title for r in rows],
                  "doi": [r.doi for r in rows], "included": [1 if d == "include" else 0 for d in decisions]},
                 ).to_csv(path, index=False)


def _check_labels(store: DomainStore, slug: str, expected: dict[int, str]) -> None:
    stored = {row.paper_id: row.label for row in store.labels.list_labels(slug)}
    if stored != expected:
        wrong = sorted(set(stored.items()) ^ set(expected.items()))[:5]
        raise BenchStepError(f"{slug}: the store's labels differ from the decisions given (e.g. {wrong})")


def simulate_labelling(cli: _Cli, slug: str, home: Path, review: Review, store: DomainStore, *, seed: int = 0,
                       schedule: Callable[[int], int] = round_size) -> dict[str, Any]:
    """A researcher labelling through the workflow, from the last export in ``home/export``: the two priors
    bench screening draws with ``seed`` (``agentr label``), then the top unlabelled export rows in rounds of
    ``schedule(labelled)`` (a decisions sheet through ``agentr labels --import``), each followed by
    ``agentr run`` and ``agentr export``, until ceil(0.95 R) includes are labelled. Returns the composed
    order (records in the order labelled, then the rest in the last export's order) with per-round figures."""
    y = review.labels
    target = max(1, math.ceil(0.95 * int(y.sum()) - 1e-9))
    export_csv = home / "export" / "scores.csv"
    rows, tail, _ = _export_rows(export_csv, review, store, slug)
    person = _Researcher(y)
    priors = choose_priors(y, seed)
    row_of = {i: row for row in rows for i in row.records}
    for prior in priors:
        if prior not in row_of:
            raise BenchStepError(f"{slug}: prior record {review.record_ids[prior]} is in no export row")
        row = row_of[prior]
        cli("label", slug, f"id:{row.paper_id}", person.read(row, first=prior))
    _check_labels(store, slug, person.papers)
    rounds: list[dict[str, Any]] = []

    def rerun(read: int, records: list[int]) -> tuple[list[ExportRow], list[int]]:
        t0 = time.perf_counter()
        cli("run", slug, "--no-progress")
        t1 = time.perf_counter()
        cli("export", slug, "--format", "csv", "--out", str(home / "export"))
        rounds.append({"read": read, "labelled": len(person.papers), "found": person.found(),
                       "run_s": round(t1 - t0, 2), "export_s": round(time.perf_counter() - t1, 2),
                       "records": [review.record_ids[i] for i in records]})
        new_rows, new_tail, _ = _export_rows(export_csv, review, store, slug)
        return new_rows, new_tail

    rows, tail = rerun(len(priors), list(person.order))
    while person.found() < target:
        unlabelled = [row for row in rows if row.paper_id not in person.papers]
        if not unlabelled:
            break  # every row labelled: the includes left are records the export does not hold
        batch = unlabelled[: max(1, int(schedule(len(person.papers))))]
        before = len(person.order)
        decisions = [person.read(row) for row in batch]
        sheet = home / "decisions" / f"round-{len(rounds):03d}.csv"
        _write_decisions(sheet, batch, decisions)
        cli("labels", slug, "--import", str(sheet))
        _check_labels(store, slug, person.papers)
        rows, tail = rerun(len(batch), person.order[before:])
    rest = [i for row in rows for i in row.records if i not in person.seen]
    rest += [i for i in tail if i not in person.seen and i not in rest]
    return {"order": np.asarray(person.order + rest, dtype=np.int64), "labelled_order": list(person.order),
            "priors": [int(p) for p in priors], "target": target, "found": person.found(),
            "labelled_papers": len(person.papers), "rounds": rounds}


def _oracle_server(review: Review) -> tuple[ScriptedOpenAIServer, OracleResponder, set[str]]:
    from agentr_dagster.testing.responders import oracle_responder
    from agentr_dagster.testing.scripted_server import ScriptedOpenAIServer

    included = {normalise_title(t) for t, y in zip(review.titles, review.labels, strict=True) if y and t.strip()}
    responder = oracle_responder(included, normalise=normalise_title)
    return ScriptedOpenAIServer(responder, model=ORACLE_MODEL).start(), responder, included


def bench_review(folder: Path, work: Path, *, cli_main: click.Command, oracle: bool, stop_at_recall: float | None,
                 say: Callable[[str], None], labels: bool = False, seed: int = 0) -> dict[str, Any]:
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
    # the oracle's figures are calls and recall, not seconds: its runs may reuse vectors encoded before too
    env = _review_env(home, database_url, share_vector_cache=labels or oracle)
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
        if responder is not None:  # the oracle's
            entry["oracle"] = _oracle_figures(responder.scored, included, entry["papers_in_project"], stop_at_recall)
            entry["oracle"]["stopping"] = _stopping_rule(store, slug)
        t0 = time.perf_counter()
        cli("screen", "--question", str(question), "--papers", str(papers_csv), "--out", str(home / "screen.csv"))
        entry["methods"]["screen"] = {**_metrics(_screen_order(home / "screen.csv", review), y),
                                      "seconds": round(time.perf_counter() - t0, 2)}
        if labels:
            t0 = time.perf_counter()
            simulated = simulate_labelling(cli, slug, home, review, store, seed=seed)
            entry["methods"]["labels"] = {**_metrics(simulated["order"], y),
                                          "seconds": round(time.perf_counter() - t0, 2)}
            entry["labelling"] = {**simulated, **{k: [review.record_ids[i] for i in simulated[k]]
                                                  for k in ("order", "labelled_order", "priors")}}
    finally:
        if server is not None:
            server.stop()
    t0 = time.perf_counter()
    bm25 = order_from_scores(bm25_baseline_scores(review.question, _plain_texts(review)))
    entry["methods"]["bm25"] = {**_metrics(bm25, y), "seconds": round(time.perf_counter() - t0, 2)}
    if labels:
        t0 = time.perf_counter()
        entry["methods"]["feedback"] = {**_metrics(review_feedback_order(review, seed), y),
                                        "seconds": round(time.perf_counter() - t0, 2)}
    say(_summary_line(entry))
    return entry


def _review_env(home: Path, database_url: str, *, share_vector_cache: bool) -> dict[str, str | None]:
    """One review's environment: its own home, store, lake and instance; no endpoint or shared limits."""
    env: dict[str, str | None] = {
        "AGENTR_HOME": str(home), "DAGSTER_HOME": None, "AGENTR_DATABASE_URL": database_url,
        "AGENTR_LAKE_DIR": str(home / "lake"), "AGENTR_LLM_BASE_URL": None, "AGENTR_REDIS_URL": None,
        "AGENTR_LLM_RPM": None, "AGENTR_LLM_TPM": None, "AGENTR_LLM_MAX_CONCURRENT": None,
    }
    if share_vector_cache:  # the feedback figure, computed in this process, reads the same vectors: encode once
        from agentr_dagster.domain.embedding_cache import default_cache_dir

        env["AGENTR_EMBEDDING_CACHE"] = str(default_cache_dir())
    return env


def _oracle_figures(scored_titles, included: set[str], papers: int, stop_at_recall: float | None) -> dict:
    """Calls the oracle answered, the share of includes among them, and the calls saved against scoring all."""
    scored = set(scored_titles)
    found = sum(1 for t in included if t in scored)
    calls = len(scored_titles)
    return {
        "calls": calls, "papers": papers, "recall_at_stop": round(found / len(included), 4) if included else None,
        "calls_saved": papers - calls, "calls_saved_share": round(1 - calls / papers, 4) if papers else None,
        "stop_at_recall": stop_at_recall,
        # the judgements in the order the calls came (the gain curve a stopping rule reads; replayable offline)
        "sequence": [1 if t in included else 0 for t in scored_titles],
    }


def _stopping_rule(store: DomainStore, slug: str) -> dict | None:
    """What the run's stopping rule said last (recall interval, estimate, reason), from the scoring queue's record."""
    from agentr_dagster.stages.scoring import QUEUE_STAGE

    artifact = store.results.latest_artifact(slug, QUEUE_STAGE)
    return artifact.payload.get("recall") if artifact is not None else None


def _summary_line(entry: dict) -> str:
    line = "  ".join(f"{m}={r['wss95']:.3f}" for m, r in entry["methods"].items())
    if "oracle" in entry:
        o = entry["oracle"]
        line += f"  oracle: {o['calls']}/{o['papers']} calls, recall at stop {o['recall_at_stop']}"
        if o.get("stopping"):
            line += f" (rule: recall >= {o['stopping']['recall_lower']}, {o['stopping']['reason']})"
    if "labelling" in entry:
        done = entry["labelling"]
        line += (f"  labelled {done['labelled_papers']} in {len(done['rounds']) - 1} rounds"
                 f" ({entry['methods']['labels']['seconds']:.0f}s)")
    return f"{entry['name']}: {line}  ({entry['methods']['export']['seconds']:.0f}s)"


def _mean(values: list[float]) -> float | None:
    vals = [v for v in values if v is not None and not (isinstance(v, float) and math.isnan(v))]
    return round(float(np.mean(vals)), 4) if vals else None


def run_pipeline_bench(root: Path, *, cli_main: click.Command, oracle: bool = False,
                       stop_at_recall: float | None = None, names: list[str] | None = None,
                       progress: Callable[[str], None] | None = None, labels: bool = False, seed: int = 0,
                       checkpoint: Callable[[dict], None] | None = None) -> dict:
    """Every review under ``root`` (or those in ``names``), through ``cli_main`` (the ``agentr`` root command:
    passed in, so this module does not import the CLI that mounts it). ``oracle`` needs ``stop_at_recall``
    (default 0.95). ``labels``: the simulated researcher too (offline only; priors drawn with ``seed``), the
    reviews smallest first. ``checkpoint`` gets the result so far after each review."""
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
    if labels and oracle:
        raise RuntimeError("--labels runs the offline path; it does not combine with --oracle")
    if labels or oracle:  # the long modes: the cheap reviews first, so that a stopped run has their figures
        folders.sort(key=lambda f: (f / "papers.csv").stat().st_size)
    if oracle and stop_at_recall is None:
        stop_at_recall = 0.95
    started = time.perf_counter()
    reviews: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="agentr-bench-pipeline-") as tmp:
        for folder in folders:
            reviews.append(bench_review(folder, Path(tmp), cli_main=cli_main, oracle=oracle,
                                        stop_at_recall=stop_at_recall, say=say, labels=labels, seed=seed))
            if checkpoint is not None:
                checkpoint(_summary(root, reviews, oracle=oracle, stop_at_recall=stop_at_recall, labels=labels,
                                    seed=seed, seconds=time.perf_counter() - started, complete=False))
    return _summary(root, reviews, oracle=oracle, stop_at_recall=stop_at_recall, labels=labels, seed=seed,
                    seconds=time.perf_counter() - started, complete=True)


def _summary(root: Path, reviews: list[dict[str, Any]], *, oracle: bool, stop_at_recall: float | None,
             labels: bool, seed: int, seconds: float, complete: bool) -> dict:
    methods = _methods(labels)
    mean = {m: {k: _mean([r["methods"][m][k] for r in reviews]) for k in METRICS} for m in methods}
    result: dict[str, Any] = {
        "dir": str(root), "oracle": oracle, "stop_at_recall": stop_at_recall, "labels": labels,
        "complete": complete, "reviews": reviews, "mean": mean,
        "export_at_least_screen": sum(
            1 for r in reviews if r["methods"]["export"]["wss95"] >= r["methods"]["screen"]["wss95"] - 1e-9),
        "seconds": round(seconds, 1),
    }
    if oracle and stop_at_recall is not None:  # bench_reviews gives the oracle a target
        shares = [r["oracle"]["calls"] / r["oracle"]["papers"] for r in reviews if r["oracle"]["papers"]]
        recalls = [r["oracle"]["recall_at_stop"] for r in reviews]
        result["oracle_summary"] = {
            "mean_calls_share": _mean(shares),
            "mean_recall_at_stop": _mean(recalls),
            "reviews_reaching_target": sum(1 for v in recalls if v is not None and v >= stop_at_recall - 1e-9),
        }
    if labels:
        result["seed"] = seed
        result["schedule"] = (f"priors, then rounds of max({ROUND_FIRST}, ceil({ROUND_SHARE} x labelled)) rows, "
                              "each followed by agentr run + export")
        result["labels_summary"] = {
            "mean_rounds": _mean([len(r["labelling"]["rounds"]) - 1 for r in reviews]),
            "run_seconds": round(sum(x["run_s"] for r in reviews for x in r["labelling"]["rounds"]), 1),
            "labels_at_least_feedback": sum(1 for r in reviews if r["methods"]["labels"]["wss95"]
                                            >= r["methods"]["feedback"]["wss95"] - 1e-9),
        }
    return result


def _methods(labels: bool) -> tuple[str, ...]:
    return (*METHODS, "labels", "feedback") if labels else METHODS


def format_pipeline(result: dict) -> str:
    """Per review WSS@95 and recall@10/20 % of the export order, `agentr screen` and BM25 (with --labels also the
    simulated researcher's order and bench screening's feedback); then the means."""
    names = [r["name"] for r in result["reviews"]]
    methods = _methods(bool(result.get("labels")))
    w = max([len("review"), len("mean"), *(len(n) for n in names)]) + 2
    cols = [(m, k) for m in methods for k in METRICS]
    head = "review".ljust(w) + "".join(f"{m}:{k.replace('recall', 'r@')}".rjust(14) for m, k in cols)
    lines = ["WSS@95 and recall at 10 %/20 % of the list (export = the main job's export order)", head]
    for r in result["reviews"]:
        lines.append(r["name"].ljust(w) + "".join(f"{r['methods'][m][k]:.3f}".rjust(14) for m, k in cols))
    lines.append("mean".ljust(w) + "".join(
        (f"{result['mean'][m][k]:.3f}" if result["mean"][m][k] is not None else "-").rjust(14) for m, k in cols))
    lines.append(f"export >= screen (WSS@95) on {result['export_at_least_screen']} of {len(names)} reviews")
    if result.get("labels"):
        lines += ["", f"simulated researcher (labels = records in the order labelled, then the last export's order; "
                  f"feedback = bench screening's mode, seed {result['seed']}): {result['schedule']}",
                  "review".ljust(w) + "N".rjust(7) + "R".rjust(6) + "target".rjust(8) + "labelled".rjust(10)
                  + "rounds".rjust(8) + "run s".rjust(9) + "labels".rjust(9) + "feedback".rjust(10)]
        for r in result["reviews"]:
            done = r["labelling"]
            run_s = sum(x["run_s"] for x in done["rounds"])
            lines.append(r["name"].ljust(w) + f"{r['n_records']:>7}{r['n_included']:>6}{done['target']:>8}"
                         f"{done['labelled_papers']:>10}{len(done['rounds']) - 1:>8}{run_s:>9.0f}"
                         f"{r['methods']['labels']['wss95']:>9.3f}{r['methods']['feedback']['wss95']:>10.3f}")
        s = result["labels_summary"]
        lines.append(f"mean WSS@95 labels {result['mean']['labels']['wss95']}, feedback "
                     f"{result['mean']['feedback']['wss95']}; labels >= feedback on {s['labels_at_least_feedback']} "
                     f"of {len(names)}; mean rounds {s['mean_rounds']}; agentr run {s['run_seconds']} s in all")
    if result.get("oracle"):
        lines += ["", f"LLM path, oracle screener, --stop-at-recall {result['stop_at_recall']}",
                  "review".ljust(w) + "calls".rjust(8) + "papers".rjust(8) + "recall@stop".rjust(13)
                  + "saved".rjust(8) + "saved %".rjust(9) + "  rule's recall bound (confidence, basis)"]
        for r in result["reviews"]:
            o = r["oracle"]
            share = f"{100 * o['calls_saved_share']:.1f}" if o["calls_saved_share"] is not None else "-"
            rule = o.get("stopping") or {}
            basis = rule.get("basis", "sample")  # "model": the decaying-rate model, above the sample's floor
            bound = f"  >= {rule['recall_lower']} ({rule['confidence']}, {basis})" if rule else ""
            lines.append(r["name"].ljust(w) + f"{o['calls']:>8}{o['papers']:>8}{o['recall_at_stop']!s:>13}"
                         f"{o['calls_saved']:>8}{share:>9}{bound}")
        s = result["oracle_summary"]
        lines.append(f"mean calls / papers {s['mean_calls_share']}, mean recall at stop {s['mean_recall_at_stop']}, "
                     f"{s['reviews_reaching_target']} of {len(names)} reviews reached {result['stop_at_recall']}")
    lines.append(f"seconds: {result['seconds']}")
    return "\n".join(lines)
