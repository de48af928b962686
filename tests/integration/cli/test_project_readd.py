"""`agentr project add` of a slug that exists: the same abstract is said to exist already; another abstract is
said to replace the old one (it re-runs the chain), where it used to print `project x ready` either way. And
`agentr status` of a project whose abstract was replaced before any run still says what it holds and what to do
(the replacement's own `reinitiated` row used to hide that)."""

from __future__ import annotations

from tests.support.cli import agentr


def test_re_adding_a_project_says_whether_its_abstract_was_replaced(tmp_path):
    first, second = tmp_path / "first.md", tmp_path / "second.md"
    first.write_text("Automated screening of randomised controlled trials for systematic reviews in medicine.")
    second.write_text("Protein folding with deep learning.")

    assert "project again ready; next:" in agentr("project", "add", "again", "--abstract", str(first)).output
    same = agentr("project", "add", "again", "--abstract", str(first))
    assert same.exit_code == 0 and "project again already exists with this abstract" in same.output
    other = agentr("project", "add", "again", "--abstract", str(second))
    assert other.exit_code == 0
    assert "project again existed: its abstract is replaced (11 words -> 5)" in other.output
    assert "ready" not in other.output

    status = agentr("status", "again")
    assert status.exit_code == 0, status.output
    assert "again: not run yet; it has an abstract (5 words), 0 candidate papers." in status.output
    assert status.output.count("next:") == 1, status.output
