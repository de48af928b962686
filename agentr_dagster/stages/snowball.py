"""Citation chasing (snowballing) from a project's seed papers through OpenAlex (no Dagster here; the `snowball`
asset and `agentr snowball` call :func:`snowball_project`).

Seeds: the papers labelled ``include``, then the best-ranked scored papers not labelled ``exclude``, up to ``top``.
For each seed, the works it cites (backward) and the works citing it (forward) become candidates, each sighting
``found_by`` = ``backward:<seed paper id>`` / ``forward:<seed paper id>``. A seed chased before is not chased
again (its requests would be answered from the cache anyway); a failed chase is recorded and retried next time.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from agentr_dagster.domain.hashing import sha256
from agentr_dagster.sources.contract import SearchOutcome, SourceHit
from agentr_dagster.stages.search import SEARCH_FAILURE_STAGE, add_hits, found_by_label
from agentr_dagster.store.searches import NewSearch

if TYPE_CHECKING:
    from agentr_dagster.store import DomainStore
    from agentr_dagster.store.rows import PaperRow

DEFAULT_TOP = 10
DIRECTIONS = ("backward", "forward")
OPENALEX_SIGHTINGS = ("openalex", *DIRECTIONS)  # sightings whose source_id is an OpenAlex work id


@dataclass(frozen=True)
class Seed:
    paper_id: int
    title: str
    work_id: str | None  # the OpenAlex id (W…), or doi:<doi>; None: OpenAlex cannot be asked about it
    why: str  # included | rank <n>


@dataclass
class ChaseReport:
    seed: Seed
    direction: str
    hits: int = 0
    new_papers: int = 0
    requests: int = 0
    failure: str | None = None


@dataclass
class SnowballSummary:
    seeds: list[Seed]
    chases: list[ChaseReport] = field(default_factory=list)
    skipped: int = 0  # chases done before
    added: int = 0
    new_paper_ids: list[int] = field(default_factory=list)

    def metadata(self) -> dict[str, Any]:
        out: dict[str, Any] = {"seeds": len(self.seeds), "chases_sent": len(self.chases),
                               "chases_skipped": self.skipped, "new_papers": self.added,
                               "failures": sum(1 for c in self.chases if c.failure),
                               "seeds_without_openalex_id": sum(1 for s in self.seeds if s.work_id is None)}
        for direction in DIRECTIONS:
            mine = [c for c in self.chases if c.direction == direction]
            out[f"{direction}_hits"] = sum(c.hits for c in mine)
            out[f"{direction}_new_papers"] = sum(c.new_papers for c in mine)
        return out

    def markdown(self) -> str:
        lines = ["| seed | why | direction | hits | new | status |", "|---:|---|---|---:|---:|---|"]
        for c in self.chases:
            status = f"failed: {c.failure[:100]}" if c.failure else "ok"
            lines.append(f"| {c.seed.paper_id} | {c.seed.why} | {c.direction} | {c.hits} | {c.new_papers} | "
                         f"{status.replace('|', '/')} |")
        return "\n".join(lines)


def openalex_work_id(paper: PaperRow, sighted_ids: dict[int, str]) -> str | None:
    """The id OpenAlex knows the paper by: the one an OpenAlex search returned, an OpenAlex import's own id,
    else its DOI (``doi:<doi>``)."""
    if paper.id in sighted_ids:
        return sighted_ids[paper.id]
    if paper.source_id and (paper.provenance or {}).get("format") == "openalex":
        return paper.source_id.rsplit("/", 1)[-1]
    return f"doi:{paper.doi}" if paper.doi else None


def choose_seeds(papers: list[PaperRow], included: list[int], excluded: set[int], ranked: list[int], top: int,
                 sighted_ids: dict[int, str]) -> list[Seed]:
    """Pure: the included papers, then the best-ranked ones not excluded, ``top`` in all (included always count)."""
    by_id = {p.id: p for p in papers}
    seeds: list[Seed] = []
    chosen: set[int] = set()
    for paper_id in included:
        if paper_id in by_id and paper_id not in chosen:
            chosen.add(paper_id)
            p = by_id[paper_id]
            seeds.append(Seed(p.id, p.title, openalex_work_id(p, sighted_ids), "included"))
    for rank, paper_id in enumerate(ranked, start=1):
        if len(seeds) >= max(top, len(included)):
            break
        if paper_id in by_id and paper_id not in chosen and paper_id not in excluded:
            chosen.add(paper_id)
            p = by_id[paper_id]
            seeds.append(Seed(p.id, p.title, openalex_work_id(p, sighted_ids), f"rank {rank}"))
    return seeds


def project_seeds(store: DomainStore, slug: str, top: int) -> list[Seed]:
    from agentr_dagster.stages.exports import scores_dataframe

    labels = store.labels.list_labels(slug)
    frame = scores_dataframe(store, slug)
    sighted = {s.paper_id: s.source_id for s in store.searches.sightings(slug)
               if s.source in OPENALEX_SIGHTINGS and s.source_id}
    return choose_seeds(store.projects.list_papers(slug), [lab.paper_id for lab in labels if lab.label == "include"],
                        {lab.paper_id for lab in labels if lab.label == "exclude"},
                        [int(i) for i in frame["paper_id"]], top, sighted)


def _chase(openalex, direction: str, work_id: str) -> SearchOutcome:
    """One seed's references (backward) or citing works (forward); a seed known by its DOI is looked up first."""
    try:
        if work_id.startswith("doi:"):
            found = openalex.work_by_doi(work_id[len("doi:"):])
            if found is None:
                return SearchOutcome(source="openalex", query_name=direction, translated=work_id,
                                     failure="not found in OpenAlex by its DOI (or the lookup failed)")
            work_id = found.source_id
        hits = openalex.references(work_id) if direction == "backward" else openalex.citing(work_id)
    except Exception as exc:  # noqa: BLE001 - a client that raises fails this chase alone
        return SearchOutcome(source="openalex", query_name=direction, translated=work_id,
                             failure=f"{type(exc).__name__}: {exc}"[:1000])
    # OpenAlexSource answers with a list of hits that also carries .failure and .requests
    return SearchOutcome(source="openalex", query_name=direction, translated=work_id, hits=list(hits),
                         failure=getattr(hits, "failure", None), requests=getattr(hits, "requests", 0))


def snowball_project(store: DomainStore, slug: str, openalex, *, top: int = DEFAULT_TOP, refresh: bool = False,
                     run_id: str | None = None, progress: Callable[[str], None] | None = None,
                     add_to_lake: bool = True) -> SnowballSummary:
    """Chase the seeds' references and citations; the works found become the project's candidates."""
    seeds = project_seeds(store, slug, top)
    summary = SnowballSummary(seeds)
    done = {(r.source, r.query_hash) for r in store.searches.searches(slug) if r.status == "completed"}
    ran: list[tuple[ChaseReport, str, SearchOutcome]] = []
    for seed in seeds:
        if seed.work_id is None:
            continue
        for direction in DIRECTIONS:
            qhash = sha256("snowball-v1", direction, seed.work_id)
            if not refresh and (direction, qhash) in done:
                summary.skipped += 1
                continue
            outcome = _chase(openalex, direction, seed.work_id)
            report = ChaseReport(seed, direction, len(outcome.hits), requests=outcome.requests,
                                 failure=outcome.failure)
            if progress:
                progress(f"{direction} from paper {seed.paper_id}: "
                         + (f"failed: {outcome.failure}" if outcome.failure else f"{len(outcome.hits)} works"))
            ran.append((report, qhash, outcome))
    labelled: list[tuple[SourceHit, str]] = [
        (hit, found_by_label(report.direction, str(report.seed.paper_id)))
        for report, _, outcome in ran for hit in outcome.hits
    ]
    label_of = {id(hit): label for hit, label in labelled}
    added = add_hits(store, slug, [hit for hit, _ in labelled], provenance_source="snowball",
                     found_by=lambda h: label_of[id(h)], add_to_lake=add_to_lake)
    summary.added, summary.new_paper_ids = added.added, added.new_paper_ids
    rows = []
    for report, qhash, outcome in ran:
        report.new_papers = added.new_by_label.get(found_by_label(report.direction, str(report.seed.paper_id)), 0)
        summary.chases.append(report)
        rows.append(NewSearch(report.direction, str(report.seed.paper_id), qhash, outcome.translated,
                              "failed" if outcome.failure else "completed", report.hits, report.new_papers,
                              outcome.requests, outcome.total, outcome.failure))
        if outcome.failure:
            store.lifecycle.record_failure(slug, f"{SEARCH_FAILURE_STAGE}:{report.direction}", "transient",
                                           f"paper {report.seed.paper_id}: {outcome.failure}"[:2000], run_id=run_id)
    store.searches.record_searches(slug, rows, run_id=run_id)
    return summary
