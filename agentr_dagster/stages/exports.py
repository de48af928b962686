"""Score exports as pandas tables: CSV, Parquet and XLSX, safe to open in a spreadsheet."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd

from agentr_dagster.domain.atomic import write_atomically
from agentr_dagster.domain.hashing import score_cache_key
from agentr_dagster.domain.injection import check_paper
from agentr_dagster.stages.intent import current_intent
from agentr_dagster.stages.search import paper_found_by

if TYPE_CHECKING:
    from agentr_dagster.store import DomainStore

FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")
FORMATS = ("csv", "parquet", "xlsx")

COLUMNS = [
    "rank", "paper_id", "title", "year", "doi", "venue", "authors", "semantic_similarity", "c1_score",
    "c2_score", "c2_contribution_type", "overlap_problem", "overlap_method", "overlap_domain",
    "overlap_constraint", "c1_justification", "c2_justification", "c2_relevance_areas", "research_gaps",
    "user_novelty", "candidate_advantage", "backend", "model", "prompt_version", "source_format",
    "source_file", "found_by", "injection_flag", "injection_reasons",
]


def scores_dataframe(store: DomainStore, slug: str) -> pd.DataFrame:
    """One row per active paper with a current score, best direct competitors first."""
    artifact = store.results.latest_artifact(slug, "intent")
    papers = {p.id: p for p in store.projects.list_papers(slug)}
    rows = []
    if artifact is not None and papers:
        _, intent_hash = current_intent(store, slug)
        results = store.results.results_for_project(slug)
        sightings = store.searches.found_by(slug)
        for result in results:
            paper = papers.get(result.paper_id)
            if paper is None:
                continue
            if result.cache_key != score_cache_key(paper.content_hash, intent_hash, result.model):
                continue  # a score for an older intent or paper text is not current
            a = result.payload
            rows.append({
                "paper_id": paper.id,
                "title": paper.title,
                "year": paper.year,
                "doi": paper.doi,
                "venue": paper.venue,
                "authors": "; ".join(paper.authors or []),
                "semantic_similarity": a["semantic_similarity"],
                "c1_score": a["c1_direct_competitor"]["score"],
                "c2_score": a["c2_supporting_work"]["score"],
                "c2_contribution_type": a["c2_supporting_work"]["contribution_type"],
                "overlap_problem": a["overlap"]["problem"],
                "overlap_method": a["overlap"]["method"],
                "overlap_domain": a["overlap"]["domain"],
                "overlap_constraint": a["overlap"]["constraint"],
                "c1_justification": a["c1_direct_competitor"]["justification"],
                "c2_justification": a["c2_supporting_work"]["justification"],
                "c2_relevance_areas": "; ".join(a["c2_supporting_work"].get("relevance_areas", [])),
                "research_gaps": " | ".join(a["research_gaps"]),
                "user_novelty": a["user_novelty"],
                "candidate_advantage": a["candidate_advantage"],
                "backend": result.backend,
                "model": result.model,
                "prompt_version": result.prompt_version,
                "source_format": (paper.provenance or {}).get("format"),
                "source_file": (paper.provenance or {}).get("file"),
                "found_by": "; ".join(paper_found_by(paper.provenance, sightings.get(paper.id, []))),
                # text in the paper that tries to steer the scoring model (a flag to read, not a verdict)
                "injection_flag": (injection := check_paper(paper.title, paper.abstract)).flagged,
                "injection_reasons": injection.summary(),
            })
    frame = pd.DataFrame(rows, columns=[c for c in COLUMNS if c != "rank"])
    frame = frame.sort_values(
        ["c1_score", "semantic_similarity", "c2_score", "paper_id"], ascending=[False, False, False, True]
    ).reset_index(drop=True)
    frame.insert(0, "rank", range(1, len(frame) + 1))
    frame["year"] = frame["year"].astype("Int64")
    return frame


def neutralise_cell(value):
    """Prefix text a spreadsheet would run as a formula with a quote (OWASP CSV injection advice)."""
    if isinstance(value, str) and value.startswith(FORMULA_PREFIXES):
        return "'" + value
    return value


def spreadsheet_safe(frame: pd.DataFrame) -> pd.DataFrame:
    safe = frame.copy()
    for column in safe.columns:
        if safe[column].dtype == object or pd.api.types.is_string_dtype(safe[column]):
            safe[column] = safe[column].map(neutralise_cell)
    return safe


def _write_one(frame: pd.DataFrame, fmt: str, tmp: Path) -> None:
    if fmt == "csv":
        spreadsheet_safe(frame).to_csv(tmp, index=False)
    elif fmt == "xlsx":
        spreadsheet_safe(frame).to_excel(tmp, index=False, engine="openpyxl")
    else:
        frame.to_parquet(tmp, index=False)


def write_exports(frame: pd.DataFrame, out_dir: Path, formats=FORMATS, stem: str = "scores") -> dict[str, Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    written: dict[str, Path] = {}
    for fmt in formats:
        if fmt not in FORMATS:
            raise ValueError(f"unknown export format {fmt!r}; choose from {', '.join(FORMATS)}")
        path = out_dir / f"{stem}.{fmt}"
        # readers never see a half-written export; concurrent writers never share a temporary file
        written[fmt] = write_atomically(path, lambda tmp, fmt=fmt: _write_one(frame, fmt, tmp))
    return written


def write_usage_exports(store: DomainStore, slug: str, out_dir: Path) -> dict[str, Path]:
    """``usage.csv`` (by stage, model and day: calls, tokens, USD, credits) and ``usage_calls.csv`` (one row per
    call with the price and multiplier rows it was charged at), money as exact decimal strings."""
    from agentr_dagster.stages.usage import aggregate, usage_calls_frame

    calls = usage_calls_frame(store, slug)
    frames = {"usage": aggregate(calls), "usage_calls": calls}
    out_dir.mkdir(parents=True, exist_ok=True)
    written: dict[str, Path] = {}
    for stem, frame in frames.items():
        path = out_dir / f"{stem}.csv"
        written[stem] = write_atomically(path, lambda tmp, frame=frame: _write_one(frame, "csv", tmp))
    return written
