"""`agentr resume <slug> | --all`: finish whatever did not finish, without paying twice."""

from __future__ import annotations

import json
import sys
from dataclasses import asdict

import click

from agentr_dagster.cli.common import open_store


def _line(outcome) -> str:
    parts = [f"{outcome.slug}: {outcome.action}"]
    if outcome.interrupted_runs:
        parts.append(f"interrupted run(s) {', '.join(r[:8] for r in outcome.interrupted_runs)} marked failed")
    if outcome.released_reservations:
        parts.append(f"{outcome.released_reservations} stale reservation(s) released")
    if outcome.parent_run_id:
        parts.append(f"re-executed {outcome.parent_run_id[:8]} from failure")
    if outcome.run_ids:
        parts.append(f"run(s) {', '.join(r[:8] for r in outcome.run_ids)}")
    if outcome.stages_before:
        parts.append(f"was missing {', '.join(outcome.stages_before)} ({outcome.papers_missing_before} papers)")
    if outcome.success and outcome.action not in ("running", "orphan", "complete"):
        parts.append("complete")
    if outcome.message:
        parts.append(outcome.message)
    return "; ".join(p for p in parts if p)


@click.command("resume")
@click.argument("slug", required=False)
@click.option("--all", "all_projects", is_flag=True, help="Every live project (and deleted ones' reservations).")
@click.option("--stale-after", type=float, default=900.0, show_default=True,
              help="Release any reservation open longer than this many seconds, whatever its project.")
@click.option("--json", "as_json", is_flag=True)
@click.option("--verbose", is_flag=True, help="Print Dagster's step logs.")
def resume_command(slug: str | None, all_projects: bool, stale_after: float, as_json: bool, verbose: bool) -> None:
    """Resume a project (or --all): release stale reservations, re-execute failed runs from failure, and
    rebuild from the domain store whatever Dagster's run storage no longer knows about."""
    from agentr_dagster.defs.recovery import resume

    if bool(slug) == all_projects:
        click.echo("error: give a project slug or --all (not both)", err=True)
        sys.exit(2)
    outcomes = resume(open_store(), slugs=[slug] if slug else None, stale_after=stale_after, verbose=verbose)
    if as_json:
        click.echo(json.dumps([asdict(o) for o in outcomes], indent=2))
    else:
        if not outcomes:
            click.echo("no projects to resume")
        for outcome in outcomes:
            click.echo(_line(outcome))
    failed = [o for o in outcomes if not o.success]
    if failed:
        if not as_json:
            click.echo(f"{len(failed)} project(s) not complete; see `agentr failures <slug>`", err=True)
        sys.exit(1)
