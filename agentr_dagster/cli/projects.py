"""`agentr project add|delete` and `agentr papers add`: research projects (Dagster partitions) and their
candidate papers."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from agentr_dagster.cli.common import ensure_project_partition, fail, open_store


@click.group("project")
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
    from agentr_dagster.store.rows import ProjectNotFound

    store = open_store()
    try:
        validate_slug(slug)
        abstract = read_abstract(abstract_file)
        try:
            before = store.projects.get_project(slug).abstract
        except ProjectNotFound:
            before = None
        row = add_project(store, slug, abstract, title=title, budget_credits=budget)
    except (IntakeError, ValueError) as exc:
        fail(str(exc))
    ensure_project_partition(slug)
    papers = store.projects.count_papers(row.slug)
    nxt = (f"agentr run {row.slug}" if papers else f"agentr papers add {row.slug} FILE, then agentr run {row.slug}")
    if before is None:
        click.echo(f"project {row.slug} ready; next: {nxt}")
    elif " ".join(before.split()) == " ".join(abstract.split()):
        click.echo(f"project {row.slug} already exists with this abstract ({papers} candidate papers); next: {nxt}")
    else:  # an existing project given another abstract: say it was replaced and what that re-runs
        click.echo(f"project {row.slug} existed: its abstract is replaced ({len(before.split())} words -> "
                   f"{len(abstract.split())}); the next run redoes the intent and every stage after it"
                   + (f" ({papers} candidate papers kept)" if papers else "") + f"; next: {nxt}")


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


@click.group("papers")
def papers() -> None:
    """Candidate papers."""


@papers.command("add")
@click.argument("slug")
@click.argument("files", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path))
def papers_add(slug: str, files: tuple[Path, ...]) -> None:
    """Import candidate files into a project: CSV / TSV, Excel, BibTeX, RIS, PubMed (MEDLINE), Web of Science,
    EndNote XML, JSONL / JSON (OpenAlex, arXiv)."""
    from agentr_dagster.stages.estimate import rerun_after_adding
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
        # kept, but shorter than the file had it: say so (a truncation was silent); invisible characters removed
        # are only counted
        cut = [note for note in result.cleaned if "truncated" in note]
        for note in cut[:10]:
            click.echo(f"  truncated {note.replace(' truncated', '')}")
        if len(cut) > 10:
            click.echo(f"  ... and {len(cut) - 10} more value(s) truncated")
        if len(result.cleaned) > len(cut):
            click.echo(f"  {len(result.cleaned) - len(cut)} value(s) had control or invisible characters removed")
        notice = rerun_after_adding(store, slug, result.added)
        if notice:  # a finished project: what its next run re-does, and costs, before anything is paid
            click.echo(f"note: {notice}")
    if failed:
        sys.exit(2)
