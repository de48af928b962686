"""The store URL from the environment: SQLite under the home by default, PostgreSQL URLs normalised to psycopg2."""

from __future__ import annotations

from agentr_dagster.store import (
    default_database_url,
)


def test_default_database_url(monkeypatch, tmp_path):
    monkeypatch.delenv("AGENTR_DATABASE_URL", raising=False)
    assert default_database_url(tmp_path) == f"sqlite:///{tmp_path.resolve()}/agentr.db"
    monkeypatch.setenv("AGENTR_DATABASE_URL", "postgresql://u@h:5432/db")
    assert default_database_url(tmp_path) == "postgresql+psycopg2://u@h:5432/db"
    monkeypatch.setenv("AGENTR_DATABASE_URL", "postgresql+psycopg2://u@h/db")
    assert default_database_url(tmp_path) == "postgresql+psycopg2://u@h/db"
