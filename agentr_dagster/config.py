"""Where things live. Every command and the Dagster code location honour AGENTR_HOME."""

from __future__ import annotations

import os
from pathlib import Path


def agentr_home() -> Path:
    home = Path(os.environ.get("AGENTR_HOME", ".agentr")).expanduser().resolve()
    home.mkdir(parents=True, exist_ok=True)
    return home


def inbox_dir(home: Path | None = None) -> Path:
    return (home or agentr_home()) / "inbox"


def rejected_dir(home: Path | None = None) -> Path:
    return inbox_dir(home) / "rejected"


def processed_dir(home: Path | None = None) -> Path:
    return inbox_dir(home) / "processed"


def results_dir(slug: str, home: Path | None = None) -> Path:
    return (home or agentr_home()) / "results" / slug


def dagster_home(home: Path | None = None) -> Path:
    """DAGSTER_HOME if set, else $AGENTR_HOME/dagster with an embedded SQLite instance."""
    if os.environ.get("DAGSTER_HOME"):
        return Path(os.environ["DAGSTER_HOME"]).expanduser().resolve()
    path = (home or agentr_home()) / "dagster"
    path.mkdir(parents=True, exist_ok=True)
    config = path / "dagster.yaml"
    if not config.exists():
        from importlib import resources

        config.write_text(resources.files("agentr_dagster.data").joinpath("dagster.yaml").read_text())
    return path


def database_url(home: Path | None = None) -> str:
    from agentr_dagster.store.store import default_database_url

    return default_database_url(home or agentr_home())
