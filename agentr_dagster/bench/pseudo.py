"""Pseudo-relevance feedback judged in `agentr bench queries --pseudo-seeds K` (issue 32).

The unseeded query is run against the pool (what the search sources return, in the bench the records of every
review); what it matches is ranked zero-shot against the text (:func:`agentr_dagster.screening.screen.screen`, as
the product ranks candidates); the top ``k`` stand in for seed studies
(:func:`agentr_dagster.domain.seed_check.refine_with_pseudo_seeds`). The refined query is judged like the others:
recall of ALL the review's includes (none is given), off-topic share, matches relative to N. ``k`` and the growth
bound are run over a grid and chosen leave-one-review-out (:func:`leave_one_out_pseudo`).
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Sequence
from typing import Any

import pandas as pd

from agentr_dagster.domain.boolean_query import Node, parse_boolean_query
from agentr_dagster.domain.seed_check import SeedStudy, refine_with_pseudo_seeds, top_ranked
from agentr_dagster.screening.presets import STATIC_DEFAULT
from agentr_dagster.screening.screen import screen

#: The pseudo-seed counts and growth bounds run; (0, 0.0): the unrefined query (leave-one-review-out may keep it).
PSEUDO_K_GRID = (5, 10, 20)
PSEUDO_GROWTH_GRID = (1.25, 1.5, 2.0, 3.0)
#: The ranker: the default preset's static half (``STATIC_DEFAULT``, as the run's feedback ranks): the bench ranks
#: up to 3x N records per text, and the transformer encodes ~25 texts/s here.


def run_key(k: int, growth: float) -> str:
    return f"{k}/{growth}"


def rank_matches(text: str, ids: Sequence[int], titles: Sequence[str], abstracts: Sequence[str],
                 embedder: Any = None) -> list[int]:
    """The records ``ids`` (positions in ``titles``/``abstracts``) ranked zero-shot against ``text``, best first."""
    if not ids:
        return []
    df = pd.DataFrame({"record_id": [str(i) for i in ids], "title": [titles[i] for i in ids],
                       "abstract": [abstracts[i] for i in ids]})
    ranking = screen(text, df, embedder=embedder, preset=STATIC_DEFAULT, dedupe=False)
    return [int(r) for r in ranking.sort_values("rank")["record_id"]]


def bench_pseudo(blocks: list[tuple[str, list[str]]], query: str, text: str, pool: Any, owner: str,
                 render: Callable[[list[list[str]]], str], judge: Callable[[str], dict],
                 weigh: Callable[[str], float], count: Callable[[Node], int],
                 generic: Callable[[str], float] | None, off_topic: Callable[[Node], float] | None,
                 relatedness: Any = None, embedder: Any = None, max_k: int = max(PSEUDO_K_GRID),
                 open_blocks: list[int] | None = None) -> dict[str, Any]:
    """One text's query refined by its top-ranked matches over the grid: each run's judged figures and terms."""
    hits = sorted(pool.ids(parse_boolean_query(query))) if query.strip() else []
    ranked = rank_matches(text, hits, pool.titles, pool.abstracts, embedder)
    runs: dict[str, dict] = {run_key(0, 0.0): {**judge(query), "added": {}}}
    for k in PSEUDO_K_GRID:
        if k > max_k:
            continue
        chosen = top_ranked(ranked, k)
        pseudo = [SeedStudy(pool.titles[i], pool.abstracts[i]) for i in chosen]
        own = sum(1 for i in chosen if pool.owners[i] == owner)
        for growth in PSEUDO_GROWTH_GRID:
            refined = refine_with_pseudo_seeds(blocks, pseudo, render, weigh, count, max_growth=growth,
                                               relatedness=relatedness, generic=generic, off_topic=off_topic,
                                               open_blocks=open_blocks)
            runs[run_key(k, growth)] = {**judge(refined.query), "added": refined.added, "own_pseudo": own}
    return {"matched": len(hits), "runs": runs}


def _meets(row: dict) -> bool:
    return ((row.get("recall") or 0.0) >= 0.9 and (row.get("off_topic") or 0.0) <= 0.05
            and (row.get("ratio_n") or 0.0) <= 3.0)


def _mean(values: list[float | None]) -> float | None:
    vals = [v for v in values if v is not None]
    return round(statistics.mean(vals), 4) if vals else None


def _group(rows: list[dict]) -> dict[str, Any]:
    return {"n": len(rows), "recall": _mean([r["recall"] for r in rows]),
            "off_topic": _mean([r["off_topic"] for r in rows]),
            "median_ratio_n": round(statistics.median([r["ratio_n"] or 0.0 for r in rows]), 3) if rows else None,
            "meeting_bars": sum(_meets(r) for r in rows)}


def leave_one_out_pseudo(reviews: list[dict]) -> dict[str, Any] | None:
    """(k, growth) judged leave-one-review-out: for each review, the run under which the most of the other
    reviews meet the three bars (recall >= 0.9, off-topic <= 5 %, <= 3x N), then the best mean recall there,
    then the lower mean off-topic share (the unrefined query is one of the runs) is applied to it. ``reviews``:
    ``name``, ``drug``, ``pseudo`` (:func:`bench_pseudo`)."""
    rows = [r for r in reviews if r.get("pseudo")]
    if len(rows) < 2:
        return None
    keys = list(rows[0]["pseudo"]["runs"])

    def score(key: str, group: list[dict]) -> tuple:
        got = [g["pseudo"]["runs"][key] for g in group]
        return (sum(_meets(x) for x in got), round(_mean([x["recall"] for x in got]) or 0.0, 3),
                -(_mean([x["off_topic"] for x in got]) or 0.0))

    picks: dict[str, str] = {}
    for r in rows:
        others = [o for o in rows if o is not r]
        picks[r["name"]] = max(keys, key=lambda k: score(k, others))
    held = [r["pseudo"]["runs"][picks[r["name"]]] | {"name": r["name"], "drug": r["drug"]} for r in rows]
    base = [r["pseudo"]["runs"][run_key(0, 0.0)] | {"name": r["name"], "drug": r["drug"]} for r in rows]
    out: dict[str, Any] = {"picked": picks, "grid": {}}
    for key in keys:
        got = [r["pseudo"]["runs"][key] for r in rows]
        out["grid"][key] = _group(got)
    for label, pick in (("all", lambda x: True), ("drug", lambda x: x["drug"]), ("non_drug", lambda x: not x["drug"])):
        out[label] = {"unrefined": _group([b for b in base if pick(b)]),
                      "held_out": _group([h for h in held if pick(h)])}
    return out


def pseudo_lines(title: str, loo: dict | None, reviews: list[dict]) -> list[str]:
    """The summary lines of one path (question, or abstract): the grid, the held-out figures by group, and per
    review the unrefined and the held-out refined figures with the terms added."""
    if not loo:
        return []
    lines = [f"pseudo-relevance feedback, {title}: grid k/growth recall/off-topic/meeting bars: " + ", ".join(
        f"{k} {v['recall']}/{v['off_topic']}/{v['meeting_bars']}" for k, v in loo["grid"].items())]
    for group in ("all", "drug", "non_drug"):
        u, h = loo[group]["unrefined"], loo[group]["held_out"]
        lines.append(f"  {group:8} unrefined recall {u['recall']} off {u['off_topic']} median xN {u['median_ratio_n']} "
                     f"bars {u['meeting_bars']}/{u['n']} -> held out recall {h['recall']} off {h['off_topic']} "
                     f"median xN {h['median_ratio_n']} bars {h['meeting_bars']}/{h['n']}")
    for r in reviews:
        if not r.get("pseudo"):
            continue
        key = loo["picked"][r["name"]]
        u, h = r["pseudo"]["runs"][run_key(0, 0.0)], r["pseudo"]["runs"][key]
        added = "; ".join(f"{b}: {', '.join(t)}" for b, t in h.get("added", {}).items())
        lines.append(f"  {r['name'][:32]:32} {u['recall']:.3f}/{100 * (u['off_topic'] or 0):.1f}%/{u['ratio_n']} -> "
                     f"[{key}] {h['recall']:.3f}/{100 * (h['off_topic'] or 0):.1f}%/{h['ratio_n']} {added}")
    return lines
