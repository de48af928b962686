"""scripts/check_written_texts.py measures texts written with their includes: self-match, the written includes a
text's query matches, and its share of a pool; a published item takes its text by name."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentr_dagster.bench.queries import Pool
from tests.support.scripts import load_script

_SCRIPT = Path(__file__).resolve().parents[3] / "scripts" / "check_written_texts.py"


def test_written_includes_are_counted_by_the_query_and_a_published_item_reads_its_text_by_name():
    script = load_script(_SCRIPT)
    pool = Pool(["Statins and myopathy in older adults", "Reading aloud in primary school classrooms",
                 "Exercise and depressive symptoms"], ["a", "b", "c"])
    items = [{"name": "q1", "question": "Does exercise reduce depressive symptoms in older adults?",
              "includes": [{"title": "Aerobic exercise for depressive symptoms in late life", "abstract": ""},
                           {"title": "Reading aloud to pupils", "abstract": "A classroom study."}]},
             {"name": "pub", "published": True, "includes": []}]
    published = {"pub": {"title": "Statin-associated myopathy: a systematic review",
                         "abstract": "We reviewed statin trials reporting myopathy."}}
    rows = script.measure(items, pool, None, published)
    assert rows[0]["self"] and rows[0]["found"] == [True, False]
    assert rows[0]["pool_share"] == round(1 / 3, 5)  # only the exercise record
    assert rows[1]["self"] and "statin" in rows[1]["query"].casefold()
    assert "written recall 1/2" in script.summary(rows)


def test_the_shipped_texts_have_includes_and_no_published_abstract_copied():
    script = load_script(_SCRIPT)
    by_file = {p.name: json.loads(p.read_text(encoding="utf-8"))["sets"] for p in script.TEXT_FILES}
    assert len([i for s in by_file["written_texts_round33.json"].values() for i in s["texts"]]) == 173
    items = [i for s in script.load_sets(script.TEXT_FILES).values() for i in s["texts"]]
    assert len(items) > 173 and all(i["includes"] for i in items)  # every round's file is read by default
    assert all("abstract" not in i for i in items if i.get("published"))


def test_a_set_named_in_two_files_is_refused(tmp_path):
    script = load_script(_SCRIPT)
    for name in ("a.json", "b.json"):
        (tmp_path / name).write_text(json.dumps({"sets": {"same": {"texts": []}}}), encoding="utf-8")
    with pytest.raises(SystemExit, match="same"):
        script.load_sets([tmp_path / "a.json", tmp_path / "b.json"])
