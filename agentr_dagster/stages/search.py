"""The project's queries run against the enabled search sources (no Dagster here; `candidate_papers` calls
:func:`search_project`).

Every enabled source is searched with the project's Boolean query and each of its ten search strings (the expanded
keywords are not sent on their own: OR-ed together they would flood every source, and the Boolean query already
combines them), at most ``AGENTR_SOURCE_MAX_RESULTS`` records per (source, query). The hits are merged with the
project's papers (imports, the lake, earlier searches) by the importers' de-duplication (same DOI, same title and
year, near-identical title), Crossref fills what new records lack, the new ones are added to the project and to the
paper lake, and every hit becomes a sighting (``found_by`` = ``<source>:<query>``) on the paper it is.

A failing source is a failure of that (source, query): recorded (``store.searches`` and the failure log) and the
other searches go on. Which searches a run sends (:func:`plan_searches`): those never completed for the current
query text, or (a living-review update) every one, for records since its last completed search.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentr_dagster.domain.boolean_query import BooleanQueryError, parse_boolean_query
from agentr_dagster.domain.contracts import PaperRecord, SearchQueries
from agentr_dagster.domain.hashing import sha256
from agentr_dagster.imports import content_hash, paper_key
from agentr_dagster.imports.dedup import dedupe_with_reasons
from agentr_dagster.sources.contract import SearchOutcome, SearchSource, SourceHit, SourceQuery
from agentr_dagster.stages.intake import fit_to_store
from agentr_dagster.stages.queries import current_queries
from agentr_dagster.store.searches import NewSearch, SearchRow, Sighting

if TYPE_CHECKING:
    from agentr_dagster.sources.registry import EnabledSources
    from agentr_dagster.stages.candidates import RetrievalSummary
    from agentr_dagster.store import DomainStore
    from agentr_dagster.store.rows import PaperRow

log = logging.getLogger(__name__)

SEARCH_FAILURE_STAGE = "search"  # failures are logged as stage "search:<source>"
SEARCH_PROVENANCE = ("search", "snowball")  # provenance.source of papers the sources brought
Progress = Callable[[str], None]
UPDATE_OVERLAP_DAYS = 2  # a living update searches from this many days before the last completed search


def found_by_label(source: str, query_name: str) -> str:
    return f"{source}:{query_name}"


def paper_found_by(provenance: dict[str, Any] | None, sighted: Sequence[str] = ()) -> list[str]:
    """Every way a paper arrived: ``import:<file>`` for an imported file, then its sightings (``lake:boolean``,
    ``openalex:string-03``, ``backward:12``...), each once, in order. Lake papers added before sightings were
    recorded keep the query names their provenance holds."""
    prov = provenance or {}
    out: list[str] = []
    if prov.get("file") and not prov.get("source"):
        out.append(f"import:{prov['file']}")
    if prov.get("source") == "lake":
        out += [found_by_label("lake", name) for name in prov.get("found_by", [])]
    out += sighted
    return list(dict.fromkeys(out))


def source_queries(queries: SearchQueries) -> list[SourceQuery]:
    """The queries sent to every source: ``boolean`` (with its parsed tree) and ``string-01`` .. ``string-10``."""
    try:
        tree = parse_boolean_query(queries.boolean_query)
    except BooleanQueryError:  # stored queries were validated; an older artifact may not parse: send the text
        tree = None
    out = [SourceQuery(name="boolean", text=queries.boolean_query, tree=tree)]
    out += [SourceQuery(name=f"string-{i:02d}", text=s) for i, s in enumerate(queries.search_strings, start=1)]
    return out


def query_hash(source: str, query: SourceQuery) -> str:
    return sha256("source-query-v1", source, query.name, query.text)


@dataclass(frozen=True)
class PlannedSearch:
    source: str
    query: SourceQuery
    query_hash: str
    since: date | None  # None: every record, not only newer ones
    why: str  # missing | failed before | update since <date> | refresh


def plan_searches(source_names: Sequence[str], queries: Sequence[SourceQuery], history: Sequence[SearchRow], *,
                  update: bool = False, refresh: bool = False) -> list[PlannedSearch]:
    """Pure: which (source, query) searches to send now.

    Normally only those with no completed search for the query's current text (never run, or failed last time).
    ``update`` (a living-review update): every one, since the date of its last completed search (a search never
    completed runs in full). ``refresh``: every one, in full."""
    last_completed: dict[tuple[str, str], SearchRow] = {}
    failed: set[tuple[str, str]] = set()
    for row in history:  # oldest first: the last completed row wins
        if row.status == "completed":
            last_completed[(row.source, row.query_hash)] = row
        else:
            failed.add((row.source, row.query_hash))
    plan = []
    for source in source_names:
        for query in queries:
            qhash = query_hash(source, query)
            done = last_completed.get((source, qhash))
            if refresh:
                plan.append(PlannedSearch(source, query, qhash, None, "refresh"))
            elif update and done is not None:
                # the window overlaps the last one: records indexed late on that day (or the day before, in
                # another time zone) are found; what was already found is a duplicate, merged away
                since = done.created_at.date() - timedelta(days=UPDATE_OVERLAP_DAYS)
                plan.append(PlannedSearch(source, query, qhash, since, f"update since {since.isoformat()}"))
            elif done is None:
                why = "failed before" if (source, qhash) in failed else "missing"
                plan.append(PlannedSearch(source, query, qhash, None, why))
    return plan


# ------------------------------------------------------------------------------------------- merging hits
@dataclass
class MergePlan:
    """Where each hit goes: ``keys[i]`` is the paper key hit ``i`` is (an existing paper's or a new one's);
    ``new`` the records to add, each with the searches that found it."""

    keys: list[str]
    new: list[tuple[PaperRecord, list[str]]]
    duplicates: int  # hits that were a paper already known or found by another hit
    new_keys: list[str] = field(default_factory=list)  # the key of each ``new`` record (as matched, before filling)


def _as_record(paper: PaperRow) -> PaperRecord:
    return PaperRecord(title=paper.title, abstract=paper.abstract or "", year=paper.year, doi=paper.doi,
                       authors=list(paper.authors or []), venue=paper.venue, url=paper.url, source_id=paper.source_id)


def merge_hits(existing: Sequence[PaperRow], hits: Sequence[tuple[PaperRecord, str]]) -> MergePlan:
    """Pure: de-duplicate (record, found_by) hits against the project's papers and each other, with the importers'
    rules (:func:`~agentr_dagster.imports.dedup.dedupe_with_reasons`: DOI, title and year, near-identical title).
    The project's papers come first, so a hit that is one of them is that paper; among hits the first is kept."""
    known = [_as_record(p) for p in existing]
    records = [r for r, _ in hits]
    owner: dict[int, str] = {id(rec): p.paper_key for rec, p in zip(known, existing, strict=True)}
    unique, pairs = dedupe_with_reasons([*known, *records])
    for rec in unique:
        owner.setdefault(id(rec), paper_key(rec))
    dropped = {id(d): k for d, k, _ in pairs}
    existing_keys = {p.paper_key for p in existing}
    keys: list[str] = []
    new: dict[str, tuple[PaperRecord, list[str]]] = {}
    for record, label in hits:
        kept = dropped.get(id(record), record)
        key = owner.get(id(kept)) or paper_key(kept)
        keys.append(key)
        if key in existing_keys:
            continue
        entry = new.setdefault(key, (kept, []))
        if record is not kept:  # one source's record lacks what another's has (an abstract, a venue)
            entry = new[key] = (_filled(entry[0], record), entry[1])
        if label not in entry[1]:
            entry[1].append(label)
    return MergePlan(keys, list(new.values()), len(hits) - len(new), list(new))


_FILLABLE = ("abstract", "year", "venue", "authors", "url")


def _filled(kept: PaperRecord, other: PaperRecord) -> PaperRecord:
    """``kept`` with its empty fields taken from ``other`` (the same paper from another source). The DOI is not
    taken: it would change the paper's key."""
    update = {f: getattr(other, f) for f in _FILLABLE if not getattr(kept, f) and getattr(other, f)}
    return kept.model_copy(update=update) if update else kept


# ------------------------------------------------------------------------------------------- adding hits
@dataclass
class AddedHits:
    added: int = 0
    duplicates: int = 0
    new_by_label: dict[str, int] = field(default_factory=dict)  # found_by -> papers it brought in now
    new_by_source: dict[str, int] = field(default_factory=dict)  # source -> distinct papers it brought in now
    new_paper_ids: list[int] = field(default_factory=list)
    enriched: int = 0
    enrich_failure: str | None = None
    lake_added: int | None = None
    lake_failure: str | None = None
    titles_completed: int = 0  # records with a DOI and no title, named by Crossref
    untitled_kept: int = 0  # ... that Crossref could not name (or is not enabled): kept under a placeholder title
    untitled_dropped: list[str] = field(default_factory=list)  # ... nor had an abstract: their DOIs, left out


def _enrich(enricher, records: list[PaperRecord]) -> tuple[list[PaperRecord], int, str | None]:
    """Crossref fills what records with a DOI lack; a failure keeps the records as they are (noted)."""
    wanting = [i for i, r in enumerate(records) if r.doi and (not r.abstract or r.year is None or not r.venue)]
    if enricher is None or not wanting:
        return records, 0, None
    try:
        filled = list(enricher.enrich([records[i] for i in wanting]))
    except Exception as exc:  # noqa: BLE001 - enrichment is a bonus: the records stand without it
        return records, 0, f"{type(exc).__name__}: {exc}"[:500]
    if len(filled) != len(wanting):
        return records, 0, f"crossref returned {len(filled)} records for {len(wanting)}"
    out = list(records)
    changed = 0
    for i, record in zip(wanting, filled, strict=True):
        if record != out[i]:
            changed += 1
        out[i] = record
    return out, changed, None


@dataclass
class CompletedTitles:
    """What :func:`complete_titles` did with the hits that came with a DOI and no title."""

    hits: list[SourceHit]
    completed: int = 0  # named by Crossref
    placeholders: int = 0  # papers Crossref could not name: kept under "[no title]" and their abstract's first words
    dropped_dois: list[str] = field(default_factory=list)  # ... and had no abstract to stand for them either


def complete_titles(enricher, hits: Sequence[SourceHit]) -> CompletedTitles:
    """Hits whose record came with a DOI and no title get Crossref's title (one lookup per DOI); those Crossref
    cannot name keep a readable placeholder (``[no title]`` and their abstract's first words, as an imported record
    without a title does) when their abstract is long enough to stand for a paper; the others are left out, their
    DOIs reported."""
    from agentr_dagster.imports.records import untitled_title
    from agentr_dagster.sources.base import is_untitled
    from agentr_dagster.sources.http import FetchFailure

    titles: dict[str, str | None] = {}
    result = CompletedTitles(hits=[])
    out, placeheld = result.hits, set()
    for hit in hits:
        if not is_untitled(hit.record):
            out.append(hit)
            continue
        doi = hit.record.doi or ""
        if doi not in titles:
            try:
                titles[doi] = enricher.title(doi) if enricher is not None and doi else None
            except FetchFailure as exc:
                log.warning("crossref title of %s failed: %s", doi, exc)
                titles[doi] = None
        title = titles[doi] or untitled_title(hit.record.abstract or "")
        if title:
            out.append(hit.model_copy(update={"record": hit.record.model_copy(update={"title": title})}))
            if titles[doi]:
                result.completed += 1
            elif doi not in placeheld:
                placeheld.add(doi)
                result.placeholders += 1
        elif doi not in result.dropped_dois:
            result.dropped_dois.append(doi)
    if result.dropped_dois:
        log.warning("%d search record(s) with a DOI and neither title nor abstract were left out: %s",
                    len(result.dropped_dois), ", ".join(result.dropped_dois[:20]))
    return result


def add_hits(store: DomainStore, slug: str, hits: Sequence[SourceHit], *, enricher=None, update_id: str | None = None,
             add_to_lake: bool = True, lake_root: Path | None = None, provenance_source: str = "search",
             found_by: Callable[[SourceHit], str] | None = None) -> AddedHits:
    """Merge the hits into the project: new papers added (with provenance), every hit a sighting on its paper."""
    label_of = found_by or (lambda h: found_by_label(h.source, h.query_name))
    result = AddedHits()
    titled = complete_titles(enricher, hits)
    hits, result.titles_completed = titled.hits, titled.completed
    result.untitled_kept, result.untitled_dropped = titled.placeholders, titled.dropped_dois
    if not hits:
        return result
    fitted, _ = fit_to_store([h.record for h in hits])
    labelled = [(rec, label_of(h)) for rec, h in zip(fitted, hits, strict=True)]
    plan = merge_hits(store.projects.list_papers(slug), labelled)
    result.duplicates = plan.duplicates
    records = [rec for rec, _ in plan.new]
    records, result.enriched, result.enrich_failure = _enrich(enricher, records)
    groups: dict[tuple[str, ...], list[PaperRecord]] = defaultdict(list)
    for record, (_, labels) in zip(records, plan.new, strict=True):
        groups[tuple(labels)].append(record)
    now = datetime.now(timezone.utc).isoformat()
    key_of = {id(rec): key for rec, key in zip(records, plan.new_keys, strict=True)}
    for group_labels, recs in groups.items():
        provenance: dict[str, Any] = {"source": provenance_source, "found_by": list(group_labels), "imported_at": now}
        if update_id:
            provenance["update"] = update_id
        # keyed as merge_hits keyed them (before enrichment), so a filled-in field never splits a paper
        added = store.projects.add_papers(slug, recs, key_fn=lambda r: key_of[id(r)], hash_fn=content_hash,
                                          provenance=provenance)
        result.added += added.added
        result.new_paper_ids += added.paper_ids
        for label in group_labels:
            result.new_by_label[label] = result.new_by_label.get(label, 0) + added.added
        for source in dict.fromkeys(label.split(":", 1)[0] for label in group_labels):
            result.new_by_source[source] = result.new_by_source.get(source, 0) + added.added
    ids = {p.paper_key: p.id for p in store.projects.list_papers(slug)}
    store.searches.add_sightings(slug, [
        # the sighting's source is the label's (backward/forward for citation chasing: PRISMA's "other methods")
        Sighting(ids[key], label, label.split(":", 1)[0], hit.source_id, hit.rank, update_id)
        for hit, key, (_, label) in zip(hits, plan.keys, labelled, strict=True) if key in ids
    ])
    if add_to_lake and records:
        try:
            from agentr_dagster.lake import add_records

            report = add_records(records, name=f"{provenance_source}:{slug}:{now[:10]}", root=lake_root)
            result.lake_added = report.added
        except Exception as exc:  # noqa: BLE001 - the lake is shared and optional: the project has its papers
            result.lake_failure = f"{type(exc).__name__}: {exc}"[:500]
            log.warning("search hits not added to the paper lake: %s", result.lake_failure)
    return result


def record_lake_sightings(store: DomainStore, slug: str, retrieved: RetrievalSummary | None) -> int:
    """The lake's hits as ``lake:<query>`` sightings, so ``found_by`` covers every way a paper arrived. Papers a
    search source or snowballing brought are left alone: the lake holds them because the search added them there,
    and counting that echo as another identification would inflate the PRISMA counts."""
    if retrieved is None:
        return 0
    ids = {p.paper_key: p.id for p in store.projects.list_papers(slug)
           if (p.provenance or {}).get("source") not in SEARCH_PROVENANCE}
    return store.searches.add_sightings(slug, [
        Sighting(ids[hit["paper_key"]], found_by_label("lake", q.name), "lake", str(hit.get("lake_id")), hit["rank"])
        for q in retrieved.queries for hit in q.hits if hit["paper_key"] in ids
    ])


# ------------------------------------------------------------------------------------------- the stage
@dataclass
class SearchReport:
    """One (source, query) search of this run, for the metadata."""

    source: str
    query_name: str
    translated: str
    since: date | None
    why: str
    hits: int = 0
    new_papers: int = 0
    requests: int = 0
    cached_pages: int = 0
    total: int | None = None
    failure: str | None = None
    shards: int = 1


@dataclass
class SearchSummary:
    sources: list[str]
    searches: list[SearchReport]
    skipped: int  # (source, query) searches already complete: not sent
    added: int
    duplicates: int
    enriched: int = 0
    enrich_failure: str | None = None
    lake_failure: str | None = None
    update_id: str | None = None
    new_by_source: dict[str, int] = field(default_factory=dict)
    titles_completed: int = 0
    untitled_kept: int = 0
    untitled_dropped: list[str] = field(default_factory=list)

    def failures(self) -> list[SearchReport]:
        return [s for s in self.searches if s.failure]

    def merged(self, other: SearchSummary) -> SearchSummary:
        """This run's searches and ``other``'s (a later search of the same run) as one summary."""
        by_source = dict(self.new_by_source)
        for name, n in other.new_by_source.items():
            by_source[name] = by_source.get(name, 0) + n
        return SearchSummary(
            self.sources, [*self.searches, *other.searches], self.skipped + other.skipped, self.added + other.added,
            self.duplicates + other.duplicates, self.enriched + other.enriched,
            self.enrich_failure or other.enrich_failure, self.lake_failure or other.lake_failure, self.update_id,
            by_source, self.titles_completed + other.titles_completed, self.untitled_kept + other.untitled_kept,
            [*self.untitled_dropped, *(d for d in other.untitled_dropped if d not in self.untitled_dropped)])

    def metadata(self) -> dict[str, Any]:
        """Per source: searches sent, hits, new papers, failures, requests; plus totals."""
        out: dict[str, Any] = {"sources": ", ".join(self.sources), "source_searches_sent": len(self.searches),
                               "source_searches_skipped": self.skipped, "source_new_papers": self.added,
                               "source_duplicates": self.duplicates, "source_failures": len(self.failures())}
        for name in self.sources:
            mine = [s for s in self.searches if s.source == name]
            if name == "crossref":
                out["crossref_enriched"] = self.enriched
                out["crossref_titles_completed"] = self.titles_completed
                if self.enrich_failure:
                    out["crossref_failure"] = self.enrich_failure
                continue
            out[f"{name}_hits"] = sum(s.hits for s in mine)
            out[f"{name}_new_papers"] = self.new_by_source.get(name, 0)  # distinct: a paper two queries found is one
            out[f"{name}_failures"] = sum(1 for s in mine if s.failure)
            out[f"{name}_requests"] = sum(s.requests for s in mine)
        if self.lake_failure:
            out["source_lake_failure"] = self.lake_failure
        failed = [{"source": s.source, "query": s.query_name, "reason": (s.failure or "")[:300]}
                  for s in self.failures()]
        out["source_failed_searches"] = failed  # shown as JSON (the messages are the servers': untrusted text)
        out["source_retry_next_run"] = [f"{f['source']}:{f['query']}" for f in failed]
        if self.untitled_kept:  # a DOI, no title, and Crossref could not name it: kept as "[no title] <abstract...>"
            out["source_untitled_kept"] = self.untitled_kept
        if self.untitled_dropped:  # ... and no abstract either: nothing to screen, so left out, by DOI
            out["source_untitled_dropped"] = len(self.untitled_dropped)
            out["source_untitled_dropped_dois"] = self.untitled_dropped[:100]
        out["source_sharded_searches"] = sum(1 for s in self.searches if s.shards > 1)
        if self.update_id:
            out["living_update"] = self.update_id
        return out

    def markdown(self) -> str:
        """The translated queries and what each brought (shown in the asset's metadata)."""
        lines = ["| source | query | sent as | since | hits | new | requests | status |",
                 "|---|---|---|---|---:|---:|---:|---|"]
        for s in self.searches:
            sent = (s.translated if s.shards == 1 else f"{s.shards} OR-shards: {s.translated}").replace("|", "\\|")
            sent = sent if len(sent) <= 120 else sent[:117] + "..."
            status = f"failed: {s.failure[:120]}" if s.failure else "ok"
            lines.append(f"| {s.source} | {s.query_name} | `{sent}` | {s.since or ''} | {s.hits} | {s.new_papers} | "
                         f"{s.requests} | {status.replace('|', '/')} |")
        return "\n".join(lines)


@dataclass(frozen=True)
class PendingSearch:
    """A (source, query) search whose last attempt failed: the next run sends it again."""

    source: str
    query_name: str
    reason: str

    def line(self) -> str:
        return f"{self.source} {self.query_name}: {self.reason}"


def pending_searches(store: DomainStore, slug: str, source_names: Sequence[str]) -> list[PendingSearch]:
    """The searches the next run retries (failed last time, for the current query text), with why they failed."""
    queries = current_queries(store, slug)
    if queries is None:
        return []
    history = store.searches.searches(slug)
    last_failure = {(r.source, r.query_hash): r.failure or "failed" for r in history if r.status != "completed"}
    widened = stored_feedback_query(store, slug, queries.boolean_query)
    plan = plan_searches(source_names, [*source_queries(queries), *([widened] if widened else [])], history)
    return [PendingSearch(p.source, p.query.name, last_failure.get((p.source, p.query_hash), "failed")[:300])
            for p in plan if p.why == "failed before"]


def _translated(source: SearchSource, query: SourceQuery) -> str:
    try:
        return source.translate(query)
    except Exception:  # noqa: BLE001 - only for the record: the query as the project wrote it
        return query.text


@dataclass(frozen=True)
class SearchCaps:
    """Records taken per source and query. The Boolean query is the review's sensitive search and is read deeper
    than the ten search strings: cut at the strings' cap, a source's default sort (PubMed: newest first), not
    relevance, decides which of its matches are kept."""

    strings: int
    boolean: int | None = None

    def of(self, query: SourceQuery) -> int:
        return max(self.strings, self.boolean or 0) if is_boolean_search(query.name) else self.strings


#: The search of the Boolean query widened by pseudo-relevance feedback (``stages/pseudo_feedback.py``): sent
#: beside ``boolean``, read as deep, recorded like every other search.
PRF_QUERY_NAME = "boolean-prf"
#: The artefact of what the feedback did (``stages/pseudo_feedback.py``): the query before and after it.
PSEUDO_FEEDBACK_STAGE = "pseudo_feedback"


def stored_feedback_query(store: DomainStore, slug: str, boolean_query: str) -> SourceQuery | None:
    """The widened query of the latest feedback on the current Boolean query (None when it added nothing)."""
    artifact = store.results.latest_artifact(slug, PSEUDO_FEEDBACK_STAGE)
    if artifact is None or artifact.payload.get("query_before") != boolean_query or not artifact.payload.get(
            "added_terms"):
        return None
    text = str(artifact.payload.get("query_after") or "")
    try:
        return SourceQuery(name=PRF_QUERY_NAME, text=text, tree=parse_boolean_query(text))
    except BooleanQueryError:
        return None


def is_boolean_search(query_name: str) -> bool:
    return query_name in ("boolean", PRF_QUERY_NAME)


def _run_one(source: SearchSource, planned: PlannedSearch, caps: SearchCaps) -> SearchOutcome:
    try:
        return source.search(planned.query, max_results=caps.of(planned.query), since=planned.since)
    except Exception as exc:  # noqa: BLE001 - the contract says a source never raises; one that does fails alone
        return SearchOutcome(source=source.name, query_name=planned.query.name,
                             translated=_translated(source, planned.query),
                             failure=f"{type(exc).__name__}: {exc}"[:1000], failure_kind="query")


def run_planned(sources: Sequence[SearchSource], plan: Sequence[PlannedSearch], caps: SearchCaps,
                progress: Progress | None = None) -> list[tuple[PlannedSearch, SearchOutcome]]:
    """Each source's searches in order, the sources side by side (each keeps its own request spacing)."""
    by_source: dict[str, list[PlannedSearch]] = defaultdict(list)
    for p in plan:
        by_source[p.source].append(p)
    clients = {s.name: s for s in sources}

    def one_source(name: str) -> list[tuple[PlannedSearch, SearchOutcome]]:
        out = []
        down: str | None = None  # a source that failed after its retries is not asked again in this run
        for planned in by_source[name]:
            if down is not None:
                out.append((planned, SearchOutcome(source=name, query_name=planned.query.name,
                                                   translated=_translated(clients[name], planned.query),
                                                   failure=f"not sent: {name} failed earlier in this run ({down})",
                                                   failure_kind="source")))
                continue
            outcome = _run_one(clients[name], planned, caps)
            # only a source that cannot be reached (or kept failing past its retries) is down: a request the
            # server refused (a 4xx, a syntax error) fails that query alone and the others still run
            if outcome.failure and outcome.failure_kind == "source":
                down = outcome.query_name
            if progress:
                state = f"failed: {outcome.failure}" if outcome.failure else f"{len(outcome.hits)} hits"
                progress(f"{name} {planned.query.name}: {state}")
            out.append((planned, outcome))
        return out

    if not by_source:
        return []
    with ThreadPoolExecutor(max_workers=len(by_source), thread_name_prefix="source") as pool:
        results = list(pool.map(one_source, list(by_source)))
    return [pair for per_source in results for pair in per_source]


def search_project(store: DomainStore, slug: str, sources: EnabledSources, *, max_results: int,
                   boolean_max_results: int | None = None,
                   update_id: str | None = None, refresh: bool = False, run_id: str | None = None,
                   progress: Progress | None = None, lake_root: Path | None = None,
                   add_to_lake: bool = True) -> SearchSummary | None:
    """Run the project's queries on the enabled sources and add what they find. None when no source is enabled or
    the project has no queries yet."""
    queries = current_queries(store, slug)
    if queries is None or not sources.names:
        return None
    return run_source_queries(store, slug, sources, source_queries(queries), SearchCaps(max_results,
                              boolean_max_results), update_id=update_id, refresh=refresh, run_id=run_id,
                              progress=progress, lake_root=lake_root, add_to_lake=add_to_lake)


def run_source_queries(store: DomainStore, slug: str, sources: EnabledSources, queries: Sequence[SourceQuery],
                       caps: SearchCaps, *, update_id: str | None = None, refresh: bool = False,
                       run_id: str | None = None, progress: Progress | None = None, lake_root: Path | None = None,
                       add_to_lake: bool = True) -> SearchSummary:
    """``queries`` on every enabled source, as :func:`plan_searches` plans them (a search completed for the
    query's text is not sent again): the hits added to the project, each search recorded (PRISMA counts them)."""
    plan = plan_searches([s.name for s in sources.search], queries, store.searches.searches(slug),
                         update=update_id is not None, refresh=refresh)
    skipped = len(sources.search) * len(queries) - len(plan)
    ran = run_planned(sources.search, plan, caps, progress)
    hits = [hit for _, outcome in ran for hit in outcome.hits]
    added = add_hits(store, slug, hits, enricher=sources.enricher, update_id=update_id, add_to_lake=add_to_lake,
                     lake_root=lake_root)
    reports, rows = [], []
    for planned, outcome in ran:
        label = found_by_label(planned.source, planned.query.name)
        report = SearchReport(planned.source, planned.query.name, outcome.translated, planned.since, planned.why,
                              len(outcome.hits), added.new_by_label.get(label, 0), outcome.requests,
                              outcome.cached_pages, outcome.total, outcome.failure, outcome.shards)
        reports.append(report)
        rows.append(NewSearch(planned.source, planned.query.name, planned.query_hash, outcome.translated,
                              "failed" if outcome.failure else "completed", report.hits, report.new_papers,
                              outcome.requests, outcome.total, outcome.failure, planned.since))
        if outcome.failure:
            store.lifecycle.record_failure(slug, f"{SEARCH_FAILURE_STAGE}:{planned.source}", "transient",
                                           f"{planned.query.name}: {outcome.failure}"[:2000], run_id=run_id)
    store.searches.record_searches(slug, rows, run_id=run_id, update_id=update_id)
    return SearchSummary(sources.names, reports, skipped, added.added, added.duplicates, added.enriched,
                         added.enrich_failure, added.lake_failure, update_id, added.new_by_source,
                         added.titles_completed, added.untitled_kept, added.untitled_dropped)
