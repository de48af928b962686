"""The synthesis stages as plain functions over the domain store (assets and the CLI call these).

Each stage stores its output as an artifact keyed by its inputs and reuses it when they have not changed:
``landscape`` (stage name) from the current scores, ``related_work`` from the landscape and the writer (offline
or an LLM model + prompt version). Lifecycle states and failures are recorded like any other stage's.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from agentr_dagster.domain import failures as st
from agentr_dagster.domain.atomic import write_atomically
from agentr_dagster.domain.contracts import PaperAssessment
from agentr_dagster.domain.failures import (
    FailureClass,
    InvalidOutputError,
    NoCreditsError,
    PermanentError,
    StageError,
    TransientError,
    retry_command,
)
from agentr_dagster.domain.hashing import score_cache_key, sha256
from agentr_dagster.domain.prompts import prompt_version
from agentr_dagster.domain.text import normalize
from agentr_dagster.stages.intent import current_intent
from agentr_dagster.stages.lifecycle import record_stage_failure
from agentr_dagster.stages.relevance import current_relevance
from agentr_dagster.stages.staleness import add_papers_hint
from agentr_dagster.store.outage import database_failure
from agentr_dagster.synthesis.corpus import Corpus, ScoredPaper, cite_keys
from agentr_dagster.synthesis.corpus import fingerprint as corpus_hash
from agentr_dagster.synthesis.draft import (
    DRAFT_VERSION,
    bib_entries,
    plan_draft,
    to_bibtex,
    to_latex,
    to_markdown,
)
from agentr_dagster.synthesis.landscape import SYNTHESIS_VERSION, LandscapeSettings, build_landscape
from agentr_dagster.synthesis.models import Claim, Draft, Landscape
from agentr_dagster.synthesis.redraft import STAGE as REDRAFT_STAGE
from agentr_dagster.synthesis.redraft import ParagraphWriter, redraft
from agentr_dagster.synthesis.sanitize import md_escape, tex_escape
from agentr_dagster.synthesis.validate import ValidationReport, validate_latex, validate_markdown

if TYPE_CHECKING:
    from agentr_dagster.store import DomainStore
    from agentr_dagster.store.rows import RelevanceRow

LANDSCAPE_STAGE = "landscape"
DRAFT_STAGE = "related_work"
FILES = {"md": "related_work.md", "tex": "related_work.tex", "bib": "related_work.bib",
         "evidence": "related_work.evidence.json"}


@dataclass
class LandscapeOutcome:
    artifact_id: int
    landscape: Landscape
    reused: bool
    input_hash: str = ""  # what the landscape was built from (the corpus fingerprint, version and settings)


@dataclass
class DraftOutcome:
    artifact_id: int
    draft: Draft
    reused: bool
    markdown: str
    latex: str
    bibtex: str
    report: ValidationReport  # of the Markdown against the BibTeX
    latex_report: ValidationReport
    files: dict[str, Path]
    writer: str
    partial: str | None = None  # why the rewrites stopped short, and the command that finishes the draft

    @property
    def valid(self) -> bool:
        return self.report.ok and self.latex_report.ok



# ---------------------------------------------------------------- the corpus: papers with a current score
def _current(store: DomainStore, slug: str):
    """The project, its intent, and (paper, result) pairs whose score is current for the paper text, intent,
    prompt and model; cite keys for them; the person's labels by paper id. A score for older text or an older
    intent is not evidence here, and a paper the person labelled exclude is left out (their decision outranks
    the score: it is neither a competitor nor cited)."""
    project = store.projects.get_project(slug)
    intent, intent_hash = current_intent(store, slug)
    papers = {p.id: p for p in store.projects.list_papers(slug)}
    labels = {row.paper_id: row.label for row in store.labels.list_labels(slug)}
    current = []
    for result in store.results.results_for_project(slug):
        paper = papers.get(result.paper_id)
        if paper is None or result.model is None \
                or result.cache_key != score_cache_key(paper.content_hash, intent_hash, result.model):
            continue
        if labels.get(paper.id) == "exclude":
            continue
        current.append((paper, result))
    if not current and not papers:
        raise PermanentError(f"project {slug!r} has no candidate papers yet: {add_papers_hint(slug)}")
    if not current:
        raise PermanentError(f"project {slug!r} has no scored papers yet: materialise paper_scores first")
    current.sort(key=lambda pr: pr[0].id)
    keys = cite_keys([(p.id, p.title, p.year, p.authors) for p, _ in current])
    return project, intent, intent_hash, current, keys, len(papers), labels


def _ranking(store: DomainStore, slug: str, labels: dict[int, str]) -> tuple[dict[int, RelevanceRow], float | None]:
    """The screening engine's stored ranking by paper id, and the includes it expects among the papers nobody
    labelled (the sum of their calibrated P(include); None before the engine ranked the project)."""
    rows = current_relevance(store, slug)
    if not rows:
        return {}, None
    return rows, round(sum(r.score for pid, r in rows.items() if pid not in labels), 6)


def corpus_fingerprint(store: DomainStore, slug: str) -> str:
    """The fingerprint of :func:`load_corpus` without validating every stored payload (cheap reuse checks)."""
    project, _, intent_hash, current, keys, _, labels = _current(store, slug)
    ranking, expected = _ranking(store, slug, labels)
    return corpus_hash(intent_hash, project.abstract, _fingerprint_rows(current, keys, labels, ranking, expected))


def _fingerprint_rows(current, keys: dict[int, str], labels: dict[int, str], ranking: dict[int, RelevanceRow],
                      expected: float | None) -> list[tuple[int, int, str]]:
    """(paper, result, key) per paper; a labelled include's key carries its label, so a label changes the
    fingerprint (an exclude already changes it by leaving the corpus), and the engine's rank and probability
    ride along (a re-ranking changes which papers are the likely includes)."""
    rows = []
    for p, r in current:
        rank = ranking.get(p.id)
        engine = f"|r{rank.rank}:{rank.score:.6f}" if rank is not None else ""
        rows.append((p.id, r.id, keys[p.id] + ("|include" if labels.get(p.id) == "include" else "") + engine))
    return [*rows, (0, 0, f"expected:{expected}")] if expected is not None else rows


def load_corpus(store: DomainStore, slug: str) -> Corpus:
    """The project's papers with a score that is current for the paper text, intent, prompt and model."""
    project, intent, intent_hash, current, keys, n_live, labels = _current(store, slug)
    ranking, expected = _ranking(store, slug, labels)
    scored = tuple(
        ScoredPaper(
            paper_id=p.id, result_id=r.id, key=keys[p.id], title=p.title, abstract=p.abstract or "", year=p.year,
            doi=p.doi, authors=tuple(p.authors or ()), venue=p.venue, url=p.url,
            assessment=PaperAssessment.model_validate(r.payload), backend=r.backend, model=r.model,
            label=labels.get(p.id),
            p_include=ranking[p.id].score if p.id in ranking else None,
            engine_rank=ranking[p.id].rank if p.id in ranking else None,
        )
        for p, r in current
    )
    return Corpus(slug, project.title, project.abstract, intent, intent_hash, scored, n_live - len(scored),
                  expected_unlabelled=expected)


def _fail(store: DomainStore, slug: str, stage: str, exc: StageError, run_id: str | None) -> None:
    record_stage_failure(store, slug, stage, exc, run_id)  # kept and written later when the database is away


def run_landscape(store: DomainStore, slug: str, *, embedder=None, run_id: str | None = None,
                  settings: LandscapeSettings | None = None, record_reuse: bool = True) -> LandscapeOutcome:
    """``record_reuse=False``: a reader (the report) that finds the landscape current leaves no transition."""
    settings = settings or LandscapeSettings()
    try:
        fingerprint = corpus_fingerprint(store, slug)
    except StageError as exc:
        _fail(store, slug, LANDSCAPE_STAGE, exc, run_id)
        raise
    input_hash = sha256(fingerprint, SYNTHESIS_VERSION, json.dumps(settings.__dict__, sort_keys=True))
    latest = store.results.latest_artifact(slug, LANDSCAPE_STAGE)
    if latest is not None and latest.input_hash == input_hash:
        if record_reuse:
            store.lifecycle.set_status(slug, LANDSCAPE_STAGE, st.COMPLETED, detail="unchanged; reused", run_id=run_id)
        return LandscapeOutcome(latest.id, Landscape.model_validate(latest.payload), True, input_hash)
    store.lifecycle.set_status(slug, LANDSCAPE_STAGE, st.IN_PROGRESS, run_id=run_id)
    try:
        corpus = load_corpus(store, slug)
        landscape = build_landscape(corpus, embedder, settings)
    except Exception as exc:  # noqa: BLE001 - recorded as a failure of this stage, then re-raised
        err = exc if isinstance(exc, StageError) else (  # a database blip is transient, never permanent
            database_failure(exc, "landscape") or PermanentError(f"landscape failed: {type(exc).__name__}: {exc}"))
        _fail(store, slug, LANDSCAPE_STAGE, err, run_id)
        raise err from exc
    first = corpus.papers[0]
    artifact_id = store.results.save_artifact(
        slug, LANDSCAPE_STAGE, landscape.model_dump(mode="json"), prompt_version=SYNTHESIS_VERSION,
        model=first.model, backend=first.backend, input_hash=input_hash,
    )
    detail = None if not landscape.structure_problems else f"taxonomy: {len(landscape.structure_problems)} problem(s)"
    store.lifecycle.set_status(slug, LANDSCAPE_STAGE, st.COMPLETED, detail=detail, run_id=run_id)
    return LandscapeOutcome(artifact_id, landscape, False, input_hash)


def current_landscape(store: DomainStore, slug: str) -> tuple[int, Landscape, str]:
    artifact = store.results.latest_artifact(slug, LANDSCAPE_STAGE)
    if artifact is None or artifact.input_hash is None:  # every landscape is saved with its input's hash
        raise PermanentError(f"project {slug!r} has no research landscape yet: materialise research_landscape first")
    return artifact.id, Landscape.model_validate(artifact.payload), artifact.input_hash


def writer_version(writer: ParagraphWriter | None) -> str:
    if writer is None:
        return "offline-extractive"
    return f"{writer.model}|{prompt_version(REDRAFT_STAGE)}"


def header_line(draft: Draft, writer: str) -> str:
    origins: dict[str, int] = {}
    for paragraph in draft.paragraphs():
        origins[paragraph.origin] = origins.get(paragraph.origin, 0) + 1
    mix = ", ".join(f"{n} {k}" for k, n in sorted(origins.items()))
    return (f"Generated by agentr-dagster ({DRAFT_VERSION}) for project {draft.slug}; writer: {writer}; "
            f"paragraphs: {mix}. Every citation key resolves to related_work.bib; the evidence behind each sentence "
            f"is in related_work.evidence.json (agentr trace {draft.slug} <sentence-id>).")


def render(draft: Draft, writer: str) -> tuple[str, str, str]:
    header = header_line(draft, writer)
    return to_markdown(draft, header), to_latex(draft, header), to_bibtex(draft.bib)


def scopes_of(draft: Draft) -> dict[str, set[str]]:
    return {p.id: set(p.scope) for p in draft.paragraphs()}


def write_files(draft: Draft, markdown: str, latex: str, bibtex: str, out_dir: Path) -> dict[str, Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    evidence = {s.id: {"text": s.text, "claim": s.claim, "cites": s.cites,
                       "evidence": [e.model_dump(mode="json") for e in s.evidence]}
                for p in draft.paragraphs() for s in p.sentences}
    contents = {"md": markdown, "tex": latex, "bib": bibtex, "evidence": json.dumps(evidence, indent=1)}
    written = {}
    for kind, name in FILES.items():
        path = out_dir / name
        # a reader never sees half a draft; concurrent writers never share a temporary file
        written[kind] = write_atomically(path, partial(Path.write_text, data=contents[kind], encoding="utf-8"))
    return written


def _extractive_fallback(extractive: Draft, rewritten: Draft, problems: list[str]) -> Draft:
    """The extractive draft in place of a rewrite that fails validation as a whole, marked as such, with the
    rewrite's log and why it was set aside."""
    sections = [s.model_copy(update={"paragraphs": [p.model_copy(update={"origin": "extractive-fallback"})
                                                    for p in s.paragraphs]}) for s in extractive.sections]
    return extractive.model_copy(update={"sections": sections, "redraft_log": [
        *rewritten.redraft_log, {"event": "draft-fallback", "issues": problems}]})


def run_related_work(store: DomainStore, slug: str, *, writer: ParagraphWriter | None = None, embedder=None,
                     run_id: str | None = None, out_dir: Path | None = None, on_error=None) -> DraftOutcome:
    """The extractive draft (offline) or its LLM rewrite, validated; files written to ``out_dir`` if given.

    The draft is planned on a landscape current for the corpus it reads: a label given after the landscape was
    built (an exclude takes its paper out of the corpus) rebuilds the landscape first (offline, no LLM call), so
    the draft never cites a paper labelled exclude nor fails on one the landscape still routes."""
    try:
        current_landscape(store, slug)  # none yet: materialise research_landscape first
        built = run_landscape(store, slug, embedder=embedder, run_id=run_id, record_reuse=False)
    except StageError as exc:
        _fail(store, slug, DRAFT_STAGE, exc, run_id)
        raise
    landscape, landscape_hash = built.landscape, built.input_hash
    version = writer_version(writer)
    input_hash = sha256(landscape_hash, DRAFT_VERSION, version)
    label = getattr(writer, "label", None) or "offline extractive (sentences from stored scores and abstracts)"
    latest = store.results.latest_artifact(slug, DRAFT_STAGE)
    reused = False
    if latest is not None and latest.input_hash == input_hash:
        draft = Draft.model_validate(latest.payload["draft"])
        markdown, latex, bibtex = render(draft, label)
        report = validate_markdown(markdown, bibtex, scopes_of(draft))
        latex_report = validate_latex(latex, bibtex, scopes_of(draft))
        reused = report.ok and latex_report.ok  # a stored draft that no longer validates is written again
        artifact_id = latest.id
    if not reused:
        store.lifecycle.set_status(slug, DRAFT_STAGE, st.IN_PROGRESS, run_id=run_id)
        try:
            corpus = load_corpus(store, slug)
            draft = plan_draft(landscape, corpus, embedder, title=None)
            if writer is not None:
                draft = redraft(draft, writer, slug, run_id=run_id, on_error=on_error)
                draft.bib = bib_entries(draft, corpus)  # exactly the papers the rewritten draft cites
        except StageError as exc:
            _fail(store, slug, DRAFT_STAGE, exc, run_id)
            raise
        markdown, latex, bibtex = render(draft, label)
        report = validate_markdown(markdown, bibtex, scopes_of(draft))
        latex_report = validate_latex(latex, bibtex, scopes_of(draft))
        if writer is not None and not (report.ok and latex_report.ok):
            # Each rewritten paragraph passed on its own; if the whole still fails, keep the extractive draft,
            # which passes by construction, and record why.
            problems = [str(i) for i in (report.issues + latex_report.issues)[:5]]
            draft = _extractive_fallback(plan_draft(landscape, corpus, embedder, title=None), draft, problems)
            markdown, latex, bibtex = render(draft, label)
            report = validate_markdown(markdown, bibtex, scopes_of(draft))
            latex_report = validate_latex(latex, bibtex, scopes_of(draft))
        valid = report.ok and latex_report.ok
        # A rewrite cut short (credits ran out, the endpoint failed) is stored but not reusable: the next run
        # tries again, and the gateway's response cache makes the paragraphs already rewritten free. An invalid
        # draft is stored (with the findings, for the asset check) and never reused either.
        complete = not any(event.get("event") == "stopped" for event in draft.redraft_log)
        artifact_id = store.results.save_artifact(
            slug, DRAFT_STAGE, {"draft": draft.model_dump(mode="json"), "validation": report.as_dict(),
                                "latex_validation": latex_report.as_dict(), "valid": valid,
                                "writer": label, "complete": complete},
            prompt_version=f"{DRAFT_VERSION}|{version}", model=getattr(writer, "model", None),
            backend="llm" if writer is not None else "offline",
            input_hash=input_hash if complete and valid else sha256(input_hash, "incomplete" if valid else "invalid"),
        )
    valid = report.ok and latex_report.ok
    # An optional stage degrades rather than fails: the scores and exports stand, the check shows the findings.
    detail = "unchanged; reused" if reused else None
    if not valid:
        detail = f"draft stored as invalid: {len(report.issues) + len(latex_report.issues)} validator finding(s)"
    partial = None if reused else partial_draft(draft, slug)
    if partial is not None:
        # Rewrites cut short (credits ran out, the endpoint failed): the draft stands, but the stage is not done —
        # `agentr status` and `agentr failures` say so with the command that finishes it, and resume redoes it.
        record_stage_failure(store, slug, DRAFT_STAGE, partial, run_id)
    else:
        store.lifecycle.set_status(slug, DRAFT_STAGE, st.COMPLETED, detail=detail, run_id=run_id)
    if out_dir is not None and not valid:
        markdown, latex, bibtex = with_warning(markdown, latex, bibtex, report.issues + latex_report.issues)
    files = write_files(draft, markdown, latex, bibtex, out_dir) if out_dir is not None else {}
    return DraftOutcome(artifact_id, draft, reused, markdown, latex, bibtex, report, latex_report, files, label,
                        partial.message if partial is not None else None)


_ERROR_OF_CLASS = {FailureClass.transient: TransientError, FailureClass.no_credits: NoCreditsError,
                   FailureClass.permanent: PermanentError, FailureClass.invalid_output: InvalidOutputError}


def partial_draft(draft: Draft, slug: str) -> StageError | None:
    """The failure that cut the draft's rewrites short (None when every paragraph was asked): its class, how many
    paragraphs were rewritten, and the command that finishes the draft."""
    stopped = next((e for e in draft.redraft_log if e.get("event") == "stopped"), None)
    if stopped is None:
        return None
    cls = FailureClass(stopped["failure_class"])
    paragraphs = draft.paragraphs()
    rewritten = sum(p.origin in ("llm", "llm-redrafted") for p in paragraphs)
    return _ERROR_OF_CLASS.get(cls, PermanentError)(
        f"partial: {rewritten} of {len(paragraphs)} related-work paragraphs rewritten, the rest keep their extractive "
        f"text; the rewrites stopped on {cls.value} ({stopped.get('message', '')[:200]}); to finish the draft: "
        f"{retry_command(cls.value, slug)}")


def warning_text(issues: list) -> str:
    return (f"WARNING: this draft FAILS the deterministic validator ({len(issues)} finding(s)); do not use it "
            "as is. First findings: " + "; ".join(str(i) for i in issues[:3]))


def with_warning(markdown: str, latex: str, bibtex: str, issues: list) -> tuple[str, str, str]:
    """The files of an invalid draft, each with the warning at the top (Markdown: after the front matter)."""
    text = warning_text(issues)
    head, sep, body = markdown.partition("\n---\n")
    md_warning = f"> **{md_escape(text)}**\n\n"
    markdown = f"{head}{sep}\n{md_warning}{body.lstrip()}" if sep else md_warning + markdown
    one_line = " ".join(text.split())
    tex = f"% {one_line}\n" + latex.replace(
        "\\begin{document}\n", "\\begin{document}\n\\noindent\\textbf{" + tex_escape(one_line) + "}\n\n", 1)
    return markdown, tex, f"% {one_line}\n\n{bibtex}"


def stored_validation(store: DomainStore, slug: str) -> dict | None:
    """The validator's verdict on the stored draft, as recorded with it (None before the first draft)."""
    artifact = store.results.latest_artifact(slug, DRAFT_STAGE)
    if artifact is None:
        return None
    payload = artifact.payload
    markdown = payload.get("validation") or {"ok": False, "issues": [{"code": "format", "message": "no verdict"}]}
    latex = payload.get("latex_validation") or {"ok": True, "issues": []}
    return {"artifact_id": artifact.id, "ok": bool(payload.get("valid", markdown["ok"] and latex["ok"])),
            "markdown": markdown, "latex": latex}


def current_draft(store: DomainStore, slug: str) -> Draft | None:
    artifact = store.results.latest_artifact(slug, DRAFT_STAGE)
    return Draft.model_validate(artifact.payload["draft"]) if artifact is not None else None


# ------------------------------------------------------------------------------------------------ tracing

@dataclass
class TracedEvidence:
    paper_id: int
    key: str
    title: str | None
    year: int | None
    doi: str | None
    result_id: int | None
    fields: dict
    current: dict  # field -> value in the paper's current stored result (None if the field is not a score field)
    status: str  # current | rescored | paper deleted


@dataclass
class Trace:
    claim_id: str
    where: str  # "landscape" or "draft: <section title>"
    kind: str
    text: str
    evidence: list[TracedEvidence]


def claim_index(landscape: Landscape | None, draft: Draft | None) -> dict[str, tuple[str, Claim]]:
    """Every claim of the landscape and every sentence of the draft, by id."""
    out: dict[str, tuple[str, Claim]] = {}
    if landscape is not None:
        for claim in landscape.claims:
            out[claim.id] = ("landscape", claim)
    if draft is not None:
        for section in draft.sections:
            for paragraph in section.paragraphs:
                for s in paragraph.sentences:
                    out[s.id] = (f"draft: {section.title}",
                                 Claim(id=s.id, kind="draft-claim" if s.claim else "draft-sentence", text=s.text,
                                       section=section.node_id, evidence=s.evidence))
    return out


def field_value(payload: dict, path: str):
    """A score field of a stored result by its dotted path ('c1_direct_competitor.score', 'research_gaps[2]')."""
    value = payload
    for part in path.replace("]", "").replace("[", ".").split("."):
        if isinstance(value, dict) and part in value:
            value = value[part]
        elif isinstance(value, list) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        else:
            return None
    return value


def _current_value(path: str, recorded, result, paper):
    """What the store holds now for a recorded field: a score field's current value; for a quoted abstract
    sentence, whether the paper's abstract still contains it; None for derived fields (routing)."""
    if path.startswith("abstract."):
        if paper is None:
            return None
        quote = str(recorded).rstrip("…").strip()
        return "found in the abstract" if quote and quote in normalize(paper.abstract) else "not in the abstract"
    if path.startswith("route"):
        return None
    return field_value(result.payload, path) if result is not None else None


def trace(store: DomainStore, slug: str, claim_id: str) -> Trace:
    """The claim and, per paper it rests on, the fields recorded then and their values in the store now."""
    landscape = None
    artifact = store.results.latest_artifact(slug, LANDSCAPE_STAGE)
    if artifact is not None:
        landscape = Landscape.model_validate(artifact.payload)
    index = claim_index(landscape, current_draft(store, slug))
    if claim_id not in index:
        close = sorted(k for k in index if k.startswith(claim_id.split(".")[0]))[:10]
        hint = f"; did you mean {', '.join(close)}" if close else f"; {len(index)} claims exist (see agentr report)"
        raise KeyError(f"no claim {claim_id!r} in project {slug!r}{hint}")
    where, claim = index[claim_id]
    papers = {p.id: p for p in store.projects.list_papers(slug, include_deleted=True)}
    current = {r.paper_id: r for r in store.results.results_for_project(slug)}
    traced = []
    for ev in claim.evidence:
        paper = papers.get(ev.paper_id)
        result = current.get(ev.paper_id)
        if paper is None or paper.deleted_at is not None:
            status = "paper deleted"
        elif result is None or (ev.result_id is not None and result.id != ev.result_id):
            status = "rescored"
        else:
            status = "current"
        now = {f: _current_value(f, v, result, paper) for f, v in ev.fields.items()}
        traced.append(TracedEvidence(
            paper_id=ev.paper_id, key=ev.key, title=paper.title if paper else None, year=paper.year if paper else None,
            doi=paper.doi if paper else None, result_id=ev.result_id, fields=dict(ev.fields), current=now,
            status=status,
        ))
    return Trace(claim_id, where, claim.kind, claim.text, traced)
