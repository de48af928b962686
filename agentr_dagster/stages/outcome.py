"""How a project stands after a run, from the domain store alone: complete, partial or failed — the one place
`agentr run` (its exit code), `agentr status` and `agentr failures` read it from.

Partial: the run delivered what is valid (scores, exports, landscape, draft) while some papers have no score or a
stage stopped short (the draft's rewrites when credits ran out); each missing paper is named with the class of its
last failure, and each class with the command that asks again (``domain.failures.RETRY_COMMAND``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from agentr_dagster.domain import failures as st
from agentr_dagster.domain.failures import NOT_CLASSIFIED, retry_command
from agentr_dagster.stages.scoring import below_cutoff_ids
from agentr_dagster.stages.staleness import configured_model, current_results
from agentr_dagster.store import PROJECT_STAGE

if TYPE_CHECKING:
    from agentr_dagster.store import DomainStore

COMPLETE, PARTIAL, FAILED = "complete", "partial", "failed"
#: `agentr run`'s exit code per outcome (README's command list, docs/operations-security.md); a stop by SIGTERM or
#: SIGINT exits 128 + the signal, as before.
EXIT_CODES = {COMPLETE: 0, FAILED: 1, PARTIAL: 3}
LISTED = 20  # missing papers listed one per line; the rest are counted (all are in `agentr failures`)


@dataclass(frozen=True)
class MissingPaper:
    paper_id: int
    title: str
    failure_class: str  # of its last recorded scoring failure (NOT_CLASSIFIED when none was recorded)
    message: str


@dataclass(frozen=True)
class UnfinishedStage:
    stage: str
    state: str
    failure_class: str
    detail: str


@dataclass
class ProjectOutcome:
    slug: str
    status: str
    papers: int = 0
    scored: int = 0
    missing: list[MissingPaper] = field(default_factory=list)
    unfinished: list[UnfinishedStage] = field(default_factory=list)

    @property
    def exit_code(self) -> int:
        return EXIT_CODES[self.status]

    def retry_commands(self) -> dict[str, str]:
        """Per failure class of the missing papers and unfinished stages: the command that asks again."""
        classes = [m.failure_class for m in self.missing] + [s.failure_class for s in self.unfinished]
        return {cls: retry_command(cls, self.slug) for cls in dict.fromkeys(classes)}

    def lines(self, limit: int = LISTED) -> list[str]:
        """What a person reads: the outcome, the missing papers (class, id, title), the unfinished stages, and
        the command per class."""
        if self.status == COMPLETE:
            return [f"{self.slug}: complete: {self.scored} of {self.papers} papers scored"]
        head = f"{self.slug}: {self.status}: {self.scored} of {self.papers} papers scored"
        if self.missing:
            counts: dict[str, int] = {}
            for paper in self.missing:
                counts[paper.failure_class] = counts.get(paper.failure_class, 0) + 1
            head += f"; {len(self.missing)} missing (" + ", ".join(f"{c} {n}" for c, n in counts.items()) + ")"
        if self.unfinished:
            head += "; unfinished: " + ", ".join(f"{s.stage} ({s.failure_class})" for s in self.unfinished)
        out = [head]
        for paper in self.missing[:limit]:
            out.append(f"  missing paper {paper.paper_id} [{paper.failure_class}]: {paper.title[:80]}")
        if len(self.missing) > limit:
            out.append(f"  ... and {len(self.missing) - limit} more (`agentr failures {self.slug}` lists each)")
        for stage in self.unfinished:
            out.append(f"  {stage.stage} [{stage.failure_class}]: {stage.detail[:300]}")
        for cls, command in self.retry_commands().items():
            out.append(f"  retry {cls}: {command}")
        return out


def project_outcome(store: DomainStore, slug: str, model: str | None = None) -> ProjectOutcome:
    """Where the project stands: which papers have no current score (and why), which stage stopped short."""
    model = model or configured_model()
    papers = store.projects.list_papers(slug)
    intent = store.results.latest_artifact(slug, "intent")
    outcome = ProjectOutcome(slug, COMPLETE, papers=len(papers))
    if intent is None or intent.input_hash is None:  # every intent is saved with its input's hash
        outcome.status = FAILED
        return outcome
    scored = {r.paper_id for r in current_results(store, slug, papers, intent.input_hash, model)}
    below = below_cutoff_ids(store, slug, intent.input_hash, model)
    outcome.scored = len(scored & {p.id for p in papers})
    last_failure = {}
    failures = store.lifecycle.failures(slug)
    for row in failures:  # oldest first: the last one per paper wins
        if row.stage == "score" and row.paper_id is not None:
            last_failure[row.paper_id] = row
    for paper in papers:
        if paper.id in scored or paper.id in below:
            continue
        failed = last_failure.get(paper.id)
        outcome.missing.append(MissingPaper(paper.id, paper.title, failed.failure_class if failed else NOT_CLASSIFIED,
                                            failed.message if failed else "no score and no failure recorded"))
    last_stage_failure = {row.stage: row for row in failures if row.paper_id is None}
    for status in store.lifecycle.status(slug):
        if status.stage in (PROJECT_STAGE, "score") or status.state in (None, st.COMPLETED):
            continue  # the score stage's papers are listed one by one above
        failure = last_stage_failure.get(status.stage)
        outcome.unfinished.append(UnfinishedStage(
            status.stage, status.state, failure.failure_class if failure else NOT_CLASSIFIED,
            status.detail or status.state))
    if papers and outcome.missing and not outcome.scored:
        outcome.status = FAILED
    elif outcome.missing or outcome.unfinished:
        outcome.status = PARTIAL
    return outcome
