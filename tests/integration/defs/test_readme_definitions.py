"""The README says what the code location holds: its asset, check, job, sensor and schedule lists (docs/ui.md, "The
Dagster UI") and its stage table name exactly what the definitions define, with the right count, intervals and
default states; its first screen is the first hour (set-up, `make ui` with a port, the URL, the inbox, a drop)."""

from __future__ import annotations

import re
from pathlib import Path

from dagster import DefaultScheduleStatus, DefaultSensorStatus

from agentr_dagster.settings import SensorsConfig

ROOT = Path(__file__).resolve().parents[3]
README = (ROOT / "README.md").read_text(encoding="utf-8")
UI_DOC = (ROOT / "docs" / "ui.md").read_text(encoding="utf-8")
NUMBERS = {"six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10}


def _section(title: str) -> str:
    start = UI_DOC.index(f"\n## {title}\n")
    end = UI_DOC.find("\n##", start + 5)
    return UI_DOC[start:end]


def _bullet(section: str, starts: str) -> str:
    """The text of the bullet starting with ``starts`` (its continuation lines included)."""
    match = re.search(rf"^- {re.escape(starts)}.*?(?=^- |^\S|\Z)", section, flags=re.M | re.S)
    assert match, f"no bullet starting {starts!r}"
    return match.group(0)


def _names(text: str) -> set[str]:
    return set(re.findall(r"`([a-z_]+)`", text))


def _defs():
    from agentr_dagster.definitions import defs

    return defs


def test_the_ui_section_lists_every_asset_and_check_and_nothing_else():
    from agentr_dagster.defs.assets import expansion_assets, pipeline_assets

    defs = _defs()
    graph = defs.resolve_asset_graph()
    ui = _section("The Dagster UI")
    assets = _bullet(ui, "**")
    count = re.match(r"- \*\*(\w+) assets\*\*", assets)
    assert count and NUMBERS[count.group(1)] == len(pipeline_assets), assets[:80]
    chain, _, beside = assets.partition("beside the chain")
    assert _names(chain) == {a.key.to_user_string() for a in pipeline_assets}
    every = {key.to_user_string() for key in graph.get_all_asset_keys()}
    assert {a.key.to_user_string() for a in expansion_assets} | {"inbox"} <= _names(beside)
    assert _names(chain) | (_names(beside) & every) == every
    checks = _bullet(ui, "**asset checks**")
    assert _names(checks) == {key.name for key in graph.asset_check_keys}
    # the stage table at the top names the chain too
    table = README[README.index("## What it does"):README.index("### Backends")]
    assert [m for m in re.findall(r"^\| `([a-z_]+)` \|", table, flags=re.M)] == [
        a.key.to_user_string() for a in pipeline_assets]


def test_the_ui_section_lists_every_job_sensor_and_schedule_as_defined():
    defs = _defs()
    ui = _section("The Dagster UI")
    jobs = _bullet(ui, "**jobs**")
    defined = {j.name for j in defs.jobs}
    listed = {name for name in _names(jobs) if name.startswith("project_")}
    assert defined <= listed <= defined | {"project_pipeline_celery"}  # Celery's only with the `distributed` extra
    assert "in the run's own process" in jobs
    assert defs.resolve_job_def("project_pipeline").executor_def.name == "in_process"
    for sensor in defs.sensors:
        line = _bullet(ui, f"**`{sensor.name}`**")
        running = sensor.default_status == DefaultSensorStatus.RUNNING
        assert ("running by default" in line) is running, line
        assert f"every {sensor.minimum_interval_seconds} s" in line, line
    for schedule in defs.schedules:
        line = _bullet(ui, f"**`{schedule.name}`**")
        stopped = schedule.default_status == DefaultScheduleStatus.STOPPED
        assert ("stopped by default" in line) is stopped, line


def test_the_first_screen_is_the_first_hour_and_make_ui_takes_a_port():
    first = README[:README.index("## What it does")]
    steps = re.findall(r"^make (\w+)", first.split("```bash", 1)[1].split("```", 1)[0], flags=re.M)
    assert steps == ["demo", "test", "ui"]  # the two set-up commands, then the UI
    for claim in ("make ui PORT=3001", "http://127.0.0.1:3000", ".agentr/inbox/", "cp agentr_dagster/data/demo/"):
        assert claim in first, claim
    for path in re.findall(r"cp (agentr_dagster/\S+)", first):
        assert (ROOT / path).is_file(), path
    makefile = (ROOT / "Makefile").read_text()
    ui = makefile[makefile.index("\nui:"):]
    ui = ui[:ui.index("\n\n")]
    assert "--port $(PORT)" in ui and "PORT ?= 3000" in makefile and 'mkdir -p "$(AGENTR_HOME)/inbox"' in ui
    assert "export AGENTR_HOME ?= $(CURDIR)/.agentr" in makefile  # the inbox the first screen names
    quiet = SensorsConfig.model_fields["labels_quiet_seconds"].default
    assert f"quiet for {quiet:g} s" in first  # the labels sensor's debounce, as the settings define it
    assert "agentr label my-review id:<paper_id> include" in first  # a bare number may name two papers
