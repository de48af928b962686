"""The hostile corpus end to end: through the real inbox sensor (build_sensor_context on a real Dagster instance
and the domain store on SQLite and PostgreSQL) and through the CLI (`agentr papers add`, `agentr project add`).

Every input must be handled without a crash, every rejection must say why (an error file beside the
quarantined file, or a clear CLI message), and no stored row may change because of bad input: the store's
tables (all of them, every row) are snapshotted before and after each input. The harness is
scripts/hostile_report.py, which prints the same figures.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from dagster import DagsterInstance, SkipReason

from agentr_dagster.defs.sensors import inbox_pass
from tests.support import REPO
from tests.support.scripts import load_script
from tests.support.sensor import SensorTicks

ROOT = REPO
DEMO = ROOT / "agentr_dagster" / "data" / "demo"


harness = load_script(ROOT / "scripts" / "hostile_report.py")


def _instance(tmp_path: Path) -> DagsterInstance:
    (tmp_path / "dagster").mkdir(exist_ok=True)
    return DagsterInstance.local_temp(str(tmp_path / "dagster"))


def _ticker(store, instance: DagsterInstance):
    """Each call: two daemon ticks over the case just dropped (the first sees it, the second takes it)."""
    return SensorTicks(store.url, instance).settled


def _assert_all_clean(outcomes) -> dict:
    summary = harness.summarise(outcomes)
    bad = [f"{o.channel} {o.case}: {o.result}; {'; '.join(o.problems)}" for o in outcomes if not o.clean]
    assert not bad, "\n".join(bad)
    assert summary["crashes"] == 0
    assert summary["stored_rows_changed_by_bad_input"] == 0
    assert summary["handled_cleanly"] == summary["inputs_tried"]
    return summary


def test_hostile_corpus_through_the_sensor(store, tmp_path, monkeypatch):
    home = tmp_path / "home"
    monkeypatch.setenv("AGENTR_HOME", str(home))
    harness.setup_store(store)
    instance = _instance(tmp_path)
    instance.add_dynamic_partitions("projects", [harness.TARGET])
    target_before = store.projects.get_project(harness.TARGET)
    papers_before = {p.id: p for p in store.projects.list_papers(harness.TARGET)}

    outcomes = harness.run_sensor(store, home, _ticker(store, instance), tmp_path / "work")
    summary = _assert_all_clean(outcomes)
    assert summary["inputs_tried"] >= 110 and summary["rejected_with_reason"] >= 50 and summary["accepted"] >= 50

    # The live project's abstract and its first 40 papers are exactly as they were.
    assert store.projects.get_project(harness.TARGET).abstract == target_before.abstract
    assert {p.id: p for p in store.projects.list_papers(harness.TARGET) if p.id in papers_before} == papers_before
    # Every quarantined file has its reason beside it, as valid, printable UTF-8.
    rejected = home / "inbox" / "rejected"
    errors = sorted(rejected.rglob("*.error.txt"))
    assert len(errors) == summary["rejected_with_reason"]
    for error in errors:
        text = error.read_text(encoding="utf-8")
        assert text.startswith("file: ") and "\nreason: " in text, text
        assert all(ch.isprintable() for line in text.splitlines() for ch in line), text
        assert os.path.lexists(error.with_name(error.name[: -len(".error.txt")])), error.name
    # Nothing is left waiting in the inbox, and the sensor still ticks.
    leftovers = [p for p in (home / "inbox").rglob("*") if "rejected" not in p.parts and "processed" not in p.parts
                 and not p.is_dir()]
    assert leftovers == []
    assert isinstance(_ticker(store, instance)(), SkipReason)


def test_hostile_corpus_through_the_cli(pg_store, tmp_path, monkeypatch):
    monkeypatch.setenv("AGENTR_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("AGENTR_DATABASE_URL", pg_store.url)
    harness.setup_store(pg_store)
    outcomes = harness.run_cli(pg_store, tmp_path / "work")
    summary = _assert_all_clean(outcomes)
    assert summary["inputs_tried"] >= 100 and summary["rejected_with_reason"] >= 45
    # Rejections name the file and say why; none prints SQL or a traceback.
    for outcome in outcomes:
        assert "Traceback" not in outcome.reason and "[SQL:" not in outcome.reason, outcome


def test_cli_in_a_real_process_with_a_pipe_an_undecodable_name_and_a_sparse_file(tmp_path):
    """A subprocess, so the terminal encoding is real: nothing blocks on the pipe, nothing reads 2 GB."""
    from agentr_dagster.stages.intake import add_project
    from agentr_dagster.store import DomainStore, default_database_url

    home = tmp_path / "home"
    home.mkdir()
    with DomainStore(default_database_url(home)) as store:  # the store the CLI opens under this home
        add_project(store, "target", (DEMO / "abstract.md").read_text())
    env = {**os.environ, "AGENTR_HOME": str(home), "PYTHONIOENCODING": "utf-8"}
    agentr = [sys.executable, "-m", "agentr_dagster.cli"]
    os.mkfifo(tmp_path / "pipe.csv")
    bad_name = os.path.join(os.fsencode(tmp_path), b"caf\xe9.csv")
    with open(bad_name, "wb") as handle:
        handle.write(b"title\nA paper\n")
    with (tmp_path / "huge.csv").open("wb") as handle:
        handle.truncate(2 * 1024**3)
    started = time.monotonic()
    done = subprocess.run(
        [*agentr, "papers", "add", "target", str(tmp_path / "pipe.csv"), os.fsdecode(bad_name),
         str(tmp_path / "huge.csv")],
        env=env, capture_output=True, timeout=300,
    )
    assert time.monotonic() - started < 120
    err = done.stderr.decode("utf-8")
    assert done.returncode == 2, err
    assert "Traceback" not in err
    assert "pipe.csv: is a named pipe" in err
    assert "caf\\udce9.csv: the file name has undecodable bytes" in err
    assert "huge.csv: the file is too large (2,147,483,648 bytes" in err


def test_a_big_mixed_drop_in_one_go(sqlite_store, tmp_path, monkeypatch):
    """Every hostile file at once, the sensor's usual batch size: each tick stays far below the 60 s limit."""
    home = tmp_path / "home"
    monkeypatch.setenv("AGENTR_HOME", str(home))
    harness.setup_store(sqlite_store)
    # Paper files only: the abstract cases share inbox names (they all aim at target.md), and hidden files
    # are left alone by design.
    cases = [c for c in harness.corpus_cases(tmp_path / "work")
             if c.inbox_name and c.kind != "abstract" and c.expect.get("sensor") != "ignored"
             and not Path(c.inbox_name).name.startswith(".")]
    for case in cases:
        harness._place(case, home / "inbox")
    before = harness.snapshot(sqlite_store.engine)
    existing, seconds = {harness.TARGET}, []

    def drained_after_a_tick() -> bool:  # one sensor tick, timed; then: is anything left waiting in the inbox?
        started = time.perf_counter()
        existing.update(inbox_pass(sqlite_store, home, existing, files_per_tick=25).new_partitions)
        seconds.append(time.perf_counter() - started)
        inbox = home / "inbox"
        return not [p for p in inbox.rglob("*") if p.is_file() and not {"rejected", "processed"} & set(p.parts)]

    assert any(drained_after_a_tick() for _ in range(19)), "the inbox does not drain in 19 ticks"
    assert max(seconds) < 30, seconds
    change = harness.diff(before, harness.snapshot(sqlite_store.engine))
    assert change.changed_rows == 0, change.changed
    errors = list((home / "inbox" / "rejected").rglob("*.error.txt"))
    assert len(errors) == sum(1 for c in cases if c.expect.get("sensor", c.expect["outcome"]) == "reject")


def test_files_named_like_the_inbox_folders(sqlite_store, tmp_path):
    """A careless drop of plain files called `rejected` and `processed` must not wedge the sensor."""
    home = tmp_path / "home"
    inbox = home / "inbox"
    inbox.mkdir(parents=True)
    (inbox / "rejected").write_text("not a folder")
    (inbox / "processed").write_text("not a folder either")
    (inbox / "fresh.md").write_text((DEMO / "abstract.md").read_text())
    (inbox / "nobody.csv").write_text("title\nOrphan paper\n")
    existing: set[str] = set()
    for _ in range(4):
        new = inbox_pass(sqlite_store, home, existing).new_partitions
        existing |= set(new)
    assert existing == {"fresh"}
    assert (inbox / "rejected").is_dir() and (inbox / "processed").is_dir()
    assert sorted(p.name for p in inbox.iterdir()) == ["processed", "rejected"]
    reasons = sorted((inbox / "rejected").rglob("*.error.txt"), key=lambda p: p.name)
    assert [p.name.split(".")[0] for p in reasons] == ["nobody", "processed", "rejected"]
    assert (inbox / "processed" / "fresh" / "fresh.md").exists()


def test_a_symlinked_rejected_folder_is_never_written_through(sqlite_store, tmp_path):
    home, elsewhere = tmp_path / "home", tmp_path / "elsewhere"
    inbox = home / "inbox"
    inbox.mkdir(parents=True)
    elsewhere.mkdir()
    os.symlink(elsewhere, inbox / "rejected")
    os.symlink(elsewhere, inbox / "processed")
    (inbox / "fresh.md").write_text((DEMO / "abstract.md").read_text())
    (inbox / "bad.csv").write_bytes(b"\x00\x01")
    for _ in range(3):
        inbox_pass(sqlite_store, home, set())
    assert list(elsewhere.iterdir()) == []
    assert not (inbox / "rejected").is_symlink() and not (inbox / "processed").is_symlink()
    assert (inbox / "processed" / "fresh" / "fresh.md").exists()
    names = sorted(p.name.split(".")[0] for p in (inbox / "rejected").rglob("*.error.txt"))
    assert names == ["bad", "processed", "rejected"]  # the two links, moved aside and rejected with a reason


def test_import_limits_come_from_the_environment(sqlite_store, tmp_path, monkeypatch):
    home = tmp_path / "home"
    (home / "inbox" / harness.TARGET).mkdir(parents=True)
    harness.setup_store(sqlite_store)
    many_rows = (harness.CORPUS / "many_rows.csv").read_bytes()
    (home / "inbox" / harness.TARGET / "many.csv").write_bytes(many_rows)
    monkeypatch.setenv("AGENTR_IMPORT_MAX_ROWS", "100")
    inbox_pass(sqlite_store, home, {harness.TARGET})
    reason = (home / "inbox" / "rejected" / harness.TARGET / "many.csv.error.txt").read_text()
    assert "more than 100 records" in reason
    monkeypatch.delenv("AGENTR_IMPORT_MAX_ROWS")
    monkeypatch.setenv("AGENTR_IMPORT_MAX_BYTES", "1000")
    (home / "inbox" / harness.TARGET / "many2.csv").write_bytes(many_rows)
    inbox_pass(sqlite_store, home, {harness.TARGET})
    assert "too large" in (home / "inbox" / "rejected" / harness.TARGET / "many2.csv.error.txt").read_text()
    assert sqlite_store.projects.count_papers(harness.TARGET) == 40


@pytest.mark.parametrize("name", ["x" * 251 + ".md", "y" * 240 + ".csv"])
def test_over_long_names_are_quarantined_with_a_shortened_name(sqlite_store, tmp_path, name):
    home = tmp_path / "home"
    (home / "inbox").mkdir(parents=True)
    for _ in range(2):  # the second drop of the same name must not overwrite the first
        (home / "inbox" / name).write_bytes(b"\x00binary\x00")
        inbox_pass(sqlite_store, home, set())
    errors = list((home / "inbox" / "rejected").rglob("*.error.txt"))
    assert len(errors) == 2
    for error in errors:
        assert len(os.fsencode(error.name)) <= 255
        assert name in error.read_text()
