"""`agentr labels SLUG --import FILE`: decisions from a labels table and an ASReview export, as a user runs it."""

from __future__ import annotations

import json

from click.testing import CliRunner

from agentr_dagster.cli import main
from agentr_dagster.cli.common import open_store
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


def test_label_names_a_paper_by_its_source_id_doi_or_paper_id(tmp_path):
    """`agentr label` takes the ids the export shows (paper_id, source_id) and a DOI; a bare number that names
    two papers in two ways is refused with the way to say which, never guessed."""
    (tmp_path / "abstract.md").write_text(ABSTRACT)
    rows = [("2", "Active learning for citation screening", "10.1000/AL.1"),
            ("1", "A survey of screening tools", None), ("P-77", "Stopping rules for screening", None)]
    (tmp_path / "papers.csv").write_text(papers_csv(rows))
    assert agentr("project", "add", "by-id", "--abstract", str(tmp_path / "abstract.md")).exit_code == 0
    assert agentr("papers", "add", "by-id", str(tmp_path / "papers.csv")).exit_code == 0
    ids = {p.source_id: p.id for p in open_store().projects.list_papers("by-id")}

    def labelled() -> dict[str, str]:
        return {r["title"][:8]: r["label"] for r in json.loads(agentr("labels", "by-id", "--json").output)}

    by_source = agentr("label", "by-id", "P-77", "include")
    assert by_source.exit_code == 0, by_source.output
    assert f"paper {ids['P-77']} labelled include: Stopping rules" in by_source.output
    assert agentr("label", "by-id", "https://doi.org/10.1000/al.1", "exclude").exit_code == 0
    assert labelled() == {"Stopping": "include", "Active l": "exclude"}

    # "1" is the source id of the survey and (in this fresh store) the paper_id of the first paper imported
    assert ids["2"] == 1 and ids["1"] == 2
    ambiguous = agentr("label", "by-id", "1", "include")
    assert ambiguous.exit_code == 1
    assert "'1' names 2 papers" in ambiguous.output and "say which: `source:1` or `id:1`" in ambiguous.output
    assert labelled() == {"Stopping": "include", "Active l": "exclude"}  # nothing stored
    assert agentr("label", "by-id", "source:1", "include").exit_code == 0
    assert agentr("label", "by-id", f"id:{ids['2']}", "include").exit_code == 0
    assert labelled() == {"Stopping": "include", "Active l": "include", "A survey": "include"}
    missing = agentr("label", "by-id", "source:404", "include")
    assert missing.exit_code == 1 and "has no live paper 'source:404'" in missing.output


def test_the_export_carries_each_papers_label_and_when_it_was_given(tmp_path):
    import pandas as pd

    (tmp_path / "abstract.md").write_text(ABSTRACT)
    (tmp_path / "papers.csv").write_text(papers_csv())
    assert agentr("project", "add", "exp-labels", "--abstract", str(tmp_path / "abstract.md")).exit_code == 0
    assert agentr("papers", "add", "exp-labels", str(tmp_path / "papers.csv")).exit_code == 0
    before = pd.Timestamp.now(tz="UTC").floor("s")
    assert agentr("label", "exp-labels", "R1", "include").exit_code == 0
    assert agentr("label", "exp-labels", "R2", "exclude").exit_code == 0
    out = tmp_path / "out"
    assert agentr("export", "exp-labels", "--out", str(out)).exit_code == 0
    frames = {"csv": pd.read_csv(out / "scores.csv", keep_default_na=False, dtype=str),
              "xlsx": pd.read_excel(out / "scores.xlsx", dtype=str, keep_default_na=False),
              "parquet": pd.read_parquet(out / "scores.parquet")}
    for fmt, frame in frames.items():
        by_source = frame.set_index("source_id")
        assert by_source.loc["R1", "label"] == "include" and by_source.loc["R2", "label"] == "exclude", fmt
        assert set(by_source.drop(index=["R1", "R2"])["label"]) == {""}, fmt
        stamp = pd.Timestamp(by_source.loc["R1", "labelled_at"])
        assert (stamp.tz_convert("UTC") if stamp.tzinfo else stamp.tz_localize("UTC")) >= before, fmt
        assert not str(by_source.loc["R3", "labelled_at"]).strip() or pd.isna(by_source.loc["R3", "labelled_at"])
    assert isinstance(frames["parquet"]["labelled_at"].dtype, pd.DatetimeTZDtype)  # a time, in UTC
