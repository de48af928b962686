"""`agentr bench scoring|overhead|growth|pipeline|e2e`: figures printed (and JSON with --json), never asserted."""

from __future__ import annotations

import json
from pathlib import Path

import click

from agentr_dagster.cli.queries import written_abstracts_option, written_abstracts_path


def _write(result: dict, out: str | None) -> None:
    if out:
        with open(out, "w", encoding="utf-8") as handle:
            json.dump(result, handle, indent=2)


@click.command("scoring")
@click.option("--papers", type=int, default=64, show_default=True)
@click.option("--latency", type=float, default=0.5, show_default=True, help="seconds per call at the server")
@click.option("--concurrency", "concurrency", type=int, multiple=True, default=(16,), show_default=True,
              help="parallel calls; repeat for several (the sequential run is always measured too)")
@click.option("--database-url", default=None, help="domain store for the run (default: a temporary SQLite)")
@click.option("--json", "as_json", is_flag=True, help="print the result as JSON before the summary line")
@click.option("--out", default=None, help="also write the JSON result to this file")
def bench_scoring_command(papers, latency, concurrency, database_url, as_json, out) -> None:
    """Speedup of parallel scoring over sequential, against the scripted server on loopback.

    The last line is always `speedup=<x> sequential_s=<a> parallel_s=<b>` for the highest concurrency."""
    from agentr_dagster.bench.scoring import format_speedup, run_speedup

    result = run_speedup(papers, latency, sorted(set(concurrency)), database_url)
    _write(result, out)
    click.echo(json.dumps(result, indent=2) if as_json else format_speedup(result))
    sequential, best = result["runs"][0], result["runs"][-1]
    click.echo(f"speedup={best['speedup']} sequential_s={sequential['wall_s']} parallel_s={best['wall_s']}")


@click.command("overhead")
@click.option("--papers", type=int, default=300, show_default=True)
@click.option("--concurrency", type=int, default=1, show_default=True)
@click.option("--database-url", default=None)
@click.option("--json", "as_json", is_flag=True)
@click.option("--out", default=None)
def bench_overhead_command(papers, concurrency, database_url, as_json, out) -> None:
    """Per-paper cost of orchestration, persistence and ledger at zero server latency."""
    from agentr_dagster.bench.scoring import run_overhead

    result = run_overhead(papers, concurrency, database_url)
    _write(result, out)
    click.echo(json.dumps(result, indent=2) if as_json else
               f"{result['database']}: {result['papers_per_s']} papers/s, {result['ms_per_paper']} ms/paper")


@click.command("growth")
@click.option("--papers", "paper_sizes", type=int, multiple=True, default=(100, 1000, 10000), show_default=True)
@click.option("--projects", "project_sizes", type=int, multiple=True, default=(10, 100, 1000), show_default=True)
@click.option("--database-url", default=None)
@click.option("--json", "as_json", is_flag=True)
@click.option("--out", default=None)
def bench_growth_command(paper_sizes, project_sizes, database_url, as_json, out) -> None:
    """Time and peak memory at 1x, 10x and 100x papers per project and projects per instance."""
    from agentr_dagster.bench.growth import format_growth, run_growth

    result = run_growth(list(paper_sizes), list(project_sizes), database_url)
    _write(result, out)
    click.echo(json.dumps(result, indent=2) if as_json else format_growth(result))


@click.command("pipeline")
@click.argument("root", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--review", "names", multiple=True, help="Only this review folder (repeatable).")
@click.option("--oracle", is_flag=True, help="The LLM path against the scripted server, judging from the labels.")
@click.option("--stop-at-recall", type=click.FloatRange(0, 1, min_open=True), default=None,
              help="Passed to `agentr run` (default 0.95 with --oracle).")
@click.option("--labels", is_flag=True,
              help="Also a simulated researcher: the two priors of `bench screening`, then the export's top "
                   "unlabelled rows in growing rounds (`agentr label`/`labels --import`, `run`, `export`) until "
                   "95 % of the includes are labelled. Offline only; reviews run smallest first.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the priors (with --labels).")
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="JSON result, written after every review (default .bench/pipeline.json, "
                   ".bench/pipeline-oracle.json with --oracle, .bench/pipeline-labels.json with --labels).")
def bench_pipeline_command(root: Path, names: tuple[str, ...], oracle: bool, stop_at_recall: float | None,
                           labels: bool, seed: int, out: Path | None) -> None:
    """The main job as a user runs it (project add, papers add, run, export) on labelled review folders:
    WSS@95 and recall@10/20 % of the export order beside `agentr screen` and BM25."""
    from agentr_dagster.bench.pipeline import format_pipeline, run_pipeline_bench

    out = out or Path(".bench") / ("pipeline-oracle.json" if oracle else "pipeline-labels.json" if labels
                                   else "pipeline.json")
    out.parent.mkdir(parents=True, exist_ok=True)
    try:
        result = run_pipeline_bench(root, cli_main=click.get_current_context().find_root().command, oracle=oracle,
                                    stop_at_recall=stop_at_recall, names=list(names) or None,
                                    progress=lambda line: click.echo(line, err=True), labels=labels, seed=seed,
                                    checkpoint=lambda partial: _write(partial, str(out)))
    except (FileNotFoundError, RuntimeError) as exc:
        raise click.ClickException(str(exc)) from exc
    _write(result, str(out))
    click.echo(format_pipeline(result))
    click.echo(f"json: {out}")


@click.command("e2e")
@click.argument("roots", nargs=-1, required=True, type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--review", "names", multiple=True, help="Only this review (repeatable); the pool still holds all.")
@click.option("--seed", type=int, default=0, show_default=True, help="Draw of the seed studies.")
@click.option("--seeds", type=click.IntRange(min=0), default=5, show_default=True,
              help="Seed studies given in the seeded runs (0: no seeded run; each costs another `agentr run`).")
@click.option("--no-progress", is_flag=True)
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), default=Path(".bench") / "e2e.json",
              show_default=True, help="JSON result, written after every review.")
@written_abstracts_option
@click.option("--pool-as-database", is_flag=True,
              help="Let the pool stand for a general database: its sources' hit counts become a background of many "
                   "topics (AGENTR_SOURCE_BACKGROUND_MIN_RECORDS at the pool's paper count in each run, instead of "
                   "the default million), so the intent's source background and the pseudo-relevance feedback run "
                   "as with the public OpenAlex. The pool holds each review's own records: its subject is common.")
@click.option("--keep-exports", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Keep each project's export (scores.csv) in this folder as <slug>.csv, for a look at what was "
                   "ranked where (scripts/e2e_found_by.py reads them).")
def bench_e2e_command(roots: tuple[Path, ...], names: tuple[str, ...], seed: int, seeds: int, no_progress: bool,
                      out: Path, written: str | None, pool_as_database: bool, keep_exports: Path | None) -> None:
    """From the question (and a published or written abstract) to the includes: every review's records pooled and
    served as OpenAlex, PubMed and Europe PMC; per review `agentr run` from the question alone, with 5 seed studies,
    an OR of the question's words, and `agentr screen` on the expert's list: recall, retrieved/N and effort to
    90/95 %."""
    from agentr_dagster.bench.e2e import format_e2e, run_e2e_bench

    written_path = written_abstracts_path(written)
    out.parent.mkdir(parents=True, exist_ok=True)
    try:
        result = run_e2e_bench(list(roots), cli_main=click.get_current_context().find_root().command,
                               names=list(names) or None, seed=seed, seeds=seeds, progress=not no_progress,
                               checkpoint=lambda partial: _write(partial, str(out)), written_abstracts=written_path,
                               pool_as_database=pool_as_database, keep_exports=keep_exports)
    except (FileNotFoundError, RuntimeError) as exc:
        raise click.ClickException(str(exc)) from exc
    _write(result, str(out))
    click.echo(format_e2e(result))
    click.echo(f"json: {out}")
