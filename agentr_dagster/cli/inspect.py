"""`agentr status`, `agentr failures` and `agentr export`: what the store holds, from the command line."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from agentr_dagster.cli.common import echo_json, fail, json_default, open_store
from agentr_dagster.settings import results_dir

if TYPE_CHECKING:
    from agentr_dagster.store import DomainStore


@click.command("status")
@click.argument("slug", required=False)
@click.option("--json", "as_json", is_flag=True)
def status(slug: str | None, as_json: bool) -> None:
    """Processing state of each project's stages and papers."""
    from agentr_dagster.store.rows import ProjectNotFound

    store = open_store()
    try:
        rows = store.lifecycle.status(slug)
    except ProjectNotFound:
        fail(f"no project {slug!r}. " + _how_to_start(store, slug))
    if as_json:
        echo_json(rows)
        return
    by_project: dict[str, list] = {}
    for row in rows:
        by_project.setdefault(row.slug, []).append(row)
    for name, mine in by_project.items():
        if all(row.stage == "project" for row in mine):
            continue  # only its own row (e.g. `reinitiated` after its abstract was replaced): not run yet, below
        click.echo(_format_project_status(store, name, mine))
    # a project whose only row is its own (e.g. `reinitiated` after its abstract was replaced) has not run yet
    started = {row.slug for row in rows if row.stage != "project"}
    never_run = [p.slug for p in store.projects.list_projects() if p.slug not in started and slug in (None, p.slug)]
    for name in never_run:  # before any run there are no stage rows: say what exists and what to do
        click.echo(_not_run_yet(store, name))
    if not rows and not never_run:
        click.echo("no projects yet. " + _how_to_start(store, None))
        return
    ran = [name for name in dict.fromkeys(row.slug for row in rows) if name in started]
    _echo_unfinished(store, ran)


def _echo_unfinished(store: DomainStore, slugs) -> None:
    """A project that is partial (papers without a score, a draft cut short): what is missing, and the command
    per failure class (stages/outcome.py)."""
    from agentr_dagster.domain.failures import NOT_CLASSIFIED
    from agentr_dagster.stages.outcome import COMPLETE, project_outcome
    from agentr_dagster.store import ProjectNotFound

    for slug in slugs:
        try:
            if not store.projects.count_papers(slug):
                continue
            outcome = project_outcome(store, slug)
        except ProjectNotFound:  # deleted: its rows are history, nothing to finish
            continue
        # papers never asked (added since the last run, or a stopped run's) are the standing's "next" already
        failed = outcome.unfinished or any(m.failure_class != NOT_CLASSIFIED for m in outcome.missing)
        if outcome.status != COMPLETE and failed:
            for line in outcome.lines():
                click.echo(line)


def _format_project_status(store: DomainStore, slug: str, rows: list) -> str:
    """One project: where it stands, its stages in the order a run takes them, and what to do next."""
    from agentr_dagster.stages.staleness import STAGE_NAMES, chain_order, project_standing

    standing = project_standing(store, slug)
    project = store.projects.get_project(slug, include_deleted=True)
    lines = [f"{slug}" + (f" ({project.title})" if project.title else "")
             + f": {store.projects.count_papers(slug):,} candidate papers; {standing.where}"]
    for row in sorted(rows, key=lambda r: chain_order(r.stage)):
        if row.stage == "project":
            continue
        papers = ", ".join(f"{n:,} {state}" for state, n in sorted(row.paper_counts.items()))
        when = f"{row.updated_at:%Y-%m-%d %H:%M} UTC" if row.updated_at else ""
        detail = "; ".join(x for x in (row.detail, f"papers: {papers}" if papers else None) if x)
        lines.append(f"  {STAGE_NAMES.get(row.stage, row.stage):<20} {(row.state or '-').replace('_', ' '):<18} "
                     f"{when:<22} {detail}".rstrip())
    lines.append(f"next: {standing.next}")
    return "\n".join(lines)


def _how_to_start(store: DomainStore, slug: str | None) -> str:
    """How a project comes into being, and the projects the store holds (so a typo shows)."""
    from agentr_dagster.settings import inbox_dir

    name = slug or "my-review"
    known = [p.slug for p in store.projects.list_projects()]
    return (f"Start one: agentr project add {name} --abstract abstract.md, or drop {name}.md (an abstract) into "
            f"{inbox_dir()} with the UI running (make ui)"
            + (f". Projects here: {', '.join(known)}" if known else ""))


def _not_run_yet(store: DomainStore, slug: str) -> str:
    """A project that has never been run: what it holds, and the next command."""
    from agentr_dagster.stages.staleness import add_papers_hint

    project = store.projects.get_project(slug)
    papers = store.projects.count_papers(slug)
    labels = len(store.labels.list_labels(slug))
    words = len((project.abstract or "").split())
    held = f"abstract ({words} words), {papers} candidate papers" + (f", {labels} labels" if labels else "")
    todo = (f"agentr run {slug}, or materialise its partition in the UI (make ui)" if papers else
            f"{add_papers_hint(slug)}; then agentr run {slug} (the drop folder launches the run itself)")
    return f"{slug}: not run yet; it has an {held}.\nnext: {todo}"


def _echo_next_steps(store: DomainStore, slugs: list[str]) -> None:
    """What a person does next for projects that wait for candidate papers (a valid state, not a failure)."""
    from agentr_dagster.stages.staleness import waiting_for_candidates

    for slug in slugs:
        message = waiting_for_candidates(store, slug)
        if message:
            click.echo(f"next: {message}")




@click.command("failures")
@click.argument("slug", required=False)
@click.option("--json", "as_json", is_flag=True)
def failures(slug: str | None, as_json: bool) -> None:
    """Recorded failures with their class, attempt, run and paper; then counts per class and what to do."""
    store = open_store()
    rows = store.lifecycle.failures(slug)
    if as_json:
        echo_json(rows)
        return
    if not rows:
        click.echo("no failures recorded")
    for row in rows:
        click.echo(_format_status_row(row))
    # a failure whose stage has completed since (e.g. credits granted and `agentr resume` run) needs nothing more:
    # count it apart, so the advice below is only for what is still failed
    completed_at = {(r.slug, r.stage): r.updated_at for r in store.lifecycle.status(slug) if r.state == "completed"}

    def resolved(row) -> bool:
        done = completed_at.get((row.slug, row.stage))
        return done is not None and row.created_at is not None and done > row.created_at

    open_rows = [row for row in rows if not resolved(row)]
    for cls, entry in failure_summary(open_rows).items():
        click.echo(f"{cls}: {entry['failures']} failure(s), {entry['papers']} paper(s); next: {entry['next_step']}")
    if len(open_rows) < len(rows):
        stages = sorted({f"{row.slug} {row.stage}" for row in rows if resolved(row)})
        click.echo(f"resolved: {len(rows) - len(open_rows)} earlier failure(s); their stage completed since "
                   f"({', '.join(stages)}): nothing to do")
    _echo_unfinished(store, list(dict.fromkeys(row.slug for row in open_rows)))


def failure_summary(rows) -> dict[str, dict]:
    """Per failure class: how many failures, on how many papers, and what the user can do."""
    from agentr_dagster.domain.failures import NEXT_STEP, FailureClass

    out: dict[str, dict] = {}
    for row in rows:
        entry = out.setdefault(row.failure_class, {"failures": 0, "papers": set()})
        entry["failures"] += 1
        if row.paper_id is not None:
            entry["papers"].add((row.slug, row.paper_id))
    known = {c.value: c for c in FailureClass}
    slugs = {cls: {row.slug for row in rows if row.failure_class == cls} for cls in out}

    def next_step(cls: str) -> str:
        text = NEXT_STEP[known[cls]] if cls in known else "see the message"
        name = next(iter(slugs[cls])) if len(slugs[cls]) == 1 else "<slug>"  # a command one can paste
        return text.replace("`agentr resume`", f"`agentr resume {name}`").replace(
            "`agentr run`", f"`agentr run {name}`").replace("<slug>", name)

    return {cls: {"failures": e["failures"], "papers": len(e["papers"]), "next_step": next_step(cls)}
            for cls, e in out.items()}


@click.command("export")
@click.argument("slug")
@click.option("--format", "fmt", type=click.Choice(["csv", "parquet", "xlsx", "all", "ris", "bib"]), default="all",
              help="csv/parquet/xlsx: the scores table (all: the three); ris/bib: the candidates for a reference "
                   "manager (Zotero, EndNote, Mendeley), the label as a keyword and the relevance and rank in a note.")
@click.option("--only", type=click.Choice(["included"]), default=None,
              help="With ris/bib: only the papers labelled include.")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Directory to write into (default: results/<slug>).")
def export(slug: str, fmt: str, only: str | None, out: Path | None) -> None:
    """Write the project's scores as CSV, Parquet and/or XLSX, or its candidates as RIS or BibTeX."""
    from agentr_dagster.stages.exports import FORMATS, scores_dataframe, write_exports

    store = open_store()
    if fmt in ("ris", "bib"):
        from agentr_dagster.stages.reference_export import write_references

        path, n = write_references(store, slug, out or results_dir(slug), fmt, only)
        click.echo(f"{path} ({n} record{'s' if n != 1 else ''})")
        if n == 0:
            _echo_next_steps(store, [slug])
        return
    if only:
        fail("--only applies to --format ris or bib")
    frame = scores_dataframe(store, slug)
    written = write_exports(frame, out or results_dir(slug), FORMATS if fmt == "all" else (fmt,))
    if frame.empty:
        _echo_next_steps(store, [slug])  # empty files: say why, and what to do
    for path in written.values():
        click.echo(str(path))


def _format_status_row(row) -> str:
    """A failure row as `key=value` pairs (`agentr failures`)."""
    data = json_default(row) if not isinstance(row, dict) else row
    parts = [f"{k}={v}" for k, v in data.items() if v not in (None, {}, [])]
    return "  ".join(parts)
