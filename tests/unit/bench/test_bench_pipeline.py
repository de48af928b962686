"""`agentr bench pipeline`: the export's rows mapped back to the review's records, and the oracle responder."""

from __future__ import annotations

import json

import numpy as np

from agentr_dagster.bench.pipeline import _export_order, _screen_order, _slug, format_pipeline
from agentr_dagster.bench.screening import Review
from agentr_dagster.imports import normalise_title
from agentr_dagster.testing.responders import oracle_responder


def review() -> Review:
    ids = ["10", "11", "12", "13", "14", "15"]
    titles = ["Alpha trial", "Beta trial", "Gamma study", "Alpha Trial.", "Delta cohort", "Gamma studdy"]
    return Review("R", "q", ids, titles, [""] * 6, np.array([1, 0, 1, 1, 0, 1]))


def test_export_rows_map_to_records_and_merged_duplicates_follow_their_paper(tmp_path):
    export = tmp_path / "scores.csv"
    # Records 13 and 15 were merged at import (same title as 10, near-identical to 12's); 14 never got there.
    export.write_text("rank,paper_id,source_id,title\n1,3,12,Gamma study\n2,1,10,Alpha trial\n3,2,11,Beta trial\n")
    order, missing = _export_order(export, review(), store=None, slug="r")
    assert order.tolist() == [2, 5, 0, 3, 1, 4] and missing == 3


def test_a_merged_record_follows_the_paper_of_its_title_and_year(tmp_path):
    # two papers share a title (2001 and 2005); the record merged at import (its DOI is 2005's) follows 2005's
    rev = Review("R", "q", ["a", "b", "c"], ["Same title here", "Same title here", "Same Title Here."], [""] * 3,
                 np.array([0, 1, 1]), ["2001", "2005", "2005.0"])
    export = tmp_path / "scores.csv"
    export.write_text("rank,paper_id,source_id,title,year\n1,1,a,Same title here,2001\n2,2,b,Same title here,2005\n")
    order, missing = _export_order(export, rev, store=None, slug="r")
    assert order.tolist() == [0, 1, 2] and missing == 1
    # without years, the DOI says which paper the merged record joined
    rev = Review("R", "q", ["a", "b", "c"], ["Same title here", "Same title here", "Same Title Here."], [""] * 3,
                 np.array([0, 1, 1]), [], ["", "10.1/B", "https://doi.org/10.1/b"])
    export.write_text("rank,paper_id,source_id,title,doi\n1,1,a,Same title here,\n2,2,b,Same title here,10.1/b\n")
    assert _export_order(export, rev, store=None, slug="r")[0].tolist() == [0, 1, 2]


def test_screen_output_is_read_in_rank_order(tmp_path):
    out = tmp_path / "screen.csv"
    out.write_text("record_id,rank,score\n11,2,0.5\n13,1,0.9\n12,10,0.1\n")
    assert _screen_order(out, review()).tolist() == [3, 1, 2, 0, 4, 5]


def test_slugs_are_valid_partition_keys():
    assert _slug("Cohen_2006_ADHD") == "cohen-2006-adhd"
    assert _slug("SocialNorms__Suicidality") == "socialnorms-suicidality"


def test_the_oracle_judges_from_the_labels():
    responder = oracle_responder({normalise_title("Alpha trial")}, normalise=normalise_title)

    def ask(title: str) -> dict:
        from agentr_dagster.domain.prompts import load_prompt

        prompt = load_prompt("score")
        body = {"messages": [{"role": "system", "content": prompt.system},
                             {"role": "user", "content": f"Candidate paper (untrusted):\n<<<PAPER\nTitle: {title}\n"}]}
        return json.loads(responder(body))

    assert ask("ALPHA trial!")["c2_supporting_work"]["score"] == 9
    assert ask("Beta trial")["semantic_similarity"] < 0.1
    assert responder.scored == ["alpha trial", "beta trial"]


def test_the_table_shows_every_method_and_the_oracle_figures():
    entry = {"name": "R", "methods": {m: {"wss95": 0.5, "recall10": 0.2, "recall20": 0.4} for m in
                                      ("export", "screen", "bm25")},
             "oracle": {"calls": 40, "papers": 100, "recall_at_stop": 1.0, "calls_saved": 60,
                        "calls_saved_share": 0.6}}
    result = {"reviews": [entry], "mean": {m: entry["methods"][m] for m in ("export", "screen", "bm25")},
              "export_at_least_screen": 1, "oracle": True, "stop_at_recall": 0.95, "seconds": 1.0,
              "oracle_summary": {"mean_calls_share": 0.4, "mean_recall_at_stop": 1.0, "reviews_reaching_target": 1}}
    text = format_pipeline(result)
    assert "export:wss95" in text and "bm25:r@20" in text and "60.0" in text and "1 of 1 reviews reached" in text
