"""Which drop-folder files are complete enough to import, judged from two ticks' stamps (files on a temp
folder; no store, no Dagster)."""

from __future__ import annotations

import os

from agentr_dagster.stages.inbox import decode_stamps, encode_stamps, read_error_file, settle
from agentr_dagster.stages.intake import InboxItem, quarantine, rejection_folder


def _item(path, slug="rev", kind="papers", in_folder=True):
    return InboxItem(path, slug, kind, in_folder=in_folder)


def test_a_file_is_ready_only_when_its_stamp_is_unchanged(tmp_path):
    (tmp_path / "rev").mkdir()
    done, growing = tmp_path / "rev" / "done.csv", tmp_path / "rev" / "growing.csv"
    done.write_text("title\nA\n")
    growing.write_text("title\nA\n")
    items = [_item(done), _item(growing)]
    first = settle(items, tmp_path, {})
    assert first.ready == [] and [d.name for d in first.deferred] == ["rev/done.csv", "rev/growing.csv"]
    growing.write_text("title\nA\nB\n")
    second = settle(items, tmp_path, decode_stamps(encode_stamps(first.stamps)))
    assert second.ready == [items[0]]
    assert [(d.name, d.reason) for d in second.deferred] == [
        ("rev/growing.csv", "still being written: 8 -> 10 bytes since the last tick")]
    os.utime(done, ns=(0, 5))  # same size, touched again: still being written
    third = settle(items, tmp_path, second.stamps)
    assert [d.reason for d in third.deferred] == ["still being written: modified since the last tick"]


def test_downloads_wait_and_a_foreign_cursor_is_a_fresh_start(tmp_path):
    part = tmp_path / "x.csv.crdownload"
    part.write_text("title\n")
    out = settle([_item(part, in_folder=False)], tmp_path, {})
    assert out.stamps == {} and "unfinished download" in out.deferred[0].reason
    for cursor in (None, "", "not json", "[1, 2]", '{"files": {"a": "x"}}', '{"files": [1]}'):
        assert decode_stamps(cursor) == {}


def test_rejections_keep_their_project_and_say_where_they_came_from(tmp_path):
    inbox, rejected = tmp_path / "inbox", tmp_path / "inbox" / "rejected"
    (inbox / "My Review").mkdir(parents=True)
    cases = {
        _item(inbox / "My Review" / "a.csv", "My Review"): "My Review",  # a folder keeps its name
        _item(inbox / "rev.csv", "rev", in_folder=False): "rev",  # the name gives the project
        _item(inbox / "Bad Name.md", "Bad Name", "abstract", in_folder=False): "_unsorted",
        _item(inbox / "notes.docx", "notes", "unknown", in_folder=False): "_unsorted",
    }
    for item, folder in cases.items():
        assert rejection_folder(item) == folder
    (inbox / "rev.csv").write_text("x")
    kept = quarantine(inbox / "rev.csv", "rev.csv: no title column", rejected, project="rev",
                      came_from="inbox/rev.csv")
    assert kept == rejected / "rev" / "rev.csv" and kept.read_text() == "x"
    fields = read_error_file(kept.with_name("rev.csv.error.txt"))
    assert fields["project"] == "rev" and fields["came from"] == "inbox/rev.csv"
    assert fields["reason"] == "rev.csv: no title column" and fields["rejected at"].endswith(" UTC")
