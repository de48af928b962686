"""The drop-folder sensor when the domain database fails: a real outage (PostgreSQL unreachable or going away
mid-run, SQLite locked by another connection) leaves the files in the inbox untouched, nothing stored changes,
and the tick after the database comes back ingests them. Only bad input is quarantined."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from dagster import DagsterInstance, SensorResult, SkipReason
from sqlalchemy.engine import make_url

from agentr_dagster.store import engine as store_engine
from agentr_dagster.store.rows import ProjectNotFound
from tests.support import DEMO
from tests.support.relay import Relay
from tests.support.sensor import SensorTicks, skipped

ABSTRACT = (DEMO / "abstract.md").read_text()
PAPERS = (DEMO / "papers.csv").read_bytes()


def make_inbox(tmp_path: Path, monkeypatch) -> Path:
    home = tmp_path / "home"
    monkeypatch.setenv("AGENTR_HOME", str(home))
    inbox = home / "inbox"
    inbox.mkdir(parents=True)
    return inbox


def inbox_files(inbox: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in inbox.iterdir() if p.is_file()}




def test_postgresql_unreachable_then_lost_mid_run_leaves_files_for_the_next_tick(pg_url, pg_store, tmp_path,
                                                                                  monkeypatch):
    inbox = make_inbox(tmp_path, monkeypatch)
    instance = DagsterInstance.ephemeral()
    relay = Relay(make_url(pg_url).port or 5432)
    url = make_url(pg_url).set(port=relay.port).render_as_string(hide_password=False)
    ticks = SensorTicks(url, instance)
    try:
        # Nothing listens on the port: the store cannot even be opened.
        (inbox / "pg-review.md").write_text(ABSTRACT)
        result = ticks.tick()
        assert isinstance(result, SkipReason)
        assert "domain database unavailable" in result.skip_message and "pg-review.md" in result.skip_message
        assert inbox_files(inbox) == {"pg-review.md": ABSTRACT.encode()}
        assert not (inbox / "rejected").exists()
        try:
            pg_store.projects.get_project("pg-review")
            raise AssertionError("the project was created while the database was down")
        except ProjectNotFound:
            pass

        relay.start()  # the server is back: the same file goes in (once two ticks saw it unchanged)
        result = ticks.settled()
        assert [r.partition_key for r in result.run_requests] == ["pg-review"]
        assert pg_store.projects.get_project("pg-review").abstract.startswith("Systematic literature reviews")
        instance.add_dynamic_partitions("projects", ["pg-review"])

        # The server goes away while the sensor holds pooled connections; a bad file waits behind the good one.
        (inbox / "pg-review.csv").write_bytes(PAPERS)
        relay.stop()
        result = ticks.settled()
        assert isinstance(result, SkipReason) and "pg-review.csv" in result.skip_message
        assert "domain database unavailable" in result.skip_message
        assert inbox_files(inbox) == {"pg-review.csv": PAPERS}
        assert not (inbox / "rejected").exists()
        assert pg_store.projects.count_papers("pg-review") == 0

        relay.start()
        (inbox / "pg-review").mkdir()
        (inbox / "pg-review" / "broken.csv").write_text("author,year\nSmith,2020\n")  # input: no title column
        # The file the outage left is still complete: the next tick takes it; the new one waits a tick more.
        result = ticks.tick()
        assert isinstance(result, SensorResult) and [r.partition_key for r in result.run_requests] == ["pg-review"]
        assert pg_store.projects.count_papers("pg-review") == 40
        result = skipped(ticks.tick())  # the rejection is also an observation on the `inbox` asset
        assert result is not None and "pg-review/broken.csv: " in result.skip_message
        assert inbox_files(inbox) == {}
        rejected = sorted(p.name for p in (inbox / "rejected" / "pg-review").iterdir())
        assert rejected == ["broken.csv", "broken.csv.error.txt"]
        assert "title" in (inbox / "rejected" / "pg-review" / "broken.csv.error.txt").read_text().lower()
    finally:
        relay.close()


def test_a_locked_sqlite_database_leaves_files_for_the_next_tick(sqlite_store, tmp_path, monkeypatch):
    monkeypatch.setattr(store_engine, "SQLITE_BUSY_TIMEOUT_MS", 100)  # wait 0.1 s for the lock, not 30 s
    inbox = make_inbox(tmp_path, monkeypatch)
    instance = DagsterInstance.ephemeral()
    ticks = SensorTicks(sqlite_store.url, instance)
    (inbox / "locked.md").write_text(ABSTRACT)
    ticks.settled()
    instance.add_dynamic_partitions("projects", ["locked"])
    abstract_before = sqlite_store.projects.get_project("locked").abstract

    (inbox / "other.md").write_text(ABSTRACT + "\nA second review.")
    (inbox / "locked.csv").write_bytes(PAPERS)
    (inbox / "notes.docx").write_bytes(b"PK\x03\x04")
    waiting = inbox_files(inbox)
    # Another process holds the write lock (WAL: reads still work).
    holder = sqlite3.connect(make_url(sqlite_store.url).database, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        result = ticks.settled()
        assert isinstance(result, SkipReason)
        assert "domain database unavailable" in result.skip_message and "locked" in result.skip_message
        assert inbox_files(inbox) == waiting
        assert not (inbox / "rejected").exists()
        assert sqlite_store.projects.count_papers("locked") == 0
        assert sqlite_store.projects.get_project("locked").abstract == abstract_before
        assert [p.slug for p in sqlite_store.projects.list_projects()] == ["locked"]
    finally:
        holder.execute("ROLLBACK")
        holder.close()

    result = ticks.tick()  # they were complete before the outage, and still are: taken at once
    assert isinstance(result, SensorResult)
    assert sorted(r.partition_key for r in result.run_requests) == ["locked", "other"]
    assert result.dynamic_partitions_requests[0].partition_keys == ["other"]
    assert sqlite_store.projects.count_papers("locked") == 40
    assert inbox_files(inbox) == {}
    assert sorted(p.name for p in (inbox / "rejected" / "_unsorted").iterdir()) == ["notes.docx",
                                                                                  "notes.docx.error.txt"]
