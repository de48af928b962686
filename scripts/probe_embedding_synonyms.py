"""Nearest neighbours of a concept among the phrases of the OTHER reviews' records, by the MiniLM ONNX encoder.

A probe of the embedding route to synonyms (docs/search-strategies.md, Round 13), not shipped: the vocabulary is
every 1-3 word phrase of the pooled records (no stop word inside, in 3 records or more, general-English Zipf below
3.5), each encoded once by all-MiniLM-L6-v2 (ONNX, `make models`); a concept's neighbours are the phrases of the
highest cosine that occur in another review's records (the background a review's query is judged by). With
``--rank PHRASE`` it prints where that phrase stands.

    PYTHONPATH=$PWD python scripts/probe_embedding_synonyms.py /work/shared/data/screening \\
        "REVIEW:concept phrase" [--rank PHRASE ...]
"""

from __future__ import annotations

import argparse
import pickle
import re
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np
from wordfreq import zipf_frequency

from agentr_dagster.bench.screening import discover_reviews, load_review
from agentr_dagster.domain.transformer import TransformerEncoder

STOP = frozenset(
    "the a an of and or in on for to with by from at as is are was were be been this that these those its their our "
    "we it not no than vs versus into between among after before during about".split()
)


def vocabulary(root: Path) -> dict[str, Counter]:
    """Phrase -> records per review that contain it."""
    df: dict[str, Counter] = defaultdict(Counter)
    for folder in discover_reviews(root):
        rv = load_review(folder)
        for title, abstract in zip(rv.titles, rv.abstracts, strict=True):
            words = re.findall(r"[a-z][a-z0-9-]+", f"{title}. {abstract}".lower())
            seen = {
                " ".join(words[i : i + n])
                for n in (1, 2, 3)
                for i in range(len(words) - n + 1)
                if not any(w in STOP for w in words[i : i + n])
            }
            for phrase in seen:
                df[phrase][rv.name] += 1
    return {
        p: c
        for p, c in df.items()
        if sum(c.values()) >= 3 and all(len(w) > 2 for w in p.split()) and zipf_frequency(p, "en") < 3.5
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("root", type=Path)
    ap.add_argument("concepts", nargs="+", help="REVIEW:phrase, the review whose own records do not count")
    ap.add_argument("--rank", nargs="*", default=[], help="phrases whose rank by the first concept is printed")
    ap.add_argument("--cache", type=Path, default=Path("/tmp/probe_embedding_synonyms.pkl"))
    ap.add_argument("--top", type=int, default=15)
    args = ap.parse_args()
    encoder = TransformerEncoder()
    if args.cache.is_file():
        df, phrases, vectors = pickle.loads(args.cache.read_bytes())
    else:
        df = vocabulary(args.root)
        phrases = list(df)
        vectors = encoder.encode(phrases)
        args.cache.write_bytes(pickle.dumps((df, phrases, vectors)))
    print(f"{len(phrases)} phrases")
    for concept in args.concepts:
        own, label = concept.split(":", 1)
        sims = vectors @ encoder.encode([label])[0]
        shown = []
        for i in np.argsort(-sims):
            others = sum(v for k, v in df[phrases[i]].items() if k != own)
            if others:
                shown.append(f"{phrases[i]} ({sims[i]:.2f}, {others})")
            if len(shown) >= args.top:
                break
        print(f"{label} -> " + ", ".join(shown))
        for phrase in args.rank:
            if phrase not in df:
                print(f"  {phrase}: not in the vocabulary")
                continue
            s = sims[phrases.index(phrase)]
            print(f"  {phrase}: rank {int((sims > s).sum())}, cosine {s:.3f}, records {dict(df[phrase])}")


if __name__ == "__main__":
    main()
