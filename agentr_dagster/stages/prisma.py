"""A project's PRISMA 2020 flow counts, computed from the store, stored as an artifact and exported as
``results/<slug>/prisma.csv`` (no Dagster here; `score_exports` calls :func:`write_prisma` and checks that the boxes
add up, the report draws it)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd

from agentr_dagster.domain.atomic import write_atomically
from agentr_dagster.domain.prisma import NOT_SCORED_REASONS, PrismaCounts

if TYPE_CHECKING:
    from agentr_dagster.store import DomainStore

PRISMA_STAGE = "prisma"


def paper_origins(provenance: dict, sighted_sources: set[str]) -> set[str]:
    """Where one paper was identified: ``import:<file>`` for an imported file, each search source (or citation
    chase) that found it, and ``lake`` only when nothing else did (the lake holds what the searches put there)."""
    origins = set(sighted_sources)
    if provenance.get("file") and not provenance.get("source"):
        origins.add(f"import:{provenance['file']}")
    if provenance.get("source") == "lake":
        origins.add("lake")
    if len(origins) > 1:
        origins.discard("lake")
    if not origins:
        origins.add(str(provenance.get("source") or provenance.get("format") or "unknown"))
    return origins


def _not_scored_reason(store: DomainStore, slug: str, not_scored: str) -> str:
    from agentr_dagster.stages.exports import BELOW_CUTOFF
    from agentr_dagster.stages.scoring import QUEUE_STAGE

    if not_scored != BELOW_CUTOFF:
        return "pending"
    queue = store.results.latest_artifact(slug, QUEUE_STAGE)
    return "budget" if queue is not None and queue.payload.get("stop_reason") == "budget" else "below cut-off"


def prisma_counts(store: DomainStore, slug: str) -> PrismaCounts:
    from agentr_dagster.stages.exports import scores_dataframe

    papers = store.projects.list_papers(slug)
    sighted: dict[int, set[str]] = {}
    for s in store.searches.sightings(slug):
        sighted.setdefault(s.paper_id, set()).add(s.source)
    identified: dict[str, int] = {}
    for paper in papers:
        for origin in paper_origins(paper.provenance or {}, sighted.get(paper.id, set())):
            identified[origin] = identified.get(origin, 0) + 1
    across_sources = sum(identified.values()) - len(papers)
    # A file whose import recorded its counts (every import since they were kept) counts every row it read; its
    # papers are the ones counted above, so the rows it did not add are its duplicates and unusable rows.
    by_name: dict[str, list] = {}
    for file in store.projects.imported_files(slug):
        by_name.setdefault(file.name, []).append(file)
    by_importer = unusable = 0
    for name, files in by_name.items():
        if not all(f.counted for f in files):
            continue  # imported before the counts were kept: its papers alone, as counted above
        # a file whose every row was a duplicate added no paper: identified here all the same
        identified[f"import:{name}"] = identified.get(f"import:{name}", 0) + sum(
            f.duplicates + f.in_file_duplicates + f.dropped for f in files)
        by_importer += sum(f.duplicates + f.in_file_duplicates for f in files)
        unusable += sum(f.dropped for f in files)
    identified = dict(sorted(identified.items(), key=lambda kv: (kv[0].startswith("import:"), kv[0])))
    frame = scores_dataframe(store, slug)
    scored = frame[frame["not_scored"] == ""] if len(frame) else frame
    not_scored: dict[str, int] = dict.fromkeys(NOT_SCORED_REASONS, 0)
    for value in (frame["not_scored"] if len(frame) else []):
        if value:
            reason = _not_scored_reason(store, slug, value)
            not_scored[reason] += 1
    ids = {p.id for p in papers}
    labels = [lab for lab in store.labels.list_labels(slug) if lab.paper_id in ids]
    return PrismaCounts(
        identified=identified, duplicates_by_importer=by_importer, duplicates_across_sources=across_sources,
        unusable_removed=unusable, screened=len(papers), scored=len(scored), not_scored=not_scored,
        labelled_included=sum(1 for lab in labels if lab.label == "include"),
        labelled_excluded=sum(1 for lab in labels if lab.label == "exclude"),
    )


def write_prisma(store: DomainStore, slug: str, out_dir: Path) -> tuple[PrismaCounts, Path]:
    """Compute, store (artifact ``prisma``) and export the counts; returns them and the CSV's path."""
    counts = prisma_counts(store, slug)
    last = store.results.latest_artifact(slug, PRISMA_STAGE)
    if last is None or last.payload != counts.model_dump(mode="json"):
        store.results.save_artifact(slug, PRISMA_STAGE, counts, prompt_version=None, model=None, backend=None,
                                    input_hash=None)
    out_dir.mkdir(parents=True, exist_ok=True)
    frame = pd.DataFrame(counts.rows(), columns=["phase", "box", "count"])
    path = write_atomically(out_dir / "prisma.csv", lambda tmp: frame.to_csv(tmp, index=False))
    return counts, path
