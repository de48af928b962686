"""Pseudo-relevance feedback in the run (issue 32; measured in docs/search-strategies.md, rounds 14b and 14c).

After the sources were searched, the offline query's own best matches among the project's papers (ranked
zero-shot against the project's text) stand in for seed studies: the terms characteristic of them join the
query's required blocks (:func:`agentr_dagster.domain.seed_check.refine_with_pseudo_seeds`), and the widened
query is sent once more (``boolean-prf``), through the same search path as the others. It runs only where it
was measured to help: an abstract (not a question), the offline concept query, no seed studies (the seeds stage
widens then) and a background of many topics to weigh the terms and bound the growth (the paper lake when it is
large enough, else the preferred source's hit counts). What it did is the ``pseudo_feedback`` artefact, keyed
by the query, the text and the papers it read: a re-run with the same ones asks nothing again.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentr_dagster.domain.boolean_query import (
    Node,
    Term,
    matches,
    parse_boolean_query,
    to_query,
)
from agentr_dagster.domain.failures import StageError
from agentr_dagster.domain.hashing import sha256
from agentr_dagster.domain.seed_check import PSEUDO_GROWTH, PSEUDO_SEEDS, SeedStudy, top_ranked
from agentr_dagster.domain.specificity import MIN_BACKGROUND_RECORDS, BackgroundUnavailable
from agentr_dagster.sources.contract import SourceQuery
from agentr_dagster.stages.search import (
    PRF_QUERY_NAME,
    PSEUDO_FEEDBACK_STAGE,
    Progress,
    SearchCaps,
    SearchSummary,
    run_source_queries,
    stored_feedback_query,
)

if TYPE_CHECKING:
    from agentr_dagster.sources.registry import EnabledSources
    from agentr_dagster.store import DomainStore
    from agentr_dagster.store.rows import PaperRow

log = logging.getLogger(__name__)

PRF_VERSION = "prf-v1"
#: Distinct terms whose hit counts one refinement may ask of a source (the source background): the 20
#: pseudo-seeds of four shared reviews share 39-61 terms that are weighed, so the intent's 60 would often end the
#: background part-way (BackgroundUnavailable: nothing added).
MAX_TERM_COUNTS = 150


@dataclass
class FeedbackResult:
    """What the stage did: ``reason`` says why it did not run (empty when it ran)."""

    reason: str = ""
    added: dict[str, list[str]] = field(default_factory=dict)
    background: str = ""
    query: str = ""
    reused: bool = False
    summary: SearchSummary | None = None

    @property
    def new_papers(self) -> int:
        return self.summary.added if self.summary is not None else 0

    def line(self) -> str:
        if self.reason:
            return f"not run: {self.reason}"
        if not self.added:
            return f"no term added (weighed by {self.background})"
        return (f"added {added_text(self.added)} (weighed by {self.background}); {self.new_papers} new paper(s) "
                f"from {PRF_QUERY_NAME}" + (" (as before: nothing asked again)" if self.reused else ""))

    def metadata(self) -> dict[str, Any]:
        if self.reason:
            return {"prf_added_terms": "none", "prf_new_papers": 0, "prf_skipped": self.reason}
        return {"prf_added_terms": added_text(self.added), "prf_new_papers": self.new_papers,
                "prf_background": self.background, "prf_reused": self.reused,
                **({"prf_query": self.query} if self.added else {})}


def added_text(added: dict[str, list[str]]) -> str:
    """``block: term, term; block: term`` (or ``none``)."""
    return "; ".join(f"{block}: {', '.join(terms)}" for block, terms in added.items()) or "none"


def skip_reason(*, enabled: bool, backend: str | None, concepts: int, concept_query: bool, seeds: int,
                question: bool) -> str:
    """Why feedback does not run on this project (empty when it may): only where it was measured to help."""
    if not enabled:
        return "switched off (AGENTR_PSEUDO_FEEDBACK=0)"
    if backend != "offline" or not concepts:
        return "the query is not the offline backend's concept query"
    if not concept_query:
        return "the stored query is not the one its concept blocks make (widened by seeds, or edited)"
    if seeds:
        return f"{seeds} seed stud{'y' if seeds == 1 else 'ies'}: the seeds widen the query instead"
    if question:
        return "the project's text is a review question: feedback was measured to gain nothing there"
    return ""


def found_by_feedback_alone(labels: Sequence[str]) -> bool:
    """A paper that only the widened query's own search found: never read as a pseudo-seed (it would change the
    fingerprint on every re-run)."""
    return bool(labels) and all(label.split(":", 1)[-1] == PRF_QUERY_NAME for label in labels)


def feedback_fingerprint(query: str, text: str, paper_hashes: Sequence[str], lake: bool) -> str:
    """What the refinement depends on: the query, the text, the papers read and which background weighs."""
    return sha256(PRF_VERSION, query, text, *sorted(paper_hashes), "lake" if lake else "source",
                  str(PSEUDO_SEEDS), str(PSEUDO_GROWTH))


@dataclass(frozen=True)
class _Weighing:
    """A background of many topics: ``weigh`` a term's share, ``count`` what a query matches, ``off_topic`` its
    share of the background."""

    label: str
    weigh: Callable[[str], float]
    count: Callable[[Node], int]
    off_topic: Callable[[Node], float]


def _lake_weighing(lake_root: Path | None, own_keys: Collection[str]) -> _Weighing | None:
    """The paper lake when it holds ``MIN_BACKGROUND_RECORDS`` papers besides the project's own (its searches put
    them there): a term's share and the query's off-topic share are of those other papers, as the bench weighed
    them (the other reviews' records); the growth bound counts the whole lake."""
    from agentr_dagster.lake import Lake

    try:
        lake = Lake.open(lake_root)
        others = ~lake.keys_mask(own_keys) if lake is not None else None
    except Exception as exc:  # noqa: BLE001 - the lake is shared and optional: weigh by the source, or not at all
        log.warning("the paper lake could not be read for pseudo-relevance feedback: %s", exc)
        return None
    if lake is None or others is None:
        return None
    n_others = int(others.sum())
    if n_others < MIN_BACKGROUND_RECORDS:
        return None

    def weigh(term: str) -> float:
        return float((lake.boolean_mask(Term(term.strip().strip('"'))) & others).sum()) / n_others

    return _Weighing(f"paper lake ({n_others} papers besides the project's)", weigh,
                     lambda node: int(lake.boolean_mask(node).sum()),
                     lambda node: float((lake.boolean_mask(node) & others).sum()) / n_others)


def _source_weighing(sources: EnabledSources, min_records: int) -> _Weighing | None:
    """The preferred source's hit counts: a term's share, and the whole query's count (one request each,
    asked once)."""
    from agentr_dagster.sources.background import counting_source, source_background

    background = source_background(sources.search, max_terms=MAX_TERM_COUNTS, min_records=min_records)
    client = counting_source(sources.search)
    if background is None or client is None:
        return None
    counted: dict[Node, int] = {}

    def count(node: Node) -> int:
        if node not in counted:
            try:
                counted[node] = client.count(SourceQuery(name="prf-count", text=to_query(node), tree=node))
            except Exception as exc:  # a failed count fails the refinement: nothing half-weighed is added
                raise BackgroundUnavailable(f"{client.name}: no hit count for the widened query ({exc})") from exc
        return counted[node]

    return _Weighing(background.label, background, count, lambda node: count(node) / background.total)


def rank_papers(text: str, papers: Sequence[PaperRow]) -> list[int]:
    """The papers' ids ranked zero-shot against ``text``, best first: the default preset's static half, as the
    feedback was measured (the transformer would encode thousands of records for twenty)."""
    import pandas as pd

    from agentr_dagster.screening.presets import STATIC_DEFAULT
    from agentr_dagster.screening.screen import screen

    if not papers:
        return []
    frame = pd.DataFrame({"record_id": [str(p.id) for p in papers], "title": [p.title for p in papers],
                          "abstract": [p.abstract or "" for p in papers]})
    ranking = screen(text, frame, preset=STATIC_DEFAULT, dedupe=False)
    return [int(r) for r in ranking.sort_values("rank")["record_id"]]


def pseudo_feedback(store: DomainStore, slug: str, sources: EnabledSources, caps: SearchCaps, *,
                    enabled: bool = True, min_source_records: int = 1_000_000, update_id: str | None = None,
                    refresh: bool = False, run_id: str | None = None, progress: Progress | None = None,
                    lake_root: Path | None = None, add_to_lake: bool = True) -> FeedbackResult:
    """The project's Boolean query widened by its own best matches and searched once more (see the module)."""
    from agentr_dagster.llm.offline.concepts import is_review_question
    from agentr_dagster.llm.offline.queries import concept_boolean_query
    from agentr_dagster.stages.intent import current_intent
    from agentr_dagster.stages.queries import current_queries
    from agentr_dagster.stages.seeds import project_seed_studies

    artifact = store.results.latest_artifact(slug, "queries")
    queries = current_queries(store, slug)
    if artifact is None or queries is None:
        return FeedbackResult(reason="no queries yet")
    try:
        intent = current_intent(store, slug)[0]
    except (StageError, ValueError):
        return FeedbackResult(reason="no research intent")
    text = store.projects.get_project(slug).abstract
    query = queries.boolean_query
    reason = skip_reason(
        enabled=enabled, backend=artifact.backend, concepts=len(intent.concepts),
        concept_query=bool(intent.concepts) and query == concept_boolean_query(intent.concepts),
        seeds=len(project_seed_studies(store, slug)[0]), question=is_review_question(text))
    if reason:
        return FeedbackResult(reason=reason)
    tree = parse_boolean_query(query)
    found = store.searches.found_by(slug)
    papers = store.projects.list_papers(slug)
    matched = [p for p in papers if not found_by_feedback_alone(found.get(p.id, []))
               and matches(tree, SeedStudy(p.title, p.abstract or "").text)]
    if not matched:
        return FeedbackResult(reason="the query matches none of the project's papers")
    weighing = _lake_weighing(lake_root, {p.paper_key for p in papers})
    fingerprint = feedback_fingerprint(query, text, [p.content_hash for p in matched], weighing is not None)
    latest = store.results.latest_artifact(slug, PSEUDO_FEEDBACK_STAGE)
    reused = latest is not None and latest.input_hash == fingerprint
    if latest is not None and reused:
        payload = latest.payload
    else:
        weighing = weighing or _source_weighing(sources, min_source_records)
        if weighing is None:
            payload = {"reason": "no background of many topics: the paper lake holds fewer than "
                                 f"{MIN_BACKGROUND_RECORDS} papers besides the project's own and no enabled source "
                                 "that reports hit counts holds AGENTR_SOURCE_BACKGROUND_MIN_RECORDS records",
                       "query_before": query, "query_after": query, "added_terms": {}}
        else:
            try:
                payload = _refine(intent, query, text, matched, weighing)
            except BackgroundUnavailable as exc:  # transient or over the bound: not stored, tried next run
                return FeedbackResult(reason=f"the background failed part-way: {exc}"[:500])
        store.results.save_artifact(slug, PSEUDO_FEEDBACK_STAGE, payload, prompt_version=PRF_VERSION, model=None,
                                    backend=None, input_hash=fingerprint)
    if payload.get("reason"):
        return FeedbackResult(reason=str(payload["reason"]), reused=reused)
    result = FeedbackResult(added=payload.get("added_terms") or {}, background=str(payload.get("background")),
                            query=str(payload.get("query_after")), reused=reused)
    widened = stored_feedback_query(store, slug, query)
    if widened is not None:  # a search completed for this text is not sent again (plan_searches)
        result.summary = run_source_queries(store, slug, sources, [widened], caps, update_id=update_id,
                                            refresh=refresh, run_id=run_id, progress=progress, lake_root=lake_root,
                                            add_to_lake=add_to_lake)
    return result


def _refine(intent: Any, query: str, text: str, matched: Sequence[PaperRow], weighing: _Weighing) -> dict[str, Any]:
    from agentr_dagster.domain.seed_check import refine_with_pseudo_seeds
    from agentr_dagster.llm.offline.queries import concept_boolean_query
    from agentr_dagster.stages.seeds import embedding_relatedness

    by_id = {p.id: p for p in matched}
    chosen = [by_id[i] for i in top_ranked(rank_papers(text, matched), PSEUDO_SEEDS)]
    pseudo = [SeedStudy(p.title, p.abstract or "", p.doi or "") for p in chosen]

    def render(terms: list[list[str]]) -> str:  # a term the query cannot send as weighed is never proposed
        return concept_boolean_query([c.model_copy(update={"terms": t})
                                      for c, t in zip(intent.concepts, terms, strict=True)])

    refined = refine_with_pseudo_seeds(
        [(f"{c.facet}: {c.label}", list(c.terms)) for c in intent.concepts], pseudo, render, weighing.weigh,
        weighing.count, max_growth=PSEUDO_GROWTH, relatedness=embedding_relatedness(), generic=weighing.weigh,
        off_topic=weighing.off_topic, open_blocks=[i for i, c in enumerate(intent.concepts) if c.required])
    return {"query_before": query, "query_after": refined.query if refined.added else query,
            "added_terms": refined.added, "background": weighing.label, "pseudo_seed_ids": [p.id for p in chosen],
            "matched_papers": len(matched), "background_matched_before": weighing.count(parse_boolean_query(query)),
            "background_matched_after": weighing.count(parse_boolean_query(refined.query)),
            "k": PSEUDO_SEEDS, "growth": PSEUDO_GROWTH}


def feedback_summary(store: DomainStore, slug: str) -> str | None:
    """One line for the run's summary: the terms the feedback added to the current query and the papers its
    search brought (None when it added nothing to the current query)."""
    from agentr_dagster.stages.queries import current_queries

    queries = current_queries(store, slug)
    artifact = store.results.latest_artifact(slug, PSEUDO_FEEDBACK_STAGE)
    if queries is None or artifact is None or artifact.payload.get("query_before") != queries.boolean_query:
        return None
    added = artifact.payload.get("added_terms") or {}
    if not added:
        return None
    widened = stored_feedback_query(store, slug, queries.boolean_query)
    rows = [r for r in store.searches.searches(slug) if r.query_name == PRF_QUERY_NAME and widened is not None
            and r.status == "completed"]
    return (f"pseudo-relevance feedback widened the query by {sum(len(t) for t in added.values())} term(s) "
            f"({added_text(added)}); its search ({PRF_QUERY_NAME}) brought {sum(r.new_papers for r in rows)} "
            "new paper(s)")
