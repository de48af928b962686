"""`agentr bench e2e ROOT [ROOT...]`: the product as a user meets it, from the question to the includes.

The records of every labelled review folder under the roots (shaped like ``../shared/data/screening/<name>/``) are
pooled into one corpus (:mod:`agentr_dagster.testing.pooled`) and served on loopback as OpenAlex, PubMed and Europe
PMC (the replay server: their formats, default sorts and paging), so that each review's search meets the other
reviews' records as distractors. The project's default per-query cap (``AGENTR_SOURCE_MAX_RESULTS``) applies. For
each review, in a fresh ``AGENTR_HOME`` per project (its own store and paper lake):

    agentr project add <slug> --abstract question.md      # the review's question alone
    agentr run <slug> --no-progress                         # searches the three sources; no imported file
    agentr export <slug> --format csv --out export/

again with 5 of the review's includes stored as seed studies first (drawn as ``bench queries`` draws them; stored
with :func:`agentr_dagster.stages.seeds.save_seeds`, what ``agentr queries SLUG --seeds FILE`` calls, before the run
generates the queries), and the same two from the review's ``published_abstract`` where review.json has one or,
failing that, from the abstract written for the bench from its question where one is given
(``--written-abstracts``: :func:`agentr_dagster.bench.queries.load_written_abstracts`); each abstract run says
its ``source`` (published / written). Reported per project:

* ``recall``: the share of the review's includes the project holds (what the search found);
* ``retrieved_vs_n``: the project's papers over N, the expert's own record count for the review;
* ``effort``: records read in the export's order until 90 % / 95 % of ALL the review's includes are found, over N
  (None where the project never holds that many: ``reached`` says so).

With seeds, recall and effort count the includes other than the 5 seeds (those are in hand). Beside them: the
question's words OR-ed as the query (``content_words_baseline``), sent to the same three sources with the same cap
and its papers ranked by ``agentr screen``; and ``agentr screen`` on the expert's own candidate list (today's effort
for a user who brings the search's records). Means per review group (Cohen's drug reviews apart from the rest) and
per kind of question (as ``bench queries`` reports it).

A source is read as a background of many topics (the intent's hit-count background, the pseudo-relevance
feedback's weighing) only when it holds ``AGENTR_SOURCE_BACKGROUND_MIN_RECORDS`` records (a million), which the
pool (about 27,000 records of the shared reviews) never does. ``pool_as_database`` lets the pool stand for a
general database, as the public OpenAlex would: each project runs with that bar at the pool's paper count (what
the server reports as the records it holds). Without it the bar is the product's default, whatever the calling
shell sets. Each run records the background its intent was judged by and what the feedback did.
"""

from __future__ import annotations

import math
import random
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click
import numpy as np
import pandas as pd

from agentr_dagster.bench.pipeline import UNLABELLED, _Cli, _review_env, _screen_order, _slug
from agentr_dagster.bench.queries import is_drug_review, load_written_abstracts, question_kind, review_abstract
from agentr_dagster.bench.screening import Review, discover_reviews, load_review
from agentr_dagster.domain.boolean_query import parse_boolean_query
from agentr_dagster.domain.specificity import MIN_BACKGROUND_RECORDS
from agentr_dagster.llm.offline.concepts import content_words_baseline
from agentr_dagster.settings import SourcesConfig, get_settings
from agentr_dagster.sources.cache import ResponseCache
from agentr_dagster.sources.contract import SourceQuery
from agentr_dagster.sources.registry import SEARCH_SOURCES
from agentr_dagster.testing.pooled import POOL_SOURCES, Pool, PooledReplayServer, PoolRecord, pool_records

__all__ = ["format_e2e", "run_e2e_bench"]

LEVELS = (0.9, 0.95)
SEEDS = 5
#: The product's bar for a source to be a background of many topics; the bench's runs get it unless the pool
#: stands for a general database (``pool_as_database``).
DEFAULT_BACKGROUND_MIN_RECORDS: int = SourcesConfig.model_fields["background_min_records"].default


def review_group(name: str) -> str:
    return "drug" if is_drug_review(name) else "non-drug"


# -- figures --------------------------------------------------------------------------------------------------

def effort(new_includes_per_row: list[int], includes: int, n_expert: int) -> dict[str, Any]:
    """Rows read, in order, until ``ceil(level x includes)`` includes are found, over ``n_expert``; None for a level
    the rows never reach."""
    out: dict[str, Any] = {}
    cumulative = np.cumsum(np.asarray(new_includes_per_row, dtype=np.int64)) if new_includes_per_row else np.zeros(0)
    for level in LEVELS:
        target = max(1, math.ceil(level * includes - 1e-9))
        reached = bool(len(cumulative)) and includes > 0 and int(cumulative[-1]) >= target
        rows = int(np.searchsorted(cumulative, target) + 1) if reached else None
        out[f"{level:g}"] = round(rows / n_expert, 4) if rows is not None and n_expert else None
        out[f"rows_{level:g}"] = rows
    return out


def _figures(order_members: list[set[int]], includes: set[int], n_expert: int, papers: int) -> dict[str, Any]:
    """Recall, papers over N and effort of one ranked list (each row: the review's record indices it holds)."""
    seen: set[int] = set()
    per_row = []
    for members in order_members:
        new = (members & includes) - seen
        seen |= new
        per_row.append(len(new))
    found = len(seen)
    return {"papers": papers, "retrieved_vs_n": round(papers / n_expert, 4) if n_expert else None,
            "includes_found": found, "recall": round(found / len(includes), 4) if includes else None,
            "effort": effort(per_row, len(includes), n_expert)}


# -- the pooled corpus -----------------------------------------------------------------------------------------

def _cell(value: str) -> str:
    text = str(value or "").strip()
    return "" if text.casefold() == "nan" else text


def _year(value: str) -> int | None:
    try:
        return int(float(_cell(value)))
    except ValueError:
        return None


def pool_of(reviews: list[Review]) -> Pool:
    records = [PoolRecord(rv.name, i, _cell(rv.titles[i]), _cell(rv.abstracts[i]),
                          _year(rv.years[i]) if i < len(rv.years) else None,
                          _cell(rv.dois[i]) if i < len(rv.dois) else None)
               for rv in reviews for i in range(len(rv.record_ids))]
    return pool_records(records)


def _members_of(pool: Pool, name: str, numbers: set[int]) -> set[int]:
    return {index for n in numbers for owner, index in pool.members.get(n, ()) if owner == name}


# -- one project through the CLI -------------------------------------------------------------------------------

def _sources_env(server: PooledReplayServer, background_min_records: int | None = None) -> dict[str, str | None]:
    """The pooled sources for one project; ``background_min_records`` the bar a source must reach to be a
    background of many topics (None: the product's default)."""
    env: dict[str, str | None] = {
        "AGENTR_SOURCES": ",".join(sorted(POOL_SOURCES)), "AGENTR_SOURCE_REQUEST_INTERVAL": "0",
        "AGENTR_SOURCE_MAX_RESULTS": None,
        "AGENTR_SOURCE_BACKGROUND_MIN_RECORDS": None if background_min_records is None else str(background_min_records),
    }
    for source in sorted(POOL_SOURCES):
        env[f"AGENTR_{source.upper()}_URL"] = server.base_url(source)
    return env


def run_project(cli_main: click.Command, server: PooledReplayServer, work: Path, slug: str, text: str,
                seeds_csv: Path | None = None, background_min_records: int | None = None,
                keep_exports: Path | None = None) -> tuple[pd.DataFrame, str, float, dict[str, Any]]:
    """``text`` as a new project's abstract, run against the pooled sources, exported: (the export's rows best
    first, `agentr run`'s output, seconds, what judged its terms: :func:`_backgrounds`). ``keep_exports``: a folder
    the export's ``scores.csv`` is also copied to, as ``<slug>.csv`` (the work folder is deleted after the bench)."""
    from agentr_dagster.stages.seeds import save_seeds
    from agentr_dagster.store import DomainStore

    home = work / slug
    home.mkdir(parents=True)
    (home / "abstract.md").write_text(text + "\n", encoding="utf-8")
    database_url = f"sqlite:///{home / 'store.db'}"
    cli = _Cli(cli_main, {**_review_env(home, database_url, share_vector_cache=False),
                          **_sources_env(server, background_min_records)})
    started = time.perf_counter()
    cli("project", "add", slug, "--abstract", str(home / "abstract.md"))
    if seeds_csv is not None:  # before the run: the queries are generated with the seeds in hand
        save_seeds(DomainStore(database_url), slug, seeds_csv)
    output = cli("run", slug, "--no-progress")
    cli("export", slug, "--format", "csv", "--out", str(home / "export"))
    frame = pd.read_csv(home / "export" / "scores.csv", dtype=str, keep_default_na=False)
    if keep_exports is not None:
        keep_exports.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(home / "export" / "scores.csv", keep_exports / f"{slug}.csv")
    return frame, output, round(time.perf_counter() - started, 2), _backgrounds(DomainStore(database_url), slug, text)


def _backgrounds(store: Any, slug: str, text: str) -> dict[str, Any]:
    """The background the project's intent was judged by, its Boolean query (before any feedback widened it), and
    what the pseudo-relevance feedback did: the terms it added and its background, or why it did not (the stored
    reason; without an artefact a gate before the weighing stopped it, or the background failed part-way:
    `candidate_papers`' ``prf_skipped`` says which)."""
    from agentr_dagster.llm.offline.concepts import is_review_question
    from agentr_dagster.stages.search import PSEUDO_FEEDBACK_STAGE

    intent = store.results.latest_artifact(slug, "intent")
    feedback = store.results.latest_artifact(slug, PSEUDO_FEEDBACK_STAGE)
    prf: dict[str, Any]
    if feedback is None:
        prf = {"ran": False, "reason": "the project's text is a review question" if is_review_question(text) else
               "no artefact: stopped before the weighing (seeds, an edited query, no match) or the background "
               "failed part-way (candidate_papers' prf_skipped)"}
    elif feedback.payload.get("reason"):
        prf = {"ran": False, "reason": str(feedback.payload["reason"])}
    else:
        prf = {"ran": True, "background": feedback.payload.get("background"),
               "added_terms": feedback.payload.get("added_terms") or {}}
    queries = store.results.latest_artifact(slug, "queries")
    return {"intent_background": (intent.payload.get("background") or "") if intent is not None else None,
            "boolean_query": queries.payload.get("boolean_query") if queries is not None else None, "prf": prf}


def _export_members(frame: pd.DataFrame, pool: Pool, name: str) -> list[set[int]]:
    dois = frame["doi"] if "doi" in frame else [""] * len(frame)
    return [_members_of(pool, name, pool.numbers(doi, title)) for doi, title in zip(dois, frame["title"], strict=True)]


def _draw_seeds(review: Review, seeds: int, seed: int) -> list[int]:
    """The includes given as seed studies: the draw ``bench queries`` makes (same seed string)."""
    includes = [i for i in range(len(review.labels)) if review.labels[i]]
    if not seeds or len(includes) <= seeds:
        return []
    return sorted(random.Random(f"{seed}:{review.name}").sample(includes, seeds))


def _write_seeds(path: Path, review: Review, chosen: list[int]) -> Path:
    pd.DataFrame({"title": [_cell(review.titles[i]) for i in chosen],
                  "abstract": [_cell(review.abstracts[i]) for i in chosen],
                  "doi": [_cell(review.dois[i]) if i < len(review.dois) else "" for i in chosen]}).to_csv(path,
                                                                                                           index=False)
    return path


# -- the two baselines ---------------------------------------------------------------------------------------

def or_of_words(cli_main: click.Command, server: PooledReplayServer, pool: Pool, review: Review, work: Path,
                includes: set[int]) -> dict[str, Any]:
    """The question's words OR-ed, sent to the pooled sources in the Boolean query's place (with its cap), ranked
    by `agentr screen`."""
    query = content_words_baseline(review.question)
    section = get_settings().sources
    cap = max(section.max_results, section.boolean_max_results)
    numbers: list[int] = []
    for name in sorted(POOL_SOURCES):
        client = SEARCH_SOURCES[name](server.base_url(name), cache=ResponseCache(), request_interval=0.0)
        outcome = client.search(SourceQuery(name="or-of-words", text=query, tree=parse_boolean_query(query)),
                                max_results=cap)
        for hit in outcome.hits:
            numbers += sorted(pool.numbers(hit.record.doi, hit.record.title))
    numbers = list(dict.fromkeys(numbers))
    home = work / f"{_slug(review.name)}-or-of-words"
    home.mkdir(parents=True)
    by_number = {p.number: p for p in server.papers}
    retrieved = home / "retrieved.csv"
    pd.DataFrame({"record_id": [str(n) for n in numbers], "title": [by_number[n].title for n in numbers],
                  "abstract": [by_number[n].abstract for n in numbers]}).to_csv(retrieved, index=False)
    (home / "question.md").write_text(review.question + "\n", encoding="utf-8")
    members = []
    if numbers:
        cli = _Cli(cli_main, _review_env(home, f"sqlite:///{home / 'store.db'}", share_vector_cache=False))
        cli("screen", "--question", str(home / "question.md"), "--papers", str(retrieved), "--out",
            str(home / "screen.csv"))
        ranked = pd.read_csv(home / "screen.csv", dtype=str, keep_default_na=False).sort_values(
            "rank", key=lambda s: s.astype(int), kind="stable")
        members = [_members_of(pool, review.name, {int(r)}) for r in ranked["record_id"]]
    return {"query": query, **_figures(members, includes, len(review.labels), len(numbers))}


def screen_expert_list(cli_main: click.Command, review: Review, folder: Path, work: Path,
                       includes: set[int]) -> dict[str, Any]:
    """`agentr screen` on the expert's own candidate list: the effort a user bringing those records has today."""
    home = work / f"{_slug(review.name)}-screen"
    home.mkdir(parents=True)
    (home / "question.md").write_text(review.question + "\n", encoding="utf-8")
    cli = _Cli(cli_main, _review_env(home, f"sqlite:///{home / 'store.db'}", share_vector_cache=False))
    cli("screen", "--question", str(home / "question.md"), "--papers", str(folder / UNLABELLED), "--out",
        str(home / "screen.csv"))
    order = _screen_order(home / "screen.csv", review)
    return _figures([{int(i)} for i in order], includes, len(review.labels), len(review.labels))


def _steps(folder: Path, review: Review, seed: int, seeds: int, written: dict[str, str] | None = None) -> int:
    """The projects run for a review (question, abstract; each with and without seeds) and the two baselines."""
    texts = 2 if review_abstract(folder, review.name, written)[0] else 1
    return texts * (2 if _draw_seeds(review, seeds, seed) else 1) + 2


# -- one review --------------------------------------------------------------------------------------------------

def bench_review(folder: Path, review: Review, pool: Pool, server: PooledReplayServer, work: Path, *,
                 cli_main: click.Command, seed: int, step: Callable[[str], None], seeds: int = SEEDS,
                 written: dict[str, str] | None = None, background_min_records: int | None = None,
                 keep_exports: Path | None = None) -> dict[str, Any]:
    """One review's projects (its question; its published abstract, else the one ``written`` has for it), each
    with and without seeds, and the two baselines."""
    includes = {i for i in range(len(review.labels)) if review.labels[i]}
    n = len(review.labels)
    entry: dict[str, Any] = {"name": review.name, "group": review_group(review.name),
                             "kind": question_kind(review.question), "n_records": n, "n_includes": len(includes),
                             "runs": {}}
    chosen = _draw_seeds(review, seeds, seed)
    rest = includes - set(chosen)
    seeds_csv = _write_seeds(work / f"{_slug(review.name)}-seeds.csv", review, chosen) if chosen else None
    texts = {"question": review.question}
    abstract, source = review_abstract(folder, review.name, written)
    if abstract:
        texts["abstract"] = abstract
        entry["abstract_source"] = source
    for kind, text in texts.items():
        for seeded in (False, True):
            if seeded and seeds_csv is None:
                continue
            label = f"{kind}+seeds" if seeded else kind
            step(f"{review.name}: {label}")
            slug = _slug(f"{review.name}-{label}")
            frame, output, seconds, backgrounds = run_project(cli_main, server, work, slug, text,
                                                              seeds_csv if seeded else None, background_min_records,
                                                              keep_exports=keep_exports)
            members = _export_members(frame, pool, review.name)
            figures = _figures(members, rest if seeded else includes, n, len(frame))
            entry["runs"][label] = {**figures, **({"source": source} if kind == "abstract" else {}),
                                    "seconds": seconds, **backgrounds,
                                    "summary": next((line for line in output.splitlines()
                                                     if "have a current score" in line), "")}
    step(f"{review.name}: or-of-words")
    entry["or_of_words"] = or_of_words(cli_main, server, pool, review, work, includes)
    step(f"{review.name}: screen the expert's list")
    entry["screen_expert_list"] = screen_expert_list(cli_main, review, folder, work, includes)
    return entry


# -- the whole bench -----------------------------------------------------------------------------------------

def run_label(label: str, run: dict[str, Any]) -> str:
    """A run's label with its text's source where it has one: "abstract (written)" is not "abstract (published)"."""
    return f"{label} ({run['source']})" if run.get("source") else label


def _mean(values: list[float | None]) -> float | None:
    vals = [v for v in values if v is not None]
    return round(statistics.mean(vals), 4) if vals else None


def _means(rows: list[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {"n": len(rows)}
    methods: dict[str, list[dict]] = {}
    for r in rows:
        for label, run in r["runs"].items():
            methods.setdefault(run_label(label, run), []).append(run)
        methods.setdefault("or-of-words", []).append(r["or_of_words"])
        methods.setdefault("screen expert list", []).append(r["screen_expert_list"])
    for label, runs in methods.items():
        out[label] = {"n": len(runs), "recall": _mean([x["recall"] for x in runs]),
                      "retrieved_vs_n": _mean([x["retrieved_vs_n"] for x in runs]),
                      **{f"effort_{lv:g}": _mean([x["effort"][f"{lv:g}"] for x in runs]) for lv in LEVELS},
                      **{f"reached_{lv:g}": sum(1 for x in runs if x["effort"][f"{lv:g}"] is not None)
                         for lv in LEVELS}}
    return out


def summarise(reviews: list[dict[str, Any]]) -> dict[str, Any]:
    groups = sorted({r["group"] for r in reviews})
    kinds = sorted({r["kind"] for r in reviews})
    return {"all": _means(reviews),
            "by_group": {g: _means([r for r in reviews if r["group"] == g]) for g in groups},
            "by_kind": {k: _means([r for r in reviews if r["kind"] == k]) for k in kinds}}


def run_e2e_bench(roots: list[Path], *, cli_main: click.Command, names: list[str] | None = None, seed: int = 0,
                  seeds: int = SEEDS, progress: bool = True, checkpoint: Callable[[dict], None] | None = None,
                  written_abstracts: Path | None = None, pool_as_database: bool = False,
                  keep_exports: Path | None = None) -> dict[str, Any]:
    """Every review under ``roots`` (or those named) against the pool of all of them (see the module docstring).
    ``cli_main``: the ``agentr`` root command (passed in: this module does not import the CLI that mounts it).
    ``seeds=0`` leaves out the seeded runs (each costs another `agentr run`). ``written_abstracts``: a file of
    abstracts written for the bench; a review without a published abstract is also run from its written one.
    ``pool_as_database``: the pool stands for a general database (its sources are a background of many topics).
    ``keep_exports``: each project's export is kept there as ``<slug>.csv`` (the slug names review and run)."""
    from tqdm import tqdm

    folders = [f for root in roots for f in discover_reviews(Path(root))]
    if not folders:
        raise FileNotFoundError(f"no review folders with papers.csv under {', '.join(map(str, roots))}")
    loaded = {f: load_review(f) for f in folders}
    chosen = folders
    if names:
        chosen = [f for f in folders if f.name in set(names) or loaded[f].name in set(names)]
        unknown = set(names) - {f.name for f in chosen} - {loaded[f].name for f in chosen}
        if unknown:
            raise FileNotFoundError(f"no review folder {', '.join(sorted(unknown))} under the roots")
    written = load_written_abstracts(written_abstracts) if written_abstracts is not None else None
    started = time.perf_counter()
    pool = pool_of(list(loaded.values()))
    # the server reports its papers as the records it holds: the bar at that count lets the pool be a background
    min_records = len(pool.papers) if pool_as_database else None
    reviews: list[dict[str, Any]] = []

    def result(complete: bool) -> dict[str, Any]:
        return {"roots": [str(r) for r in roots], "pool": {"reviews": len(folders), "records": sum(
            len(rv.labels) for rv in loaded.values()), "papers": len(pool.papers)}, "seed": seed, "seeds": seeds,
            "cap_per_query": get_settings().sources.max_results,
            "cap_boolean_query": get_settings().sources.boolean_max_results, "sources": sorted(POOL_SOURCES),
            "written_abstracts": str(written_abstracts) if written_abstracts is not None else None,
            "pool_as_database": pool_as_database,
            "source_background_min_records": min_records if pool_as_database else DEFAULT_BACKGROUND_MIN_RECORDS,
            "complete": complete, "reviews": reviews, "summary": summarise(reviews),
            "seconds": round(time.perf_counter() - started, 1)}

    steps = sum(_steps(f, loaded[f], seed, seeds, written) for f in chosen)
    with (PooledReplayServer(pool.papers) as server,
          tempfile.TemporaryDirectory(prefix="agentr-bench-e2e-") as tmp,
          tqdm(total=steps, desc="bench e2e", unit="step", disable=not progress) as bar):

        begun = [False]

        def step(text: str) -> None:  # called as each step starts: the bar counts the steps done
            if begun[0]:
                bar.update(1)
            begun[0] = True
            bar.set_postfix_str(text[:60])

        for folder in chosen:
            reviews.append(bench_review(folder, loaded[folder], pool, server, Path(tmp), cli_main=cli_main,
                                        seed=seed, step=step, seeds=seeds, written=written,
                                        background_min_records=min_records, keep_exports=keep_exports))
            if checkpoint is not None:
                checkpoint(result(False))
        bar.update(1)
    return result(True)


# -- the table ------------------------------------------------------------------------------------------------

def _f(value: Any) -> str:
    return f"{value:.3f}" if isinstance(value, float | int) and not isinstance(value, bool) else "-"


def _effort(run: dict[str, Any], level: float) -> str:
    value = run["effort"][f"{level:g}"]
    return _f(value) if value is not None else "never"


def _background_line(result: dict[str, Any]) -> str:
    bar = result.get("source_background_min_records")
    if result.get("pool_as_database") and isinstance(bar, int) and bar < MIN_BACKGROUND_RECORDS:
        return (f"pool as a general database (--pool-as-database), but its {bar} papers are under the "
                f"{MIN_BACKGROUND_RECORDS} any background needs: no source hit counts")
    if result.get("pool_as_database"):
        return (f"pool as a general database (--pool-as-database): AGENTR_SOURCE_BACKGROUND_MIN_RECORDS={bar}, so "
                "a source's hit counts are a background of many topics (the intent's; the feedback's)")
    return (f"AGENTR_SOURCE_BACKGROUND_MIN_RECORDS={bar} (the product's default): the pool is no background of "
            "many topics (no source hit counts, no pseudo-relevance feedback)")


def _prf_text(prf: dict[str, Any]) -> str:
    if not prf.get("ran"):
        return f"not run: {prf.get('reason')}"
    added = "; ".join(f"{block}: {', '.join(terms)}" for block, terms in prf["added_terms"].items())
    return f"{added or 'no term added'} ({prf.get('background')})"


def format_e2e(result: dict[str, Any]) -> str:
    """Per review and method: recall, retrieved/N, effort to 90 % and 95 % over N; then the means per group/kind."""
    lines = [f"pool: {result['pool']['records']} records of {result['pool']['reviews']} reviews as "
             f"{result['pool']['papers']} papers on {', '.join(result['sources'])}; per source, the Boolean query (and "
             f"the or-of-words in its place) capped at {result.get('cap_boolean_query', result['cap_per_query'])}, "
             f"each search string at {result['cap_per_query']}", _background_line(result), "",
             "| review | group | method | recall | retrieved/N | effort@90 | effort@95 |",
             "|---|---|---|---:|---:|---:|---:|"]
    for r in result["reviews"]:
        methods = [*((run_label(label, run), run) for label, run in r["runs"].items()),
                   ("or-of-words", r["or_of_words"]), ("screen expert list", r["screen_expert_list"])]
        for label, run in methods:
            lines.append(f"| {r['name']} | {r['group']} | {label} | {_f(run['recall'])} | "
                         f"{_f(run['retrieved_vs_n'])} | {_effort(run, 0.9)} | {_effort(run, 0.95)} |")
    lines += ["", "| review | run | the intent's background | pseudo-relevance feedback |", "|---|---|---|---|"]
    for r in result["reviews"]:
        for label, run in r["runs"].items():
            if "prf" in run:
                lines.append(f"| {r['name']} | {run_label(label, run)} | {run.get('intent_background') or '-'} | "
                             f"{_prf_text(run['prf'])} |")
    summary = result["summary"]
    lines += ["", "| means | method | n | recall | retrieved/N | effort@90 (reached) | effort@95 (reached) |",
              "|---|---|---:|---:|---:|---:|---:|"]
    blocks = [("all", summary["all"]), *summary["by_group"].items(), *(
        (f"kind: {k}", v) for k, v in summary["by_kind"].items())]
    for name, means in blocks:
        for label, m in means.items():
            if label == "n":
                continue
            lines.append(f"| {name} | {label} | {m['n']} | {_f(m['recall'])} | {_f(m['retrieved_vs_n'])} | "
                         f"{_f(m['effort_0.9'])} ({m['reached_0.9']}) | {_f(m['effort_0.95'])} ({m['reached_0.95']}) |")
    lines.append(f"\nseconds: {result['seconds']}")
    return "\n".join(lines)
