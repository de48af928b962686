"""`agentr screen` given a file it cannot use says so in one line and exits 1, never a traceback: a missing
question file, a directory, random bytes passed as the papers CSV. An empty papers table is ranked (an empty
ranking) but named in a warning."""

from __future__ import annotations

import random

from click.testing import CliRunner

from agentr_dagster.cli import main


def screen(*args: str):
    return CliRunner().invoke(main, ["screen", *args])


def test_unusable_files_are_one_line_errors(tmp_path):
    question = tmp_path / "q.md"
    question.write_text("Automated screening of randomised trials for systematic reviews.")
    papers = tmp_path / "papers.csv"
    papers.write_text("record_id,title,abstract\n1,A trial,An abstract\n")
    noise = tmp_path / "noise.csv"
    noise.write_bytes(random.Random(5).randbytes(2000))  # bytes no CSV reader can split into rows

    cases = {
        "missing question": (["--question", str(tmp_path / "nope.md"), "--papers", str(papers)],
                             "nope.md: No such file"),
        "directory as papers": (["--question", str(question), "--papers", str(tmp_path)], "Is a directory"),
        "bytes as papers": (["--question", str(question), "--papers", str(noise)], "could not be read as a CSV table"),
    }
    for name, (args, expected) in cases.items():
        result = screen(*args, "--out", "-")
        assert result.exit_code == 1, (name, result.output, result.exception)
        assert isinstance(result.exception, SystemExit), (name, result.exception)  # not an uncaught error
        assert expected in result.output, (name, result.output)
        assert "Traceback" not in result.output


def test_an_empty_papers_table_is_named_in_a_warning(tmp_path):
    question = tmp_path / "q.md"
    question.write_text("Automated screening of randomised trials for systematic reviews.")
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    result = screen("--question", str(question), "--papers", str(empty), "--out", str(tmp_path / "out.csv"))
    assert result.exit_code == 0, result.output
    assert f"warning: {empty}: no paper records read" in result.output
