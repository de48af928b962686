"""Texts written for the queries bench, each with included-study records written before any output was seen: the
Boolean query each text gives, whether it matches its own text, how many of its written includes it matches (the
"written recall"), and the share of the pooled labelled records it matches, without and with the pool as
background (a fresh project, and a lake of many topics).

Input: every ``agentr_dagster/data/bench/written_texts_round*.json`` (default) or the files named, each of the
shape ``{"sets": {NAME: {"texts": [ITEM, ...]}}}`` (a set's name in one file only), an ITEM ``{"name",
"question"}`` or ``{"name", "title", "abstract"}`` with ``"includes": [{"title", "abstract"}, ...]``; an item
marked ``"published": true`` takes its title and abstract by name from ``--abstracts`` (the published abstracts
are not copied into the repo).

Usage: PYTHONPATH=. python scripts/check_written_texts.py [--texts FILE ...] [--set NAME ...] [--root DIR]
           [--abstracts FILE] [--json OUT] [--quiet]
       python scripts/check_written_texts.py --compare A.json B.json     (two --json outputs: what changed)
"""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path
from typing import Any

BENCH_DATA = Path(__file__).resolve().parent.parent / "agentr_dagster" / "data" / "bench"
TEXT_FILES = sorted(BENCH_DATA.glob("written_texts_round*.json"))
MODES = ("none", "pool")


def text_of(item: dict[str, Any], published: dict[str, dict[str, str]]) -> str:
    """The text a project would be given: the question, or the title and abstract."""
    if item.get("published"):
        item = {**published[item["name"]], **item}
    return item.get("question") or f"{item.get('title', '')}. {item.get('abstract', '')}".strip(". ")


def measure(items: list[dict[str, Any]], pool: Any, background: Any, published: dict[str, dict[str, str]]
            ) -> list[dict[str, Any]]:
    """One row per text: its query, self-match, which written includes it matches, its share of the pool."""
    from agentr_dagster.domain.boolean_query import matches, parse_boolean_query
    from agentr_dagster.llm.offline import OfflineBackend

    backend = OfflineBackend()
    rows = []
    for item in items:
        text = text_of(item, published)
        query = backend.generate_queries(backend.decompose_intent(text, background)).boolean_query
        tree = parse_boolean_query(query) if query.strip() else None
        found = [tree is not None and matches(tree, f"{d.get('title', '')}. {d.get('abstract', '')}")
                 for d in item.get("includes", [])]
        share = len(pool.ids(tree)) / len(pool.low) if tree is not None and pool.low else 0.0
        rows.append({"name": item["name"], "query": query, "self": tree is not None and matches(tree, text),
                     "found": found, "pool_share": round(share, 5)})
    return rows


def summary(rows: list[dict[str, Any]]) -> str:
    shares = [r["pool_share"] for r in rows] or [0.0]
    return (f"self {sum(r['self'] for r in rows)}/{len(rows)}, written recall "
            f"{sum(sum(r['found']) for r in rows)}/{sum(len(r['found']) for r in rows)}, pool share mean "
            f"{100 * statistics.mean(shares):.3f} % max {100 * max(shares):.2f} %")


def load_sets(paths: list[Path]) -> dict[str, Any]:
    """The sets of every file, by name; a name two files use is refused (their figures would mix)."""
    sets: dict[str, Any] = {}
    for path in paths:
        for name, entry in json.loads(path.read_text(encoding="utf-8"))["sets"].items():
            if name in sets:
                raise SystemExit(f"set {name!r} is in two of the files ({path})")
            sets[name] = entry
    return sets


def compare(a: dict[str, Any], b: dict[str, Any]) -> None:
    for name in a:
        for mode in MODES:
            before = {r["name"]: r for r in a[name][mode]}
            for row in b.get(name, {}).get(mode, []):
                old = before.get(row["name"])
                if old is not None and old["query"] != row["query"]:
                    print(f"[{name} {mode}] {row['name']}: found {sum(old['found'])} -> {sum(row['found'])}, pool "
                          f"{100 * old['pool_share']:.2f} -> {100 * row['pool_share']:.2f} %")
            print(f"{name} {mode}: {summary(a[name][mode])}  ->  {summary(b.get(name, {}).get(mode, []))}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--texts", type=Path, nargs="+", default=TEXT_FILES)
    parser.add_argument("--set", dest="sets", action="append", help="only this set (repeatable)")
    parser.add_argument("--root", default="../shared/data/screening")
    parser.add_argument("--abstracts", default="../shared/data/review_abstracts.json")
    parser.add_argument("--json", default="")
    parser.add_argument("--quiet", action="store_true")
    parser.add_argument("--compare", nargs=2, type=Path)
    args = parser.parse_args()
    if args.compare:
        compare(*(json.loads(p.read_text(encoding="utf-8")) for p in args.compare))
        return
    from agentr_dagster.bench.queries import build_pool
    from agentr_dagster.bench.screening import discover_reviews

    pool, _ = build_pool(discover_reviews(Path(args.root)))
    data = load_sets(args.texts)
    needs_published = any(i.get("published") for s in data.values() for i in s["texts"])
    published = ({a["name"]: a for a in json.loads(Path(args.abstracts).read_text(encoding="utf-8"))}
                 if needs_published else {})
    out: dict[str, dict[str, list]] = {}
    for name, entry in data.items():
        if args.sets and name not in args.sets:
            continue
        out[name] = {}
        for mode, background in (("none", None), ("pool", pool.df)):
            rows = out[name][mode] = measure(entry["texts"], pool, background, published)
            print(f"{name} {mode}: {summary(rows)}")
            for r in [] if args.quiet else rows:
                print(f"    {r['name'][:30]:30} self {int(r['self'])} found {sum(r['found'])}/{len(r['found'])} "
                      f"pool {100 * r['pool_share']:.2f} %  {r['query'][:200]}")
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
