"""`agentr labels SLUG --import FILE`: decisions from a labels table and an ASReview export, as a user runs it."""

from __future__ import annotations

import json

from click.testing import CliRunner

from agentr_dagster.cli import main
from tests.support import ABSTRACT
from tests.support.label_samples import asreview_v2, papers_csv


def agentr(*args: str):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def test_labels_import_reports_matches_and_lists_the_decisions(tmp_path):
    (tmp_path / "abstract.md").write_text(ABSTRACT)
    (tmp_path / "papers.csv").write_text(papers_csv())
    assert agentr("project", "add", "cli-labels", "--abstract", str(tmp_path / "abstract.md")).exit_code == 0
    assert agentr("papers", "add", "cli-labels", str(tmp_path / "papers.csv")).exit_code == 0
    (tmp_path / "sheet.tsv").write_text("PMID\tTitle\tDecision\nR1\t\tinclude\n\tNo such paper\texclude\n")
    (tmp_path / "lab.asreview").write_bytes(asreview_v2({3: 0}))

    result = agentr("labels", "cli-labels", "--import", str(tmp_path / "sheet.tsv"),
                    "--import", str(tmp_path / "lab.asreview"))
    assert result.exit_code == 0, result.output
    assert "sheet.tsv: 2 decisions, 1 matched (1 by record id): 1 new" in result.output
    assert "unmatched row 3: title 'No such paper': no paper with this title" in result.output
    assert "lab.asreview: 1 decisions, 1 matched" in result.output
    listed = json.loads(agentr("labels", "cli-labels", "--json").output)
    assert sorted((r["title"][:12], r["label"]) for r in listed) == [("A survey of ", "exclude"),
                                                                    ("Active learn", "include")]

    broken = tmp_path / "broken.csv"
    broken.write_text("record_id,title\nR1,x\n")
    failed = agentr("labels", "cli-labels", "--import", str(broken))
    assert failed.exit_code == 1 and "no decision column" in failed.output
