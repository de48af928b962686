"""A draft sentence split into text and citation parts for the report's template (pure)."""

from agentr_dagster.stages.report import sentence_parts


def test_citations_become_links_and_unknown_keys_are_flagged():
    parts = sentence_parts(r"Text \[@x] cites [@a; @zz; ] and [@] <b>.", {"a"})
    assert parts == [("text", "Text [@x] cites "), ("cites", [("a", "ref-a"), ("zz", None)]), ("text", " and "),
                     ("cites", []), ("text", " <b>.")]


def test_anchor_is_safe_for_any_key():
    key = "o'neil:2020/x"
    assert sentence_parts(f"[@{key}]", {key})[1] == ("cites", [(key, "ref-o_neil_2020_x")])
