"""Score exports as pandas tables: CSV, Parquet and XLSX, safe to open in a spreadsheet."""

from __future__ import annotations

from functools import partial
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
    from agentr_dagster.store.rows import PaperRow, ResultRow

FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")
FORMATS = ("csv", "parquet", "xlsx")

COLUMNS = [
    "rank", "paper_id", "source_id", "title", "year", "doi", "venue", "authors", "relevance", "relevance_low_info",
    "why", "order_source", "llm_judgement", "rank_percentile", "relevance_rank", "not_scored", "label",
    "labelled_at",
    "semantic_similarity", "c1_score",
    "c2_score", "c2_contribution_type", "overlap_problem", "overlap_method", "overlap_domain",
    "overlap_constraint", "c1_justification", "c2_justification", "c2_relevance_areas", "research_gaps",
    "user_novelty", "candidate_advantage", "backend", "model", "prompt_version", "source_format",
    "source_file", "found_by", "injection_flag", "injection_reasons",
]
BELOW_CUTOFF = "below cut-off"  # never sent to the model: the scoring plan stopped before it
NOT_YET = "not scored yet"  # no current score (not run yet, or its call failed: see `agentr failures`)

#: What each export column holds (the `score_exports` column schema in the UI; a test keeps it complete).
COLUMN_DESCRIPTIONS: dict[str, str] = {
    "rank": "position in the export, best first: the screening engine's order (the `relevance` asset's, the same "
            "as `agentr screen` on the same papers); where an LLM scored papers, by `llm_judgement`",
    "paper_id": "the paper's id in the domain store",
    "source_id": "the record's id in your own file (joins the table back to your spreadsheet)",
    "relevance": "calibrated probability of inclusion, 0-1 (the `relevance` asset's p_include): zero-shot, a prior "
                 "fitted on 18 labelled reviews (calibrated over reviews, not per review); with your labels, "
                 "the same prior at the paper's place among the unlabelled papers in the re-learnt order, "
                 "shifted up or down by how many includes your labels found against the prior's expectation; a "
                 "labelled paper's is its label (1 include, 0 exclude)",
    "relevance_low_info": "true while the project has no labels and no seed studies: `relevance` is the zero-shot "
                          "prior (a review whose share of includes differs from those reviews' reads too high or too "
                          "low)",
    "why": "why the paper ranks where it does, for a reader: the question's key phrases its title and abstract "
           "name (abbreviations, plurals and spellings matched) and, once you labelled includes, the nearest of "
           "them by embedding",
    "order_source": "what sets the row's place: ranker (the engine's order) or llm (the model's judgement)",
    "llm_judgement": "the LLM's judgement, 0-1 (mean of its similarity and stronger criterion score / 10; not a "
                     "probability), the engine's order mapped onto it for papers it did not score; empty offline",
    "rank_percentile": "the paper's place in the engine's order as the share of the list at or below it (1 = top); "
                       "a rank, not a probability",
    "relevance_rank": "the paper's rank in the screening engine's order (1 = most relevant)",
    "not_scored": "empty when scored; 'below cut-off' when the scoring plan stopped before it; 'not scored yet'",
    "label": "your screening decision on the paper (include or exclude; empty when not labelled): `agentr label`, "
             "`agentr labels --import` or a labels file in the drop folder",
    "labelled_at": "when that decision was last given or changed (UTC)",
    "title": "the paper's title as imported",
    "year": "publication year, when the source gave one",
    "doi": "DOI, when the source gave one",
    "venue": "journal, conference or source name",
    "authors": "authors, separated by '; '",
    "semantic_similarity": "similarity of the paper to the project's abstract, 0-1, from the scoring backend: an "
                           "LLM's judgement, or with backend offline a heuristic (lexical and embedding overlap)",
    "c1_score": "C1 direct competitor, 0-10 (AgentR rubric: same problem and same method scores highest); with "
                "backend offline a heuristic from facet overlap, not a judgement",
    "c2_score": "C2 supporting work, 0-10: how much the paper helps the planned work without competing; with "
                "backend offline a heuristic, not a judgement",
    "c2_contribution_type": "what the paper contributes as supporting work (methodology, problem context, ...)",
    "overlap_problem": "overlap with the project's problem: none, low, medium or high",
    "overlap_method": "overlap with the project's methods: none, low, medium or high",
    "overlap_domain": "overlap with the project's application domains: none, low, medium or high",
    "overlap_constraint": "overlap with the project's constraints: none, low, medium or high",
    "c1_justification": "why the C1 score: the rubric band and the evidence",
    "c2_justification": "why the C2 score and contribution type",
    "c2_relevance_areas": "the facets in which the paper supports the project, separated by '; '",
    "research_gaps": "what the paper leaves open relative to the project, separated by ' | ' (offline backend: "
                     "heuristic, from facets the abstract does not match)",
    "user_novelty": "what the project adds relative to this paper",
    "candidate_advantage": "what this paper covers that the project's abstract does not",
    "backend": "which backend scored it: offline (heuristics) or llm",
    "model": "the model (or offline method) that scored it",
    "prompt_version": "the scoring prompt's version (file version + content hash)",
    "source_format": "the import format the paper came from (csv, bibtex, ris, lake, ...)",
    "source_file": "the file the paper was imported from",
    "found_by": "every source and query that found the paper, separated by '; ' (import:file, lake:<query>, "
                "openalex:string-03, backward:<paper>, forward:<paper>, ...)",
    "injection_flag": "true when the paper's text looks like an instruction to the scoring model",
    "injection_reasons": "why it was flagged (a flag to read, not a verdict)",
}


def scores_dataframe(store: DomainStore, slug: str) -> pd.DataFrame:
    """One row per active paper, best first.

    ``relevance`` (0-1) is the calibrated probability of inclusion the ``relevance`` asset stored
    (:mod:`agentr_dagster.screening.calibration`): the same number in the asset, the export and the report.
    Without LLM scores the rows are in the engine's order (``relevance_rank``: the order ``agentr screen`` gives
    the same papers). Where an LLM scored papers, the order is ``llm_judgement``: the model's judgement
    (:func:`~agentr_dagster.stages.relevance.judged_relevance`) where it scored the paper, the engine's order
    mapped onto that scale elsewhere (see :func:`combined_relevance`); ``order_source`` says which
    (``llm`` | ``ranker``). Papers the model never saw have empty score columns and ``not_scored`` =
    ``below cut-off`` (the scoring plan stopped before them) or ``not scored yet``. Offline rows carry the
    offline backend's heuristics (``backend`` = offline). ``source_id`` is the record's id in the user's own file.
    """
    from agentr_dagster.stages.relevance import (
        current_relevance,
        judged_relevance,
        reasons,
        relevance_question,
        seed_evidence,
    )
    from agentr_dagster.stages.scoring import below_cutoff_ids, queue_scores

    artifact = store.results.latest_artifact(slug, "intent")
    papers = {p.id: p for p in store.projects.list_papers(slug)}
    intent_hash = current_intent(store, slug)[1] if artifact is not None else None
    current: dict[int, ResultRow] = {}  # paper id -> its newest current result
    below: set[int] = set()
    if intent_hash is not None and papers:
        current = _current_results(store, slug, papers, intent_hash)
        below = below_cutoff_ids(store, slug, intent_hash, None)
    sightings = store.searches.found_by(slug) if papers else {}
    decisions = {row.paper_id: row for row in store.labels.list_labels(slug)} if papers else {}
    stored = current_relevance(store, slug)
    # labels or seed studies: the ranking learnt from includes (the seeds count as includes, see rank_project)
    seeds = seed_evidence(store, slug, list(papers.values())) if papers else None
    labelled = bool(decisions or (seeds and (seeds.matched or seeds.outside)))
    # the engine's order as a score (higher = better): the stored rank, or the re-ranked queue's scores
    ranker_raw = {pid: -float(row.rank) for pid, row in stored.items()}
    ranker_raw.update(queue_scores(store, slug, intent_hash) if intent_hash is not None else {})
    ids = list(papers)
    judged = {pid: judged_relevance(r.payload) for pid, r in current.items() if r.backend == "llm"}
    percentile, combined = combined_relevance(ids, ranker_raw, judged)
    why = reasons(relevance_question(store, slug), list(papers.values()),
                  include_texts={pid: f"{papers[pid].title}. {papers[pid].abstract or ''}"
                                 for pid, row in decisions.items() if row.label == "include" and pid in papers})
    rows = []
    for pid in ids:
        paper = papers[pid]
        result = current.get(pid)
        row = _paper_columns(paper, sightings.get(paper.id, []))
        row.update({
            "relevance": stored[pid].score if pid in stored else None,
            "relevance_low_info": (not labelled) if pid in stored else None,
            "why": why.get(pid, ""),
            "order_source": "llm" if pid in judged else ("ranker" if pid in percentile else None),
            "llm_judgement": combined.get(pid) if judged else None,
            "rank_percentile": percentile.get(pid),
            "relevance_rank": stored[pid].rank if pid in stored else None,
            "not_scored": "" if result is not None else (BELOW_CUTOFF if pid in below else NOT_YET),
            "label": decisions[pid].label if pid in decisions else "",
            "labelled_at": decisions[pid].updated_at if pid in decisions else None,
        })
        if result is not None:
            row.update(_score_columns(result, result.payload["semantic_similarity"]))
        rows.append(row)
    return _ordered_frame(rows, combined, ranker_raw)


def _current_results(store: DomainStore, slug: str, papers: dict[int, PaperRow],
                     intent_hash: str) -> dict[int, ResultRow]:
    """Paper id -> its newest result for the current intent and paper text (a score for an older one is not
    current)."""
    current: dict[int, ResultRow] = {}
    for result in store.results.results_for_project(slug):
        paper = papers.get(result.paper_id)
        if paper is None or result.model is None \
                or result.cache_key != score_cache_key(paper.content_hash, intent_hash, result.model):
            continue
        if result.paper_id not in current or result.id > current[result.paper_id].id:
            current[result.paper_id] = result
    return current


def _paper_columns(paper: PaperRow, sightings: list[str]) -> dict:
    """The export columns that describe the paper itself: bibliography, provenance and the injection flag."""
    injection = check_paper(paper.title, paper.abstract)
    return {
        "paper_id": paper.id,
        "source_id": paper.source_id,
        "title": paper.title,
        "year": paper.year,
        "doi": paper.doi,
        "venue": paper.venue,
        "authors": "; ".join(paper.authors or []),
        "source_format": (paper.provenance or {}).get("format"),
        "source_file": (paper.provenance or {}).get("file"),
        "found_by": "; ".join(paper_found_by(paper.provenance, sightings)),
        # text in the paper that tries to steer the scoring model (a flag to read, not a verdict)
        "injection_flag": injection.flagged,
        "injection_reasons": injection.summary(),
    }


def _score_columns(result: ResultRow, semantic_similarity: float) -> dict:
    """The export columns of a paper's current score (``semantic_similarity`` as the caller chose it)."""
    a = result.payload
    return {
        "semantic_similarity": semantic_similarity,
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
    }


def _ordered_frame(rows: list[dict], combined: dict[int, float], ranker_raw: dict[int, float]) -> pd.DataFrame:
    """The rows as the export table: sorted best first, ranked 1..n, with nullable integer and float columns."""
    frame = pd.DataFrame(rows, columns=[c for c in COLUMNS if c != "rank"])
    if combined:  # the combined order (the engine's alone offline); ties broken by the engine's order, then the id
        frame["_key"] = frame["paper_id"].map(combined)
        frame["_raw"] = frame["paper_id"].map(ranker_raw)
        frame = frame.sort_values(["_key", "_raw", "paper_id"], ascending=[False, False, True],
                                  na_position="last").drop(columns=["_key", "_raw"])
    else:  # the engine has not ranked this project: the model's scores alone
        frame = frame.sort_values(["c1_score", "semantic_similarity", "c2_score", "paper_id"],
                                  ascending=[False, False, False, True], na_position="last")
    frame = frame.reset_index(drop=True)
    frame.insert(0, "rank", range(1, len(frame) + 1))
    frame["year"] = frame["year"].astype("Int64")
    frame["relevance_rank"] = frame["relevance_rank"].astype("Int64")
    frame["labelled_at"] = pd.to_datetime(frame["labelled_at"], utc=True)
    for column in ("relevance", "llm_judgement", "rank_percentile", "semantic_similarity", "c1_score", "c2_score"):
        frame[column] = frame[column].astype("float64")
    frame["relevance_low_info"] = frame["relevance_low_info"].astype("boolean")
    return frame


def combined_relevance(ids: list[int], ranker_raw: dict[int, float],
                       judged: dict[int, float]) -> tuple[dict[int, float], dict[int, float]]:
    """(rank percentile, combined order key) per paper id, both on [0, 1].

    The rank percentile is the paper's position in the engine's order (``ranker_raw``, higher = better) as the
    share of the list at or below it (1 = the top paper): a rank, not a probability. Without judgements the
    order key is that percentile. Where an LLM judged some papers (at least two distinct judgements), the
    ranker's raw scores are mapped onto the LLM's scale by an isotonic (monotone) regression of the judgements
    on those scores, so an unscored paper's key reads as the judgement the model would most likely have given
    it; the key is the judgement where there is one, and that mapped score elsewhere."""
    ranked = [pid for pid in ids if pid in ranker_raw]
    ranker01: dict[int, float] = {}
    if ranked:
        order = sorted(ranked, key=lambda pid: (-ranker_raw[pid], pid))
        n = len(order)
        ranker01 = {pid: round(1.0 - i / n, 6) for i, pid in enumerate(order)}
    combined = dict(ranker01)
    fit = [pid for pid in judged if pid in ranker_raw]
    if len(fit) >= 2 and len({judged[pid] for pid in fit}) >= 2:
        from sklearn.isotonic import IsotonicRegression

        iso = IsotonicRegression(y_min=0.0, y_max=1.0, out_of_bounds="clip")
        iso.fit([ranker_raw[pid] for pid in fit], [judged[pid] for pid in fit])
        rest = [pid for pid in ranked if pid not in judged]
        if rest:
            mapped = iso.predict([ranker_raw[pid] for pid in rest])
            combined.update({pid: round(float(v), 6) for pid, v in zip(rest, mapped, strict=True)})
    combined.update({pid: round(v, 6) for pid, v in judged.items()})
    return ranker01, combined


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
    elif fmt == "xlsx":  # Excel has no time zones: its times are written as UTC
        safe = spreadsheet_safe(frame)
        for column in safe.columns:
            if isinstance(safe[column].dtype, pd.DatetimeTZDtype):
                safe[column] = safe[column].dt.tz_convert("UTC").dt.tz_localize(None)
        safe.to_excel(tmp, index=False, engine="openpyxl")
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
        written[fmt] = write_atomically(path, partial(_write_one, frame, fmt))
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
        written[stem] = write_atomically(path, partial(_write_one, frame, "csv"))
    return written
