"""What must be re-run for a project, decided from the domain store alone (no Dagster): the one place.

- which stages of the chain are missing or stale for the current abstract, prompts, model and papers, and how
  many papers have no current score (``project_gap``);
- whether a project waits for candidate papers (``waiting_for_candidates``, ``ProjectGap.waiting``) or for
  credits (``has_credits``);
- which states a killed run left behind are done and which must run again (``settle_interrupted_run``);
- whether `agentr resume` has anything to run (``resume_verdict``), whether the repair schedule requests a run
  and why (not) (``repair_view``, ``repair_decision``), and whether new labels call for a re-rank
  (``labels_decision``).

``defs/`` keeps only what needs Dagster: run storage (is a run queued, alive, gone; how many repair runs today;
which partitions were materialised), run requests, launches and cursors; it asks this module for the decisions.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING

from agentr_dagster.domain import failures as st
from agentr_dagster.domain.failures import FailureClass
from agentr_dagster.domain.hashing import score_cache_key, sha256
from agentr_dagster.domain.prompts import prompt_version
from agentr_dagster.settings import get_settings, results_dir
from agentr_dagster.stages.scoring import below_cutoff_ids
from agentr_dagster.store import PROJECT_STAGE, DomainStore

if TYPE_CHECKING:
    from agentr_dagster.store.labels import LabelsState
    from agentr_dagster.store.rows import PaperRow, ProjectRow

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
    if not settings.llm.configured:
        from agentr_dagster.llm.offline import OFFLINE_MODEL

        return OFFLINE_MODEL
    return settings.llm.model


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
    if intent is None or intent.input_hash is None:  # every intent is saved with its input's hash
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
    scored = current_results(store, slug, papers, intent.input_hash, model)
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


def current_results(store: DomainStore, slug: str, papers: Iterable[PaperRow], intent_hash: str, model: str):
    """The stored results that are current for these papers: their score cache key (paper text, intent, model)
    matches. A paper with one needs no scoring call."""
    keys = {p.id: score_cache_key(p.content_hash, intent_hash, model) for p in papers}
    return store.results.results_for_project(slug, cache_keys=keys)


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
    """Release every open reservation of the project; only call this when no live process can settle them.

    The claims of gone holders are revoked first: a frozen holder that wakes after this finds its claims gone,
    and its late answers are refused by the settlement fence (operator waste) instead of being charged. Each
    released call was in flight when its holder died or froze: the endpoint may have served it (waste, "killed")."""
    store.leases.revoke_gone(slug)
    held = store.ledger.reservations(slug, state="open")
    for res in held:
        store.ledger.release(res.id, note=why, waste="killed")
    return len(held)


def has_credits(store: DomainStore, account: str, uses_llm: bool) -> bool:
    """Whether the project's account can pay for a run: the offline backend never needs credits."""
    return not uses_llm or store.ledger.balance(account) > Decimal(0)


def find_project(store: DomainStore, slug: str) -> ProjectRow | None:
    """The project, deleted or not; None for a name the store does not hold (a partition left in Dagster)."""
    try:
        return store.projects.get_project(slug, include_deleted=True)
    except Exception:  # noqa: BLE001 - ProjectNotFound (and a name the store refuses): nothing to run
        return None


# ------------------------------------------------------------------------------ a run whose process is gone
# The states a run leaves while it works: a run that was killed leaves them claiming work nobody is doing.
UNFINISHED_STATES = (st.IN_PROGRESS, st.QUEUED)


def settle_interrupted_run(store: DomainStore, slug: str, run_id: str, step_key: str | None, model: str) -> None:
    """Record that the run was interrupted and correct the states it left: a paper whose score was stored before
    the kill is completed, every other unfinished state is re-initiated (a run must do it again)."""
    store.lifecycle.record_failure(
        slug, "project", "transient", f"run {run_id} was interrupted: its process is gone",
        run_id=run_id, step_key=step_key)
    note = f"interrupted run {run_id}; resumable"
    scored: set[int] = set()
    intent = store.results.latest_artifact(slug, "intent") if store.projects.is_active(slug) else None
    if intent is not None and intent.input_hash is not None:  # every intent is saved with its input's hash
        papers = store.projects.list_papers(slug)
        scored = {r.paper_id for r in current_results(store, slug, papers, intent.input_hash, model)}
    for row in store.lifecycle.status(slug):
        if row.state in UNFINISHED_STATES:
            store.lifecycle.set_status(slug, row.stage, st.REINITIATED, detail=note, run_id=run_id)
        states = store.lifecycle.paper_states(slug, row.stage)
        stuck = [pid for pid, state in states.items() if state in UNFINISHED_STATES]
        done = [pid for pid in stuck if row.stage == "score" and pid in scored]
        if done:
            store.lifecycle.set_status_many(slug, row.stage, st.COMPLETED, done, run_id=run_id, detail=note)
        if set(stuck) - set(done):
            store.lifecycle.set_status_many(slug, row.stage, st.REINITIATED, set(stuck) - set(done), run_id=run_id,
                                            detail=note)


# ------------------------------------------------------------------------------------------ agentr resume
@dataclass(frozen=True)
class ResumeVerdict:
    """What the store says `agentr resume` does with a project no live run holds."""

    action: str | None  # orphan | complete | no_credits; None: a run is due
    message: str = ""
    gap: ProjectGap | None = None  # what was incomplete (None for an orphan)


def resume_verdict(store: DomainStore, project: ProjectRow, model: str, uses_llm: bool) -> ResumeVerdict:
    """Orphans are terminal; a complete project needs nothing; an incomplete one needs credits (LLM backend)."""
    if project.deleted_at is not None:
        return ResumeVerdict("orphan", "project was deleted; orphans are terminal and never resumed")
    gap = project_gap(store, project.slug, model)
    if gap.complete:
        return ResumeVerdict("complete", gap=gap)
    if uses_llm:
        store.ledger.ensure_account(project.account)
        if not has_credits(store, project.account, uses_llm):
            return ResumeVerdict("no_credits", f"account {project.account!r} has no credits: "
                                 "`agentr credits grant N`, then resume", gap)
    return ResumeVerdict(None, gap=gap)


# ---------------------------------------------------------------------------------------- repair schedule
# invalid_output too: the cap (domain/attempts.py) would refuse the call anyway, so a repair run would do nothing
NEEDS_A_PERSON = ("orphan", "permanent", "other", "invalid_output")

# A stage state -> the failure class it stands for (an interrupted stage counts as transient).
FAILED_STATE_CLASS = {
    **{state: cls.value for cls, state in st.STATE_FOR_CLASS.items() if cls is not FailureClass.invalid_output},
    **dict.fromkeys((st.REINITIATED, st.IN_PROGRESS, st.QUEUED), FailureClass.transient.value),
}


@dataclass(frozen=True)
class RepairView:
    """What the schedule knows about one partition when it decides."""

    slug: str
    active: bool
    complete: bool
    in_flight: bool
    last_failure_class: str | None  # of the latest recorded failure, if the project is incomplete
    credits_available: bool
    attempts_today: int
    waiting_for_candidates: bool = False  # no candidate papers: a run has nothing to do after the queries


def repair_decision(view: RepairView, limit: int) -> tuple[bool, str]:
    """Pure: whether to request a repair run for this partition now, and why (not)."""
    if not view.active:
        return False, "deleted (orphans are terminal)"
    if view.complete:
        return False, ("waiting for candidates (no papers yet): a run would have nothing to do"
                       if view.waiting_for_candidates else "complete")
    if view.in_flight:
        return False, "a run is queued or running"
    if view.last_failure_class in NEEDS_A_PERSON:
        return False, f"last failure is {view.last_failure_class}: needs a person (see `agentr failures`)"
    if view.last_failure_class == "no_credits" and not view.credits_available:
        return False, "out of credits: waits for a top-up"
    if view.attempts_today >= limit:
        return False, f"{view.attempts_today} repair runs today already (limit {limit})"
    return True, f"incomplete; repair attempt {view.attempts_today + 1} of {limit} today"


def last_failure_class(store: DomainStore, slug: str) -> str | None:
    """The class of the failure that stopped the chain: the first stage (in chain order) not completed.
    Stage states are the last word of each run; the failure log also holds in-process retries."""
    by_stage = {row.stage: row.state for row in store.lifecycle.status(slug)}
    for stage in ("intent", "queries", "score"):
        cls = FAILED_STATE_CLASS.get(by_stage.get(stage) or "")
        if cls:
            return cls
    return None


def repair_view(store: DomainStore, project: ProjectRow, *, in_flight: bool, attempts_today: int, model: str,
                uses_llm: bool) -> RepairView:
    """The store's side of the repair view: ``in_flight`` and ``attempts_today`` come from Dagster's run storage
    (ask for ``in_flight`` first: it settles runs whose process is gone, which this view then reads)."""
    complete, last_class, credits, waiting = True, None, True, False
    active = project.deleted_at is None
    if active:
        gap = project_gap(store, project.slug, model)
        complete, waiting = gap.complete, gap.waiting is not None
        if not complete:
            last_class = last_failure_class(store, project.slug)
            credits = has_credits(store, project.account, uses_llm)
    return RepairView(project.slug, active, complete, in_flight, last_class, credits, attempts_today, waiting)


# ------------------------------------------------------------------------------------------ labels sensor
@dataclass(frozen=True)
class LabelsDecision:
    """Whether a project's labels call for a re-rank now; what the sensor's cursor keeps for it; why."""

    rerank: bool
    cursor: str | None  # the fingerprint the cursor keeps (None: the project stays out of the cursor)
    line: str | None = None  # what the sensor logs (None: nothing changed)


def quiet_for(last_change: str, now: datetime) -> float:
    """Seconds since the newest decision (a large number when the store gave no time)."""
    if not last_change:
        return float("inf")
    changed = datetime.fromisoformat(last_change)
    if changed.tzinfo is None:  # SQLite hands back naive UTC times
        changed = changed.replace(tzinfo=timezone.utc)
    return (now - changed).total_seconds()


def labels_decision(state: LabelsState, before: str | None, *, has_run: bool, now: datetime, quiet_seconds: float,
                    queued_run: Callable[[], str | None]) -> LabelsDecision:
    """Labels unchanged since ``before`` (the cursor's fingerprint) need nothing; a project never run yet is only
    recorded (its first run reads them); labels still changing wait until they have been quiet for
    ``quiet_seconds`` (the cursor keeps ``before``, so a later tick sees the change); a run that has not started
    yet (``queued_run``: its id, asked only here) absorbs them; otherwise the project is re-ranked."""
    fingerprint = state.fingerprint
    if before == fingerprint or (before is None and state.count == 0):
        return LabelsDecision(False, fingerprint)
    if not has_run:
        return LabelsDecision(False, fingerprint,
                              f"{state.slug}: {state.count} labels; not run yet, its first run will use them")
    since = quiet_for(state.last_change, now)
    if since < quiet_seconds:
        return LabelsDecision(False, before,
                              f"{state.slug}: labels changing ({state.count} labels, the newest {since:.0f} s ago): "
                              f"re-ranking once they are unchanged for {quiet_seconds:g} s")
    queued = queued_run()
    if queued is not None:
        return LabelsDecision(False, fingerprint,
                              f"{state.slug}: labels changed ({state.count} labels); run {queued[:8]}, queued and not "
                              "started yet, will rank with them: no new run")
    return LabelsDecision(True, fingerprint, f"{state.slug}: labels changed ({state.count} labels, "
                                             f"{state.includes} includes): re-ranking")


# ------------------------------------------------------------------------------------- where a project is, next
#: The lifecycle's stages in the order a run takes them (`agentr status` lists them so); others follow.
STAGE_ORDER = ("project", "intent", "queries", "search", "retrieval", "relevance", "score", "score_queue", "exports",
               "landscape", "related_work", "snowball")
STAGE_NAMES = {"project": "project", "intent": "research intent", "queries": "search queries",
               "search": "source searches", "retrieval": "lake retrieval", "relevance": "relevance ranking",
               "score": "paper scores", "exports": "score exports", "landscape": "research landscape",
               "related_work": "related-work draft", "snowball": "citation chasing"}


def chain_order(stage: str) -> tuple[int, str]:
    return (STAGE_ORDER.index(stage) if stage in STAGE_ORDER else len(STAGE_ORDER), stage)


@dataclass
class ProjectStanding:
    """Where a project stands in one phrase (``where``) and what a person does next (``next``)."""

    where: str
    next: str


def project_standing(store: DomainStore, slug: str) -> ProjectStanding:
    """Every state has a next step: waiting for papers, running, failed, stale or incomplete, and finished."""
    rows = [row for row in store.lifecycle.status(slug) if row.stage != PROJECT_STAGE]
    gap = project_gap(store, slug)
    if not rows:
        papers = store.projects.count_papers(slug)
        return ProjectStanding("not run yet", f"agentr run {slug}, or materialise its partition in the UI (make ui)"
                               if papers else f"{add_papers_hint(slug)}; then agentr run {slug}")
    if gap.waiting:
        return ProjectStanding(WAITING_FOR_CANDIDATES, f"{add_papers_hint(slug)}; the drop folder launches the run, "
                                                       f"else agentr run {slug}")
    running = [row.stage for row in rows if row.state in (st.IN_PROGRESS, st.QUEUED)]
    failed = [row for row in rows if row.state and row.state.startswith("failed")]
    if running:
        return ProjectStanding(f"running ({', '.join(running)})",
                               f"follow the run in the UI (Runs), or agentr status {slug} again; a run that was "
                               f"killed is continued by agentr resume {slug}")
    if failed:
        what = "; ".join(f"{row.stage}: {row.state}" + (f" ({row.detail})" if row.detail else "") for row in failed)
        cure = (f"top up (agentr credits grant AMOUNT), then agentr resume {slug}"
                if any(row.state == st.FAILED_NO_CREDITS for row in failed)
                else f"agentr failures {slug} says why; then agentr resume {slug}")
        return ProjectStanding(f"stopped: {what}", cure)
    if gap.stages:
        return ProjectStanding("to re-run: " + "; ".join(gap.reasons),
                               f"agentr estimate {slug} (what it costs), then agentr run {slug}")
    from agentr_dagster.stages.relevance import ranking_is_current

    if not ranking_is_current(store, slug):
        return ProjectStanding("labels or papers changed since the ranking",
                               f"the labels sensor re-ranks it once your labels have been quiet for a minute (with "
                               f"make ui running); else agentr run {slug}")
    report = results_dir(slug) / "report.html"
    labels = len(store.labels.list_labels(slug))
    label = (f"label what you read (agentr label {slug} id:<paper_id> include|exclude) and the ranking learns from it"
             if not labels else f"{labels} labels so far: label more (agentr label {slug} ...) to sharpen the ranking")
    return ProjectStanding(
        "finished: every paper ranked and scored, exports, landscape and draft current",
        f"read the report ({report}; agentr report {slug} rewrites it); {label}; take the candidates to a reference "
        f"manager: agentr export {slug} --format ris")
