"""Citation chasing as an asset materialised on request (the UI, `agentr snowball`), not by the project chain:
it widens the review, and its new candidates are scored by the next `paper_scores` materialisation."""

from dagster import AssetExecutionContext, Config, MaterializeResult, MetadataValue, asset
from pydantic import Field

from agentr_dagster.defs.assets.project import paper_scores, project_lease
from agentr_dagster.defs.failures import stage_failures
from agentr_dagster.defs.partitions import projects
from agentr_dagster.defs.resources import SourcesResource, StoreResource
from agentr_dagster.defs.waiting import waits_for_candidates
from agentr_dagster.stages.snowball import DEFAULT_TOP, snowball_project

NEEDS_OPENALEX = ("citation chasing asks OpenAlex: add openalex to AGENTR_SOURCES (and AGENTR_OPENALEX_URL for a "
                  "mirror), then materialise snowball again")


class SnowballConfig(Config):
    top: int = Field(default=DEFAULT_TOP, ge=1, le=500, description="seeds: included papers plus the top-ranked")
    refresh: bool = Field(default=False, description="chase seeds chased before again, bypassing the cache")


@asset(
    partitions_def=projects,
    deps=[paper_scores],
    group_name="expansion",
    output_required=False,  # a project without candidates: waits for them (see defs/waiting.py)
    description="Snowballing: the references and the citing works (OpenAlex) of the project's included or top-ranked "
    "papers become candidates (`found_by` `backward:<paper>` / `forward:<paper>`). Needs openalex in AGENTR_SOURCES; "
    "re-materialise paper_scores to score what it adds.",
)
@waits_for_candidates
def snowball(context: AssetExecutionContext, config: SnowballConfig, store: StoreResource,
             sources: SourcesResource) -> MaterializeResult:
    if "openalex" not in sources.enabled():
        # Not an error of the run: the UI's "Materialize all" includes this asset, and offline (the default) it
        # has nothing to ask. Its page says so and what to do; the run that also carries the chain stays green.
        context.log.warning(f"snowball: {NEEDS_OPENALEX}")
        return MaterializeResult(metadata={"status": "not run: no citation source", "next": NEEDS_OPENALEX,
                                           "new_papers": 0})
    db = store.get()
    openalex = sources.build(db, refresh=config.refresh, names=["openalex"]).by_name("openalex")
    with stage_failures(context, db=db), project_lease(context, db):
        summary = snowball_project(db, context.partition_key, openalex, top=config.top, refresh=config.refresh,
                                   run_id=context.run_id, progress=context.log.info)
    return MaterializeResult(metadata={**summary.metadata(), "chases": MetadataValue.md(summary.markdown())})


expansion_assets = [snowball]
