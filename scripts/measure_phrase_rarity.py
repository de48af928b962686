"""How much rarer a phrase is than wordfreq's combination of its words says (``PHRASE_WORD_PENALTY`` in
``agentr_dagster/domain/specificity.py``), measured on the shared reviews' records as one corpus.

    python scripts/measure_phrase_rarity.py /work/shared/data/screening

wordfreq scores a phrase by combining its words' frequencies (1/f = sum of 1/f_i), whatever its length. In the
records, each recurring phrase (seen ``--min-count`` times or more) is set against the same combination of its
words' counts there: log10(phrase count / combination). Printed: the median for two content words side by side
("heart failure"), for "X of/to/in/for Y", and for three content words, over all records and leaving out each
review's records in turn (the gap per word beyond two is the second median less the first)."""

from __future__ import annotations

import argparse
import math
import re
import statistics
from collections import Counter
from pathlib import Path

from agentr_dagster.bench.queries import build_pool
from agentr_dagster.domain.text import is_stopword

_TOKEN = re.compile(r"[a-z]+")
_LINKS = frozenset("of to in for".split())


def medians(docs: list[list[str]], min_count: int) -> dict[str, float]:
    words: Counter[str] = Counter()
    phrases: dict[str, Counter[tuple[str, ...]]] = {"two": Counter(), "x_of_y": Counter(), "three": Counter()}
    for doc in docs:
        words.update(doc)
        for i in range(len(doc) - 1):
            a, b = doc[i], doc[i + 1]
            content_ab = not is_stopword(a) and not is_stopword(b) and len(a) > 2 and len(b) > 2
            if content_ab:
                phrases["two"][(a, b)] += 1
            if i + 2 < len(doc):
                c = doc[i + 2]
                if b in _LINKS and not is_stopword(a) and not is_stopword(c):
                    phrases["x_of_y"][(a, b, c)] += 1
                if content_ab and not is_stopword(c) and len(c) > 2:
                    phrases["three"][(a, b, c)] += 1
    out = {}
    for kind, counts in phrases.items():
        gaps = [math.log10(n * sum(1 / words[w] for w in p)) for p, n in counts.items() if n >= min_count]
        out[kind] = statistics.median(gaps) if gaps else float("nan")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("root", type=Path)
    parser.add_argument("--min-count", type=int, default=20)
    args = parser.parse_args()
    pool, _ = build_pool(sorted(p for p in args.root.iterdir() if p.is_dir()))
    docs = [_TOKEN.findall(t) for t in pool.low]
    rows = [("all", medians(docs, args.min_count))]
    for owner in sorted(set(pool.owners)):
        rows.append((f"without {owner}", medians([d for d, o in zip(docs, pool.owners, strict=True) if o != owner],
                                                 args.min_count)))
    for name, m in rows:
        print(f"{name:50s} two {m['two']:+.2f}  x_of_y {m['x_of_y']:+.2f}  three {m['three']:+.2f}  "
              f"gap {m['two'] - m['x_of_y']:.2f}")


if __name__ == "__main__":
    main()
