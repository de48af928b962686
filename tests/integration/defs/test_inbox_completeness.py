"""The inbox sensor takes a file only once it is complete (size and modification time unchanged across two
ticks; hidden names and download suffixes are being written), and every tick that rejects or defers a file
names it with its reason: the real sensor on a real Dagster instance, the domain store on SQLite and
PostgreSQL."""

from __future__ import annotations

import pandas as pd
from dagster import DagsterInstance, SensorResult, SkipReason

from agentr_dagster.stages.inbox import decode_stamps, pending_files
from agentr_dagster.stages.intake import add_project
from tests.support import ABSTRACT, DEMO
from tests.support.sensor import SensorTicks


def _csv_lines(n: int, skip: int = 0) -> str:
    frame = pd.read_csv(DEMO / "papers.csv").iloc[skip:skip + n]
    return frame.to_csv(index=False, header=skip == 0)


def test_a_file_appended_between_ticks_is_not_imported_half(store, tmp_path, monkeypatch, capfd):
    home = tmp_path / "home"
    monkeypatch.setenv("AGENTR_HOME", str(home))
    folder = home / "inbox" / "slow-copy"
    folder.mkdir(parents=True)
    add_project(store, "slow-copy", ABSTRACT)
    instance = DagsterInstance.ephemeral()
    instance.add_dynamic_partitions("projects", ["slow-copy"])
    ticks = SensorTicks(store.url, instance)
    target = folder / "big.csv"

    target.write_text(_csv_lines(5))  # the copy has written 5 rows so far
    first = ticks.tick()
    assert isinstance(first, SkipReason) and "slow-copy/big.csv: new since the last tick" in first.skip_message
    with target.open("a") as handle:  # ...and goes on: 15 more rows before the next tick
        handle.write(_csv_lines(15, skip=5))
    capfd.readouterr()
    second = ticks.tick()
    assert isinstance(second, SkipReason)
    assert "waiting for 1 file(s) to be complete: slow-copy/big.csv: still being written:" in second.skip_message
    assert "WARNING - deferred slow-copy/big.csv: still being written" in capfd.readouterr().err  # the tick log
    assert store.projects.count_papers("slow-copy") == 0 and target.exists()
    # `agentr inbox` reads the same stamps: deferred as incomplete, with the size change.
    listed = pending_files(home, {**decode_stamps(ticks.cursor), "slow-copy/big.csv": (1, 1)})
    assert [(f.state, f.file) for f in listed] == [("deferred", "slow-copy/big.csv")]

    third = ticks.tick()  # unchanged since the last tick: complete, imported whole
    assert isinstance(third, SensorResult) and [r.partition_key for r in third.run_requests] == ["slow-copy"]
    assert store.projects.count_papers("slow-copy") == 20
    assert not target.exists() and (home / "inbox" / "processed" / "slow-copy" / "big.csv").exists()
    assert not (home / "inbox" / "rejected").exists()
    assert decode_stamps(ticks.cursor) == {}  # nothing left to watch


def test_hidden_names_and_downloads_wait_until_renamed(sqlite_store, tmp_path, monkeypatch):
    home = tmp_path / "home"
    monkeypatch.setenv("AGENTR_HOME", str(home))
    folder = home / "inbox" / "renamed"
    folder.mkdir(parents=True)
    add_project(sqlite_store, "renamed", ABSTRACT)
    instance = DagsterInstance.ephemeral()
    instance.add_dynamic_partitions("projects", ["renamed"])
    ticks = SensorTicks(sqlite_store.url, instance)
    (folder / ".papers.csv").write_text(_csv_lines(6))  # the documented convention: write, then rename
    (folder / "export.csv.crdownload").write_text(_csv_lines(3))  # a browser still downloading
    for _ in range(3):
        result = ticks.tick()
        assert isinstance(result, SkipReason)
        assert "renamed/export.csv.crdownload: an unfinished download" in result.skip_message
        assert ".papers.csv" not in result.skip_message
    assert sqlite_store.projects.count_papers("renamed") == 0
    listed = {f.file: f for f in pending_files(home, decode_stamps(ticks.cursor))}
    assert listed["renamed/.papers.csv"].state == "deferred" and "hidden name" in listed["renamed/.papers.csv"].reason
    assert listed["renamed/export.csv.crdownload"].state == "deferred"
    assert not (home / "inbox" / "rejected").exists()  # waiting is not rejecting

    (folder / ".papers.csv").rename(folder / "papers.csv")
    assert isinstance(ticks.tick(), SkipReason)  # seen once...
    result = ticks.tick()  # ...and unchanged: taken
    assert isinstance(result, SensorResult) and sqlite_store.projects.count_papers("renamed") == 6
