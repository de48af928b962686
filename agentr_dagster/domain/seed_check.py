"""A Boolean query checked against studies known to be relevant ("seed studies", or labelled includes).

The objective approach to search strategies (Hausner et al.): a strategy is only as good as its recall on
studies that must be found. This module reports that recall, names the concept block that loses each missed
study (the AND-ed block whose OR-group none of the study's title and abstract matches), and proposes the
widened query: each losing block OR-ed with terms taken from the missed studies' own titles and abstracts,
chosen greedily by how many of the missed studies each term recovers. Pure: no store, no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from pydantic import BaseModel, Field

from agentr_dagster.domain.boolean_query import And, Node, Or, Term, blocks_of, matches, parse_boolean_query, to_query
from agentr_dagster.domain.text import is_stopword, tokenize

#: Recall on the seeds below which the query is flagged (asset check WARN).
SEED_RECALL_FLOOR = 0.9
MAX_ADDED_TERMS_PER_BLOCK = 6


@dataclass(frozen=True)
class SeedStudy:
    title: str
    abstract: str = ""
    doi: str = ""

    @property
    def text(self) -> str:
        return f"{self.title}. {self.abstract}" if self.abstract else self.title


class MissedSeed(BaseModel):
    title: str
    doi: str = ""
    facets: list[str] = Field(description="the blocks none of whose terms the study's title and abstract contain")


class SeedReport(BaseModel):
    n_seeds: int
    n_found: int
    recall: float | None  # None without seeds
    missed: list[MissedSeed] = Field(default_factory=list)
    widened_query: str | None = None
    widened_recall: float | None = None
    added_terms: dict[str, list[str]] = Field(default_factory=dict)  # block name -> terms added

    @property
    def below_floor(self) -> bool:
        return self.recall is not None and self.recall < SEED_RECALL_FLOOR

    def summary(self) -> str:
        if self.recall is None:
            return "no seed studies"
        text = f"recall on {self.n_seeds} seed studies {self.recall:.2f} ({self.n_found} found)"
        if self.widened_query:
            text += f"; widened query recalls {self.widened_recall:.2f}"
        return text


def check_query(query: str, seeds: Sequence[SeedStudy], block_names: Sequence[str] | None = None) -> SeedReport:
    """Recall of ``query`` on ``seeds``, the losing block of each missed seed, and a widened query."""
    if not seeds:
        return SeedReport(n_seeds=0, n_found=0, recall=None)
    tree = parse_boolean_query(query)
    blocks = blocks_of(tree)
    names = [
        (block_names[i] if block_names and i < len(block_names) else f"block {i + 1}") for i in range(len(blocks))
    ]
    found = [matches(tree, s.text) for s in seeds]
    missed: list[MissedSeed] = []
    losing: dict[int, list[SeedStudy]] = {}
    for seed, ok in zip(seeds, found, strict=True):
        if ok:
            continue
        failing = [i for i, b in enumerate(blocks) if not matches(b, seed.text)]
        missed.append(MissedSeed(title=seed.title[:300], doi=seed.doi, facets=[names[i] for i in failing]))
        for i in failing:
            losing.setdefault(i, []).append(seed)
    report = SeedReport(n_seeds=len(seeds), n_found=sum(found), recall=round(sum(found) / len(seeds), 4),
                        missed=missed)
    if not losing:
        return report
    new_blocks = list(blocks)
    for i, lost in losing.items():
        terms = widening_terms(blocks[i], lost)
        if terms:
            report.added_terms[names[i]] = terms
            children = list(blocks[i].children) if isinstance(blocks[i], Or) else [blocks[i]]
            new_blocks[i] = Or(tuple(children + [Term(t) for t in terms]))
    if report.added_terms:
        widened: Node = new_blocks[0] if len(new_blocks) == 1 else And(tuple(new_blocks))
        report.widened_query = to_query(widened)
        report.widened_recall = round(sum(matches(widened, s.text) for s in seeds) / len(seeds), 4)
    return report


_GENERIC = frozenset(
    "study studies trial trials patient patients effect effects result results analysis review outcome outcomes "
    "data method methods using based among between during after before versus compared comparison clinical "
    "randomized randomised controlled double-blind placebo efficacy safety treatment evaluation group groups "
    "year years week weeks month months case cases report reports new use used paper approach model models "
    "research evidence role impact association associated factors risk population sample".split()
)


def _candidates(seed: SeedStudy) -> list[str]:
    """Truncated words and two-word phrases of a study's title (then its abstract's first sentence)."""
    from agentr_dagster.llm.offline.concepts import truncation

    out: list[str] = []
    first = re.split(r"(?<=[.!?])\s", seed.abstract, maxsplit=1)[0] if seed.abstract else ""
    for text in (seed.title, first):
        words = [w for w in tokenize(text) if not w.isdigit()]
        good = [w for w in words if len(w) >= 4 and not is_stopword(w) and w.casefold() not in _GENERIC]
        for a, b in zip(words, words[1:], strict=False):
            if a in good and b in good:
                out.append(f"{a.casefold()} {b.casefold()}")
        out.extend(truncation(w) for w in good)
    return list(dict.fromkeys(out))


def widening_terms(block: Node, lost: Sequence[SeedStudy]) -> list[str]:
    """Terms from the lost studies' titles and abstracts that recover them for ``block``: greedily the term
    matching the most still-missed studies (a single word before a phrase at a tie, so the block widens along
    the concept rather than one title's wording)."""
    pool: dict[str, set[int]] = {}
    for seed in lost:
        for cand in _candidates(seed):
            pool.setdefault(cand, set())
    for cand in pool:
        node = Term(cand)
        pool[cand] = {j for j, seed in enumerate(lost) if matches(node, seed.text)}
    remaining = set(range(len(lost)))
    chosen: list[str] = []
    while remaining and len(chosen) < MAX_ADDED_TERMS_PER_BLOCK:
        best = max(pool, key=lambda c: (len(pool[c] & remaining), " " not in c, -len(c)), default=None)
        if best is None or not pool[best] & remaining:
            break
        chosen.append(best)
        remaining -= pool.pop(best)
    return chosen
