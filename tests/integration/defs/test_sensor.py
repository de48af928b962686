"""The drop-folder sensor, evaluated with build_sensor_context against a real instance and store."""

from __future__ import annotations

import os

from dagster import DagsterInstance, SensorResult, SkipReason

from agentr_dagster.defs.sensors import inbox_pass
from tests.support import DEMO
from tests.support.sensor import SensorTicks


def tick(store, instance):
    """Two daemon ticks over files that did not change in between: the second takes them."""
    return SensorTicks(store.url, instance).settled()


def test_drop_folder_lifecycle(store, tmp_path, monkeypatch):
    home = tmp_path / "home"
    monkeypatch.setenv("AGENTR_HOME", str(home))
    inbox = home / "inbox"
    inbox.mkdir(parents=True)
    instance = DagsterInstance.ephemeral()

    (inbox / "my-review.md").write_text((DEMO / "abstract.md").read_text())
    result = tick(store, instance)
    assert [r.partition_key for r in result.run_requests] == ["my-review"]
    assert result.dynamic_partitions_requests[0].partition_keys == ["my-review"]
    assert store.projects.get_project("my-review").abstract.startswith("Systematic literature reviews")
    assert (home / "inbox" / "processed" / "my-review" / "my-review.md").exists()
    # build_sensor_context does not apply the adds; the daemon would.
    instance.add_dynamic_partitions("projects", ["my-review"])

    papers = (DEMO / "papers.csv").read_bytes()
    (inbox / "my-review.csv").write_bytes(papers)
    result = tick(store, instance)
    assert [r.partition_key for r in result.run_requests] == ["my-review"]
    assert not result.dynamic_partitions_requests
    assert store.projects.count_papers("my-review") == 40

    # The same file dropped again (under another name, in the project's folder) adds nothing, launches nothing.
    (inbox / "my-review").mkdir()
    (inbox / "my-review" / "again.csv").write_bytes(papers)
    result = tick(store, instance)
    assert isinstance(result, SkipReason)
    assert result.skip_message == "no new papers: my-review/again.csv (already imported)"
    assert store.projects.count_papers("my-review") == 40


def test_a_pubmed_export_in_a_project_folder_is_imported(store, tmp_path, monkeypatch):
    from tests.support.import_samples import MEDLINE

    home = tmp_path / "home"
    monkeypatch.setenv("AGENTR_HOME", str(home))
    inbox = home / "inbox"
    (inbox / "pm-review").mkdir(parents=True)
    instance = DagsterInstance.ephemeral()
    (inbox / "pm-review.txt").write_text((DEMO / "abstract.md").read_text())  # at the top: the abstract
    (inbox / "pm-review" / "pubmed-export.txt").write_text(MEDLINE)  # in the project's folder: papers
    (inbox / "pm-review" / "notes.txt").write_text("Papers to read later.\nAsk Anna.\n")
    result = tick(store, instance)
    assert [r.partition_key for r in result.run_requests] == ["pm-review"]
    assert store.projects.get_project("pm-review").abstract.startswith("Systematic literature reviews")
    assert store.projects.count_papers("pm-review") == 2
    reason = (inbox / "rejected" / "pm-review" / "notes.txt.error.txt").read_text()
    assert "not a PubMed (MEDLINE) export" in reason
    assert "project: pm-review\ncame from: inbox/pm-review/notes.txt\n" in reason


def test_bad_files_are_quarantined_with_reasons(store, tmp_path, monkeypatch, capfd):
    home = tmp_path / "home"
    monkeypatch.setenv("AGENTR_HOME", str(home))
    inbox = home / "inbox"
    inbox.mkdir(parents=True)
    instance = DagsterInstance.ephemeral()
    (inbox / "good.md").write_text((DEMO / "abstract.md").read_text())
    tick(store, instance)
    instance.add_dynamic_partitions("projects", ["good"])
    (inbox / "good.csv").write_bytes((DEMO / "papers.csv").read_bytes())
    tick(store, instance)
    before = store.projects.count_papers("good")
    abstract_before = store.projects.get_project("good").abstract

    (inbox / "good-2.csv").write_text("name,colour\nfoo,blue\n")  # no title column -> and no such project
    (inbox / "good").mkdir()
    (inbox / "good" / "broken.csv").write_text("author,year\nSmith,2020\n")  # no title column
    (inbox / "good" / "binary.csv").write_bytes(b"\x00\x01\x02PK\x03\x04" * 100)
    (inbox / "Bad Name.md").write_text("an abstract with enough words to count as one")
    (inbox / "notes.docx").write_bytes(b"PK\x03\x04")
    (inbox / "empty.md").write_text("   ")
    os.symlink("/etc/passwd", inbox / "good" / "link.csv")
    capfd.readouterr()
    tick_result = tick(store, instance)
    # Nothing launched: a skip, with every rejection recorded on the `inbox` asset (file, reason, where it went).
    assert isinstance(tick_result, SensorResult) and not tick_result.run_requests
    result = tick_result.skip_reason
    observed = {e.metadata["file"].value: e for e in tick_result.asset_events}
    assert {e.asset_key.to_user_string() for e in observed.values()} == {"inbox"}
    assert set(observed) == {"good-2.csv", "good/broken.csv", "good/binary.csv", "Bad Name.md", "notes.docx",
                             "empty.md", "good/link.csv"}
    assert observed["good/broken.csv"].metadata["moved_to"].value == str(inbox / "rejected" / "good" / "broken.csv")
    log = capfd.readouterr().err  # the tick log: one WARNING per rejected file
    assert "WARNING - rejected notes.docx: not an abstract" in log and "WARNING - rejected good/broken.csv: " in log
    # The tick's own message names every file and its reason.
    for name in ("good-2.csv", "good/broken.csv", "good/binary.csv", "Bad Name.md", "notes.docx", "empty.md",
                 "good/link.csv"):
        assert f"{name}: " in result.skip_message, (name, result.skip_message)
    assert result.skip_message.startswith("rejected 7 file(s)")

    # Each rejected file keeps its project: rejected/<slug>/<name> beside <name>.error.txt.
    rejected = home / "inbox" / "rejected"
    kept = sorted(str(p.relative_to(rejected)) for p in rejected.rglob("*") if p.is_file() or p.is_symlink()
                  if not p.name.endswith(".error.txt"))
    assert kept == sorted(["good-2/good-2.csv", "good/broken.csv", "good/binary.csv", "_unsorted/Bad Name.md",
                           "_unsorted/notes.docx", "empty/empty.md", "good/link.csv"])
    for name in kept:
        reason = (rejected / f"{name}.error.txt").read_text()
        assert "reason:" in reason and len(reason.split("reason:")[1].strip()) > 10, reason
        assert "\nrejected at: 20" in reason and "\ncame from: inbox/" in reason, reason
    broken = (rejected / "good" / "broken.csv.error.txt").read_text()
    assert "title" in broken.lower() and "project: good\ncame from: inbox/good/broken.csv\n" in broken
    unsorted = (rejected / "_unsorted" / "Bad Name.md.error.txt").read_text()
    assert "project: none\ncame from: inbox/Bad Name.md\n" in unsorted
    # Nothing stored was touched, and the sensor still ticks.
    assert store.projects.count_papers("good") == before
    assert store.projects.get_project("good").abstract == abstract_before
    assert list(inbox.glob("*.md")) == []
    tick(store, instance)


def test_large_drops_are_spread_across_ticks(store, tmp_path):
    home = tmp_path / "home"
    inbox = home / "inbox"
    inbox.mkdir(parents=True)
    text = (DEMO / "abstract.md").read_text()
    for i in range(7):
        (inbox / f"p{i}.md").write_text(text)
    one = inbox_pass(store, home, set(), files_per_tick=3)
    first = one.new_partitions
    assert len(first) == 3 and len(one.run_requests) == 3
    second = inbox_pass(store, home, set(first), files_per_tick=3).new_partitions
    third = inbox_pass(store, home, set(first + second), files_per_tick=3).new_partitions
    assert sorted(first + second + third) == [f"p{i}" for i in range(7)]


def test_the_inbox_can_launch_the_celery_job(sqlite_store, tmp_path, monkeypatch):
    import subprocess
    import sys

    from agentr_dagster.defs.distributed import CELERY_JOB
    from agentr_dagster.defs.sensors import make_inbox_sensor

    home = tmp_path / "home"
    monkeypatch.setenv("AGENTR_HOME", str(home))
    (home / "inbox").mkdir(parents=True)
    (home / "inbox" / "spread-out.md").write_text((DEMO / "abstract.md").read_text())
    sensor = make_inbox_sensor(CELERY_JOB)
    result = SensorTicks(sqlite_store.url, DagsterInstance.ephemeral(), sensor).settled()
    assert [(r.partition_key, r.job_name) for r in result.run_requests] == [("spread-out", CELERY_JOB)]

    # The code location picks the job from the environment, and refuses a job it does not have.
    load = [sys.executable, "-c", "from agentr_dagster.definitions import defs; "
            "s = defs.resolve_sensor_def('inbox_sensor'); print(s.job_name, defs.resolve_job_def(s.job_name).name)"]
    env = {**os.environ, "AGENTR_INBOX_JOB": CELERY_JOB}
    out = subprocess.run(load, env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0 and out.stdout.split() == [CELERY_JOB, CELERY_JOB], out.stderr[-2000:]
    out = subprocess.run(load, env={**env, "AGENTR_INBOX_JOB": "no_such_job"}, capture_output=True, text=True,
                         timeout=300)
    assert out.returncode != 0 and "AGENTR_INBOX_JOB='no_such_job' names no job" in out.stderr
