"""Regenerate docs/configuration.md's reference tables from the settings model (agentr_dagster/settings.py).

    python scripts/config_reference.py

The prose around the markers is kept; tests/unit/test_settings.py fails when the doc and the model differ."""

from __future__ import annotations

from pathlib import Path

from agentr_dagster.settings import with_reference

DOC = Path(__file__).resolve().parent.parent / "docs" / "configuration.md"

if __name__ == "__main__":
    DOC.write_text(with_reference(DOC.read_text()))
    print(f"wrote {DOC}")
