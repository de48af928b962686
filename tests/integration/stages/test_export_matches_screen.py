"""The main job's export and `agentr screen` on the same file give the same order (offline, no labels).

The file is shaped as real exports are: DOIs, records whose title was lost (an abstract kept), one with neither
a title nor an abstract to speak of, duplicates under new ids with the same DOI (one without its abstract),
near-duplicate titles, rows out of order. The main job imports it (`papers add`), runs the chain and writes
`scores.csv`; `agentr screen` reads the same file. The export's rows (by ``source_id``) must be screen's records
that duplicate nothing, in screen's order: one corpus (what the importer keeps, on the text it stores) and one
ranking function (:func:`agentr_dagster.screening.screen.screen`, which the relevance stage calls).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from click.testing import CliRunner
from dagster import DagsterInstance, materialize

from agentr_dagster.cli.screen import screen_command
from agentr_dagster.defs.assets import project_assets
from agentr_dagster.defs.resources import LLMResource, SourcesResource, StoreResource
from agentr_dagster.imports.records import UNTITLED
from agentr_dagster.stages.intake import add_papers_file, add_project, read_abstract
from tests.support import DEMO

SLUG = "same-order"


def messy_file(tmp_path) -> tuple:
    rng = np.random.default_rng(7)
    frame = pd.read_csv(DEMO / "papers.csv", dtype=str, keep_default_na=False)
    frame["doi"] = [f"10.5555/same.{i}" for i in range(len(frame))]
    untitled = ["untitled-" + rid for rid in frame["record_id"].iloc[[3, 11, 20, 31]]]
    frame.loc[frame.index[[3, 11, 20, 31]], "title"] = ""  # titles lost, abstracts kept
    frame.loc[frame.index[[3, 11, 20, 31]], "record_id"] = untitled
    empty = pd.DataFrame({"record_id": ["no-text"], "title": [""], "abstract": ["see attached"], "year": [""],
                          "doi": [""]})
    dup = frame.iloc[[0, 5, 9]].copy()  # the same DOI under another id; one without its abstract
    dup["record_id"] = "dup-" + dup["record_id"]
    dup.loc[dup.index[0], "abstract"] = ""
    near = frame.iloc[[14, 25]].copy()  # the same title in other case and punctuation, no DOI
    near["record_id"] = "near-" + near["record_id"]
    near["title"] = near["title"].str.upper() + " ."
    near["doi"] = ""
    rows = pd.concat([frame, empty, dup, near], ignore_index=True)
    rows = rows.iloc[rng.permutation(len(rows))].reset_index(drop=True)
    path = tmp_path / "papers.csv"
    rows.to_csv(path, index=False)
    return path, untitled


def test_the_export_is_agentr_screens_order_on_the_same_file(sqlite_store, tmp_path, monkeypatch):
    store = sqlite_store
    home = tmp_path / "home"
    monkeypatch.setenv("AGENTR_HOME", str(home))
    monkeypatch.delenv("AGENTR_LLM_BASE_URL", raising=False)
    papers, untitled = messy_file(tmp_path)
    question = tmp_path / "question.md"
    question.write_text((DEMO / "abstract.md").read_text(), encoding="utf-8")

    add_project(store, SLUG, read_abstract(question))
    add_papers_file(store, SLUG, papers)
    instance = DagsterInstance.ephemeral()
    instance.add_dynamic_partitions("projects", [SLUG])
    result = materialize(
        project_assets, partition_key=SLUG, instance=instance, raise_on_error=False,
        resources={"store": StoreResource(database_url=store.url), "llm": LLMResource(), "sources": SourcesResource()},
    )
    assert result.success
    export = pd.read_csv(home / "results" / SLUG / "scores.csv", dtype=str, keep_default_na=False)

    out = tmp_path / "screen.csv"
    ran = CliRunner().invoke(screen_command, ["--question", str(question), "--papers", str(papers),
                                              "--out", str(out)])
    assert ran.exit_code == 0, ran.output
    screened = pd.read_csv(out, dtype=str, keep_default_na=False)

    ranked = [rid for rid, twin in zip(screened["record_id"], screened["duplicate_of"], strict=True) if not twin]
    assert len(export) == len(ranked) - 1  # every record but the one with nothing to rank
    assert export["source_id"].tolist() == ranked[: len(export)]
    assert ranked[-1] == "no-text"  # screen lists it, unranked, after the ranked records
    # each copy merged with its original (whichever came first in the file), as `agentr papers add` merges it
    twins = {frozenset((a, b)) for a, b in zip(screened["record_id"], screened["duplicate_of"], strict=True) if b}
    originals = pd.read_csv(DEMO / "papers.csv", dtype=str)["record_id"]
    assert twins == {frozenset((f"{kind}-{originals[i]}", originals[i]))
                     for kind, rows in (("dup", (0, 5, 9)), ("near", (14, 25))) for i in rows}
    # the papers whose title was lost are in the export, under a title that says so
    kept = export.set_index("source_id").loc[untitled, "title"]
    assert all(title.startswith(UNTITLED + " ") for title in kept)
