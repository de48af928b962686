"""What every command module shares: the store, JSON output and a clean failure exit."""

from __future__ import annotations

import json
import sys
from decimal import Decimal

import click


def open_store():
    """The domain store the settings name (AGENTR_DATABASE_URL, else SQLite under AGENTR_HOME)."""
    from agentr_dagster.defs.resources import StoreResource
    from agentr_dagster.settings import get_settings

    return StoreResource(database_url=get_settings().database_url).get()


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


def fail(message: str, code: int = 1):
    click.echo(f"error: {message}", err=True)
    sys.exit(code)


def ensure_project_partition(slug: str) -> None:
    """The project's partition exists in the local Dagster instance (the UI lists it; runs can target it)."""
    from agentr_dagster.defs.instance import ensure_partition, open_instance

    with open_instance() as instance:
        ensure_partition(instance, slug)
