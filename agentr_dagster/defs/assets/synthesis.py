"""Synthesis as project-partitioned assets. Thin: each calls one function of agentr_dagster.synthesis, turns
failure classes into Dagster failures, and shows plots, tables and checks as metadata."""

import textwrap

import pandas as pd
from dagster import (
    AssetExecutionContext,
    DataVersion,
    MaterializeResult,
    MetadataValue,
    asset,
)

from agentr_dagster.defs import metadata as ui
from agentr_dagster.defs.assets.project import LLM_RETRY, llm_step, paper_scores, projects
from agentr_dagster.defs.checks import DRAFT_CHECK, TAXONOMY_CHECK, evaluate_draft, evaluate_taxonomy
from agentr_dagster.defs.failures import stage_failures
from agentr_dagster.defs.resources import LLMResource, StoreResource
from agentr_dagster.defs.waiting import waits_for_candidates
from agentr_dagster.domain.prompts import prompt_version
from agentr_dagster.llm.backends import LLMStageBackend
from agentr_dagster.settings import results_dir
from agentr_dagster.stages.report import write_report
from agentr_dagster.stages.synthesis import DRAFT_STAGE, run_landscape, run_related_work
from agentr_dagster.store import DomainStore
from agentr_dagster.synthesis import plots
from agentr_dagster.synthesis.draft import DRAFT_VERSION
from agentr_dagster.synthesis.landscape import SYNTHESIS_VERSION
from agentr_dagster.synthesis.redraft import STAGE as REDRAFT_STAGE
from agentr_dagster.synthesis.redraft import GatewayParagraphWriter

COMPETITOR_COLUMNS = {
    "rank": "position among the direct competitors",
    "key": "the paper's citation key in the related-work draft",
    "C1": "direct competitor, 0-10",
    "title": "the paper's title (shortened)",
}


@asset(
    partitions_def=projects,
    deps=[paper_scores],
    code_version=SYNTHESIS_VERSION,
    group_name="research",
    check_specs=[TAXONOMY_CHECK],
    output_required=False,  # a project without candidates: waits for them (see defs/waiting.py)
    description="Ranked direct competitors (C1), supporting work by type (C2), recurring gaps and a taxonomy of "
    "the candidates with paper-to-section routing; every claim with evidence pointers.",
)
@waits_for_candidates
def research_landscape(context: AssetExecutionContext, store: StoreResource) -> MaterializeResult:
    db = store.get()
    with stage_failures(context, db=db):
        outcome = run_landscape(db, context.partition_key, run_id=context.run_id)
    land = outcome.landscape
    figures = plots.landscape_plots(land, dpi=ui.PLOT_DPI)
    competitors = pd.DataFrame(
        [{"rank": c.rank, "key": c.key, "C1": round(c.c1, 1),
          "title": textwrap.shorten(land.paper(c.paper_id).title, ui.TITLE_CHARS, placeholder=" ...")}
         for c in land.competitors[:10]], columns=list(COMPETITOR_COLUMNS))
    taxonomy = "\n".join(
        f"{'  ' * land.taxonomy.depth(n.id)}- **{n.label}** ({n.kind}, {len(land.taxonomy.subtree_papers(n.id))})"
        for n in land.taxonomy.preorder()
    )
    heuristic = land.backend == "offline"
    return MaterializeResult(
        metadata={  # what the scores are, counts, the competitors as a table, the gaps and taxonomy, the plots
            **({"judgements": "offline heuristics (facet overlap with your abstract), not a language model's "
                              "reading: C1 (competitor) and C2 (supporting) are heuristics, not findings; your "
                              "labels come first"}
               if heuristic else {}),
            "papers": land.n_papers,
            "discussed": sum(p.included for p in land.papers),
            "discussed_basis": str(land.settings.get("selection", "")) + (
                f": expected includes {float(land.settings['expected_includes']):.1f}"
                if land.settings.get("expected_includes") is not None else ""),
            "direct_competitors": len(land.competitors),
            "supporting": sum(len(g.papers) for g in land.supporting),
            "gap_clusters": len(land.gap_clusters),
            "claims": len(land.claims),
            "top_competitors": ui.table(competitors, {**COMPETITOR_COLUMNS, "C1": "direct competitor, 0-10 (offline: "
                                                      "a heuristic; a labelled include is listed first)"}
                                        if heuristic else COMPETITOR_COLUMNS) if len(competitors) else "(none)",
            "gaps": MetadataValue.md("\n".join(
                f"1. **{len(g.papers)} papers** — {g.representative} (`{g.id}`)" for g in land.gap_clusters)
                or "(none)"),
            "taxonomy": MetadataValue.md(taxonomy),
            "plot_c1_vs_c2": ui.plot(figures["c1_vs_c2"], "C1 vs C2"),
            "plot_similarity": ui.plot(figures["similarity"], "similarity distribution"),
            "plot_overlap": ui.plot(figures["overlap"], "overlap heat map"),
            "plot_gaps": ui.plot(figures["gaps"], "gap clusters"),
            "plot_taxonomy": ui.plot(figures["taxonomy"], "taxonomy"),
            "artifact_id": outcome.artifact_id,
            "reused": outcome.reused,
        },
        data_version=DataVersion(str(outcome.artifact_id)),
        check_results=[evaluate_taxonomy(db, context.partition_key)],
    )


@asset(
    partitions_def=projects,
    deps=[research_landscape],
    code_version=f"{DRAFT_VERSION}|{prompt_version(REDRAFT_STAGE)}",
    group_name="research",
    retry_policy=LLM_RETRY,
    pool="llm",
    check_specs=[DRAFT_CHECK],
    output_required=False,
    description="A related-work draft (Markdown, LaTeX, BibTeX), one section per taxonomy node, citing only the "
    "project's papers and checked by a deterministic validator (an invalid draft is stored with a warning and fails "
    "its check, not the run); re-drafted paragraph by paragraph with an LLM.",
)
@waits_for_candidates
def related_work(context: AssetExecutionContext, store: StoreResource, llm: LLMResource) -> MaterializeResult:
    db = store.get()
    slug = context.partition_key
    backend = llm.backend(db)
    writer = GatewayParagraphWriter(backend.gateway) if isinstance(backend, LLMStageBackend) else None
    with llm_step(context, db, DRAFT_STAGE, backend):  # it pays for paragraph rewrites: the paid steps' guards
        outcome = run_related_work(
            db, slug, writer=writer, run_id=context.run_id, out_dir=results_dir(slug),
            on_error=lambda exc: context.log.warning(f"paragraph rewrites stopped: {exc.failure_class.value}: "
                                                     f"{exc.message}"),
        )
    draft, report = outcome.draft, outcome.report
    origins: dict[str, int] = {}
    for paragraph in draft.paragraphs():
        origins[paragraph.origin] = origins.get(paragraph.origin, 0) + 1
    # The check judges what was stored, not this process's copy: an invalid draft degrades the asset (ERROR
    # check, warning in the files) instead of failing the run that also carries the scores and exports.
    draft_check = evaluate_draft(db, slug)
    if not draft_check.passed:
        context.log.warning(f"related_work: the draft fails validation ({draft_check.description}); stored as "
                            "invalid, the files carry a warning; see the draft_validates check")
    if outcome.partial:
        context.log.warning(outcome.partial)  # "partial: ..." (the step's name is shown beside it)
    page = _write_report(context, db, slug)
    return MaterializeResult(
        metadata={
            "status": outcome.partial or ("complete" if draft_check.passed else "stored as invalid"),
            "artifact_id": outcome.artifact_id,
            "reused": outcome.reused,
            "valid": draft_check.passed,
            "writer": outcome.writer,
            "sections": report.sections,
            "paragraphs": report.paragraphs,
            "sentences": report.sentences,
            "claims": report.claims,
            "citations": report.citations,
            "papers_cited": len(report.keys_cited),
            **{f"paragraphs_{k.replace('-', '_')}": n for k, n in sorted(origins.items())},
            "markdown": MetadataValue.path(str(outcome.files["md"])),
            "latex": MetadataValue.path(str(outcome.files["tex"])),
            "bibtex": MetadataValue.path(str(outcome.files["bib"])),
            "evidence": MetadataValue.path(str(outcome.files["evidence"])),
            **page,
            "preview": MetadataValue.md(outcome.markdown.split("---", 2)[-1][:6000]),
        },
        data_version=DataVersion(str(outcome.artifact_id)),
        check_results=[draft_check],
    )


def _write_report(context: AssetExecutionContext, db: DomainStore, slug: str) -> dict:
    """The HTML report of the finished chain, linked from the metadata (a report that cannot be written is a
    warning: the draft and its files stand)."""
    try:
        path = write_report(db, slug)
    except Exception as exc:  # noqa: BLE001 - the report is a view of what is stored; never fails the draft
        context.log.warning(f"related_work: the HTML report was not written ({type(exc).__name__}: {exc}); "
                            f"`agentr report {slug}` writes it")
        return {"report": f"not written ({type(exc).__name__}); `agentr report {slug}` writes it"}
    return {"report": MetadataValue.path(str(path)), "report_url": MetadataValue.url(path.resolve().as_uri())}


synthesis_assets = [research_landscape, related_work]
