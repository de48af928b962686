"""Relevance feedback, ASReview-style: include/exclude labels on a project's candidates, stored durably in the
domain store (``paper_labels``), and a re-ranking of the candidates that learns from them (``agentr label``,
``agentr labels``, ``agentr rerank``).

The re-ranker is :func:`agentr_dagster.screening.screen.screen` with the default preset: a zero-shot hybrid
prior from the project's abstract, and once labels exist a linear model over TF-IDF features trained on them,
with the prior's weight decaying as includes accumulate. Labelled includes come first, labelled excludes last;
everything unlabelled in between, best first — the order to screen in next.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pandas as pd

from agentr_dagster.screening.screen import screen
from agentr_dagster.store.labels import LABELS
from agentr_dagster.store.rows import LabelRow, PaperRow, StoreError

if TYPE_CHECKING:
    from agentr_dagster.store import DomainStore

__all__ = ["LABELS", "LabelRow", "list_labels", "rerank", "resolve_paper", "set_label"]


def _normal_doi(text: str) -> str:
    doi = text.strip().lower()
    for prefix in ("https://doi.org/", "http://doi.org/", "https://dx.doi.org/", "doi:"):
        if doi.startswith(prefix):
            doi = doi[len(prefix) :]
    return doi


def resolve_paper(store: DomainStore, slug: str, ref: str) -> PaperRow:
    """A live paper of the project named by its id, paper key (``doi:...``/``t:...``), DOI (bare or URL) or
    exact title (case-insensitive). StoreError when nothing or more than one paper matches."""
    ref = (ref or "").strip()
    if not ref:
        raise StoreError("name a paper: its id, DOI, paper key or exact title")
    papers = store.projects.list_papers(slug)
    if ref.isdigit():
        match = [p for p in papers if p.id == int(ref)]
    else:
        doi = _normal_doi(ref)
        match = [p for p in papers if p.paper_key == ref or (p.doi and p.doi == doi)]
        if not match:
            folded = ref.casefold()
            match = [p for p in papers if p.title.casefold() == folded]
    if not match:
        raise StoreError(f"project {slug!r} has no live paper {ref!r} (use an id from `agentr rerank {slug}`)")
    if len(match) > 1:
        ids = ", ".join(str(p.id) for p in match[:10])
        raise StoreError(f"{ref!r} names {len(match)} papers of {slug!r} (ids {ids}); use the id")
    return match[0]


def set_label(store: DomainStore, slug: str, ref: str, label: str, *, note: str | None = None) -> LabelRow | None:
    """Record (or change) the project's decision on the paper ``ref`` names; ``label="clear"`` removes it
    (returns None). OrphanError for a deleted project or paper."""
    label = (label or "").strip().lower()
    if label not in (*LABELS, "clear"):
        raise ValueError(f"label must be include, exclude or clear, not {label!r}")
    paper = resolve_paper(store, slug, ref)
    return store.labels.set_label(slug, paper.id, label, note=note)


def list_labels(store: DomainStore, slug: str) -> list[LabelRow]:
    """The project's current labels on live papers, oldest decision first."""
    return store.labels.list_labels(slug)


def rerank(store: DomainStore, slug: str, *, embedder=None) -> pd.DataFrame:
    """Every live candidate of the project, in the order to screen next, learning from its labels.

    Columns: rank, paper_id, score, label (include/exclude/empty), method (zero-shot | active), title, year,
    doi, paper_key."""
    project = store.projects.get_project(slug)
    papers = store.projects.list_papers(slug)
    columns = ["rank", "paper_id", "score", "probability", "label", "method", "title", "year", "doi", "paper_key"]
    if not papers:
        return pd.DataFrame(columns=columns)
    frame = pd.DataFrame({
        "record_id": [str(p.id) for p in papers],
        "title": [p.title for p in papers],
        "abstract": [p.abstract or "" for p in papers],
    })
    labels = {str(row.paper_id): 1 if row.label == "include" else 0 for row in list_labels(store, slug)}
    # The papers were de-duplicated at import: every one is ranked.
    ranked = screen(project.abstract, frame, labels or None, embedder=embedder, dedupe=False)
    by_id = {str(p.id): p for p in papers}
    out = pd.DataFrame({
        "rank": ranked["rank"].astype(int).to_numpy(),
        "paper_id": [int(r) for r in ranked["record_id"]],
        "score": ranked["score"].to_numpy(),
        "probability": ranked["probability"].to_numpy(),  # calibrated P(include), as in the export's relevance
        "label": ranked["label"].to_numpy(),
        "method": ranked["method"].to_numpy(),
        "title": [by_id[r].title for r in ranked["record_id"]],
        "year": [by_id[r].year for r in ranked["record_id"]],
        "doi": [by_id[r].doi for r in ranked["record_id"]],
        "paper_key": [by_id[r].paper_key for r in ranked["record_id"]],
    })
    return out[columns]
