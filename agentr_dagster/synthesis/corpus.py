"""The synthesis input: the project's intent and every paper with its current, validated score, plus stable
citation keys. Read from the domain store; no Dagster here."""

from __future__ import annotations

import hashlib
import re
import unicodedata
from dataclasses import dataclass

from agentr_dagster.domain.contracts import PaperAssessment, ResearchIntent
from agentr_dagster.domain.text import is_stopword, tokenize


@dataclass(frozen=True)
class ScoredPaper:
    paper_id: int
    result_id: int
    key: str
    title: str
    abstract: str
    year: int | None
    doi: str | None
    authors: tuple[str, ...]
    venue: str | None
    url: str | None
    assessment: PaperAssessment
    backend: str | None
    model: str | None
    label: str | None = None  # the person's decision (include | exclude), None when not labelled
    p_include: float | None = None  # the screening engine's calibrated probability of inclusion (None: not ranked)
    engine_rank: int | None = None  # its place in the engine's order (1 = most likely include)

    @property
    def included_by_person(self) -> bool:
        return self.label == "include"

    def is_competitor(self, c1_threshold: float) -> bool:
        """A direct competitor: C1 at or above the threshold, or labelled include by the person (whose decision
        outranks the score; an excluded paper never reaches the corpus)."""
        return self.included_by_person or self.c1 >= c1_threshold

    @property
    def c1(self) -> float:
        return float(self.assessment.c1_direct_competitor.score)

    @property
    def c2(self) -> float:
        return float(self.assessment.c2_supporting_work.score)

    @property
    def similarity(self) -> float:
        return float(self.assessment.semantic_similarity)

    @property
    def contribution_type(self) -> str:
        return self.assessment.c2_supporting_work.contribution_type.value

    @property
    def relevance(self) -> float:
        """One number to order papers inside a section: the screening engine's P(include) where it ranked the
        paper (a label's is 1 or 0); otherwise direct competition first, then support, then similarity (0-1)."""
        if self.p_include is not None:
            return round(float(self.p_include), 6)
        return round(0.5 * self.c1 / 10 + 0.3 * self.c2 / 10 + 0.2 * self.similarity, 6)

    @property
    def text(self) -> str:
        return f"{self.title}. {self.abstract}".strip()


@dataclass(frozen=True)
class Corpus:
    slug: str
    title: str | None
    abstract: str
    intent: ResearchIntent
    intent_hash: str
    papers: tuple[ScoredPaper, ...]
    unscored: int  # live papers without a current score (left out of the synthesis)
    # how many includes the engine expects among the live papers nobody labelled (the sum of their P(include));
    # None when the engine has not ranked the project
    expected_unlabelled: float | None = None

    @property
    def fingerprint(self) -> str:
        """Changes exactly when a current result, the intent or the project's abstract changes."""
        return fingerprint(self.intent_hash, self.abstract,
                           [(p.paper_id, p.result_id, p.key + ("|include" if p.included_by_person else ""))
                            for p in self.papers])

    def by_id(self) -> dict[int, ScoredPaper]:
        return {p.paper_id: p for p in self.papers}

    def by_key(self) -> dict[str, ScoredPaper]:
        return {p.key: p for p in self.papers}


def fingerprint(intent_hash: str, abstract: str, rows: list[tuple[int, int, str]]) -> str:
    digest = hashlib.sha256()
    for part in (intent_hash, abstract, *(f"{pid}:{rid}:{key}" for pid, rid, key in rows)):
        digest.update(part.encode())
        digest.update(b"\x1f")
    return digest.hexdigest()


def _ascii(text: str) -> str:
    return unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower()


def _surname(author: str) -> str:
    author = author.strip()
    if not author:
        return ""
    name = author.split(",")[0] if "," in author else author.split()[-1]
    return re.sub(r"[^a-z]", "", _ascii(name))


def _title_words(title: str) -> list[str]:
    words = [re.sub(r"[^a-z0-9]", "", _ascii(t)) for t in tokenize(title) if not is_stopword(t)]
    return [w for w in words if len(w) > 1 and not w.isdigit()]


def cite_keys(papers: list[tuple[int, str, int | None, list[str] | tuple[str, ...]]]) -> dict[int, str]:
    """Google-Scholar-style keys (surname + year + first title word), or two title words around the year when
    there is no author; collisions get a, b, c... in paper-id order, so a key never depends on ordering."""
    used: set[str] = set()
    out: dict[int, str] = {}
    for paper_id, title, year, authors in sorted(papers, key=lambda p: p[0]):
        words = _title_words(title) or ["paper"]
        surname = _surname(authors[0]) if authors else ""
        when = str(year) if year else "nd"
        base = f"{surname}{when}{words[0]}" if surname else f"{words[0]}{when}{words[1] if len(words) > 1 else ''}"
        base = base[:40]
        key, n = base, 0
        while key in used:
            key = f"{base}{_suffix(n)}"
            n += 1
        used.add(key)
        out[paper_id] = key
    return out


def _suffix(n: int) -> str:
    letters = "abcdefghijklmnopqrstuvwxyz"
    return letters[n] if n < 26 else f"{letters[n % 26]}{n // 26}"
