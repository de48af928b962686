"""`agentr run` / `agentr status` on a project without candidates, and `agentr inbox`, as a user runs them: real
store (SQLite under AGENTR_HOME, as the CLI opens it), real Dagster instance, real drop folder."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from click.testing import CliRunner

from agentr_dagster.cli import main
from agentr_dagster.cli.common import open_store
from agentr_dagster.defs.sensors import inbox_pass
from tests.support import DEMO

HINT = "add papers: agentr papers add {slug} FILE..., or drop a file in inbox/{slug}/"


def agentr(*args: str):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def test_a_project_without_candidates_runs_and_says_what_to_do_next(tmp_path):
    abstract = tmp_path / "abstract.md"
    abstract.write_text((DEMO / "abstract.md").read_text())
    assert agentr("project", "add", "no-papers", "--abstract", str(abstract)).exit_code == 0
    run = agentr("run", "no-papers", "--no-progress")
    assert run.exit_code == 0, run.output
    assert "no-papers: research intent and search queries are ready; waiting for candidates" in run.output
    assert f"next: {HINT.format(slug='no-papers')}, then `agentr run no-papers`" in run.output
    status = agentr("status", "no-papers")
    assert status.exit_code == 0, status.output
    lines = status.output.splitlines()
    assert lines[0] == "no-papers: 0 candidate papers; waiting for candidates"
    # the stages in the order a run takes them, in words, not key=value pairs in alphabetical order
    assert [line.split()[0:2] for line in lines[1:3]] == [["research", "intent"], ["search", "queries"]]
    assert "completed" in lines[1] and "=" not in status.output
    assert lines[-1] == (f"next: {HINT.format(slug='no-papers')}; the drop folder launches the run, else agentr run "
                         "no-papers")
    assert "failed" not in status.output
    assert json.loads(agentr("failures", "no-papers", "--json").output) == []

    # Once it has papers, it no longer waits (the run after that is the usual chain: tests/integration/defs).
    papers = tmp_path / "papers.csv"
    papers.write_text("".join((DEMO / "papers.csv").read_text().splitlines(keepends=True)[:7]))  # 6 papers
    assert agentr("papers", "add", "no-papers", str(papers)).exit_code == 0
    after = agentr("status", "no-papers").output
    assert "waiting" not in after and "6 candidate papers; to re-run: score: 6 of 6 papers have no current score" \
        in after
    assert after.splitlines()[-1] == "next: agentr estimate no-papers (what it costs), then agentr run no-papers"


def _old(path: Path) -> Path:
    stamp = time.time() - 3600  # written an hour ago: not being copied now
    os.utime(path, (stamp, stamp))
    return path


def test_inbox_lists_pending_deferred_processed_and_rejected_with_reasons(tmp_path):
    home = Path(os.environ["AGENTR_HOME"])
    inbox = home / "inbox"
    (inbox / "listed").mkdir(parents=True)
    abstract = tmp_path / "abstract.md"
    abstract.write_text((DEMO / "abstract.md").read_text())
    assert agentr("project", "add", "listed", "--abstract", str(abstract)).exit_code == 0
    # Through the drop folder once: one file imported, two rejected (kept under their project).
    demo = (DEMO / "papers.csv").read_text().splitlines(keepends=True)
    # the 40 demo papers, the first one again (row 42) and a row without a title or a usable abstract (row 43)
    (inbox / "listed" / "papers.csv").write_text("".join(demo) + demo[1] + "999,,too short,2020,\n")
    (inbox / "listed" / "broken.csv").write_text("author,year\nSmith,2020\n")
    (inbox / "notes.docx").write_bytes(b"PK\x03\x04")
    taken = inbox_pass(open_store(), home, {"listed"})
    # the drop folder names each dropped row, as `agentr papers add` does: in the tick's log and on the inbox asset
    dropped = [line for line in taken.lines if line.startswith("  dropped ")]
    assert dropped == ["  dropped row 42: duplicate of row 2 (same title and year)", "  dropped row 43: missing title"]
    [imported] = taken.imported
    seen = imported.observation()
    assert seen.description.startswith("imported listed/papers.csv: 40 added, 0 duplicates, 2 rows dropped: row 42:")
    assert seen.metadata["rows_dropped"].value == 2
    assert seen.metadata["dropped_rows"].value == ("- row 42: duplicate of row 2 (same title and year)\n"
                                                   "- row 43: missing title")
    # Then files still waiting: one complete, one being written under a hidden name, one download unfinished.
    (inbox / "listed" / "more.ris").write_text("TY  - JOUR\nTI  - A paper\nER  - \n")
    _old(inbox / "listed" / "more.ris")
    (inbox / "listed" / ".copying.csv").write_text("title\n")
    (inbox / "listed" / "export.csv.part").write_text("title\n")

    listed = json.loads(agentr("inbox", "--json").output)
    assert listed["inbox"] == str(inbox) and listed["sensor"] is None  # no daemon has ticked on this instance
    assert [(f["file"], f["project"]) for f in listed["pending"]] == [("listed/more.ris", "listed")]
    assert "the sensor has not looked yet" in listed["pending"][0]["reason"]
    deferred = {f["file"]: f["reason"] for f in listed["deferred"]}
    assert set(deferred) == {"listed/.copying.csv", "listed/export.csv.part"}
    assert "hidden name" in deferred["listed/.copying.csv"]
    assert "unfinished download" in deferred["listed/export.csv.part"]
    [processed] = listed["processed"]
    assert (processed["file"], processed["project"]) == ("listed/papers.csv", "listed")
    assert processed["reason"].startswith("imported (papers): 40 added, 0 duplicates, 2 rows dropped: row 42: "
                                          "duplicate of row 2 (")
    assert "; row 43: " in processed["reason"]
    rejected = {f["file"]: f for f in listed["rejected"]}
    assert set(rejected) == {"listed/broken.csv", "notes.docx"}
    assert rejected["listed/broken.csv"]["project"] == "listed"
    assert "title" in rejected["listed/broken.csv"]["reason"].lower()
    assert rejected["notes.docx"]["project"] is None and "not an abstract" in rejected["notes.docx"]["reason"]
    assert all(f["at"] for f in listed["rejected"])

    text = agentr("inbox", "listed")
    assert text.exit_code == 0
    for line in ("pending (1)", "deferred (2)", "processed (1)", "rejected (1)", "listed/broken.csv  [listed; ",
                 "sensor: no tick recorded"):
        assert line in text.output, (line, text.output)
    assert "notes.docx" not in text.output  # another project's (none's) rejection


def test_inbox_shows_what_the_daemon_sensor_saw(tmp_path):
    """The sensor ticked by Dagster's own daemon loop (in process, on the instance the CLI opens): its cursor and
    its skip message are stored, and `agentr inbox` reads them."""
    import logging
    from datetime import datetime, timedelta, timezone

    from dagster._core.remote_origin import InProcessCodeLocationOrigin
    from dagster._core.test_utils import create_test_daemon_workspace_context, freeze_time, instance_for_test
    from dagster._core.types.loadable_target_origin import LoadableTargetOrigin
    from dagster._core.workspace.load_target import InProcessWorkspaceLoadTarget
    from dagster._daemon.sensor import execute_sensor_iteration

    home = Path(os.environ["AGENTR_HOME"])
    (home / "inbox" / "watched").mkdir(parents=True)
    (home / "dagster").mkdir(parents=True)
    growing = home / "inbox" / "watched" / "growing.csv"
    growing.write_text("title\nA first paper\n")
    target = InProcessWorkspaceLoadTarget([InProcessCodeLocationOrigin(
        LoadableTargetOrigin(module_name="agentr_dagster.definitions", attribute="defs"))])
    start = datetime.now(timezone.utc)
    with instance_for_test(temp_dir=str(home / "dagster")) as instance, \
            create_test_daemon_workspace_context(target, instance) as workspace:

        def daemon_tick(at: datetime):
            with freeze_time(at):  # the sensor's minimum interval is 15 s
                list(execute_sensor_iteration(workspace, logging.getLogger("test"), None, None))

        daemon_tick(start)
        seen = json.loads(agentr("inbox", "--json").output)
        assert seen["sensor"]["last_tick_status"] == "SKIPPED"
        assert "watched/growing.csv: new since the last tick" in seen["sensor"]["last_tick_message"]
        # Unchanged since that tick (the stamps in its cursor): the next tick takes it.
        assert [(f["file"], f["state"]) for f in seen["pending"]] == [("watched/growing.csv", "pending")]
        assert seen["pending"][0]["reason"].startswith("complete (unchanged since the sensor's last tick)")

        with growing.open("a") as handle:
            handle.write("A second paper\n")
        daemon_tick(start + timedelta(seconds=20))
        seen = json.loads(agentr("inbox", "--json").output)
        assert "watched/growing.csv: still being written: 20 -> 35 bytes" in seen["sensor"]["last_tick_message"]
        assert growing.exists()  # not imported half
        text = agentr("inbox").output
        assert "sensor: running (its default, while the daemon runs); last tick " in text
        assert "s ago): skipped: waiting for 1 file(s) to be complete: watched/growing.csv: still being" in text
        assert "complete (unchanged since the sensor's last tick)" in text


def test_agentr_inbox_creates_the_drop_folder_when_it_is_missing():
    inbox = Path(os.environ["AGENTR_HOME"]) / "inbox"
    assert not inbox.exists()
    first = agentr("inbox")
    assert first.exit_code == 0 and f"inbox: {inbox} (created now)" in first.output
    assert inbox.is_dir()
    assert "(created now)" not in agentr("inbox").output


def test_a_rejected_drop_is_an_observation_on_the_inbox_asset_and_listed_by_agentr_inbox(tmp_path):
    """Through Dagster's own daemon loop: a tick that rejects a file (and one that also launches a run) records
    an observation on the `inbox` asset with the file, the reason and where it was moved; `agentr inbox` says
    the same."""
    import logging
    from datetime import datetime, timedelta, timezone

    from dagster import AssetKey
    from dagster._core.remote_origin import InProcessCodeLocationOrigin
    from dagster._core.test_utils import create_test_daemon_workspace_context, freeze_time, instance_for_test
    from dagster._core.types.loadable_target_origin import LoadableTargetOrigin
    from dagster._core.workspace.load_target import InProcessWorkspaceLoadTarget
    from dagster._daemon.sensor import execute_sensor_iteration

    home = Path(os.environ["AGENTR_HOME"])
    inbox = home / "inbox"
    (inbox / "dropped").mkdir(parents=True)
    (home / "dagster").mkdir(parents=True)
    (inbox / "dropped.md").write_text((DEMO / "abstract.md").read_text())  # launches the project's run
    (inbox / "dropped" / "broken.csv").write_text("author,year\nSmith,2020\n")  # no title column
    (inbox / "notes.docx").write_bytes(b"PK\x03\x04")  # names no project
    target = InProcessWorkspaceLoadTarget([InProcessCodeLocationOrigin(
        LoadableTargetOrigin(module_name="agentr_dagster.definitions", attribute="defs"))])
    start = datetime.now(timezone.utc)
    with instance_for_test(temp_dir=str(home / "dagster")) as instance, \
            create_test_daemon_workspace_context(target, instance) as workspace:
        for seconds in (0, 20):  # seen, then taken: unchanged across two ticks
            with freeze_time(start + timedelta(seconds=seconds)):
                list(execute_sensor_iteration(workspace, logging.getLogger("test"), None, None))
        records = instance.fetch_observations(AssetKey("inbox"), limit=10).records
        observed = {r.asset_observation.metadata["file"].value: r.asset_observation for r in records}
        assert set(observed) == {"dropped/broken.csv", "notes.docx"}
        broken = {k: v.value for k, v in observed["dropped/broken.csv"].metadata.items()}
        assert broken["project"] == "dropped" and "title" in broken["reason"].lower()
        assert broken["moved_to"] == str(inbox / "rejected" / "dropped" / "broken.csv")
        assert broken["error_file"] == broken["moved_to"] + ".error.txt" and Path(broken["error_file"]).exists()
        assert observed["notes.docx"].metadata["project"].value == "_unsorted"
        assert observed["dropped/broken.csv"].description.startswith("rejected dropped/broken.csv: ")
        assert len(instance.get_runs()) == 1  # the same tick launched the abstract's run

    listed = json.loads(agentr("inbox", "--json").output)
    moved = {f["file"]: f["moved_to"] for f in listed["rejected"]}
    assert moved == {"dropped/broken.csv": broken["moved_to"],
                     "notes.docx": str(inbox / "rejected" / "_unsorted" / "notes.docx")}
    text = agentr("inbox", "dropped").output
    assert f"moved to {broken['moved_to']} (reason in {broken['moved_to']}.error.txt)" in text


def test_status_before_any_run_says_what_exists_and_what_to_do(tmp_path):
    empty = agentr("status")
    assert empty.exit_code == 0 and empty.output.startswith("no projects yet. Start one: agentr project add ")
    assert "inbox" in empty.output and "make ui" in empty.output
    abstract = tmp_path / "abstract.md"
    abstract.write_text((DEMO / "abstract.md").read_text())
    assert agentr("project", "add", "fresh", "--abstract", str(abstract)).exit_code == 0
    before = agentr("status", "fresh")
    assert before.exit_code == 0 and "no status for" not in before.output
    assert "fresh: not run yet; it has an abstract (" in before.output and ", 0 candidate papers." in before.output
    assert f"next: {HINT.format(slug='fresh')}; then agentr run fresh" in before.output
    papers = tmp_path / "papers.csv"
    papers.write_text("".join((DEMO / "papers.csv").read_text().splitlines(keepends=True)[:7]))  # 6 papers
    assert agentr("papers", "add", "fresh", str(papers)).exit_code == 0
    ready = agentr("status").output
    assert "fresh: not run yet; it has an abstract (" in ready and ", 6 candidate papers." in ready
    assert "next: agentr run fresh, or materialise its partition in the UI (make ui)" in ready
    typo = agentr("status", "frseh")
    assert typo.exit_code == 1 and "no project 'frseh'" in typo.output and "Projects here: fresh" in typo.output
