"""The project chain's asset checks. Each one re-reads what the stage stored (the domain store, or the export
files) and judges that, not the value the asset just computed, so a check fails when the stored artefact is bad
however it got that way (a hand edit, a contract that changed under a reused artefact, a paper added mid-run).

The specs are declared on the assets (`check_specs=`); the assets emit ``evaluate_*(store, slug, ...)`` as
their check results. A test can call the same functions against a store holding bad data.

Severity: ERROR where the artefact is unusable downstream, WARN where it is usable but degraded. The two ERROR checks
that guard paid work (the intent and the queries, read by every scoring call) are blocking: when one fails, the
steps after it in the run (paper_scores and its calls) do not start, and its description says how to repair.
Counts in a check's metadata are text (`per_partition`): the UI plots a check's numeric metadata across every
partition's executions.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd
from dagster import AssetCheckResult, AssetCheckSeverity, AssetCheckSpec, MetadataValue
from pydantic import BaseModel, ValidationError

from agentr_dagster.defs.metadata import per_partition
from agentr_dagster.domain.boolean_query import BooleanQueryError, parse_boolean_query
from agentr_dagster.domain.contracts import PaperAssessment, ResearchIntent, SearchQueries
from agentr_dagster.domain.hashing import score_cache_key
from agentr_dagster.stages.scoring import below_cutoff_ids
from agentr_dagster.stages.staleness import WAITING_FOR_CANDIDATES, add_papers_hint
from agentr_dagster.stages.synthesis import LANDSCAPE_STAGE, stored_validation
from agentr_dagster.synthesis.models import Landscape
from agentr_dagster.synthesis.taxonomy import check_taxonomy

if TYPE_CHECKING:
    from agentr_dagster.store import DomainStore

INTENT_CHECK = AssetCheckSpec(
    "intent_matches_contract", asset="research_intent", blocking=True,
    description="The stored research intent (latest artefact) validates against the ResearchIntent contract. "
                "Blocking: a failure stops the paid steps after it.",
)
QUERIES_CHECK = AssetCheckSpec(
    "queries_parse_and_count", asset="search_queries", blocking=True,
    description="The stored search queries validate against the SearchQueries contract: the Boolean query "
                "parses, exactly 10 search strings, 10-15 expanded keywords. Blocking: a failure stops the paid "
                "steps after it.",
)
SEED_RECALL_CHECK = AssetCheckSpec(
    "seed_recall", asset="search_queries",
    description="The stored Boolean query's recall on the project's seed studies (given by DOI or title, and the "
                "papers labelled include); WARN below 0.9, with the block losing each missed study and a widened "
                "query. Passes with no seed studies (nothing to check against).",
)


def _repair(stage: str, asset: str, slug: str) -> str:
    return (f"scoring is blocked until it is repaired: materialise {asset} again (`agentr run {slug}`): a stored "
            f"{stage} that fails its contract is asked again, not reused; if the model keeps answering this way, "
            "change AGENTR_LLM_MODEL")


CANDIDATES_CHECK = AssetCheckSpec(
    "has_candidates", asset="candidate_papers",
    description="Counts the project's active candidate papers; none yet is a valid state that warns (WARN: "
                "'waiting for candidates' and how to add papers), not a failure of the run.",
)
SCORES_CHECK = AssetCheckSpec(
    "every_paper_scored", asset="paper_scores",
    description="Every active candidate paper has a stored score for the current intent and model (or was left "
                "below the scoring plan's cut-off), and every stored score validates against the PaperAssessment "
                "contract.",
)
RELEVANCE_CHECK = AssetCheckSpec(
    "every_paper_ranked", asset="relevance",
    description="Every active candidate paper has a stored relevance score and rank from the current screening "
                "engine version, and the ranks are 1..n without gaps (WARN when not).",
)
EXPORTS_CHECK = AssetCheckSpec(
    "export_row_count", asset="score_exports",
    description="The written CSV and Parquet exports, read back, hold one row per active candidate paper.",
)
PRISMA_CHECK = AssetCheckSpec(
    "prisma_boxes_add_up", asset="score_exports",
    description="The PRISMA 2020 counts, recomputed from the store (each import's recorded rows, duplicates and "
                "unusable rows; labels), add up: identified - duplicates - unusable = screened = excluded + included "
                "+ not yet screened = scored + not scored (below cut-off, budget, pending).",
)

TAXONOMY_CHECK = AssetCheckSpec(
    "taxonomy_structure", asset="research_landscape",
    description="The stored landscape's taxonomy, checked again: one root, no cycles, inner nodes with two or more "
                "children, every included paper routed to a theme (WARN when unsound: the draft still follows it).",
)
DRAFT_CHECK = AssetCheckSpec(
    "draft_validates", asset="related_work",
    description="The stored related-work draft passed the deterministic validator (every citation resolves to the "
                "bibliography, no placeholders, LaTeX balanced). An invalid draft is kept with a warning: ERROR.",
)

_MAX_LISTED = 10


def _contract_errors(model: type[BaseModel], payload) -> list[str]:
    try:
        model.model_validate(payload)
    except ValidationError as exc:
        return [f"{'.'.join(str(p) for p in e['loc']) or '(root)'}: {e['msg']}" for e in exc.errors()]
    return []


def _count(payload, field: str) -> int | None:
    value = payload.get(field) if isinstance(payload, dict) else None
    return len(value) if isinstance(value, list) else None


def _missing_artifact(check: AssetCheckSpec, stage: str) -> AssetCheckResult:
    return AssetCheckResult(
        check_name=check.name, passed=False, severity=AssetCheckSeverity.ERROR,
        description=f"no stored {stage} artefact: materialise {check.asset_key.to_user_string()} first",
        metadata=per_partition({"artifact_id": None}),
    )


def evaluate_intent(store: DomainStore, slug: str) -> AssetCheckResult:
    """The stored intent, re-read and validated against the contract."""
    artifact = store.results.latest_artifact(slug, "intent")
    if artifact is None:
        return _missing_artifact(INTENT_CHECK, "intent")
    errors = _contract_errors(ResearchIntent, artifact.payload)
    return AssetCheckResult(
        check_name=INTENT_CHECK.name, passed=not errors, severity=AssetCheckSeverity.ERROR,
        description=(f"the stored intent breaks its contract ({len(errors)} violation(s): "
                     f"{'; '.join(errors[:3])}); {_repair('intent', 'research_intent', slug)}")
        if errors else "the stored intent matches the contract",
        metadata=per_partition({
            "artifact_id": artifact.id,
            "contract_errors": len(errors),
            "errors": MetadataValue.json(errors[:_MAX_LISTED]),
            "seed_keywords": _count(artifact.payload, "seed_keywords"),
        }),
    )


def evaluate_seed_recall(store: DomainStore, slug: str) -> AssetCheckResult:
    """The stored queries, re-read, against the project's seed studies."""
    from agentr_dagster.domain.seed_check import SEED_RECALL_FLOOR
    from agentr_dagster.stages.seeds import seed_report

    queries_artifact = store.results.latest_artifact(slug, "queries")
    if queries_artifact is None:
        return _missing_artifact(SEED_RECALL_CHECK, "queries")
    try:
        queries = SearchQueries.model_validate(queries_artifact.payload)
    except ValidationError:
        return AssetCheckResult(check_name=SEED_RECALL_CHECK.name, passed=False, severity=AssetCheckSeverity.WARN,
                                description="the stored queries do not validate: no seed check")
    intent_artifact = store.results.latest_artifact(slug, "intent")
    try:
        intent = ResearchIntent.model_validate(intent_artifact.payload) if intent_artifact else None
    except ValidationError:
        intent = None
    report, unresolved = seed_report(store, slug, queries, intent)
    passed = report.recall is None or report.recall >= SEED_RECALL_FLOOR
    return AssetCheckResult(
        check_name=SEED_RECALL_CHECK.name, passed=passed, severity=AssetCheckSeverity.WARN,
        description=report.summary() + (f"; {len(unresolved)} seed DOI(s) not among the project's papers"
                                         if unresolved else ""),
        metadata=per_partition({
            "seeds": report.n_seeds,
            "found": report.n_found,
            "recall": "" if report.recall is None else f"{report.recall:.3f}",
            "missed": MetadataValue.json([m.model_dump() for m in report.missed[:_MAX_LISTED]]),
            "widened_query": report.widened_query or "",
            "unresolved_dois": MetadataValue.json(unresolved[:_MAX_LISTED]),
        }),
    )


def evaluate_queries(store: DomainStore, slug: str) -> AssetCheckResult:
    """The stored queries, re-read: the contract, the Boolean query parsed, the lists counted."""
    artifact = store.results.latest_artifact(slug, "queries")
    if artifact is None:
        return _missing_artifact(QUERIES_CHECK, "queries")
    payload = artifact.payload if isinstance(artifact.payload, dict) else {}
    errors = _contract_errors(SearchQueries, artifact.payload)
    boolean_query = payload.get("boolean_query")
    try:
        parse_boolean_query(boolean_query if isinstance(boolean_query, str) else "")
        parses = True
    except BooleanQueryError:
        parses = False
    strings, keywords = _count(payload, "search_strings"), _count(payload, "expanded_keywords")
    counts_ok = strings == 10 and keywords is not None and 10 <= keywords <= 15
    passed = parses and counts_ok and not errors
    return AssetCheckResult(
        check_name=QUERIES_CHECK.name, passed=passed, severity=AssetCheckSeverity.ERROR,
        description="the stored queries parse and count right" if passed else (
            f"the stored queries break their contract: boolean query parses: {parses}; search strings: {strings} "
            f"(want 10); expanded keywords: {keywords} (want 10-15); {len(errors)} contract violation(s)"
            + (f" ({'; '.join(errors[:3])})" if errors else "") + f"; {_repair('queries', 'search_queries', slug)}"),
        metadata=per_partition({
            "artifact_id": artifact.id,
            "boolean_query_parses": parses,
            "search_strings": strings,
            "expanded_keywords": keywords,
            "contract_errors": len(errors),
            "errors": MetadataValue.json(errors[:_MAX_LISTED]),
        }),
    )


def evaluate_candidates(store: DomainStore, slug: str) -> AssetCheckResult:
    """The candidate papers the store holds for the project."""
    papers = store.projects.count_papers(slug)
    # No candidates yet is a valid state (the later assets wait for them): a warning to add papers, and a WARN
    # check never fails the run.
    return AssetCheckResult(
        check_name=CANDIDATES_CHECK.name, passed=papers > 0, severity=AssetCheckSeverity.WARN,
        description=f"{papers} candidate paper(s)" if papers else f"{WAITING_FOR_CANDIDATES}: {add_papers_hint(slug)}",
        metadata=per_partition({"papers": papers, **({} if papers else {"status": WAITING_FOR_CANDIDATES})}),
    )


def evaluate_relevance(store: DomainStore, slug: str, engine_version: str) -> AssetCheckResult:
    """The stored relevance counted against the candidate papers: one row per live paper, from this engine
    version, ranked 1..n."""
    papers = {p.id for p in store.projects.list_papers(slug)}
    rows = store.relevance.for_project(slug)
    ranked = {r.paper_id for r in rows}
    missing = sorted(papers - ranked)
    stale = sorted(r.paper_id for r in rows if r.engine_version != engine_version)
    gaps = sorted(r.rank for r in rows) != list(range(1, len(rows) + 1))
    problems = [text for bad, text in (
        (missing, f"{len(missing)} of {len(papers)} paper(s) have no relevance"),
        (stale, f"{len(stale)} paper(s) ranked by another engine version"),
        (gaps, "the ranks are not 1..n")) if bad]
    return AssetCheckResult(
        check_name=RELEVANCE_CHECK.name, passed=not problems, severity=AssetCheckSeverity.WARN,
        description="; ".join(problems) or f"all {len(papers)} paper(s) ranked by {engine_version}",
        metadata=per_partition({
            "papers": len(papers), "ranked": len(ranked), "missing": len(missing), "stale": len(stale),
            "engine_version": engine_version, "missing_paper_ids": MetadataValue.json(missing[:_MAX_LISTED]),
        }),
    )


def evaluate_scores(store: DomainStore, slug: str, model: str) -> AssetCheckResult:
    """The stored scores counted against the candidate papers: one current score (this paper text, the current
    intent, this model) per paper (WARN when some are missing), each valid (ERROR when one is not)."""
    artifact = store.results.latest_artifact(slug, "intent")
    if artifact is None or artifact.input_hash is None:  # every intent is saved with its input's hash
        return _missing_artifact(SCORES_CHECK, "intent")
    papers = store.projects.list_papers(slug)
    keys = {p.id: score_cache_key(p.content_hash, artifact.input_hash, model) for p in papers}
    results = store.results.results_for_project(slug, cache_keys=keys)
    scored = {r.paper_id for r in results}
    # papers the scoring plan stopped before (stopping rule, budget) are a decision, not a gap
    below = below_cutoff_ids(store, slug, artifact.input_hash, model) - scored
    missing = [p.id for p in papers if p.id not in scored and p.id not in below]
    invalid = [r.paper_id for r in results if _contract_errors(PaperAssessment, r.payload)]
    passed = not missing and not invalid
    problems = []
    if missing:
        problems.append(f"{len(missing)} of {len(papers)} paper(s) have no current score")
    if invalid:
        problems.append(f"{len(invalid)} stored score(s) break the PaperAssessment contract")
    return AssetCheckResult(
        check_name=SCORES_CHECK.name, passed=passed,
        severity=AssetCheckSeverity.ERROR if invalid else AssetCheckSeverity.WARN,
        description="; ".join(problems) or (
            f"{len(scored)} paper(s) scored, {len(below)} below the cut-off" if below
            else f"all {len(papers)} paper(s) scored"),
        metadata=per_partition({
            "papers": len(papers),
            "scored": len(scored),
            "below_cutoff": len(below),
            "missing": len(missing),
            "invalid": len(invalid),
            "model": model,
            "missing_paper_ids": MetadataValue.json(missing[:_MAX_LISTED]),
            "invalid_paper_ids": MetadataValue.json(invalid[:_MAX_LISTED]),
        }),
    )


def _rows_in(path: Path) -> int | None:
    try:
        frame = pd.read_parquet(path) if path.suffix == ".parquet" else pd.read_csv(path)
    except (OSError, ValueError):
        return None
    return len(frame)


def evaluate_exports(store: DomainStore, slug: str, written: dict[str, Path]) -> AssetCheckResult:
    """The CSV and Parquet exports read back from disk, their rows counted against the store's papers: a file
    missing or unreadable is ERROR, fewer (or more) rows than papers is WARN."""
    papers = store.projects.count_papers(slug)
    rows = {fmt: _rows_in(Path(written[fmt])) if fmt in written else None for fmt in ("csv", "parquet")}
    unreadable = sorted(fmt for fmt, n in rows.items() if n is None)
    mismatched = sorted(fmt for fmt, n in rows.items() if n is not None and n != papers)
    passed = not unreadable and not mismatched
    if unreadable:
        description = f"export(s) missing or unreadable: {', '.join(unreadable)}"
    elif mismatched:
        description = f"{', '.join(f'{f}: {rows[f]} rows' for f in mismatched)}; {papers} paper(s)"
    else:
        description = f"{papers} row(s), one per paper"
    return AssetCheckResult(
        check_name=EXPORTS_CHECK.name, passed=passed,
        severity=AssetCheckSeverity.ERROR if unreadable else AssetCheckSeverity.WARN,
        description=description,
        metadata=per_partition({"papers": papers, **{f"{fmt}_rows": n for fmt, n in rows.items()}}),
    )


def evaluate_prisma(store: DomainStore, slug: str) -> AssetCheckResult:
    """The PRISMA boxes recomputed from the store: ERROR when they do not add up."""
    from agentr_dagster.stages.prisma import prisma_counts

    counts = prisma_counts(store, slug)
    problems = counts.problems()
    return AssetCheckResult(
        check_name=PRISMA_CHECK.name, passed=not problems, severity=AssetCheckSeverity.ERROR,
        description="; ".join(problems) or (
            f"{counts.identified_total} identified - {counts.duplicates_removed} duplicates - "
            f"{counts.unusable_removed} unusable = {counts.screened} screened = {counts.labelled_excluded} excluded + "
            f"{counts.labelled_included} included + {counts.not_yet_screened} not yet screened"),
        metadata=per_partition({"identified": counts.identified_total, "duplicates_removed": counts.duplicates_removed,
                                "unusable_removed": counts.unusable_removed, "screened": counts.screened,
                                "excluded": counts.labelled_excluded, "included": counts.labelled_included,
                                "not_yet_screened": counts.not_yet_screened, "scored": counts.scored,
                                **{f"not_scored_{k.replace(' ', '_').replace('-', '')}": v
                                   for k, v in counts.not_scored.items()}}),
    )


project_check_specs = [INTENT_CHECK, QUERIES_CHECK, SEED_RECALL_CHECK, CANDIDATES_CHECK, RELEVANCE_CHECK, SCORES_CHECK,
                       EXPORTS_CHECK, PRISMA_CHECK]


def evaluate_taxonomy(store: DomainStore, slug: str) -> AssetCheckResult:
    """The stored landscape re-read, and its taxonomy checked again from scratch."""
    artifact = store.results.latest_artifact(slug, LANDSCAPE_STAGE)
    if artifact is None:
        return _missing_artifact(TAXONOMY_CHECK, "landscape")
    land = Landscape.model_validate(artifact.payload)
    problems = check_taxonomy(land.taxonomy, sorted(p.paper_id for p in land.papers if p.included))
    return AssetCheckResult(
        check_name=TAXONOMY_CHECK.name, passed=not problems, severity=AssetCheckSeverity.WARN,
        description=f"{len(problems)} structural problem(s) in the taxonomy" if problems else (
            f"the taxonomy is sound: {len(land.taxonomy.nodes)} nodes, every included paper routed"),
        metadata=per_partition({
            "artifact_id": artifact.id, "nodes": len(land.taxonomy.nodes), "problems": len(problems),
            "findings": MetadataValue.md("\n".join(f"- {p}" for p in problems[:_MAX_LISTED]) or "none")}),
    )


def evaluate_draft(store: DomainStore, slug: str) -> AssetCheckResult:
    """The validator's verdict recorded with the stored draft (the draft is stored even when it fails)."""
    verdict = stored_validation(store, slug)
    if verdict is None:
        return _missing_artifact(DRAFT_CHECK, "related-work draft")
    findings = verdict["markdown"]["issues"] + verdict["latex"]["issues"]
    return AssetCheckResult(
        check_name=DRAFT_CHECK.name, passed=bool(verdict["ok"]), severity=AssetCheckSeverity.ERROR,
        description=f"{len(findings)} validator finding(s)" if findings else "the stored draft validates",
        metadata=per_partition({
                  "artifact_id": verdict["artifact_id"], "markdown_issues": len(verdict["markdown"]["issues"]),
                  "latex_issues": len(verdict["latex"]["issues"]),
                  "findings": MetadataValue.md("\n".join(
                      f"- `{i.get('code')}` {str(i.get('message', ''))[:200]}" for i in findings[:20]) or "none")}),
    )
