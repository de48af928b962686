"""Thesaurus synonyms in the offline Boolean query (agentr_dagster/domain/synonyms.py), judged on the shared reviews.

For each setting of the synonyms (mode x senses x the largest background share, or without a background the largest
general-English Zipf, of a candidate; "off" among them) every review's query is written from its question and
from its abstract (published, else the bench's written one) and judged on the pool as `agentr bench queries`
judges it: recall of the includes, off-topic share (the other reviews' records matched), ratio_n (all matched /
N). A review meets the bars at recall >= 0.9, off-topic <= 5 %, ratio_n <= 3. Leave-one-review-out: each review
gets the setting under which the most of the OTHER reviews meet the bars (then their best mean recall, then "off"
first), per path. Reported: all / Cohen drug / other.

    PYTHONPATH=$PWD python scripts/compare_query_synonyms.py /work/shared/data/screening --background pool
"""

from __future__ import annotations

import argparse
import itertools
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from agentr_dagster.bench.queries import (
    _judge,
    build_pool,
    is_drug_review,
    load_written_abstracts,
    review_abstract,
)
from agentr_dagster.bench.screening import discover_reviews, load_review
from agentr_dagster.domain import synonyms
from agentr_dagster.llm.offline import OfflineBackend

SHARES = (0.0003, 0.002, 0.01, 1.0)
ZIPFS = (2.0, 3.0, 9.0)


@dataclass(frozen=True)
class Setting:
    mode: str  # WordNet: "" none, "syn", "hypo"
    senses: int
    heads: bool
    drugs: bool  # the drug dictionary's synonym rings
    per_phrase: int
    bound: float  # the largest background share (pool) or general-English Zipf (no background) of a candidate
    min_cosine: float = 0.0  # WordNet's sense check against the block's label (MiniLM)

    @property
    def key(self) -> str:
        wn = f"{self.mode}/{self.senses}/{'heads' if self.heads else 'phrases'}" if self.mode else ""
        if wn and not self.drugs and self.per_phrase != 4:
            wn += f"/{self.per_phrase}"
        if wn and self.min_cosine:
            wn += f"/cos{self.min_cosine}"
        drugs = f"drugs/{self.per_phrase}" if self.drugs else ""
        return "+".join(x for x in (wn, drugs) if x) + f"/{self.bound}" if (wn or drugs) else "off"


def settings(fresh: bool) -> list[Setting]:
    """Each setting measured, "off" first: WordNet alone, the drug dictionary alone, and both."""
    bounds = ZIPFS if fresh else SHARES
    out = [Setting("", 1, False, False, 4, 0.0)]
    out += [
        Setting(m, n, h, False, 4, b)
        for m, n, h, b in itertools.product(("syn", "hypo"), (1, 99), (False, True), bounds)
    ]
    # fewer candidates per looked-up phrase: a query at the edge of a bar (ratio_n 2.98) takes few more terms
    out += [Setting("hypo", n, True, False, 1, b) for n, b in itertools.product((1, 99), bounds)]
    out += [Setting("", 1, False, True, k, b) for k, b in itertools.product((1, 4, 8), bounds)]
    out += [Setting("hypo", 99, True, True, 4, b) for b in bounds]
    # WordNet with the sense check (MiniLM cosine of a candidate with the block's label)
    out += [
        Setting(m, 99, True, False, 4, b, c) for m, b, c in itertools.product(("syn", "hypo"), bounds, (0.3, 0.4, 0.5))
    ]
    return out


def meets(r: dict) -> bool:
    return (r["recall"] or 0) >= 0.9 and (r["off_topic"] or 0) <= 0.05 and (r["ratio_n"] or 0) <= 3


def run(root: Path, fresh: bool) -> dict:
    folders = discover_reviews(root)
    pool, spans = build_pool(folders)
    written = load_written_abstracts()
    backend = OfflineBackend()
    reviews = [(load_review(f), f) for f in folders]
    out: dict = {}
    for st in settings(fresh):
        synonyms.MODE, synonyms.SENSES, synonyms.HEADS = st.mode, st.senses, st.heads
        synonyms.DRUGS, synonyms.PER_PHRASE, synonyms.MIN_COSINE = st.drugs, st.per_phrase, st.min_cosine
        synonyms.MAX_ZIPF, synonyms.MAX_SHARE = (st.bound, 0.0) if fresh else (0.0, st.bound)
        key = st.key
        rows = {}
        for rv, folder in reviews:
            labels = [int(v) for v in rv.labels]
            own = spans[rv.name]
            row = {}
            texts = {"question": rv.question, "abstract": review_abstract(folder, rv.name, written)[0]}
            for path, text in texts.items():
                if not text:
                    continue
                intent = backend.decompose_intent(text, None if fresh else pool.background_without(rv.name))
                query = backend.generate_queries(intent).boolean_query
                j = _judge(pool, rv.name, query, own, labels)
                row[path] = {
                    "recall": j["recall"],
                    "off_topic": j["off_topic"],
                    "ratio_n": j["ratio_n"],
                    "query": query,
                }
            rows[rv.name] = row
        out[key] = rows
        print(key, flush=True)
    return out


PATHS = ("question", "abstract")


def _pick(table: dict, paths: tuple[str, ...], names: list[str]) -> str:
    """The setting under which the most of ``names`` meet the bars on ``paths``, then the best mean recall."""

    def score(key: str) -> tuple:
        rs = [table[key][n][p] for n in names for p in paths]
        return (sum(meets(r) for r in rs), sum(r["recall"] or 0 for r in rs) / len(rs), key == "off")

    return max(table, key=score)


def _line(label: str, groups: dict[str, list[str]], get: Callable[[str], dict]) -> str:
    parts = []
    for g, ns in groups.items():
        rs = [get(n) for n in ns]
        rec = sum(r["recall"] or 0 for r in rs) / len(rs)
        off = sum(r["off_topic"] or 0 for r in rs) / len(rs)
        parts.append(f"{g} {rec:.3f}/{100 * off:.1f}%/{sum(meets(r) for r in rs):2d}of{len(rs)}")
    return f"{label:24s} " + " | ".join(parts)


def report(table: dict) -> None:
    names = list(next(iter(table.values())))
    groups = {
        "all": names,
        "drug": [n for n in names if is_drug_review(n)],
        "non-drug": [n for n in names if not is_drug_review(n)],
    }
    # leave-one-review-out: per path (each path its own pick), and jointly (one setting for both paths)
    per_path = {p: {n: _pick(table, (p,), [m for m in names if m != n]) for n in names} for p in PATHS}
    joint = {n: _pick(table, PATHS, [m for m in names if m != n]) for n in names}
    for path in PATHS:
        print(f"== {path} path: recall/off-topic/meeting the bars (recall >= 0.9, off-topic <= 5 %, ratio_n <= 3)")
        for key in table:
            print(_line(key, groups, lambda n, k=key, p=path: table[k][n][p]))
        for label, picks in (("held out, per path", per_path[path]), ("held out, both paths", joint)):
            print(_line(label, groups, lambda n, ps=picks, p=path: table[ps[n]][n][p]))
            off = table[next(iter(table))]
            lost = [n for n in names if meets(off[n][path]) and not meets(table[picks[n]][n][path])]
            won = [n for n in names if not meets(off[n][path]) and meets(table[picks[n]][n][path])]
            print(f"  picks {sorted(set(picks.values()))}; bars lost {lost}, won {won}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("root", type=Path)
    ap.add_argument("--background", choices=("pool", "none"), default="pool")
    ap.add_argument("--out", type=Path, help="the per-setting, per-review figures and queries as JSON")
    ap.add_argument("--load", type=Path, help="report a saved --out file instead of running")
    ap.add_argument("--only", help="report only the settings whose key matches this regular expression (and off)")
    args = ap.parse_args()
    table = json.loads(args.load.read_text()) if args.load else run(args.root, args.background == "none")
    if args.out and not args.load:
        args.out.write_text(json.dumps(table, indent=1))
    if args.only:
        table = {k: v for k, v in table.items() if k == "off" or re.search(args.only, k)}
    report(table)


if __name__ == "__main__":
    main()
