"""Seed studies of a project and the stored Boolean query checked against them.

Seeds are what the researcher already knows must be found: studies given by DOI or title (stored as the
project's ``seeds`` artifact by ``agentr queries <slug> --seeds FILE``) and, once there are labels, the papers
labelled include. A DOI is resolved against the project's papers for its title and abstract; one that is not
among them is reported as unresolved and not counted.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from agentr_dagster.domain.boolean_query import parse_boolean_query
from agentr_dagster.domain.contracts import ResearchIntent, SearchQueries
from agentr_dagster.domain.hashing import sha256
from agentr_dagster.domain.seed_check import (
    Background,
    Counter,
    Relatedness,
    SeedReport,
    SeedStudy,
    check_query,
    improve_blocks,
)

if TYPE_CHECKING:
    from agentr_dagster.store import DomainStore

SEEDS_STAGE = "seeds"
K = TypeVar("K")
_DOI_RE = re.compile(r"^(?:https?://(?:dx\.)?doi\.org/|doi:\s*)?(10\.\d{4,9}/\S+)$", re.I)


def parse_seed_text(text: str) -> list[dict[str, str]]:
    """Seeds from a file's text: a CSV with a ``title`` (and ``abstract``, ``doi``) column, else one DOI or
    title a line (blank lines and ``#`` comments skipped)."""
    first = text.lstrip().splitlines()[0] if text.strip() else ""
    if "," in first and "title" in first.casefold():
        rows = csv.DictReader(io.StringIO(text))
        out = []
        for row in rows:
            low = {(k or "").strip().casefold(): (v or "").strip() for k, v in row.items()}
            if low.get("title") or low.get("doi"):
                out.append({"title": low.get("title", ""), "abstract": low.get("abstract", ""),
                            "doi": _bare_doi(low.get("doi", ""))})
        return out
    out = []
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        doi = _bare_doi(line)
        out.append({"title": "", "abstract": "", "doi": doi} if doi else {"title": line, "abstract": "", "doi": ""})
    return out


def _bare_doi(value: str) -> str:
    m = _DOI_RE.match(value.strip())
    return m.group(1).rstrip(".").casefold() if m else ""


def match_seeds(seeds: Sequence[Mapping[str, Any]], candidates: Sequence[tuple[K, str, str | None]]
                ) -> tuple[list[K], list[tuple[str, str]]]:
    """Seeds (``title``, ``abstract``, ``doi``) against candidates (key, title, DOI): (the keys of the candidates
    a seed names, in seed order and once each; the (title, abstract) of the seeds with a title that name none).
    A seed names a candidate with the same DOI, else one with the same normalised title whose DOI does not
    differ from the seed's (the project's identity rules). A seed by DOI alone that names none is in neither."""
    from agentr_dagster.imports.identity import dois_conflict, normal_doi, normalise_title

    by_doi: dict[str, K] = {}
    by_title: dict[str, list[tuple[K, str | None]]] = {}
    for key, title, doi in candidates:
        if normal_doi(doi):
            by_doi.setdefault(normal_doi(doi) or "", key)
        by_title.setdefault(normalise_title(title), []).append((key, normal_doi(doi)))
    matched: list[K] = []
    outside: list[tuple[str, str]] = []
    for seed in seeds:
        title, abstract = str(seed.get("title") or ""), str(seed.get("abstract") or "")
        doi = normal_doi(str(seed.get("doi") or ""))
        found = by_doi.get(doi) if doi else None
        if found is None and title.strip():
            found = next((k for k, d in by_title.get(normalise_title(title), []) if not dois_conflict(doi, d)), None)
        if found is not None:
            if found not in matched:
                matched.append(found)
        elif title.strip():
            outside.append((title, abstract))
    return matched, outside


def save_seeds(store: DomainStore, slug: str, path: Path) -> int:
    seeds = parse_seed_text(Path(path).read_text(encoding="utf-8", errors="replace"))
    store.results.save_artifact(slug, SEEDS_STAGE, {"seeds": seeds}, prompt_version=None, model=None,
                                backend=None, input_hash=None)
    return len(seeds)


def project_seed_studies(store: DomainStore, slug: str) -> tuple[list[SeedStudy], list[str]]:
    """(seed studies with text, DOIs that resolve to no paper of the project)."""
    papers = store.projects.list_papers(slug)
    by_doi = {(p.doi or "").casefold(): p for p in papers if p.doi}
    studies: list[SeedStudy] = []
    unresolved: list[str] = []
    artifact = store.results.latest_artifact(slug, SEEDS_STAGE)
    for seed in (artifact.payload.get("seeds", []) if artifact else []):
        doi = seed.get("doi", "")
        if seed.get("title"):
            studies.append(SeedStudy(seed["title"], seed.get("abstract", ""), doi))
        elif doi in by_doi:
            paper = by_doi[doi]
            studies.append(SeedStudy(paper.title, paper.abstract or "", doi))
        elif doi:
            unresolved.append(doi)
    given = {s.doi for s in studies if s.doi} | {s.title.casefold() for s in studies}
    by_id = {p.id: p for p in papers}
    for label in store.labels.list_labels(slug):
        labelled = by_id.get(label.paper_id)
        if label.label == "include" and labelled and (labelled.doi or "").casefold() not in given \
                and labelled.title.casefold() not in given:
            studies.append(SeedStudy(labelled.title, labelled.abstract or "", labelled.doi or ""))
    return studies, unresolved


def block_names(intent: ResearchIntent | None, query: str) -> list[str] | None:
    """A name for each of the Boolean query's AND-ed blocks: the intent concept whose terms it shares most
    ("population: adolescents"), else "block N"."""
    if intent is None or not intent.concepts:
        return None
    from agentr_dagster.domain.boolean_query import blocks_of, parse_boolean_query, query_terms

    names = []
    for i, block in enumerate(blocks_of(parse_boolean_query(query))):
        terms = {t.casefold() for t in query_terms(block)}
        best, overlap = None, 0
        for c in intent.concepts:
            shared = len(terms & {t.strip('"').casefold() for t in c.terms})
            if shared > overlap:
                best, overlap = c, shared
        names.append(f"{best.facet}: {best.label}" if best else f"block {i + 1}")
    return names


def embedding_relatedness(embedder=None) -> Relatedness | None:
    """Closeness of candidate terms to a block's terms: cosine to the mean of the block's term vectors under the
    static embedding (the embedding neighbourhood of the concept); None when no embedding model is built."""
    import numpy as np

    if embedder is None:
        from agentr_dagster.domain.embeddings import get_embedder

        try:
            embedder = get_embedder()
        except (RuntimeError, OSError):
            return None

    def plain(terms: list[str]) -> list[str]:
        return [" ".join(t.replace('"', " ").replace("*", " ").split()) or t for t in terms]

    def related(candidates: list[str], block_terms: list[str]) -> list[float]:
        vecs = np.asarray(embedder.encode(plain(candidates) + plain(block_terms)), dtype=np.float64)
        vecs /= np.maximum(np.linalg.norm(vecs, axis=1, keepdims=True), 1e-12)
        centre = vecs[len(candidates):].mean(axis=0)
        centre /= max(float(np.linalg.norm(centre)), 1e-12)
        return [float(v) for v in vecs[: len(candidates)] @ centre]

    return related


def seed_report(store: DomainStore, slug: str, queries: SearchQueries,
                intent: ResearchIntent | None) -> tuple[SeedReport, list[str]]:
    studies, unresolved = project_seed_studies(store, slug)
    relatedness = embedding_relatedness() if studies else None
    names = block_names(intent, queries.boolean_query)
    return check_query(queries.boolean_query, studies, names, relatedness), unresolved


# ------------------------------------------------------------------------------------------------------------
# The objective approach on the project's own query: the seeds' characteristic terms added to its blocks
# ------------------------------------------------------------------------------------------------------------

#: The artefact recording what the seed studies added to the stored query (read by the asset's metadata).
SEED_TERMS_STAGE = "seed_terms"


@dataclass(frozen=True)
class SeedPool:
    """The records the seeds' terms are weighed against: ``background`` (a term's share of them) and ``count``
    (how many a query matches) for :func:`~agentr_dagster.domain.seed_check.improve_blocks`."""

    name: str
    size: int
    background: Background
    count: Counter


def _text_pool(name: str, texts: list[str]) -> SeedPool:
    """A pool of texts; each term's matching records are found once (by the matcher's own rule), a query's
    by set algebra over them: the search tries dozens of queries that differ by one term."""
    from agentr_dagster.domain.boolean_query import And, Node, Not, Term, matches

    every = frozenset(range(len(texts)))
    by_term: dict[str, frozenset[int]] = {}

    def ids(node: Node) -> frozenset[int]:
        if isinstance(node, Term):
            key = node.text.casefold()
            if key not in by_term:
                by_term[key] = frozenset(i for i, t in enumerate(texts) if matches(node, t))
            return by_term[key]
        if isinstance(node, Not):
            return every - ids(node.child)
        parts = [ids(c) for c in node.children]
        return frozenset.intersection(*parts) if isinstance(node, And) else frozenset().union(*parts)

    return SeedPool(name, len(texts), lambda term: len(ids(Term(term))) / max(1, len(texts)),
                    lambda node: len(ids(node)))


def seed_pool(store: DomainStore, slug: str) -> SeedPool | None:
    """The project's candidate papers, or the paper lake when it has none yet; None when both are empty."""
    papers = store.projects.list_papers(slug)
    if papers:
        return _text_pool("candidates", [SeedStudy(p.title, p.abstract or "").text for p in papers])
    from agentr_dagster.domain.boolean_query import Term
    from agentr_dagster.lake import Lake

    lake = Lake.open()
    if lake is None or not lake.n:
        return None
    return SeedPool("lake", int(lake.n), lambda term: float(lake.boolean_mask(Term(term)).mean()),
                    lambda node: int(lake.boolean_mask(node).sum()))


#: Records per unit of :func:`~agentr_dagster.domain.specificity.query_share` in the general-English pool: its
#: counts are compared with each other only (the growth bound), so the scale just keeps small shares apart.
GENERAL_ENGLISH_RECORDS = 10**9


def general_english_pool() -> SeedPool:
    """A fresh project's seed pool (no candidates, no lake): terms weighed and queries counted by general
    English, so the growth bound still holds a widened query to about what the query reached before, where an
    empty pool would let any term or relaxed block through."""
    from agentr_dagster.domain.specificity import query_share, reach_share

    return SeedPool("general English (estimated records)", GENERAL_ENGLISH_RECORDS, reach_share,
                    lambda node: round(query_share(node) * GENERAL_ENGLISH_RECORDS))


def seed_fingerprint(seeds: list[SeedStudy]) -> str:
    """What of the seeds the stored query depends on: new seeds (or labels) make the queries stage run again."""
    return sha256(*sorted(s.text for s in seeds)) if seeds else ""


def improve_with_seeds(store: DomainStore, slug: str, intent: ResearchIntent, queries: SearchQueries,
                       seeds: list[SeedStudy]) -> SearchQueries:
    """The offline query's concept blocks widened by the terms most characteristic of the seed studies (kept
    when they name a seed the block missed without the query matching more than ``MAX_GROWTH`` times as many
    of the project's candidates, or the lake's papers); what was added is saved as the ``seed_terms`` artefact.
    Without seeds or concept blocks the queries are returned as they are."""
    if not seeds or not intent.concepts:
        return queries
    from agentr_dagster.lake import lake_background, lake_query_share
    from agentr_dagster.llm.offline.queries import concept_boolean_query

    pool = seed_pool(store, slug) or general_english_pool()

    def relaxed(terms: list[list[str]], leave_out: frozenset[int]) -> str:
        return concept_boolean_query([c.model_copy(update={"terms": t})
                                      for c, t in zip(intent.concepts, terms, strict=True)], leave_out=leave_out)

    def render(terms: list[list[str]]) -> str:
        return relaxed(terms, frozenset())

    # the lake, a background of many topics, tells boilerplate and bounds how far the query reaches off-topic
    mined = improve_blocks([(f"{c.facet}: {c.label}", c.terms) for c in intent.concepts], seeds, render,
                           pool.background, pool.count, relatedness=embedding_relatedness(),
                           generic=lake_background(), off_topic=lake_query_share(), relax=relaxed)
    before_query = render([list(c.terms) for c in intent.concepts])
    store.results.save_artifact(slug, SEED_TERMS_STAGE, {
        "added_terms": mined.added, "seed_recall_before": mined.seed_recall_before,
        "seed_recall_after": mined.seed_recall_after, "n_seeds": len(seeds), "pool": pool.name,
        "pool_size": pool.size, "pool_matched_before": pool.count(parse_boolean_query(before_query)),
        "pool_matched_after": pool.count(parse_boolean_query(mined.query)), "query_before": before_query,
        "relaxed_blocks": mined.relaxed,
    }, prompt_version=None, model=None, backend=None, input_hash=seed_fingerprint(seeds))
    changed = mined.added or mined.relaxed
    return queries.model_copy(update={"boolean_query": mined.query}) if changed else queries
