"""Relevance feedback, ASReview-style: include/exclude labels on a project's candidates, stored durably in the
domain store (``paper_labels``), and a re-ranking of the candidates that learns from them (``agentr label``,
``agentr labels``, ``agentr rerank``; which paper a label names is ``stages.labels.find_paper``'s).

The re-ranker is :func:`agentr_dagster.screening.screen.screen` with the default preset: a zero-shot hybrid
prior from the project's question (:func:`~agentr_dagster.stages.relevance.relevance_question`: its abstract, else
its intent, the text the relevance stage ranks against), and once labels exist a linear model over TF-IDF
features trained on them, with the prior's weight decaying as includes accumulate. Labelled includes come
first, labelled excludes last; everything unlabelled in between, best first — the order to screen in next.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pandas as pd

from agentr_dagster.screening.screen import screen
from agentr_dagster.store.labels import LABELS
from agentr_dagster.store.rows import LabelRow

if TYPE_CHECKING:
    from agentr_dagster.store import DomainStore

__all__ = ["LABELS", "LabelRow", "list_labels", "rerank"]


def list_labels(store: DomainStore, slug: str) -> list[LabelRow]:
    """The project's current labels on live papers, oldest decision first."""
    return store.labels.list_labels(slug)


def rerank(store: DomainStore, slug: str, *, embedder=None) -> pd.DataFrame:
    """Every live candidate of the project, in the order to screen next, learning from its labels and seed
    studies (as the relevance stage does: a seed-matched paper is labelled include unless the person labelled it).

    Columns: rank, paper_id, score, label (include/exclude/empty), method (zero-shot | active), title, year,
    doi, paper_key. With labels, ``attrs["versus_zero_shot"]`` is screen's comparison of the learned order with
    the zero-shot order (:class:`~agentr_dagster.screening.versus.VersusZeroShot`)."""
    papers = store.projects.list_papers(slug)
    columns = ["rank", "paper_id", "score", "probability", "label", "method", "title", "year", "doi", "paper_key"]
    if not papers:
        return pd.DataFrame(columns=columns)
    frame = pd.DataFrame({
        "record_id": [str(p.id) for p in papers],
        "title": [p.title for p in papers],
        "abstract": [p.abstract or "" for p in papers],
    })
    from agentr_dagster.stages.relevance import person_labels, relevance_question, seed_evidence, training_labels

    # the evidence the relevance stage learns from: the labels and the project's seed studies
    seeds = seed_evidence(store, slug, papers)
    labels = {str(pid): lab for pid, lab in training_labels(person_labels(store, slug), seeds).items()}
    # The papers were de-duplicated at import: every one is ranked.
    ranked = screen(relevance_question(store, slug), frame, labels or None, embedder=embedder, dedupe=False,
                    extra_includes=seeds.outside)
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
    out = out[columns]
    if "versus_zero_shot" in ranked.attrs:
        out.attrs["versus_zero_shot"] = ranked.attrs["versus_zero_shot"]
    return out
