"""The project chain as project-partitioned assets. Thin: each asset calls one stage function (stages/), turns
failure classes into Dagster failures (`defs/failures.py`), and reports counts as metadata; its checks
(`defs/checks.py`) are evaluated from what the store holds once the stage has run."""

from collections.abc import Iterator
from contextlib import contextmanager

from dagster import (
    AssetExecutionContext,
    Backoff,
    DataVersion,
    Jitter,
    MaterializeResult,
    MetadataValue,
    RetryPolicy,
    asset,
)

from agentr_dagster.defs import checks
from agentr_dagster.defs import metadata as ui
from agentr_dagster.defs.assets.relevance import relevance
from agentr_dagster.defs.failures import stage_failure, stage_failures
from agentr_dagster.defs.partitions import LIVING_TAG, REFRESH_SOURCES_TAG, projects
from agentr_dagster.defs.resources import LLMResource, SourcesResource, StoreResource
from agentr_dagster.defs.waiting import WAITS_FOR, waits_for_candidates
from agentr_dagster.domain.failures import NEXT_STEP, StageError, retry_command
from agentr_dagster.domain.hashing import sha256
from agentr_dagster.domain.injection import flagged_papers
from agentr_dagster.domain.prompts import prompt_version
from agentr_dagster.llm.paid_call import hold_project_for_calls
from agentr_dagster.settings import results_dir
from agentr_dagster.sources.background import counting_names
from agentr_dagster.stages.candidates import retrieve_for_project
from agentr_dagster.stages.exports import (
    BELOW_CUTOFF,
    COLUMN_DESCRIPTIONS,
    scores_dataframe,
    write_exports,
    write_usage_exports,
)
from agentr_dagster.stages.intent import intent_fingerprint, run_intent
from agentr_dagster.stages.lifecycle import StageOutcome, database_failures_recorded
from agentr_dagster.stages.living import write_update_digest
from agentr_dagster.stages.prisma import write_prisma
from agentr_dagster.stages.pseudo_feedback import pseudo_feedback
from agentr_dagster.stages.queries import run_queries
from agentr_dagster.stages.report import REPORT_FILE
from agentr_dagster.stages.scoring import score_project, summary_text, worst_failure_class
from agentr_dagster.stages.search import SearchCaps, record_lake_sightings, search_project
from agentr_dagster.stages.staleness import WAITING_FOR_CANDIDATES, add_papers_hint
from agentr_dagster.store import DomainStore
from agentr_dagster.store.leases import LEASE_TAG, new_holder
from agentr_dagster.synthesis import plots

# Step retries for transient failures only (defs/failures.py): e.g. a database outage. They cannot re-pay: the
# gateway asks the durable attempt cap (domain/attempts.py) before every call, whichever layer retries.
LLM_RETRY = RetryPolicy(max_retries=3, delay=2, backoff=Backoff.EXPONENTIAL, jitter=Jitter.FULL)
EXPORTS_VERSION = "exports-v1"


@contextmanager
def project_lease(context: AssetExecutionContext, db: DomainStore) -> Iterator[str]:
    """Hold the project's lease for the step, whoever launched the run: a step of another run of the same
    project waits here (and says so in the run's log). Yields the holder token (for the per-paper claims).
    Taking the lease gives back the credits that ended runs left on hold (``hold_project_for_calls``)."""
    slug = context.partition_key
    holder = context.run.tags.get(LEASE_TAG) or new_holder(f"run-{context.run_id[:8]}")

    def waiting(current) -> None:
        context.log.info(f"waiting for the run in flight on {slug} ({current.describe()})")

    with hold_project_for_calls(db, slug, holder, run_id=context.run_id, on_wait=waiting):
        yield holder


@contextmanager
def llm_step(context: AssetExecutionContext, db: DomainStore, stage: str, backend) -> Iterator[str]:
    """The step's guards around a stage that makes paid calls (guard 1 of ``llm/paid_call.py``; drawn in
    docs/paid-call.md): a stage error leaves as the right Dagster Failure, a lost database is recorded as a
    failure once it answers again, and the project's lease is held. Yields the lease's holder token."""
    with stage_failures(context, db=db), \
            database_failures_recorded(db, context.partition_key, stage, context.run_id, backend), \
            project_lease(context, db) as holder:
        yield holder


def _run_llm_stage(context: AssetExecutionContext, store: StoreResource, llm: LLMResource, stage: str, run_stage):
    """Run one single-artifact LLM stage (intent, queries) under the project's lease, with a lost database
    recorded as a failure and a stage error turned into the right Dagster Failure."""
    db = store.get()
    backend = llm.backend(db)
    with llm_step(context, db, stage, backend):
        outcome = run_stage(db, backend, context.partition_key, run_id=context.run_id)
    return db, backend, outcome


def _stage_metadata(outcome: StageOutcome, backend) -> dict:
    return {
        "artifact_id": outcome.artifact_id,
        "reused": outcome.reused,
        "prompt_version": outcome.prompt_version,
        "model": outcome.model,
        "backend": backend.label,
    }


@asset(
    partitions_def=projects,
    code_version=prompt_version("intent"),
    group_name="research",
    retry_policy=LLM_RETRY,
    pool="llm",
    check_specs=[checks.INTENT_CHECK],
    description="Structured research intent decomposed from the project's abstract.",
)
def research_intent(context: AssetExecutionContext, store: StoreResource, llm: LLMResource,
                    sources: SourcesResource) -> MaterializeResult:
    def intent_stage(db: DomainStore, backend, slug: str, run_id: str | None = None) -> StageOutcome:
        # the search sources' hit counts judge the offline intent's terms while the lake is too small
        counting = counting_names(sources.enabled())
        return run_intent(db, backend, slug, run_id=run_id,
                          sources=(lambda: sources.build(db, names=counting).search) if counting else None)

    db, backend, outcome = _run_llm_stage(context, store, llm, "intent", intent_stage)
    # as stored: whether it matches the contract is the check's to say
    intent = outcome.payload if isinstance(outcome.payload, dict) else {}
    return MaterializeResult(
        metadata={  # the intent itself first, as text; then where it came from
            "problem_statement": str(intent.get("problem_statement", "")),
            **{field: "; ".join(map(str, intent.get(field) or [])) or "(none)" for field in (
                "methodologies", "application_domains", "constraints", "seed_keywords")},
            "background": str(intent.get("background") or "(not recorded)"),
            **_stage_metadata(outcome, backend),
        },
        data_version=DataVersion(intent_fingerprint(outcome.payload)[:16]),
        check_results=[checks.evaluate_intent(db, context.partition_key)],
    )


@asset(
    partitions_def=projects,
    deps=[research_intent],
    code_version=prompt_version("queries"),
    group_name="research",
    retry_policy=LLM_RETRY,
    pool="llm",
    check_specs=[checks.QUERIES_CHECK, checks.SEED_RECALL_CHECK],
    description="A Boolean query, 10-15 expanded keywords and exactly 10 search strings.",
)
def search_queries(context: AssetExecutionContext, store: StoreResource, llm: LLMResource) -> MaterializeResult:
    db, backend, outcome = _run_llm_stage(context, store, llm, "queries", run_queries)
    queries = outcome.payload if isinstance(outcome.payload, dict) else {}  # as stored: the check parses it
    return MaterializeResult(
        metadata={
            "boolean_query": str(queries.get("boolean_query", "")),
            "search_strings": MetadataValue.md("\n".join(f"1. {s}" for s in queries.get("search_strings", []))),
            "expanded_keywords": "; ".join(map(str, queries.get("expanded_keywords") or [])),
            **_seed_metadata(db, context.partition_key),
            **_terms_cut_metadata(db, context.partition_key),
            **_stage_metadata(outcome, backend),
        },
        data_version=DataVersion(intent_fingerprint(outcome.payload)[:16]),
        check_results=[checks.evaluate_queries(db, context.partition_key),
                       checks.evaluate_seed_recall(db, context.partition_key)],
    )


def _terms_cut_metadata(db: DomainStore, slug: str) -> dict:
    """Concept blocks whose terms passed the 40-term bound: how many were left out of the query (never silent)."""
    from agentr_dagster.stages.intent import current_intent

    try:
        intent = current_intent(db, slug)[0]
    except (ValueError, StageError):
        return {}
    cut = [f"1. {c.label}: {c.terms_cut} terms left out (40 kept)" for c in intent.concepts if c.terms_cut]
    return {"concept_terms_cut": MetadataValue.md("\n".join(cut) or "none")}


def _seed_metadata(db: DomainStore, slug: str) -> dict:
    """The Boolean query's recall on the seed studies, the losing block per missed one, the widened query."""
    from agentr_dagster.stages.intent import current_intent
    from agentr_dagster.stages.queries import current_queries
    from agentr_dagster.stages.seeds import seed_report

    try:
        queries = current_queries(db, slug)
        if queries is None:
            return {}
        report, unresolved = seed_report(db, slug, queries, current_intent(db, slug)[0])
    except (ValueError, StageError):  # a stored artefact that does not validate: its own check reports it
        return {}
    if report.recall is None:
        return {"seed_recall": "no seed studies"}
    return {
        **_seed_terms_metadata(db, slug),
        "seed_recall": MetadataValue.float(report.recall),
        "seed_studies": report.n_seeds,
        "seeds_missed": MetadataValue.md("\n".join(
            f"1. {m.title} — lost by {', '.join(m.facets) or '?'}" for m in report.missed[:20]) or "none"),
        "widened_query": report.widened_query or "",
        "widened_seed_recall": MetadataValue.float(report.widened_recall) if report.widened_recall is not None
        else "",
        "seed_dois_unresolved": len(unresolved),
    }


def _seed_terms_metadata(db, slug: str) -> dict:
    """What the seed studies added to the offline query's blocks (the ``seed_terms`` artefact of the stage)."""
    from agentr_dagster.stages.seeds import SEED_TERMS_STAGE

    artifact = db.results.latest_artifact(slug, SEED_TERMS_STAGE)
    if artifact is None:
        return {}
    p = artifact.payload
    added = p.get("added_terms") or {}
    return {
        "seed_terms_added": MetadataValue.md("\n".join(
            f"1. {block}: {', '.join(terms)}" for block, terms in added.items()) or "none"),
        "seed_recall_before_seed_terms": MetadataValue.float(float(p.get("seed_recall_before", 0.0))),
        "seed_recall_after_seed_terms": MetadataValue.float(float(p.get("seed_recall_after", 0.0))),
        "seed_terms_pool": f"{p.get('pool')}: {p.get('pool_matched_before')} -> {p.get('pool_matched_after')} "
                           f"of {p.get('pool_size')} matched",
        "seed_relaxed_blocks": ", ".join(p.get("relaxed_blocks") or []) or "none",
    }


@asset(
    partitions_def=projects,
    deps=[search_queries],
    group_name="research",
    check_specs=[checks.CANDIDATES_CHECK],
    description="The project's candidate papers: imported files, what its queries retrieve from the paper lake, "
    "and what they find in the enabled search sources (AGENTR_SOURCES).",
)
def candidate_papers(context: AssetExecutionContext, store: StoreResource,
                     sources: SourcesResource) -> MaterializeResult:
    db = store.get()
    slug = context.partition_key
    with stage_failures(context, db=db):
        return _candidate_papers(context, db, slug, sources)


def _candidate_papers(context: AssetExecutionContext, db: DomainStore, slug: str,
                      sources: SourcesResource) -> MaterializeResult:
    retrieved = retrieve_for_project(db, slug)  # None (imports only) when the lake is empty or no queries yet
    lake_metadata = {} if retrieved is None else {
        **retrieved.metadata(), "lake_queries": MetadataValue.md(retrieved.markdown())}
    record_lake_sightings(db, slug, retrieved)
    lake_metadata.update(_search_sources(context, db, sources))
    papers = db.projects.list_papers(slug)
    by_format: dict[str, int] = {}
    for paper in papers:
        fmt = (paper.provenance or {}).get("format", "unknown")
        by_format[fmt] = by_format.get(fmt, 0) + 1
    with_abstract = sum(1 for p in papers if p.abstract)
    # the first thing its partition page shows, as on the assets after it (defs/waiting.py)
    waiting = {} if papers else {"status": WAITING_FOR_CANDIDATES, "waits_for": WAITS_FOR,
                                 "next": add_papers_hint(slug)}
    if waiting:  # a valid state: the assets after this one record that they wait (defs/waiting.py)
        context.log.info(f"{slug}: no candidate papers yet; {waiting['next']}")
    return MaterializeResult(
        metadata={**waiting, "papers": len(papers), "with_abstract": with_abstract,
                  **{f"from_{k}": v for k, v in sorted(by_format.items())}, **lake_metadata},
        data_version=DataVersion(sha256(*sorted(p.content_hash for p in papers))[:16]),
        check_results=[checks.evaluate_candidates(db, slug)],
    )


def _search_sources(context: AssetExecutionContext, db: DomainStore, sources: SourcesResource) -> dict:
    """The enabled search sources' part of candidate_papers (nothing when AGENTR_SOURCES is empty)."""
    if not sources.enabled():
        return {}
    tags = context.run.tags
    refresh = tags.get(REFRESH_SOURCES_TAG) == "1"
    section = sources.section()
    enabled = sources.build(db, refresh=refresh)
    searched = search_project(
        db, context.partition_key, enabled, max_results=section.max_results,
        boolean_max_results=section.boolean_max_results, update_id=tags.get(LIVING_TAG), refresh=refresh,
        run_id=context.run_id, progress=context.log.info,
    )
    if searched is None:
        return {}
    # the query widened by its own best matches, searched once more where that was measured to help
    feedback = pseudo_feedback(
        db, context.partition_key, enabled, SearchCaps(section.max_results, section.boolean_max_results),
        enabled=section.pseudo_feedback, min_source_records=section.background_min_records,
        update_id=tags.get(LIVING_TAG), refresh=refresh, run_id=context.run_id, progress=context.log.info)
    context.log.info(f"pseudo-relevance feedback: {feedback.line()}")
    if feedback.summary is not None:
        searched = searched.merged(feedback.summary)
    for failed in searched.failures():
        context.log.warning(f"{failed.source} {failed.query_name} failed (retried next run): {failed.failure}")
    metadata = searched.metadata()
    for key in ("source_failed_searches", "source_retry_next_run"):  # JSON: the servers' messages are untrusted
        metadata[key] = MetadataValue.json(metadata[key])
    return {**metadata, **feedback.metadata(), "source_queries": MetadataValue.md(searched.markdown())}


@asset(
    partitions_def=projects,
    deps=[candidate_papers, research_intent, relevance],
    code_version=prompt_version("score"),
    group_name="research",
    retry_policy=LLM_RETRY,
    pool="llm",
    check_specs=[checks.SCORES_CHECK],
    output_required=False,  # a project without candidates: waits for them (see defs/waiting.py)
    description="Every candidate scored against the intent in one structured call each (bounded concurrency), "
                "in relevance order; with an LLM, re-ranked after each batch and optionally stopped early "
                "(stop_at_recall, scoring_budget_credits).",
)
@waits_for_candidates
def paper_scores(context: AssetExecutionContext, store: StoreResource, llm: LLMResource) -> MaterializeResult:
    db = store.get()
    backend = llm.backend(db)
    slug = context.partition_key
    with llm_step(context, db, "score", backend) as holder:
        summary = score_project(
            db, backend, slug, concurrency=llm.llm_settings().concurrency, run_id=context.run_id,
            progress=_log_progress(context), holder=holder, plan=llm.scoring_plan(),
        )
    context.log.info(f"paper_scores: {summary_text(summary)}")
    failed = {f"failed_{cls.value}": n for cls, n in summary.failed.items() if n}
    # read first in the UI: status and counts, the top papers, then what the scoring cost (when it cost anything)
    metadata = {
        "status": summary_text(summary),
        "papers": summary.total, "scored_now": summary.scored, "reused": summary.reused, **failed,
        "below_cutoff": summary.below_cutoff, "stop_reason": summary.stop_reason or "none",
        **({"recall_lower_bound": round(summary.recall_bound, 4)} if summary.recall_bound is not None else {}),
        **(_recall_metadata(summary.recall) if summary.recall is not None else {}),
        **ui.top_papers(scores_dataframe(db, slug)),
        **ui.usage(db, slug, stage="score", run_id=context.run_id),
        "backend": backend.label, "model": backend.model, "prompt_version": prompt_version("score"),
    }
    # Papers whose text tries to steer the model: counted here, listed per row in the exports.
    flagged = flagged_papers(db.projects.list_papers(slug))
    metadata["injection_flagged"] = len(flagged)
    if flagged:
        metadata["injection_flagged_papers"] = MetadataValue.json(  # JSON, not markdown: titles are untrusted
            [{"paper_id": p.id, "title": p.title[:200], "reasons": list(c.reasons)} for p, c in flagged[:20]]
        )
    if summary.failed:
        worst = worst_failure_class(summary.failed)
        metadata["next_steps"] = MetadataValue.md("\n".join(
            f"- **{cls.value}** ({n}): {NEXT_STEP[cls]}" for cls, n in summary.failed.items() if n))
        if not summary.partial(retries_left=context.retry_number < LLM_RETRY.max_retries):
            raise stage_failure(
                summary.first_error(worst), "paper_scores", metadata=metadata,
                description=f"paper_scores: {summary_text(summary)}; " + "; ".join(summary.messages[:3]),
                retryable=summary.retryable,
            )
        # A failed paper never hides the others: the valid scores go on to the exports and the synthesis, and
        # the run ends partial, naming the missing papers (stages/outcome.py).
        metadata["status"] = f"partial: {summary_text(summary)}"
        metadata["retry"] = MetadataValue.md("\n".join(
            f"- **{cls.value}** ({n}): `{retry_command(cls.value, slug)}`" for cls, n in summary.failed.items() if n))
        context.log.warning(f"partial: {summary_text(summary)}; the valid scores go on to the exports and the "
                            "synthesis; " + "; ".join(
                                [*(f"{cls.value}: {retry_command(cls.value, slug)}"
                                   for cls, n in summary.failed.items() if n), *summary.messages[:1]]))
    scores = db.results.results_for_project(slug)
    return MaterializeResult(
        metadata={**metadata, "dagster/row_count": len(scores)},
        # what downstream assets read: the stored results (ids grow with every new or re-scored answer)
        data_version=DataVersion(sha256(*sorted(f"{r.paper_id}:{r.id}" for r in scores))[:16]),
        check_results=[checks.evaluate_scores(db, slug, backend.model)],
    )


def _recall_metadata(recall) -> dict:
    """The stopping rule's last assessment: the recall interval at its confidence, the estimate, and why scoring
    stopped or went on."""
    return {"recall_interval": MetadataValue.json([round(recall.recall_lower, 4), 1.0]),
            "recall_estimate": round(recall.recall_estimate, 4), "recall_confidence": recall.confidence,
            "includes_left_upper": recall.left_upper, "stopping": recall.reason, "recall_basis": recall.basis,
            "recall_lower_without_model": round(recall.recall_lower_without_model, 4)}


def _log_progress(context: AssetExecutionContext):
    state = {"last": -1}

    def report(done: int, total: int) -> None:
        step = max(1, total // 10)
        if done == total or done - state["last"] >= step:
            state["last"] = done
            # ``done`` counts the papers reused from earlier runs too: the split is logged when scoring ends
            context.log.info(f"{done}/{total} papers have a score (scored now or reused)")

    return report


@asset(
    partitions_def=projects,
    deps=[paper_scores, relevance],  # the export's order is the relevance: new labels re-write it
    code_version=EXPORTS_VERSION,
    group_name="research",
    check_specs=[checks.EXPORTS_CHECK, checks.PRISMA_CHECK],
    output_required=False,
    description="pandas exports of the scores: CSV, Parquet and XLSX under `$AGENTR_HOME/results/<slug>/`, one row per "
                "paper in "
                "combined relevance order.",
)
@waits_for_candidates
def score_exports(context: AssetExecutionContext, store: StoreResource) -> MaterializeResult:
    db = store.get()
    slug = context.partition_key
    with stage_failures(context, db=db):
        return _score_exports(context, db, slug)


def _score_exports(context: AssetExecutionContext, db: DomainStore, slug: str) -> MaterializeResult:
    frame = scores_dataframe(db, slug)
    written = write_exports(frame, results_dir(slug))
    usage_files = write_usage_exports(db, slug, results_dir(slug))
    extra = {**_prisma_metadata(db, slug), **_update_digest_metadata(db, slug, context.run.tags.get(LIVING_TAG))}
    return MaterializeResult(
        metadata={
            "rows": len(frame),
            "dagster/row_count": len(frame),
            **ui.top_papers(frame),
            "not_scored_below_cutoff": int((frame["not_scored"] == BELOW_CUTOFF).sum()),
            "csv": MetadataValue.path(str(written["csv"])),
            "parquet": MetadataValue.path(str(written["parquet"])),
            "xlsx": MetadataValue.path(str(written["xlsx"])),
            "dagster/column_schema": ui.column_schema(frame, COLUMN_DESCRIPTIONS),
            **ui.usage(db, slug),  # the project's LLM calls in all, by stage and model
            "usage_csv": MetadataValue.path(str(usage_files["usage"])),
            "usage_calls_csv": MetadataValue.path(str(usage_files["usage_calls"])),
            # the page a researcher reads: written by related_work at the end of the chain, or `agentr report`
            "report": MetadataValue.path(str(results_dir(slug) / REPORT_FILE)),
            **extra,
        },
        check_results=[checks.evaluate_exports(db, slug, written), checks.evaluate_prisma(db, slug)],
    )


def _prisma_metadata(db: DomainStore, slug: str) -> dict:
    counts, path = write_prisma(db, slug, results_dir(slug))
    return {"prisma_csv": MetadataValue.path(str(path)), "prisma_identified": counts.identified_total,
            "prisma_duplicates_removed": counts.duplicates_removed, "prisma_screened": counts.screened,
            "prisma_unusable_removed": counts.unusable_removed,
            "prisma_excluded_labelled": counts.labelled_excluded, "prisma_included_labelled": counts.labelled_included,
            "prisma_not_yet_screened": counts.not_yet_screened,
            "prisma_scored": counts.scored, "prisma_not_scored": counts.not_scored_total,
            "plot_prisma": ui.plot(plots.prisma_flow(counts, dpi=ui.PLOT_DPI), "PRISMA 2020 flow diagram")}


def _update_digest_metadata(db: DomainStore, slug: str, update_id: str | None) -> dict:
    """A living-review update's digest: what it added, best first (nothing outside an update)."""
    if not update_id:
        return {}
    frame, path = write_update_digest(db, slug, update_id, results_dir(slug))
    top = frame.head(10)[["rank", "title", "c1_score", "c2_score", "found_by"]]
    return {"update": update_id, "update_new_papers": len(frame), "update_digest_csv": MetadataValue.path(str(path)),
            "update_top_new": MetadataValue.md(top.to_markdown(index=False) if len(top) else "(nothing new)")}


project_assets = [research_intent, search_queries, candidate_papers, relevance, paper_scores, score_exports]
