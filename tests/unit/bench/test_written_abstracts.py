"""The abstracts written for `agentr bench queries --written-abstracts`: the loader and the bundled file."""

from __future__ import annotations

import json
from pathlib import Path

from agentr_dagster.bench.queries import WRITTEN_ABSTRACTS, load_written_abstracts


def test_the_loader_reads_an_object_or_a_list_as_title_then_abstract(tmp_path: Path):
    item = {"name": "Zeta_2001", "title": "Kelp baths for gout: a review.", "abstract": "We  searched\n two databases."}
    wrapped = tmp_path / "wrapped.json"
    wrapped.write_text(json.dumps({"_about": "invented", "abstracts": [item, {"name": "", "abstract": "x"}]}))
    bare = tmp_path / "bare.json"
    bare.write_text(json.dumps([item, {"name": "Empty_2002", "title": "", "abstract": " "}]))
    expected = {"Zeta_2001": "Kelp baths for gout: a review. We searched two databases."}
    assert load_written_abstracts(wrapped) == expected
    assert load_written_abstracts(bare) == expected  # nameless and empty items are left out


def test_the_bundled_file_says_what_it_is_and_has_one_abstract_per_review():
    data = json.loads(WRITTEN_ABSTRACTS.read_text(encoding="utf-8"))
    assert "not published" in data["_about"]
    loaded = load_written_abstracts()
    assert len(loaded) == len(data["abstracts"]) == 17
    assert all(len(text) > 400 for text in loaded.values())
