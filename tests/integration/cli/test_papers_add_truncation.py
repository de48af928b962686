"""`agentr papers add` with a field longer than AGENTR_IMPORT_MAX_FIELD_CHARS keeps the record but says that the
value was truncated, and by how much: it printed `1 added, 0 duplicates, 0 rows dropped` and nothing else for a
2,000,000-character abstract cut to 20,000."""

from __future__ import annotations

from tests.support.cli import agentr


def test_a_truncated_field_is_reported(tmp_path):
    (tmp_path / "q.md").write_text("Automated screening of randomised controlled trials for systematic reviews.")
    huge = tmp_path / "huge.csv"
    huge.write_text("record_id,title,abstract\n1,A long one," + "word " * 10_000 + "\n2,A short one,fine\n")
    assert agentr("project", "add", "long", "--abstract", str(tmp_path / "q.md")).exit_code == 0
    result = agentr("papers", "add", "long", str(huge))
    assert result.exit_code == 0, result.output
    assert "huge.csv: 2 added, 0 duplicates, 0 rows dropped" in result.output
    assert "truncated row 2: abstract from 50,000 to 20,000 characters" in result.output
