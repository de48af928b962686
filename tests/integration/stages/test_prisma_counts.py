"""The PRISMA boxes count what the importers did: every row a file held is identified, the rows repeating another
row or a paper the project had are duplicates removed, the unusable rows are removed, and what a person labelled
is excluded or included (the rest not yet screened); the boxes add up and the diagram draws them."""

from __future__ import annotations

import csv

from agentr_dagster.stages.intake import add_papers_file, add_project
from agentr_dagster.stages.prisma import prisma_counts
from agentr_dagster.synthesis.plots import prisma_flow

ABSTRACT = "Screening tools rank the candidate papers of a systematic review by their relevance to its question."


def _paper(i: int) -> dict[str, str]:
    return {"title": f"A study of topic number {i} in software engineering",
            "abstract": f"We report study {i}: an experiment with twelve participants and a replication package."}


def _write(path, rows) -> None:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=["title", "abstract"])
        writer.writeheader()
        writer.writerows(rows)


def test_prisma_counts_every_row_the_importer_read_and_every_label(sqlite_store, tmp_path):
    store = sqlite_store
    add_project(store, "flow", ABSTRACT)
    first = tmp_path / "scopus.csv"  # 8 papers, 2 of them repeated, 1 unusable row (no title, 3-word abstract)
    _write(first, [_paper(i) for i in range(8)] + [_paper(1), _paper(5)] + [{"title": "", "abstract": "too short"}])
    second = tmp_path / "wos.csv"  # 3 new papers and 2 the first file had
    _write(second, [_paper(i) for i in range(8, 11)] + [_paper(0), _paper(2)])
    third = tmp_path / "pubmed.csv"  # nothing new: every row a paper the project has
    _write(third, [_paper(3), _paper(9)])
    one = add_papers_file(store, "flow", first)
    two = add_papers_file(store, "flow", second)
    assert (one.added, one.dropped, two.added, two.duplicates) == (8, 3, 3, 2)
    assert add_papers_file(store, "flow", third).added == 0

    files = {f.name: f for f in store.projects.imported_files("flow")}
    assert files["scopus.csv"].rows_read == 11 and files["scopus.csv"].in_file_duplicates == 2
    assert files["scopus.csv"].dropped == 1 and len(files["scopus.csv"].notes) == 3
    assert files["wos.csv"].duplicates == 2 and files["wos.csv"].added == 3

    papers = store.projects.list_papers("flow")
    store.labels.set_label("flow", papers[0].id, "include")
    store.labels.set_label("flow", papers[1].id, "include")
    store.labels.set_label("flow", papers[2].id, "exclude")
    counts = prisma_counts(store, "flow")
    assert counts.problems() == []
    assert counts.identified == {"import:pubmed.csv": 2, "import:scopus.csv": 11, "import:wos.csv": 5}
    assert (counts.duplicates_by_importer, counts.duplicates_across_sources, counts.unusable_removed) == (6, 0, 1)
    assert counts.screened == len(papers) == 11
    assert (counts.labelled_excluded, counts.labelled_included, counts.not_yet_screened) == (1, 2, 8)
    png = prisma_flow(counts, dpi=60)
    assert png.startswith(b"\x89PNG") and len(png) > 5000
