"""`agentr bench queries DIR`: the generated queries judged on labelled reviews (offline backend).

Each review folder's question goes in as the abstract; the intent and queries come out of the offline backend;
each query is evaluated with the project's own Boolean matcher (:func:`agentr_dagster.domain.boolean_query.matches`)
on the review's own records (title + abstract), which a real search had already retrieved. Per review:

* ``boolean``: the Boolean query's recall of the includes, share of the records it matches, precision;
* ``strings``: the ten search strings (each parsed as a source would: adjacent words AND-ed, function words
  dropped) - their union's recall and share, and how many match no record;
* ``baseline``: the mechanical baseline, an OR of the question's content words;
* ``seeded``: with ``seeds`` includes given as seed studies (drawn with a fixed seed), the recall on the
  *remaining* includes of the Boolean query and of the widened query the seed check proposes, and its share.

The one choice tuned here, how the concept blocks combine into the Boolean query (``QUERY_SHAPE``, one of
``QUERY_SHAPES``), is judged leave-one-review-out: for each review, among the shapes that carry every concept,
the one with the smallest mean share of records on the other reviews whose mean recall there is at least
``TARGET_RECALL`` (none: the best recall) is applied to it; the held-out recalls are reported beside every
fixed shape, and the same choice with the main block alone allowed too. Means are also
given per kind of question (effectiveness / association / descriptive, from the question's wording).
"""

from __future__ import annotations

import random
import re
import statistics
from pathlib import Path
from typing import Any

from agentr_dagster.bench.screening import discover_reviews, load_review
from agentr_dagster.domain.boolean_query import Node, matches, parse_boolean_query
from agentr_dagster.domain.seed_check import SeedStudy, check_query
from agentr_dagster.llm.offline import OfflineBackend
from agentr_dagster.llm.offline.concepts import (
    QUERY_SHAPE,
    QUERY_SHAPES,
    SHAPES_WITH_EVERY_CONCEPT,
    content_words_baseline,
)
from agentr_dagster.llm.offline.queries import concept_boolean_query
from agentr_dagster.sources.translate import query_tree
from agentr_dagster.stages.seeds import embedding_relatedness

TARGET_RECALL = 0.9  # the bar for the mean include recall


def question_kind(question: str) -> str:
    low = question.casefold()
    if re.search(r"\b(effectiveness|efficacy|benefit|(?<!-)harms?|effects? of|does \w+ .*(?:improve|reduce))\b", low):
        return "effectiveness"
    if re.search(r"\b(associated|association|relationship|role|predict\w*|risk factors?|correlat\w*)\b", low):
        return "association"
    return "descriptive"


def _stats(tree: Node | None, texts: list[str], labels: list[int], subset: list[int] | None = None) -> dict:
    idx = subset if subset is not None else list(range(len(texts)))
    hits = [i for i in idx if tree is not None and matches(tree, texts[i])]
    inc = [i for i in idx if labels[i]]
    found = sum(1 for i in hits if labels[i])
    return {
        "recall": round(found / len(inc), 4) if inc else None,
        "share": round(len(hits) / len(idx), 4) if idx else None,
        "precision": round(found / len(hits), 4) if hits else 0.0,
        "matched": len(hits),
    }


def bench_review(folder: Path, backend: OfflineBackend, seeds: int = 5, seed: int = 0) -> dict[str, Any]:
    rv = load_review(folder)
    texts = [f"{t}. {a}" if a and a != "nan" else t for t, a in zip(rv.titles, rv.abstracts, strict=True)]
    labels = [int(v) for v in rv.labels]
    intent = backend.decompose_intent(rv.question)
    queries = backend.generate_queries(intent)
    tree = parse_boolean_query(queries.boolean_query)
    out: dict[str, Any] = {
        "name": rv.name,
        "kind": question_kind(rv.question),
        "n_records": len(texts),
        "n_includes": sum(labels),
        "boolean_query": queries.boolean_query,
        "boolean": _stats(tree, texts, labels),
        "baseline": _stats(parse_boolean_query(content_words_baseline(rv.question)), texts, labels),
    }
    by_shape = {}
    for shape in QUERY_SHAPES:
        q = concept_boolean_query(intent.concepts, shape) if intent.concepts else queries.boolean_query
        by_shape[shape] = {**_stats(parse_boolean_query(q), texts, labels), "chars": len(q)}
    out["by_shape"] = by_shape
    # the ten strings, as a source reads them
    trees = [query_tree(s) for s in queries.search_strings]
    per_string = [{i for i in range(len(texts)) if t is not None and matches(t, texts[i])} for t in trees]
    union = set().union(*per_string)
    inc = [i for i in range(len(texts)) if labels[i]]
    out["strings"] = {
        "union_recall": round(sum(1 for i in union if labels[i]) / len(inc), 4) if inc else None,
        "union_share": round(len(union) / len(texts), 4) if texts else None,
        "matching_nothing": sum(1 for s in per_string if not s),
    }
    if seeds and len(inc) > seeds:
        rng = random.Random(f"{seed}:{rv.name}")
        chosen = sorted(rng.sample(inc, seeds))
        rest = [i for i in range(len(texts)) if i not in set(chosen)]
        studies = [SeedStudy(rv.titles[i], rv.abstracts[i] if rv.abstracts[i] != "nan" else "") for i in chosen]
        names = [c.label for c in intent.concepts if c.required] or None
        report = check_query(queries.boolean_query, studies, names, embedding_relatedness(backend.embedder))
        widened = parse_boolean_query(report.widened_query) if report.widened_query else tree
        out["seeded"] = {
            "seeds": seeds,
            "seed_recall": report.recall,
            "added_terms": report.added_terms,
            "before": _stats(tree, texts, labels, rest),
            "after": _stats(widened, texts, labels, rest),
        }
    return out


def _mean(values: list[float | None]) -> float | None:
    vals = [v for v in values if v is not None]
    return round(statistics.mean(vals), 4) if vals else None


def choose_shape(reviews: list[dict], candidates: tuple[str, ...] = SHAPES_WITH_EVERY_CONCEPT) -> str:
    """The shape with the smallest mean share among those whose mean recall reaches ``TARGET_RECALL`` on
    ``reviews`` (none reaches it: the best recall, then the smaller share)."""

    def mean_of(shape: str, key: str) -> float:
        return _mean([r["by_shape"][shape][key] for r in reviews]) or 0.0

    good = [s for s in candidates if mean_of(s, "recall") >= TARGET_RECALL]
    if good:
        return min(good, key=lambda s: (mean_of(s, "share"), -mean_of(s, "recall")))
    return max(candidates, key=lambda s: (mean_of(s, "recall"), -mean_of(s, "share")))


def leave_one_out(reviews: list[dict], candidates: tuple[str, ...] = SHAPES_WITH_EVERY_CONCEPT) -> dict[str, Any]:
    """Held-out recall and share when the shape is chosen on the other reviews."""
    picks, recalls, shares = {}, [], []
    for r in reviews:
        best = choose_shape([o for o in reviews if o is not r], candidates)
        picks[r["name"]] = best
        recalls.append(r["by_shape"][best]["recall"])
        shares.append(r["by_shape"][best]["share"])
    return {"picked": picks, "recall": _mean(recalls), "share": _mean(shares)}


def summarise(reviews: list[dict]) -> dict[str, Any]:
    def means(rows: list[dict]) -> dict[str, Any]:
        seeded = [r["seeded"] for r in rows if "seeded" in r]
        return {
            "n": len(rows),
            "boolean_recall": _mean([r["boolean"]["recall"] for r in rows]),
            "boolean_share": _mean([r["boolean"]["share"] for r in rows]),
            "boolean_precision": _mean([r["boolean"]["precision"] for r in rows]),
            "baseline_recall": _mean([r["baseline"]["recall"] for r in rows]),
            "baseline_share": _mean([r["baseline"]["share"] for r in rows]),
            "strings_union_recall": _mean([r["strings"]["union_recall"] for r in rows]),
            "strings_matching_nothing": sum(r["strings"]["matching_nothing"] for r in rows),
            "seeded_before_recall": _mean([s["before"]["recall"] for s in seeded]),
            "seeded_after_recall": _mean([s["after"]["recall"] for s in seeded]),
            "seeded_after_share": _mean([s["after"]["share"] for s in seeded]),
            "by_shape": {s: {"recall": _mean([r["by_shape"][s]["recall"] for r in rows]),
                             "share": _mean([r["by_shape"][s]["share"] for r in rows]),
                             "max_chars": max((r["by_shape"][s]["chars"] for r in rows), default=0)}
                         for s in QUERY_SHAPES},
        }

    kinds = sorted({r["kind"] for r in reviews})
    return {
        "all": means(reviews),
        "by_kind": {k: means([r for r in reviews if r["kind"] == k]) for k in kinds},
        "leave_one_out_shape": leave_one_out(reviews) if len(reviews) > 1 else None,
        "leave_one_out_shape_main_allowed": leave_one_out(reviews, QUERY_SHAPES) if len(reviews) > 1 else None,
        "query_shape": QUERY_SHAPE,
    }


def run_queries_bench(root: Path, seeds: int = 5, seed: int = 0, backend: OfflineBackend | None = None) -> dict:
    backend = backend or OfflineBackend()
    reviews = [bench_review(folder, backend, seeds, seed) for folder in discover_reviews(Path(root))]
    return {"reviews": reviews, "summary": summarise(reviews)}


def format_table(result: dict) -> str:
    lines = [f"{'review':34} {'kind':13} {'recall':>6} {'share':>6} {'prec':>6} {'base_r':>6} {'base_s':>6} "
             f"{'str_r':>6} {'seed_b':>6} {'seed_a':>6}"]

    def f(v) -> str:
        return f"{v:6.3f}" if isinstance(v, float | int) else f"{'-':>6}"

    for r in result["reviews"]:
        s = r.get("seeded", {})
        lines.append(
            f"{r['name'][:34]:34} {r['kind']:13} {f(r['boolean']['recall'])} {f(r['boolean']['share'])} "
            f"{f(r['boolean']['precision'])} {f(r['baseline']['recall'])} {f(r['baseline']['share'])} "
            f"{f(r['strings']['union_recall'])} {f(s.get('before', {}).get('recall'))} "
            f"{f(s.get('after', {}).get('recall'))}"
        )
    summary = result["summary"]
    for name, m in [("all", summary["all"]), *summary["by_kind"].items()]:
        lines.append(
            f"{'mean ' + name + ' (' + str(m['n']) + ')':34} {'':13} {f(m['boolean_recall'])} "
            f"{f(m['boolean_share'])} {f(m['boolean_precision'])} {f(m['baseline_recall'])} "
            f"{f(m['baseline_share'])} {f(m['strings_union_recall'])} {f(m['seeded_before_recall'])} "
            f"{f(m['seeded_after_recall'])}"
        )
    for name, m in [("all", summary["all"]), *summary["by_kind"].items()]:
        lines.append(f"shapes, {name}: " + ", ".join(f"{k} {v['recall']}/{v['share']}"
                                                     for k, v in m["by_shape"].items()) + " (recall/share)")
    for key, label in (("leave_one_out_shape", "every concept"), ("leave_one_out_shape_main_allowed", "any shape")):
        loo = summary[key]
        if loo:
            picked = sorted(set(loo["picked"].values()))
            lines.append(f"leave-one-review-out shape ({label}): held-out recall {loo['recall']} share "
                         f"{loo['share']} (picked: {', '.join(picked)}; shipped: {summary['query_shape']})")
    return "\n".join(lines)
