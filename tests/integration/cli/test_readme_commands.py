"""The README's "Using it" block runs as written, in order, on a fresh AGENTR_HOME: a command the README shows
and the CLI does not take (a renamed option, a removed command) fails here instead of in a newcomer's terminal."""

from __future__ import annotations

import shlex
import shutil
from pathlib import Path

import pytest

from tests.support import REPO
from tests.support.cli import agentr


def _using_it_commands() -> list[list[str]]:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    section = text[text.index("## Using it"):text.index("## Documentation")]
    block = section[section.index("```bash") + len("```bash"):]
    block = block[:block.index("```")]
    commands = []
    for line in block.strip().splitlines():
        words = shlex.split(line, comments=True)
        if words and words[0] == "agentr":
            commands.append(words[1:])
    return commands


def test_the_using_it_block_lists_the_everyday_commands():
    names = {words[0] for words in _using_it_commands()}
    assert {"project", "papers", "run", "status", "label", "export", "report", "failures"} <= names


@pytest.mark.timeout(600)
def test_every_command_of_the_using_it_block_runs_as_written(tmp_path, monkeypatch):
    # The block's paths are relative to the repository root; run it in a copy of what it reads, so `--out ./out`
    # writes into the test's folder, not the checkout.
    demo = tmp_path / "agentr_dagster" / "data" / "demo"
    shutil.copytree(REPO / "agentr_dagster" / "data" / "demo", demo)
    monkeypatch.chdir(tmp_path)
    for words in _using_it_commands():
        result = agentr(*words)
        assert result.exit_code == 0, f"agentr {' '.join(words)}:\n{result.output[-2000:]}"
    assert list(Path("out").glob("*.xlsx")), "agentr export --out ./out wrote no workbook"
