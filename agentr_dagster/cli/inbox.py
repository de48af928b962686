"""`agentr inbox`: what the drop folder holds, as the inbox sensor sees it: files waiting (and why: not yet seen,
still being written, an unfinished download), processed, and rejected (with the reason from each error file)."""

from __future__ import annotations

from datetime import datetime, timezone

import click

from agentr_dagster.cli.common import echo_json
from agentr_dagster.settings import inbox_dir

STATES = ("pending", "deferred", "processed", "rejected")
SENSOR_STATUS = {"RUNNING": "running", "DECLARED_IN_CODE": "running (its default, while the daemon runs)",
                 "STOPPED": "stopped (start it in the UI, or `dagster sensor start inbox_sensor`)"}
RECENT_S = 15.0  # without a sensor's stamps: a file modified this recently may still be being written


def _sensor_view():
    """The inbox sensor's stored state on the local Dagster instance, or None (no daemon has run it here)."""
    from agentr_dagster.defs.instance import open_instance
    from agentr_dagster.defs.sensors import stored_sensor_view

    with open_instance() as instance:
        return stored_sensor_view(instance)


def _imports() -> dict:
    """(project, sha256) -> what the store recorded of each file import: `processed` says what each one did."""
    from agentr_dagster.cli.common import open_store

    store = open_store()
    return {(project.slug, file.sha256): file for project in store.projects.list_projects()
            for file in store.projects.imported_files(project.slug)}


def _when(at: datetime | None) -> str:
    return at.astimezone(timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC") if at else "-"


@click.command("inbox")
@click.argument("slug", required=False)
@click.option("--json", "as_json", is_flag=True)
def inbox_command(slug: str | None, as_json: bool) -> None:
    """Files in the drop folder: pending or deferred (and why), processed, rejected (and why)."""
    from agentr_dagster.stages.inbox import inbox_listing

    created = not inbox_dir().is_dir()
    if created:  # the folder a person drops into exists from the first look at it
        inbox_dir().mkdir(parents=True, exist_ok=True)
    view = _sensor_view()
    files = inbox_listing(None, view.stamps if view else None, _imports())
    if view is None:  # no stamps to compare with: a file modified moments ago may still be being copied
        now = datetime.now(timezone.utc)
        for entry in files:
            if entry.state == "pending" and entry.at and (now - entry.at).total_seconds() < RECENT_S:
                entry.state = "deferred"
                entry.reason = (f"modified {(now - entry.at).total_seconds():.0f} s ago: may still be being written "
                                "(the sensor takes it once unchanged across two ticks)")
    if slug:
        files = [entry for entry in files if entry.project == slug]
    by_state = {state: [entry for entry in files if entry.state == state] for state in STATES}
    if as_json:
        echo_json({"inbox": str(inbox_dir()), "sensor": view, **by_state})
        return
    click.echo(f"inbox: {inbox_dir()}" + (" (created now)" if created else ""))
    if view is None:
        click.echo("sensor: no tick recorded on this Dagster instance (start it: make ui, or dagster-daemon run)")
    else:
        last = ""
        if view.last_tick_at:
            ago = (datetime.now(timezone.utc) - view.last_tick_at).total_seconds()
            last = (f"; last tick {_when(view.last_tick_at)} ({ago:.0f} s ago): {view.last_tick_status.lower()}"
                    + (f": {view.last_tick_message}" if view.last_tick_message else ""))
        click.echo(f"sensor: {SENSOR_STATUS.get(view.status, view.status.lower())}{last}")
    for state in STATES:
        entries = by_state[state]
        click.echo(f"\n{state} ({len(entries)})")
        for entry in entries:
            size = f"{entry.size:,} bytes" if entry.size is not None else "gone"
            click.echo(f"  {entry.file}  [{entry.project or 'no project'}; {size}; {_when(entry.at)}]")
            click.echo(f"      {entry.reason}")
            if entry.moved_to:
                click.echo(f"      moved to {entry.moved_to} (reason in {entry.moved_to}.error.txt)")
    if not files:
        click.echo("\nnothing here yet: drop <slug>.md (an abstract) or paper files into inbox/<slug>/; write big "
                   "files as .<name> and rename them when complete")
