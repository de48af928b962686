"""Fixtures for the integration tests: a real domain store (SQLite in a temp dir)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from agentr_dagster.store import DomainStore


@pytest.fixture
def sqlite_store(tmp_path) -> Iterator[DomainStore]:
    with DomainStore(f"sqlite:///{tmp_path / 'agentr.db'}") as store:
        yield store
