"""Read the Boolean queries built from published review abstracts (title + abstract) and check proxies of sense.

For each abstract of a JSON list (``name``, ``title``, ``abstract``; default the 17 of
``shared/data/review_abstracts.json``) it prints the concept blocks and the Boolean query the offline backend
builds, with and without a background (the pooled records), and checks:

(a) ``self``: the query matches the review's own title + abstract (one that does not is surely broken);
(b) ``subject``: each required block has a term in the title or the first two sentences (the main subject);
(c) ``pool%``: the share of the pooled labelled reviews' records it matches (off-topic for most abstracts;
    a review whose folder is in the pool under ``--own NAME=FOLDER`` has its own records left out);
(d) ``method``: no required block is made of review-method, statistics, eligibility or provenance words.

Usage: PYTHONPATH=. python scripts/check_abstract_queries.py [--abstracts FILE] [--root DIR] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
from pathlib import Path

from agentr_dagster.bench.queries import build_pool
from agentr_dagster.bench.screening import discover_reviews
from agentr_dagster.domain.boolean_query import matches, parse_boolean_query
from agentr_dagster.domain.text import split_sentences
from agentr_dagster.llm.offline import OfflineBackend

#: What a review did or how it reports, never what its studies are about (a proxy check, not used by the code).
_METHOD_RE = re.compile(
    r"\b(?:systematic|review|meta-?analy|prisma|prospero|crd\d|regist|protocol|database|medline|embase|pubmed|"
    r"cochrane|scopus|odds ratio|hazard ratio|risk ratio|confidence interval|effect size|heterogeneit|inclusion|"
    r"exclusion|eligib|criteria|english|peer-review|full text|random-effect|fixed-effect|risk of bias|grade|"
    r"literature|search|screen|extract|pooled|regression|reviewer|evidence map)", re.I)

#: A published abstract whose review is one of the shared folders: that folder's records are its own, not
#: "other" records (Chou 2003 is the DERP long-acting opioids review, Cohen_2006_Opiods's source).
_OWN = {"Radjenovic_2013": "Radjenovic_2013", "Hall_2012": "Radjenovic_2013", "Chou_2003": "Cohen_2006_Opiods"}


def _term_hits(term: str, text: str) -> bool:
    try:
        return matches(parse_boolean_query(term), text)
    except ValueError:
        return False


def check(item: dict, pool, backend: OfflineBackend, background) -> dict:
    title, abstract = item.get("title", ""), item.get("abstract", "")
    text = f"{title}. {abstract}".strip(". ")
    intent = backend.decompose_intent(text, background)
    query = backend.generate_queries(intent).boolean_query
    tree = parse_boolean_query(query)
    own_folder = _OWN.get(item.get("name", ""))
    hits = pool.ids(tree)
    others = [i for i in range(len(pool.low)) if pool.owners[i] != own_folder]
    off = sum(1 for i in hits if pool.owners[i] != own_folder) / max(1, len(others))
    subject_text = " ".join([title, *split_sentences(abstract)[:2]])
    blocks = []
    for c in intent.concepts:
        blocks.append({"label": c.label, "required": c.required, "independent": c.independent,
                       "in_query": c.in_query, "terms": list(c.terms),
                       "in_subject": any(_term_hits(t, subject_text) for t in c.terms),
                       "method": bool(_METHOD_RE.search(c.label))})
    required = [b for b in blocks if b["required"]]
    return {"name": item.get("name", ""), "title": title, "query": query, "blocks": blocks,
            "self": matches(tree, text), "subject": all(b["in_subject"] for b in required),
            "pool_share": round(off, 4), "method": any(b["method"] for b in required)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--abstracts", default="/work/shared/data/review_abstracts.json")
    parser.add_argument("--root", default="/work/shared/data/screening")
    parser.add_argument("--json", default="")
    parser.add_argument("--quiet", action="store_true", help="the summary lines only")
    args = parser.parse_args()
    pool, _ = build_pool(discover_reviews(Path(args.root)))
    backend = OfflineBackend()
    items = json.loads(Path(args.abstracts).read_text(encoding="utf-8"))
    out = {}
    for mode, background in (("no background", None), ("pool background", pool.df)):
        rows = [check(item, pool, backend, background) for item in items]
        out[mode] = rows
        print(f"=== {mode}")
        for r in rows:
            flags = " ".join(f for f, bad in (("SELF-MISS", not r["self"]), ("SUBJECT-MISS", not r["subject"]),
                                              ("METHOD-BLOCK", r["method"]), ("BROAD", r["pool_share"] > 0.05))
                             if bad)
            print(f"{r['name'][:26]:26} pool {100 * r['pool_share']:5.1f} %  {flags}")
            if args.quiet:
                continue
            print(f"    title: {r['title']}")
            for b in r["blocks"]:
                kind = "REQ" if b["required"] else ("opt" if b["in_query"] else "off")
                print(f"    [{kind}{' AND' if b['independent'] else ''}] {b['label']!r}: {', '.join(b['terms'][:12])}"
                      f"{' ...' if len(b['terms']) > 12 else ''}")
            print(f"    query: {r['query'][:400]}")
        shares = [r["pool_share"] for r in rows]
        n_self, n_subject = sum(r["self"] for r in rows), sum(r["subject"] for r in rows)
        print(f"{mode}: self-match {n_self}/{len(rows)}, subject {n_subject}"
              f"/{len(rows)}, method-word required blocks {sum(r['method'] for r in rows)}, pool share mean "
              f"{100 * statistics.mean(shares):.2f} % max {100 * max(shares):.2f} %, over 5 %: "
              f"{sum(s > 0.05 for s in shares)}")
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
