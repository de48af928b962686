"""Small synthetic screening-decision files for the label tests: ASReview LAB project exports in the LAB 2+
and LAB 1 layouts (built here with sqlite3, as ASReview writes them), and a few paper rows to label."""

from __future__ import annotations

import csv
import io
import json
import sqlite3
import tempfile
import zipfile
from pathlib import Path

# (record_id in the user's file, title, doi) of the synthetic papers the tests label.
PAPERS = [
    ("R1", "Active learning for citation screening in systematic reviews", "10.1000/al.1"),
    ("R2", "Large language models as study selectors", None),
    ("R3", "Stopping rules for technology-assisted review", "10.1000/stop.3"),
    ("R4", "A survey of bird migration in northern Europe", None),
    ("R5", "Soil microbiomes under drought stress", "10.1000/soil.5"),
]


def papers_csv(rows=PAPERS) -> str:
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["record_id", "title", "abstract", "doi"])
    for rid, title, doi in rows:
        writer.writerow([rid, title, f"An abstract about {title.lower()} with enough words to read.", doi or ""])
    return out.getvalue()


def _sqlite_bytes(statements: list[tuple[str, list[tuple]]]) -> bytes:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "db.sqlite"
        conn = sqlite3.connect(path)
        for sql, rows in statements:
            if rows:
                conn.executemany(sql, rows)
            else:
                conn.execute(sql)
        conn.commit()
        conn.close()
        return path.read_bytes()


def asreview_v2(decisions: dict[int, int | None], *, data_name: str = "papers.csv", folder: str = "") -> bytes:
    """A LAB 2+ export: project.json, data_store.db (record table, record_id from 0), reviews/<id>/results.db,
    and the data file. ``decisions`` maps ASReview record ids (file row numbers) to 1, 0 or None (pending)."""
    records = [(i, i, "d1", title, doi) for i, (_, title, doi) in enumerate(PAPERS)]
    store = _sqlite_bytes([
        ("CREATE TABLE record (record_id INTEGER PRIMARY KEY, dataset_row INTEGER, dataset_id TEXT, title TEXT, "
         "abstract TEXT, doi TEXT, included INTEGER)", []),
        ("INSERT INTO record (record_id, dataset_row, dataset_id, title, doi) VALUES (?, ?, ?, ?, ?)", records),
    ])
    results = _sqlite_bytes([
        ("CREATE TABLE results (record_id INTEGER, label INTEGER, classifier TEXT, querier TEXT, time REAL, "
         "note TEXT, tags TEXT, user_id INTEGER)", []),
        ("INSERT INTO results (record_id, label) VALUES (?, ?)", list(decisions.items())),
    ])
    config = {"version": "2.0", "id": "p", "mode": "oracle", "name": "p",
              "datasets": [{"id": "d1", "name": data_name}], "reviews": [{"id": "rev1", "status": "review"}]}
    return _zip({"project.json": json.dumps(config), "data_store.db": store, "reviews/rev1/results.db": results,
                 f"data/{data_name}": papers_csv()}, folder)


def asreview_v1(decisions: dict[int, int | None]) -> bytes:
    """A LAB 1 export: project.json with dataset_path, reviews/<id>/results.sql, the data file (whose row
    numbers are the record ids: this one has no record_id column)."""
    results = _sqlite_bytes([
        ("CREATE TABLE results (record_id INTEGER, label INTEGER, classifier TEXT, query_strategy TEXT, "
         "balance_strategy TEXT, feature_extraction TEXT, training_set INTEGER, labeling_time INTEGER, "
         "notes TEXT)", []),
        ("INSERT INTO results (record_id, label) VALUES (?, ?)", list(decisions.items())),
    ])
    data = papers_csv().replace("record_id,", "ref,", 1)  # no id column: record ids are row numbers
    config = {"version": "1.1", "id": "p", "mode": "oracle", "dataset_path": "mine.csv",
              "reviews": [{"id": "old", "status": "review"}]}
    return _zip({"project.json": json.dumps(config), "reviews/old/results.sql": results, "data/mine.csv": data})


def _zip(members: dict[str, str | bytes], folder: str = "") -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, content in members.items():
            archive.writestr(f"{folder}{name}", content)
    return out.getvalue()
