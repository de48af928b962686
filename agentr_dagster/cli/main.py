"""`agentr`: the command line. Every command honours AGENTR_HOME (default ./.agentr)."""

from __future__ import annotations

import shutil
import sys
import threading
import time
from decimal import Decimal
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

import click

from agentr_dagster.cli.common import echo_json, fail, json_default, open_store
from agentr_dagster.settings import agentr_home, dagster_home, get_settings, results_dir

DEMO_SLUG = "demo-slr-automation"


@click.group()
@click.version_option(package_name="agentr-dagster")
def main() -> None:
    """agentr-dagster: durable, recoverable, cost-audited literature reviews on Dagster."""


# ---------------------------------------------------------------- projects and papers
@main.group()
def project() -> None:
    """Create and delete research projects (Dagster partitions)."""


@project.command("add")
@click.argument("slug")
@click.option("--abstract", "abstract_file", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              required=True, help="A text or Markdown file holding the research abstract.")
@click.option("--title", default=None)
@click.option("--budget", type=float, default=None, help="Budget cap for this project, in credits.")
def project_add(slug: str, abstract_file: Path, title: str | None, budget: float | None) -> None:
    from agentr_dagster.domain.contracts import validate_slug
    from agentr_dagster.stages.intake import IntakeError, add_project, read_abstract

    try:
        validate_slug(slug)
        row = add_project(open_store(), slug, read_abstract(abstract_file), title=title, budget_credits=budget)
    except (IntakeError, ValueError) as exc:
        fail(str(exc))
    _ensure_partition(slug)
    click.echo(f"project {row.slug} ready; next: agentr papers add {row.slug} FILE, then agentr run {row.slug}")


@project.command("delete")
@click.argument("slug")
def project_delete(slug: str) -> None:
    """Soft delete: the project and its papers stop being worked on; usage and ledger rows stay for audit."""
    store = open_store()
    try:
        store.projects.soft_delete_project(slug)
    except Exception as exc:  # noqa: BLE001
        fail(str(exc))
    click.echo(f"project {slug} deleted (soft); its usage and ledger rows are kept")


@main.group()
def papers() -> None:
    """Candidate papers."""


@papers.command("add")
@click.argument("slug")
@click.argument("files", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path))
def papers_add(slug: str, files: tuple[Path, ...]) -> None:
    """Import candidate files into a project: CSV / TSV, Excel, BibTeX, RIS, PubMed (MEDLINE), Web of Science,
    EndNote XML, JSONL / JSON (OpenAlex, arXiv)."""
    from agentr_dagster.stages.intake import IntakeError, add_papers_file

    store = open_store()
    failed = False
    for path in files:
        try:
            result = add_papers_file(store, slug, path)
        except (IntakeError, ValueError) as exc:
            click.echo(f"rejected {path.name}: {exc}", err=True)
            failed = True
            continue
        except Exception as exc:  # noqa: BLE001 - e.g. ProjectNotFound
            fail(str(exc))
        if result.already_imported:
            click.echo(f"{path.name}: already imported; nothing added")
            continue
        click.echo(f"{path.name}: {result.added} added, {result.duplicates} duplicates, {result.dropped} rows dropped")
        for note in result.notes[:10]:
            click.echo(f"  dropped {note}")
    if failed:
        sys.exit(2)


# ---------------------------------------------------------------- running
def _ensure_partition(slug: str) -> None:
    from agentr_dagster.defs.instance import ensure_partition, open_instance

    with open_instance() as instance:
        ensure_partition(instance, slug)


def run_project(slug: str, *, show_progress: bool = True, verbose: bool = False) -> bool:
    """Materialise the whole chain for one project on the local Dagster instance; True on success."""
    from dagster import materialize

    from agentr_dagster.defs.assets import pipeline_assets
    from agentr_dagster.defs.instance import open_instance
    from agentr_dagster.defs.resources import resources_from_env

    store = open_store()
    store.projects.get_project(slug)
    _ensure_partition(slug)
    total = store.projects.count_papers(slug)
    stop = threading.Event()
    watcher = None
    if show_progress and total:
        watcher = threading.Thread(target=_progress_bar, args=(store, slug, total, stop), daemon=True)
        watcher.start()
    try:
        with open_instance() as instance:
            result = materialize(
                pipeline_assets, partition_key=slug, instance=instance, resources=resources_from_env(),
                raise_on_error=False, tags={"agentr/source": "cli"},
                # The progress bar and summary say what happened; step-by-step logs stay in the UI.
                run_config={"loggers": {"console": {"config": {"log_level": "DEBUG" if verbose else "WARNING"}}}},
            )
    finally:
        stop.set()
        if watcher:
            watcher.join()
    if not result.success:
        for event in result.all_events:
            if event.is_step_failure:
                data = event.step_failure_data
                message = data.user_failure_data.description if data.user_failure_data else None
                click.echo(f"step {event.step_key} failed: {message or data.error.message.strip()}", err=True)
    return result.success


def _papers_completed(store: DomainStore, slug: str) -> int:
    for row in store.lifecycle.status(slug):
        if row.stage == "score":
            return row.paper_counts.get("completed", 0)
    return 0


def _progress_bar(store: DomainStore, slug: str, total: int, stop: threading.Event) -> None:
    from tqdm import tqdm

    with tqdm(total=total, desc=f"scoring {slug}", unit="paper", file=sys.stderr) as bar:
        while True:
            done = _papers_completed(store, slug)
            bar.update(max(0, done - bar.n))
            if stop.is_set():
                break
            time.sleep(0.3)


@main.command()
@click.argument("slug")
@click.option("--no-progress", is_flag=True)
@click.option("--verbose", is_flag=True, help="Print Dagster's step logs.")
def run(slug: str, no_progress: bool, verbose: bool) -> None:
    """Materialise the project's chain (intent, queries, candidates, scores, exports) and wait."""
    try:
        ok = run_project(slug, show_progress=not no_progress, verbose=verbose)
    except Exception as exc:  # noqa: BLE001
        fail(str(exc))
    if not ok:
        fail(f"run for {slug} did not complete; see `agentr status {slug}` and `agentr failures {slug}`")
    _print_summary(slug)


def _print_summary(slug: str, top: int = 10) -> None:
    from agentr_dagster.stages.exports import scores_dataframe

    frame = scores_dataframe(open_store(), slug)
    click.echo(f"\n{len(frame)} papers scored for {slug}; top {min(top, len(frame))} by direct-competitor score:")
    if len(frame):
        view = frame.head(top)[["rank", "c1_score", "c2_score", "semantic_similarity", "c2_contribution_type", "title"]]
        view = view.assign(title=view["title"].str.slice(0, 60))
        click.echo(view.to_string(index=False))
    click.echo(f"\nresults: {results_dir(slug)}")


@main.command()
@click.option("--slug", default=DEMO_SLUG, show_default=True)
def demo(slug: str) -> None:
    """Run the bundled example end to end, offline: one abstract and 40 real candidate papers."""
    from agentr_dagster.stages.intake import add_papers_file, add_project

    if get_settings().llm_configured:
        click.echo("note: AGENTR_LLM_BASE_URL is set, so the demo uses that endpoint rather than the offline backend")
    data = resources.files("agentr_dagster.data").joinpath("demo")
    store = open_store()
    started = time.monotonic()
    add_project(store, slug, data.joinpath("abstract.md").read_text(encoding="utf-8"),
                title="Auditable automation of systematic reviews in software engineering")
    with resources.as_file(data.joinpath("papers.csv")) as papers_csv:
        tmp = agentr_home() / "demo-papers.csv"
        shutil.copyfile(papers_csv, tmp)
        added = add_papers_file(store, slug, tmp)
        tmp.unlink()
    click.echo(f"demo project {slug}: {store.projects.count_papers(slug)} candidate papers"
               + ("" if added.already_imported else f" ({added.added} imported now)"))
    if not run_project(slug):
        fail("the demo run failed; see `agentr failures`")
    _print_summary(slug)
    click.echo(f"wall time: {time.monotonic() - started:.1f}s; Dagster home: {dagster_home()}")
    click.echo("see it in the UI: make ui   (then open http://127.0.0.1:3000)")


# ---------------------------------------------------------------- inspection
@main.command()
@click.argument("slug", required=False)
@click.option("--json", "as_json", is_flag=True)
def status(slug: str | None, as_json: bool) -> None:
    """Processing state of each project's stages and papers."""
    store = open_store()
    rows = store.lifecycle.status(slug)
    if as_json:
        echo_json(rows)
        return
    if not rows:
        click.echo("no projects yet" if slug is None else f"no status for {slug}")
        return
    for row in rows:
        click.echo(_format_status_row(row))


def _format_status_row(row) -> str:
    data = json_default(row) if not isinstance(row, dict) else row
    parts = [f"{k}={v}" for k, v in data.items() if v not in (None, {}, [])]
    return "  ".join(parts)


@main.command()
@click.argument("slug", required=False)
@click.option("--json", "as_json", is_flag=True)
def failures(slug: str | None, as_json: bool) -> None:
    """Recorded failures with their class, attempt, run and paper."""
    rows = open_store().lifecycle.failures(slug)
    if as_json:
        echo_json(rows)
        return
    if not rows:
        click.echo("no failures recorded")
    for row in rows:
        click.echo(_format_status_row(row))


@main.command()
@click.argument("slug")
@click.option("--format", "fmt", type=click.Choice(["csv", "parquet", "xlsx", "all"]), default="all")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Directory to write into (default: results/<slug>).")
def export(slug: str, fmt: str, out: Path | None) -> None:
    """Write the project's scores as CSV, Parquet and/or XLSX."""
    from agentr_dagster.stages.exports import FORMATS, scores_dataframe, write_exports

    frame = scores_dataframe(open_store(), slug)
    written = write_exports(frame, out or results_dir(slug), FORMATS if fmt == "all" else (fmt,))
    for path in written.values():
        click.echo(str(path))


# ---------------------------------------------------------------- money
@main.group()
def credits() -> None:
    """Credit balances."""


@credits.command("grant")
@click.argument("amount", type=float)
@click.option("--account", default="default", show_default=True)
@click.option("--note", default="manual grant")
def credits_grant(amount: float, account: str, note: str) -> None:
    store = open_store()
    store.ledger.ensure_account(account)
    balance = store.ledger.grant(account, Decimal(str(amount)), note=note)
    click.echo(f"{account}: balance {balance} credits")


@credits.command("balance")
@click.option("--account", default="default", show_default=True)
def credits_balance(account: str) -> None:
    store = open_store()
    store.ledger.ensure_account(account)
    click.echo(f"{account}: balance {store.ledger.balance(account)} credits")


@main.group()
def pricing() -> None:
    """Model prices (SCD-2 history: a change never re-prices past calls)."""


@pricing.command("set")
@click.argument("model")
@click.option("--input", "input_price", type=float, required=True, help="USD per million input tokens")
@click.option("--output", "output_price", type=float, required=True, help="USD per million output tokens")
@click.option("--cached-input", type=float, default=None, help="USD per million cached input tokens")
@click.option("--provider", default="default", show_default=True)
@click.option("--tier", default="standard", show_default=True)
def pricing_set(model, input_price, output_price, cached_input, provider, tier) -> None:
    row_id = open_store().ledger.set_pricing(
        model, Decimal(str(input_price)), Decimal(str(output_price)),
        None if cached_input is None else Decimal(str(cached_input)), provider=provider, tier=tier,
    )
    click.echo(f"pricing for {model} ({provider}/{tier}) now in force: row {row_id}")


@main.command()
@click.argument("slug", required=False)
@click.option("--json", "as_json", is_flag=True)
@click.option("--calls", "per_call", is_flag=True, help="One row per call, with the price and multiplier it paid.")
def usage(slug: str | None, as_json: bool, per_call: bool) -> None:
    """LLM usage by project, stage, model and (UTC) day: calls, tokens, USD and credits, with totals."""
    from agentr_dagster.stages.usage import aggregate, format_table, records, totals_of, usage_calls_frame

    calls = usage_calls_frame(open_store(), slug)
    frame = calls if per_call else aggregate(calls)
    if as_json:
        echo_json(records(frame))
        return
    click.echo(format_table(frame, totals_of(calls)))


@main.group()
def bench() -> None:
    """Benchmarks that print figures (and write JSON with --json)."""


# ---------------------------------------------------------------- commands that live in their own modules
# Each feature module mounts its commands here, one line each.
from agentr_dagster.cli.bench import (  # noqa: E402
    bench_growth_command,
    bench_overhead_command,
    bench_scoring_command,
)

bench.add_command(bench_scoring_command, "scoring")
bench.add_command(bench_overhead_command, "overhead")
bench.add_command(bench_growth_command, "growth")
from agentr_dagster.cli.screen import bench_screening_command, screen_command  # noqa: E402

main.add_command(screen_command, "screen")
bench.add_command(bench_screening_command, "screening")
from agentr_dagster.cli.recovery import resume_command  # noqa: E402

main.add_command(resume_command, "resume")
from agentr_dagster.cli.lake import label_command, labels_command, lake_group, rerank_command  # noqa: E402

main.add_command(lake_group, "lake")
main.add_command(label_command, "label")
main.add_command(labels_command, "labels")
main.add_command(rerank_command, "rerank")
from agentr_dagster.cli.synthesis import (  # noqa: E402
    bench_synthesis_command,
    related_work_group,
    report_command,
    trace_command,
)

main.add_command(report_command, "report")
main.add_command(trace_command, "trace")
main.add_command(related_work_group, "related-work")
bench.add_command(bench_synthesis_command, "synthesis")
from agentr_dagster.cli.ledger import (  # noqa: E402
    budget_group,
    default_credits_command,
    estimate_command,
    ledger_group,
    multiplier_group,
    pricing_history_command,
)

if TYPE_CHECKING:
    from agentr_dagster.store import DomainStore

main.add_command(ledger_group, "ledger")
main.add_command(estimate_command, "estimate")
main.add_command(budget_group, "budget")
main.add_command(multiplier_group, "multiplier")
pricing.add_command(pricing_history_command, "history")
credits.add_command(default_credits_command, "set-default")


if __name__ == "__main__":
    main()
