"""The `agentr screen` contract: screen() on messy input and labels, the CLI, lenient CSV reading."""

from __future__ import annotations

import numpy as np
import pandas as pd
from click.testing import CliRunner

from agentr_dagster.screening.screen import screen


def _messy_papers() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "record_id": ["a", "b", "b", "", None, "c", "d", "e", "f", "g"],
            "title": [
                "Beta blockers in heart failure: a randomized trial",
                "Carvedilol versus metoprolol",
                "Carvedilol versus metoprolol (duplicate row, longer title)",
                "",
                "Untitled",
                "<b>HTML</b> &amp; emoji 🫀🫀 \x00 control\x07chars",
                float("nan"),
                "x" * 5000,
                "日本語のタイトル",
                "Software engineering survey",
            ],
            "abstract": [
                "We randomised 200 patients with heart failure to bisoprolol or placebo.",
                "",
                None,
                "Only an abstract, no title.",
                float("nan"),
                "Ωmega ≥ 3 ; 'quotes' \"double\" , commas,\nnewlines",
                "",
                "y " * 3000,
                "",
                "A mapping study of agile practices.",
            ],
            "year": ["2001", "", "x", None, "1999", "", "", "", "", ""],
        }
    )

def test_screen_contract_on_messy_input(fake_embedder):
    papers = _messy_papers()
    out = screen("Beta blockers for heart failure: randomized trials", papers)
    assert list(out.columns[:3]) == ["record_id", "rank", "score"]
    expected_ids = {"a", "b", "row-4", "row-5", "c", "d", "e", "f", "g"}
    assert set(out["record_id"]) == expected_ids
    assert out["record_id"].is_unique
    assert list(out["rank"]) == list(range(1, len(expected_ids) + 1))
    assert out["score"].is_monotonic_decreasing
    assert np.isfinite(out["score"]).all()
    assert out["record_id"].iloc[0] == "a"  # the obvious match is first
    assert out["record_id"].iloc[-1] != "a"

def test_screen_edge_cases(fake_embedder):
    empty = screen("anything", pd.DataFrame(columns=["record_id", "title", "abstract"]))
    assert len(empty) == 0 and list(empty.columns[:3]) == ["record_id", "rank", "score"]
    one = screen("", pd.DataFrame({"record_id": [1], "title": [""], "abstract": [""]}))
    assert one["record_id"].tolist() == ["1"] and one["rank"].tolist() == [1]
    no_abstract_col = screen("heart", pd.DataFrame({"record_id": ["p", "q"], "title": ["heart", "lung"]}))
    assert no_abstract_col["record_id"].tolist() == ["p", "q"]
    ids_only = screen("q", pd.DataFrame({"record_id": ["z", "y", "x"]}))
    assert sorted(ids_only["record_id"]) == ["x", "y", "z"]

def test_screen_with_labels(fake_embedder):
    papers = _messy_papers()
    out = screen("heart failure", papers, labels={"g": "include", "a": 0, "zzz": 1, "c": "maybe"})
    assert out["record_id"].iloc[0] == "g"
    assert out["record_id"].iloc[-1] == "a"
    assert out.set_index("record_id").loc["c", "label"] == ""
    assert len(out) == 9 and out["method"].iloc[0] == "active"

def test_cli_screen(tmp_path, fake_embedder):
    from agentr_dagster.cli.screen import screen_command

    (tmp_path / "q.txt").write_text("Beta blockers for heart failure", encoding="utf-8")
    _messy_papers().to_csv(tmp_path / "papers.csv", index=False)
    (tmp_path / "labels.csv").write_text("record_id,label\ng,include\na,exclude\nnope,1\n", encoding="utf-8")
    runner = CliRunner()
    args = ["--question", str(tmp_path / "q.txt"), "--papers", str(tmp_path / "papers.csv")]
    res = runner.invoke(screen_command, [*args, "--out", str(tmp_path / "out.csv"), "--llm-top", "5"])
    assert res.exit_code == 0, res.output
    assert "no LLM configured" in res.output
    out = pd.read_csv(tmp_path / "out.csv", dtype=str, keep_default_na=False)
    assert list(out.columns[:3]) == ["record_id", "rank", "score"] and out["record_id"].is_unique
    assert len(out) == 9
    res = runner.invoke(
        screen_command, [*args, "--out", str(tmp_path / "o2.csv"), "--labels", str(tmp_path / "labels.csv")]
    )
    assert res.exit_code == 0, res.output
    out2 = pd.read_csv(tmp_path / "o2.csv", dtype=str, keep_default_na=False)
    assert out2["record_id"].iloc[0] == "g" and out2["record_id"].iloc[-1] == "a"

def test_cli_screen_hostile_csv(tmp_path, fake_embedder):
    from agentr_dagster.cli.screen import screen_command

    (tmp_path / "q.txt").write_bytes(b"\xff\xfe odd question \x00")
    raw = (
        "\ufeffrecord_id,title,abstract\n"
        '1,"multi\nline title","abs, with comma"\n'
        "2,short\n"
        "3,a,b,EXTRA,FIELDS\n"
        "1,dup,dup\n"
    )
    (tmp_path / "p.csv").write_text(raw, encoding="utf-8")
    res = CliRunner().invoke(
        screen_command,
        ["--question", str(tmp_path / "q.txt"), "--papers", str(tmp_path / "p.csv"), "--out", str(tmp_path / "o.csv")],
    )
    assert res.exit_code == 0, res.output
    out = pd.read_csv(tmp_path / "o.csv", dtype=str)
    assert out["record_id"].is_unique and set(out["record_id"]) == {"1", "2", "3"}

def test_cli_screen_keeps_ids_of_a_bom_file_with_stray_cp1252_bytes(tmp_path, fake_embedder):
    """A UTF-8 file with a byte-order mark and one Latin-1 byte used to be read as Latin-1 whole: the BOM became
    part of the first header, the record_id column was lost and the output carried made-up row ids."""
    from agentr_dagster.cli.screen import screen_command

    (tmp_path / "q.txt").write_text("statins and cardiovascular outcomes", encoding="utf-8")
    raw = b'\xef\xbb\xbfrecord_id,title,abstract\n007,"Statins, and ""you""","a\nb"\n008,,\n009,Caf\xe9 statins,\n'
    (tmp_path / "p.csv").write_bytes(raw)
    (tmp_path / "x.csv").write_bytes(b"PK\x03\x04 not a csv")
    args = ["--question", str(tmp_path / "q.txt"), "--out", str(tmp_path / "o.csv")]
    res = CliRunner().invoke(screen_command, [*args, "--papers", str(tmp_path / "p.csv")])
    assert res.exit_code == 0, res.output
    out = pd.read_csv(tmp_path / "o.csv", dtype=str)
    assert sorted(out["record_id"]) == ["007", "008", "009"]
    res = CliRunner().invoke(screen_command, [*args, "--papers", str(tmp_path / "x.csv")])
    assert res.exit_code != 0 and "ZIP archive" in res.output

def test_read_table_guesses_the_delimiter_and_drops_stray_nul_bytes():
    from agentr_dagster.screening.tables import read_table

    df = read_table(b" record_id ;title;abstract\n1;stat\x00ins;x\n2;other;y\n")
    assert list(df.columns) == ["record_id", "title", "abstract"]
    assert df["title"].tolist() == ["statins", "other"]
    assert read_table(b"  \n").columns.tolist() == ["record_id", "title", "abstract"]
    utf16 = "record_id,title\n1,Caf\u00e9\n".encode("utf-16")
    assert read_table(utf16)["title"].tolist() == ["Caf\u00e9"]

def _papers_with_duplicates() -> pd.DataFrame:
    """Two pairs `agentr papers add` merges (same title and year; same DOI) and one same-title pair it keeps
    apart (two different years)."""
    return pd.DataFrame(
        {
            "record_id": ["a", "b", "c", "d", "e", "f", "g"],
            "title": [
                "Beta blockers in heart failure: a randomized trial",
                "A mapping study of agile practices in software engineering",
                "Beta-blockers in heart failure. A randomized trial",
                "Agile practices: a mapping study",
                "Soil chemistry of alpine lakes",
                "Soil chemistry of alpine lakes",
                "Carvedilol versus metoprolol in chronic heart failure",
            ],
            "abstract": [
                "We randomised 200 patients with heart failure to bisoprolol or placebo.",
                "We mapped 120 studies of agile practices.",
                "",
                "We mapped 120 studies of agile practices (preprint).",
                "Sediment cores from twelve lakes.",
                "A survey of lake sediments.",
                "Mortality of patients with heart failure on carvedilol or metoprolol.",
            ],
            "year": ["2001", "2010", "2001", "", "1999", "2004", "2003"],
            "doi": ["", "10.1000/agile", "", "https://doi.org/10.1000/AGILE", "", "", ""],
        }
    )


def test_screen_ranks_duplicates_with_their_twin_as_papers_add_merges_them(tmp_path, fake_embedder):
    from agentr_dagster.imports import parse_file

    papers = _papers_with_duplicates()
    question = "Beta blockers for heart failure: randomized trials"
    out = screen(question, papers)
    assert sorted(out["record_id"]) == sorted(papers["record_id"]) and out["record_id"].is_unique
    assert list(out["rank"]) == list(range(1, len(papers) + 1))
    assert list(out.columns) == ["record_id", "rank", "score", "label", "method", "duplicate_of", "probability"]
    twin = dict(zip(out["record_id"], out["duplicate_of"], strict=True))
    assert twin == {"a": "", "b": "", "c": "a", "d": "b", "e": "", "f": "", "g": ""}
    # the same records as the importer drops from the same file
    papers.to_csv(tmp_path / "papers.csv", index=False)
    imported = parse_file(tmp_path / "papers.csv")
    assert {r.source_id for r in imported.records} == {"a", "b", "e", "f", "g"}
    position = {rid: i for i, rid in enumerate(out["record_id"])}
    score = dict(zip(out["record_id"], out["score"], strict=True))
    for duplicate, kept in (("c", "a"), ("d", "b")):
        assert position[duplicate] == position[kept] + 1 and score[duplicate] == score[kept]
    assert out["score"].is_monotonic_decreasing and out["record_id"].iloc[0] == "a"
    # the kept records are ranked as the de-duplicated input is: the corpus a project ranks
    alone = screen(question, papers[~papers["record_id"].isin(["c", "d"])])
    kept = out[out["duplicate_of"] == ""]
    assert kept["record_id"].tolist() == alone["record_id"].tolist()
    assert kept["score"].tolist() == alone["score"].tolist()
    assert set(alone["duplicate_of"]) == {""}
    # without dedupe every record is ranked on its own, as before
    raw = screen(question, papers, dedupe=False)
    assert set(raw["duplicate_of"]) == {""} and len(raw) == len(papers)
    raw_score = dict(zip(raw["record_id"], raw["score"], strict=True))
    assert raw_score["c"] != raw_score["a"] and raw_score["d"] != raw_score["b"]


def test_screen_label_of_a_duplicate_applies_to_its_twin(fake_embedder):
    papers = _papers_with_duplicates()
    out = screen("soil chemistry of lakes", papers, labels={"c": "include", "d": "include", "b": "exclude"})
    assert out["method"].iloc[0] == "active"
    assert out["record_id"].tolist()[:2] == ["a", "c"]  # c's include is a's: first, with c right after
    assert out["label"].tolist()[:2] == ["include", "include"]
    # b's own exclude wins over its duplicate's include: last, with d right after
    assert out["record_id"].tolist()[-2:] == ["b", "d"] and out["label"].tolist()[-2:] == ["exclude", "exclude"]


def test_cli_screen_writes_duplicate_of(tmp_path, fake_embedder):
    from agentr_dagster.cli.screen import screen_command

    (tmp_path / "q.txt").write_text("Beta blockers for heart failure", encoding="utf-8")
    _papers_with_duplicates().to_csv(tmp_path / "papers.csv", index=False)
    args = ["--question", str(tmp_path / "q.txt"), "--papers", str(tmp_path / "papers.csv")]
    res = CliRunner().invoke(screen_command, [*args, "--out", str(tmp_path / "out.csv")])
    assert res.exit_code == 0, res.output
    assert "screened 7 records (zero-shot, 2 duplicates ranked with the record they duplicate)" in res.output
    out = pd.read_csv(tmp_path / "out.csv", dtype=str, keep_default_na=False)
    assert list(out.columns) == ["record_id", "rank", "score", "label", "method", "duplicate_of", "probability"]
    assert dict(zip(out["record_id"], out["duplicate_of"], strict=True))["c"] == "a"
    assert out["record_id"].tolist().index("c") == out["record_id"].tolist().index("a") + 1


def test_screen_merges_by_paper_key_as_the_store_does(fake_embedder):
    """Two papers the importer keeps apart (same title, no year, abstracts with little in common) have one paper
    key, so a project keeps the first; a duplicate of the second goes with it, after the first."""
    radiation = "Proton and carbon ion beams deliver dose to tumours while sparing normal tissue nearby. " * 4
    physics = "Cosmic particle showers were measured by scintillator arrays at three mountain sites. " * 4
    papers = pd.DataFrame({
        "record_id": ["z", "x", "a", "b"],
        "title": ["Particle radiation therapy", "Unrelated heart failure trial", "Particle radiation therapy",
                  "Particle radiation therapy"],
        "abstract": [radiation, "Bisoprolol in heart failure.", physics, physics],
    })
    out = screen("proton therapy", papers)
    assert dict(zip(out["record_id"], out["duplicate_of"], strict=True)) == {"z": "", "x": "", "a": "z", "b": "z"}
    ids = out["record_id"].tolist()
    assert ids[ids.index("z"):ids.index("z") + 3] == ["z", "a", "b"]


def test_what_the_importer_drops_is_not_ranked_and_a_lost_title_is_kept(fake_embedder):
    long_abstract = "We randomised patients with heart failure to metoprolol or placebo and counted deaths"
    papers = pd.DataFrame({
        "record_id": ["stub", "full", "untitled", "empty", "other", "excluded"],
        "title": ["", "Beta blockers in heart failure: a trial", "", "", "Lung cancer screening", "Beta blockers"],
        "abstract": ["", long_abstract, long_abstract + " again", "n/a", "CT screening of smokers.", ""],
        "doi": ["https://doi.org/10.1000/B", "10.1000/b", "", "", "", ""],
    })
    out = screen("beta blockers for heart failure", papers, labels={"excluded": 0})
    ids = out["record_id"].tolist()
    # the stub (no title, no abstract) carries the DOI of a record the importer keeps: it is that paper
    assert out.set_index("record_id").loc["stub", "duplicate_of"] == "full"
    assert ids.index("stub") == ids.index("full") + 1
    # a lost title with an abstract: ranked, as a project holds it; nothing to rank: after the ranked records,
    # before the labelled exclude
    assert ids[-2:] == ["empty", "excluded"]
    assert out["score"].is_monotonic_decreasing and np.isfinite(out["score"]).all()
    assert out.set_index("record_id").loc["empty", "probability"] <= out["probability"].iloc[: len(ids) - 2].min()


def _school_papers() -> pd.DataFrame:
    """Two kinds of school study the question fits equally, reading tutoring and playground safety, among
    off-topic records (as most of a search's candidates are)."""
    rows = [(f"x{i}", f"Fatigue cracks in steel railway bridges, case {i}",
             f"Strain gauges on riveted girders measured stress cycles over {i + 3} years of freight loads.")
            for i in range(16)]
    for i in range(8):
        rows.append((f"t{i}", f"Peer reading tutoring in primary schools, study {i}",
                     f"Pupils tutored by older peers in phonics and fluency improved reading scores after {i + 4} "
                     "weeks of tutoring sessions."))
        rows.append((f"p{i}", f"Playground surfacing and injuries in primary schools, study {i}",
                     f"Rubber surfacing under climbing frames reduced fractures among pupils over {i + 2} "
                     "school terms of playground monitoring."))
    return pd.DataFrame(rows, columns=["record_id", "title", "abstract"])


def test_extra_includes_lift_similar_records_and_never_appear(fake_embedder):
    papers = _school_papers()
    question = "Children at school"  # it misses the tutoring studies: zero-shot ranks them with the off-topic ones
    seeds = [("Cross-age tutoring of reading fluency in primary schools",
              "Older pupils tutored younger ones in phonics; reading fluency and comprehension scores improved."),
             ("Peer tutoring and reading scores", "A tutoring programme for struggling readers in year 2.")]
    plain = screen(question, papers)
    seeded = screen(question, papers, extra_includes=seeds)

    def mean_rank(out: pd.DataFrame, prefix: str) -> float:
        return float(out.loc[out["record_id"].str.startswith(prefix), "rank"].mean())

    assert seeded["method"].iloc[0] == "active" and plain["method"].iloc[0] == "zero-shot"
    assert mean_rank(seeded, "t") < mean_rank(plain, "t") - 8  # the tutoring studies move up
    assert mean_rank(plain, "t") > mean_rank(plain, "x")
    assert not seeded["record_id"][:16].str.startswith("x").any()  # above every off-topic record
    # the seeds are evidence only: the same records out, none labelled, not counted as found includes
    assert sorted(seeded["record_id"]) == sorted(papers["record_id"])
    assert (seeded["label"] == "").all()
    assert seeded.attrs["estimate"].found == 0
    assert len(seeded.attrs["model_score"]) == len(papers)


def test_extra_includes_beside_labels(fake_embedder):
    papers = _school_papers()
    out = screen("Programmes in primary schools", papers, {"p0": 0},
                 extra_includes=[("Peer reading tutoring", "Pupils tutored in reading by older peers.")])
    assert len(out) == len(papers) and out["record_id"].iloc[-1] == "p0"  # the labelled exclude last
    assert out["record_id"].iloc[0].startswith("t")


def test_cli_screen_takes_seed_studies(tmp_path, fake_embedder):
    from agentr_dagster.cli.screen import screen_command

    (tmp_path / "q.txt").write_text("Programmes in primary schools and their outcomes for pupils", encoding="utf-8")
    papers = _school_papers()
    papers.to_csv(tmp_path / "p.csv", index=False)
    p1 = papers.set_index("record_id")["title"]["p1"]
    pd.DataFrame({"title": [p1.upper(), "Cross-age tutoring of reading fluency"],  # p1, and no record
                  "abstract": ["", "Older pupils tutored younger ones in phonics; reading scores improved."],
                  "doi": ["", ""]}).to_csv(tmp_path / "seeds.csv", index=False)
    pd.DataFrame({"record_id": ["t3"], "label": ["exclude"]}).to_csv(tmp_path / "labels.csv", index=False)
    args = ["--question", str(tmp_path / "q.txt"), "--papers", str(tmp_path / "p.csv"),
            "--out", str(tmp_path / "o.csv")]
    res = CliRunner().invoke(screen_command, [*args, "--seeds", str(tmp_path / "seeds.csv"),
                                              "--labels", str(tmp_path / "labels.csv")])
    assert res.exit_code == 0, res.output
    assert "1 among the records" in res.output and "1 outside them" in res.output
    out = pd.read_csv(tmp_path / "o.csv", dtype=str, keep_default_na=False)
    assert sorted(out["record_id"]) == sorted(papers["record_id"])  # the outside seed is not listed
    assert out["record_id"].iloc[0] == "p1" and out["label"].iloc[0] == "include"  # the matched seed
    assert out["record_id"].iloc[-1] == "t3" and out["label"].iloc[-1] == "exclude"  # the person's label
    assert out["method"].iloc[0] == "active"
