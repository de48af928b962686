"""What every command module shares: the store, JSON output and a clean failure exit."""

from __future__ import annotations

import functools
import json
import sys
from decimal import Decimal
from typing import NoReturn

import click


def open_store():
    """The domain store the settings name (AGENTR_DATABASE_URL, else SQLite under AGENTR_HOME)."""
    from agentr_dagster.defs.resources import StoreResource
    from agentr_dagster.settings import get_settings

    return StoreResource(database_url=get_settings().store.database_url).get()


def json_default(value):
    if isinstance(value, Decimal):
        return format(value, "f")  # "0.00000000", never "0E-8"
    if hasattr(value, "isoformat"):
        return value.isoformat()
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json")
    if hasattr(value, "__dataclass_fields__"):
        return {k: getattr(value, k) for k in value.__dataclass_fields__}
    return str(value)


def dump_json(value) -> str:
    return json.dumps(value, indent=2, default=json_default, ensure_ascii=False)


def echo_json(value) -> None:
    click.echo(dump_json(value))


def fail(message: str, code: int = 1) -> NoReturn:
    click.echo(f"error: {message}", err=True)
    sys.exit(code)


def ensure_project_partition(slug: str) -> None:
    """The project's partition exists in the local Dagster instance (the UI lists it; runs can target it)."""
    from agentr_dagster.defs.instance import ensure_partition, open_instance

    with open_instance() as instance:
        ensure_partition(instance, slug)


# Commands whose SLUG may name a project that does not exist yet: they create it, or list files dropped for it.
CREATES_OR_LISTS = {"project add", "demo", "inbox"}


def require_project(slug: str) -> None:
    """One line and a non-zero exit for a project that does not exist (deleted ones still exist: their status,
    usage and ledger rows are kept)."""
    from agentr_dagster.domain.failures import missing_project_message

    if not _exists(slug):
        known = [p.slug for p in open_store().projects.list_projects()]  # so a typo shows
        fail(missing_project_message(slug) + (f". Projects here: {', '.join(known[:20])}" if known else ""))


def _exists(slug: str) -> bool:
    from agentr_dagster.store import ProjectNotFound

    try:
        open_store().projects.get_project(slug, include_deleted=True)
    except ProjectNotFound:
        return False
    return True


def guard_unknown_projects(group: click.Group, prefix: str = "") -> None:
    """Every command under ``group`` that takes a SLUG checks first that the project exists, and an unknown
    project met later (e.g. deleted meanwhile) is one line, never a traceback."""
    for name, command in group.commands.items():
        path = f"{prefix}{name}"
        if isinstance(command, click.Group):
            guard_unknown_projects(command, f"{path} ")
        elif command.callback is not None and any(p.name == "slug" for p in command.params):
            command.callback = _guarded(command.callback, check=path not in CREATES_OR_LISTS)


def _guarded(callback, *, check: bool):
    @functools.wraps(callback)
    def run(*args, **kwargs):
        from agentr_dagster.domain.failures import ProjectMissingError, missing_project_message
        from agentr_dagster.store import ProjectNotFound

        slug = kwargs.get("slug")
        if check and slug:
            require_project(slug)
        try:
            return callback(*args, **kwargs)
        except ProjectMissingError as exc:
            fail(exc.message)
        except ProjectNotFound as exc:  # e.g. deleted meanwhile, or a deleted project given to a command that writes
            fail(missing_project_message(slug) if slug and not _exists(slug) else str(exc))

    return run
