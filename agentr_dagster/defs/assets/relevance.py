"""The `relevance` asset: every candidate ranked by the screening engine (between candidate_papers and
paper_scores). Thin: the stage (`stages/relevance.py`) ranks and stores; this reports what it did. Its code
version is the engine's version, so a change to a ranker marks every project's relevance stale."""

import time
from typing import Any

from dagster import (
    AssetExecutionContext,
    DataVersion,
    MaterializeResult,
    MetadataValue,
    TableColumn,
    TableRecord,
    TableSchema,
    asset,
)

from agentr_dagster.defs import checks
from agentr_dagster.defs.failures import stage_failures
from agentr_dagster.defs.partitions import projects
from agentr_dagster.defs.resources import StoreResource
from agentr_dagster.defs.waiting import waits_for_candidates
from agentr_dagster.domain.progress import reporting_to
from agentr_dagster.screening.version import engine_version
from agentr_dagster.stages.relevance import rank_project
from agentr_dagster.synthesis import plots

PLOT_DPI = 72  # metadata lives in the event log: keep the image small
MAX_LABELLED_LISTED = 50  # the labelled papers shown, in rank order (`agentr labels SLUG` lists them all)
TOP_SCHEMA = TableSchema(columns=[
    TableColumn("rank", "int"), TableColumn("paper_id", "int"),
    TableColumn("source_id", "string",
                description="the record's id in your own file (`agentr label SLUG source:ID` takes it)"),
    TableColumn("p_include", "float", description="calibrated probability of inclusion (0-1; a label's is 1/0); "
                "falls strictly down the ranking, which orders this table"),
    TableColumn("label", "string"), TableColumn("title", "string"),
    TableColumn("why", "string", description="the question's key phrases the paper names (abbreviations, plurals "
                "and spellings matched) and, with labels, the nearest labelled include by embedding"),
])


def _number(value: float | None) -> MetadataValue:
    return MetadataValue.null() if value is None else MetadataValue.float(value)


def _records(frame) -> list[TableRecord]:
    rows = frame.to_dict("records") if frame is not None else []
    return [TableRecord({k: (v.item() if hasattr(v, "item") else v) for k, v in row.items()}) for row in rows]


@asset(
    partitions_def=projects,
    deps=["candidate_papers"],
    code_version=engine_version(),
    group_name="research",
    check_specs=[checks.RELEVANCE_CHECK],
    output_required=False,  # a project without candidates: waits for them (see defs/waiting.py)
    description="Every candidate's rank and calibrated probability of inclusion from the screening engine (the "
                "one behind `agentr screen`): zero-shot from the project's abstract, learning from its labels when "
                "it has any (then also how far the re-rank moved from the question's own order: "
                "`versus_zero_shot`); and how many includes the list holds, with an interval.",
)
@waits_for_candidates
def relevance(context: AssetExecutionContext, store: StoreResource) -> MaterializeResult:
    db = store.get()
    slug = context.partition_key
    started = time.monotonic()
    context.log.info(f"ranking the {db.projects.count_papers(slug):,} candidates of {slug}")
    # the embedding of new texts (minutes for thousands) writes counts to the run's log as it goes
    with stage_failures(context, db=db), reporting_to(context.log.info):  # no retry: nothing transient to retry
        outcome = rank_project(db, slug, run_id=context.run_id)
    context.log.info(f"ranked {outcome.papers:,} papers ({outcome.method}"
                     + (", reused the stored ranking" if outcome.reused else "")
                     + f") in {time.monotonic() - started:.0f} s")
    png = plots.relevance_distribution(outcome.scores, outcome.labels, dpi=PLOT_DPI)
    top, labelled = _records(outcome.top), _records(outcome.labelled)
    estimate = outcome.estimate
    counts = ({"estimated_relevant": estimate.estimate, "estimated_relevant_low": estimate.low,
               "estimated_relevant_high": estimate.high} if estimate is not None else {})
    # with labels: how far the re-rank moved from the question's own order, on the papers left to screen
    moved: dict[str, Any] = {}
    versus = outcome.versus_zero_shot
    if versus is not None:
        context.log.info(versus.sentence)
        moved = {"versus_zero_shot": versus.sentence, "versus_zero_shot_top_k": versus.top_k,
                 "versus_zero_shot_overlap": versus.overlap, "versus_zero_shot_caution": versus.caution,
                 "versus_zero_shot_spearman": _number(versus.spearman),
                 "versus_zero_shot_prior_weight": _number(versus.prior_weight)}
    return MaterializeResult(
        metadata={
            "papers": outcome.papers,
            "method": outcome.method,
            "engine_version": outcome.engine_version,
            "labels_used": outcome.includes_used + outcome.excludes_used,
            "labels_include": outcome.includes_used,
            "labels_exclude": outcome.excludes_used,
            # the seed studies learnt from as includes; among the candidates / trained on from outside them
            "seeds_used": outcome.seeds_used,
            "seeds_matched": outcome.seeds_matched,
            "seeds_outside": outcome.seeds_outside,
            "estimated_includes": outcome.estimate_text,
            **counts,
            **moved,
            "scale": "p_include = calibrated probability of inclusion, 0-1 (a prior fitted on 18 labelled reviews, "
                     "calibrated over reviews, not per review; with labels the engine re-learns the order and each "
                     "unlabelled paper gets the prior at its place among the unlabelled papers, shifted by how "
                     "many includes the labels found against the prior's expectation; a labelled paper's is its "
                     "label, 1 or 0)",
            "reused": outcome.reused,
            "plot_relevance": MetadataValue.md(f"![relevance distribution]({plots.data_uri(png)})"),
            # what to screen next comes first; the papers already decided are apart, below
            "top_unlabelled": MetadataValue.table(top, schema=TOP_SCHEMA),
            "labelled": MetadataValue.table(labelled[:MAX_LABELLED_LISTED], schema=TOP_SCHEMA),
        },
        data_version=DataVersion(outcome.input_hash[:16]),
        check_results=[checks.evaluate_relevance(db, slug, outcome.engine_version)],
    )
