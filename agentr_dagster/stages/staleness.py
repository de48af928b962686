"""What the domain store says is still to do for a project: the durable side of recovery (no Dagster).

`agentr resume` and the repair schedule (in ``defs/``) ask this module which stages of the chain are missing or
stale for the current abstract, prompts, model and papers, and release the reservations that no live process can
settle any more.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from agentr_dagster.domain import failures as st
from agentr_dagster.domain.hashing import score_cache_key, sha256
from agentr_dagster.domain.prompts import prompt_version
from agentr_dagster.settings import get_settings, results_dir
from agentr_dagster.stages.scoring import below_cutoff_ids
from agentr_dagster.store import PROJECT_STAGE, DomainStore

CHAIN_STAGES = ("intent", "queries", "score", "exports")
EXPORT_FORMATS = ("csv", "parquet", "xlsx")
# The stages a project without candidate papers can complete; every later one waits for candidates.
NEEDS_NO_CANDIDATES = ("intent", "queries")
WAITING_FOR_CANDIDATES = "waiting for candidates"


def add_papers_hint(slug: str) -> str:
    """What a person does next for a project that has no candidate papers yet."""
    return f"add papers: agentr papers add {slug} FILE..., or drop a file in inbox/{slug}/"


def waiting_for_candidates(store: DomainStore, slug: str) -> str | None:
    """A sentence saying the project waits for candidates (and what to do), or None when it has some. A project
    without candidates is a valid state: intent and queries are done, the stages after them have nothing to do."""
    if not store.projects.is_active(slug) or store.projects.count_papers(slug):
        return None  # a deleted project is the stage's to report (an orphan), not a wait
    return f"{slug}: {WAITING_FOR_CANDIDATES} (no candidate papers yet); {add_papers_hint(slug)}"


def configured_model() -> str:
    """The model the configured backend would record (the cache keys depend on it)."""
    settings = get_settings()
    if not settings.llm_configured:
        from agentr_dagster.llm.offline import OFFLINE_MODEL

        return OFFLINE_MODEL
    return settings.llm_model


@dataclass
class ProjectGap:
    """What the domain store says is not done for one project."""

    slug: str
    stages: list[str] = field(default_factory=list)  # incomplete stages, in chain order
    papers: int = 0
    papers_missing: int = 0
    reasons: list[str] = field(default_factory=list)
    waiting: str | None = None  # the project has no candidates: nothing after the queries can run yet

    @property
    def complete(self) -> bool:
        """Nothing a run could do now (a project waiting for candidates is complete as far as it can go)."""
        return not self.stages

    def add(self, stage: str, reason: str) -> None:
        if stage not in self.stages:
            self.stages.append(stage)
        self.reasons.append(f"{stage}: {reason}")
        self.stages.sort(key=lambda s: CHAIN_STAGES.index(s) if s in CHAIN_STAGES else len(CHAIN_STAGES))


def project_gap(store: DomainStore, slug: str, model: str | None = None, home: Path | None = None) -> ProjectGap:
    """Compare durable outputs with what the current abstract, prompts, model and papers call for."""
    model = model or configured_model()
    project = store.projects.get_project(slug)
    papers = store.projects.list_papers(slug)
    gap = ProjectGap(slug, papers=len(papers), papers_missing=len(papers))
    # A stage-level state other than completed (failed, or left in progress by a killed run; any stage of the
    # chain, synthesis included) needs a run to make it true again; paper completeness is judged from stored
    # results, not from paper states. Without candidates only the stages before them count (a landscape that
    # failed on an empty project before it learned to wait needs papers, not a run).
    for row in store.lifecycle.status(slug):
        if not papers and row.stage not in NEEDS_NO_CANDIDATES:
            continue
        if row.stage != PROJECT_STAGE and row.state is not None and row.state != st.COMPLETED:
            gap.add(row.stage, f"state {row.state}" + (f" ({row.detail})" if row.detail else ""))

    intent = store.results.latest_artifact(slug, "intent")
    if intent is None:
        gap.add("intent", "no artifact")
        for stage in ("queries", "score", "exports"):
            gap.add(stage, "waits for intent")
        return gap
    if intent.input_hash != sha256(project.abstract, prompt_version("intent"), model):
        gap.add("intent", "stale (abstract, prompt or model changed)")
    queries = store.results.latest_artifact(slug, "queries")
    if queries is None:
        gap.add("queries", "no artifact")
    elif queries.input_hash != sha256(intent.input_hash, prompt_version("queries"), model):
        gap.add("queries", "stale (intent, prompt or model changed)")

    if not papers:
        gap.waiting = f"{WAITING_FOR_CANDIDATES}; {add_papers_hint(slug)}"
        return gap
    keys = {p.id: score_cache_key(p.content_hash, intent.input_hash, model) for p in papers}
    scored = store.results.results_for_project(slug, cache_keys=keys)
    # papers the last scoring run's plan stopped before (stopping rule, budget) are not missing work
    done = {r.paper_id for r in scored} | below_cutoff_ids(store, slug, intent.input_hash, model)
    gap.papers_missing = len(papers) - len(done & {p.id for p in papers})
    if gap.papers_missing:
        gap.add("score", f"{gap.papers_missing} of {len(papers)} papers have no current score")
    newest = max((r.created_at for r in scored), default=None)
    problem = _export_problem(slug, len(papers), newest, home)
    if problem:
        gap.add("exports", problem)
    return gap


def _export_problem(slug: str, papers: int, newest_result: datetime | None, home: Path | None) -> str | None:
    folder = results_dir(slug, home)
    for fmt in EXPORT_FORMATS:
        path = folder / f"scores.{fmt}"
        if not path.exists():
            return f"{path.name} missing"
        if newest_result is not None and path.stat().st_mtime < newest_result.timestamp() - 1:
            return f"{path.name} older than the newest score"
    import pyarrow.parquet as pq

    rows = pq.read_metadata(folder / "scores.parquet").num_rows
    if rows != papers:
        return f"scores.parquet has {rows} rows for {papers} papers"
    return None


def release_project_reservations(store: DomainStore, slug: str, why: str) -> int:
    """Release every open reservation of the project; only call this when no live process can settle them."""
    held = store.ledger.reservations(slug, state="open")
    for res in held:
        store.ledger.release(res.id, note=why)
    return len(held)
