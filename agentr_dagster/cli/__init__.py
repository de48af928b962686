"""The `agentr` command line: one module per command group, mounted on the root group in `main`."""

from agentr_dagster.cli.main import main

__all__ = ["main"]
