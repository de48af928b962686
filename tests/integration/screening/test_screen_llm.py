"""`agentr screen --llm-top K` against a real OpenAI-compatible server: top K re-ordered, calls charged once."""

from __future__ import annotations

import json

import pandas as pd
from click.testing import CliRunner

from agentr_dagster.cli import main
from agentr_dagster.testing.responders import score_payload, valid_responder


def test_llm_top_reorders_only_the_top_k(tmp_path, scripted_server):  # noqa: F811
    server = scripted_server(valid_responder)
    question = tmp_path / "q.txt"
    question.write_text("Which randomized trials compare drugs for migraine, such as triptans, against placebo?")
    rows = [{"record_id": f"r{i}", "title": f"Triptan trial {i} for migraine" if i < 6 else f"Unrelated {i}",
             "abstract": "A randomized placebo-controlled trial of a triptan for acute migraine." if i < 6 else
             "Soil chemistry of alpine lakes."} for i in range(12)]
    papers = tmp_path / "papers.csv"
    pd.DataFrame(rows).to_csv(papers, index=False)
    out = tmp_path / "out.csv"
    env = {"AGENTR_LLM_BASE_URL": server.base_url, "AGENTR_LLM_MODEL": "scripted-model"}
    args = ["screen", "--question", str(question), "--papers", str(papers), "--out", str(out), "--llm-top", "4"]
    result = CliRunner().invoke(main, args, env=env, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    ranked = pd.read_csv(out)
    assert sorted(ranked["record_id"]) == sorted(r["record_id"] for r in rows)
    assert list(ranked["rank"]) == list(range(1, 13))
    top = ranked.head(4)
    assert top["llm_score"].notna().all() and ranked["llm_score"].iloc[4:].isna().all()
    assert list(top["llm_score"]) == sorted(top["llm_score"], reverse=True)
    expected = {r["record_id"]: score_payload(r["title"]) for r in rows}
    best = max(top["record_id"], key=lambda rid: 0.5 * expected[rid]["semantic_similarity"] + 0.5 * max(
        expected[rid]["c1_direct_competitor"]["score"], expected[rid]["c2_supporting_work"]["score"]) / 10)
    assert top["record_id"].iloc[0] == best
    assert server.calls == 1 + 4  # the intent, then one scoring call per top-K paper

    again = CliRunner().invoke(main, args, env=env, catch_exceptions=False)
    assert again.exit_code == 0 and server.calls == 5  # every score re-used; nothing charged twice
    usage = json.loads(CliRunner().invoke(main, ["usage", "--calls", "--json"]).output)
    assert len(usage) == 5


def test_llm_top_scores_a_duplicate_once_and_keeps_it_after_its_twin(tmp_path, scripted_server):  # noqa: F811
    server = scripted_server(valid_responder)
    question = tmp_path / "q.txt"
    question.write_text("Which randomized trials compare drugs for migraine, such as triptans, against placebo?")
    rows = [{"record_id": f"r{i}", "title": f"Triptan trial {i} for migraine" if i < 6 else f"Unrelated {i}",
             "abstract": "A randomized placebo-controlled trial of a triptan for acute migraine." if i < 6 else
             "Soil chemistry of alpine lakes.", "year": "2001"} for i in range(8)]
    rows.append({**rows[0], "record_id": "r0-again"})  # the same paper twice: `agentr papers add` keeps one
    papers = tmp_path / "papers.csv"
    pd.DataFrame(rows).to_csv(papers, index=False)
    out = tmp_path / "out.csv"
    env = {"AGENTR_LLM_BASE_URL": server.base_url, "AGENTR_LLM_MODEL": "scripted-model"}
    args = ["screen", "--question", str(question), "--papers", str(papers), "--out", str(out), "--llm-top", "4"]
    result = CliRunner().invoke(main, args, env=env, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    ranked = pd.read_csv(out, dtype={"duplicate_of": str}, keep_default_na=False)
    assert sorted(ranked["record_id"]) == sorted(r["record_id"] for r in rows)
    assert list(ranked["rank"]) == list(range(1, len(rows) + 1))
    ids = ranked["record_id"].tolist()
    assert ids.index("r0-again") == ids.index("r0") + 1
    again = ranked.set_index("record_id")
    assert again.loc["r0-again", "duplicate_of"] == "r0"
    assert again.loc["r0-again", "llm_score"] == again.loc["r0", "llm_score"] != ""
    assert server.calls == 1 + 4  # the intent, then four distinct papers scored: the duplicate is not one


def test_with_labels_the_re_rank_sentence_says_it_describes_the_engines_order(tmp_path, scripted_server):  # noqa: F811
    server = scripted_server(valid_responder)
    question = tmp_path / "q.txt"
    question.write_text("Which randomized trials compare drugs for migraine, such as triptans, against placebo?")
    rows = [{"record_id": f"r{i}", "title": f"Triptan trial {i} for migraine" if i % 3 == 0 else f"Lake survey {i}",
             "abstract": "A randomized placebo-controlled trial of a triptan for acute migraine." if i % 3 == 0 else
             "Soil chemistry and plankton counts of alpine lakes."} for i in range(24)]
    papers = tmp_path / "papers.csv"
    pd.DataFrame(rows).to_csv(papers, index=False)
    labels = tmp_path / "labels.csv"
    pd.DataFrame([{"record_id": "r0", "label": "include"}, {"record_id": "r1", "label": "exclude"}]).to_csv(
        labels, index=False)
    out = tmp_path / "out.csv"
    env = {"AGENTR_LLM_BASE_URL": server.base_url, "AGENTR_LLM_MODEL": "scripted-model"}
    args = ["screen", "--question", str(question), "--papers", str(papers), "--out", str(out), "--labels",
            str(labels), "--llm-top", "3"]
    result = CliRunner().invoke(main, args, env=env, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert pd.read_csv(out).head(4)["llm_score"].iloc[1:].notna().all()  # the include first, then the LLM's 3
    # the comparison is of the engine's scores: the sentence says so, and never speaks of the re-rank as final
    assert "the engine's re-rank (before the LLM re-ordered its top 3) keeps" in result.stderr
    assert ") the re-rank keeps" not in result.stderr

    offline = CliRunner().invoke(main, args[:-2], env=env, catch_exceptions=False)  # no LLM asked: the plain one
    assert ") the re-rank keeps" in offline.stderr and "before the LLM" not in offline.stderr
