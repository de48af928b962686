"""A pooled corpus served by the replay server: the records of many labelled reviews as one database, so that a
review's search meets every other review's records as distractors (``agentr bench e2e``).

:func:`pool_records` merges the records into papers (one per DOI, else per normalised title: a paper two reviews
share is one paper that belongs to both) and keeps which review records each paper stands for. Every paper is
indexed by OpenAlex, PubMed and Europe PMC. :class:`PooledReplayServer` answers a query from an inverted index of
the corpus's words instead of matching every record in turn (the same whole-word meaning as
:func:`agentr_dagster.testing.dialects.evaluate`, which still checks each phrase candidate): a pool of 30,000 records
is searched in milliseconds.
"""

from __future__ import annotations

from bisect import bisect_left
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from agentr_dagster.imports import normalise_title
from agentr_dagster.imports.identity import normal_doi
from agentr_dagster.testing.dialects import Match, evaluate, words_of
from agentr_dagster.testing.replay_server import ReplayPaper, ReplayServer

POOL_SOURCES = frozenset({"openalex", "pubmed", "europepmc"})
_NO_YEAR = 2000  # a record without a year is dated 1 January of this year (PubMed sorts by date)


@dataclass(frozen=True)
class PoolRecord:
    """One record of one review: ``owner`` (the review's name) and its position in the review's records."""

    owner: str
    index: int
    title: str
    abstract: str
    year: int | None = None
    doi: str | None = None


@dataclass
class Pool:
    papers: list[ReplayPaper]
    members: dict[int, list[tuple[str, int]]]  # paper number -> the (review, record index) it stands for
    by_doi: dict[str, int] = field(default_factory=dict)
    by_title: dict[str, set[int]] = field(default_factory=dict)

    def numbers(self, doi: str | None, title: str | None) -> set[int]:
        """The papers a retrieved record is (by its DOI, and by its normalised title: a project merges papers of
        one title, so the record may stand for several)."""
        out: set[int] = set()
        key = normal_doi(doi or "")
        if key and key in self.by_doi:
            out.add(self.by_doi[key])
        if title and title.strip():
            out |= self.by_title.get(normalise_title(title), set())
        return out


def pool_records(records: Iterable[PoolRecord]) -> Pool:
    """The records as papers (see the module docstring); a paper's DOI is the record's own, else a made-up one
    (``10.5555/pool.<n>``) so that every retrieved record maps back to its paper."""
    key_of: dict[str, int] = {}
    first: dict[int, PoolRecord] = {}
    members: dict[int, list[tuple[str, int]]] = defaultdict(list)
    for record in records:
        doi, title = normal_doi(record.doi or ""), normalise_title(record.title) if record.title.strip() else ""
        keys = [k for k in (f"doi:{doi}" if doi else "", f"title:{title}" if title else "") if k]
        number = next((key_of[k] for k in keys if k in key_of), None)
        if number is None:
            number = len(first) + 1
            first[number] = record
        for k in keys:
            key_of.setdefault(k, number)
        members[number].append((record.owner, record.index))
    papers, by_doi, by_title = [], {}, defaultdict(set)
    for number, record in first.items():
        doi = normal_doi(record.doi or "") or f"10.5555/pool.{number}"
        year = record.year if record.year and 1000 <= record.year <= 2200 else _NO_YEAR
        papers.append(ReplayPaper(number=number, title=record.title, abstract=record.abstract,
                                  published=date(year, 1, 1), doi=doi, authors=("Anonymous",), venue="Pooled",
                                  sources=POOL_SOURCES))
        by_doi[doi] = number
        if record.title.strip():
            by_title[normalise_title(record.title)].add(number)
    return Pool(papers, dict(members), by_doi, dict(by_title))


class _Index:
    """Per field, each word's papers, and the sorted words for prefix (``stem*``) look-up."""

    def __init__(self, papers: list[ReplayPaper]):
        self.papers = {p.number: p for p in papers}
        self.all = frozenset(self.papers)
        self.words: dict[str, dict[str, set[int]]] = {"title": defaultdict(set), "abstract": defaultdict(set)}
        for p in papers:
            for name, text in (("title", p.title), ("abstract", p.abstract)):
                for word in set(words_of(text)):
                    self.words[name][word].add(p.number)
        self.sorted = {name: sorted(words) for name, words in self.words.items()}

    def word(self, name: str, pattern: str) -> set[int]:
        """The papers whose field ``name`` holds a word ``pattern`` matches (``stem*``: any word it starts)."""
        index = self.words[name]
        if not pattern.endswith("*"):
            return set(index.get(pattern, ())) | set(index.get(pattern + "*", ()))
        stem, words, out = pattern[:-1], self.sorted[name], set()
        i = bisect_left(words, stem)
        while i < len(words) and words[i].startswith(stem):
            out |= index[words[i]]
            i += 1
        return out

    def match(self, m: Match) -> set[int]:
        out: set[int] = set()
        for name in m.fields:
            candidates: set[int] | None = None
            for pattern in m.words:
                found = self.word(name, pattern)
                candidates = found if candidates is None else candidates & found
                if not candidates:
                    break
            if candidates and len(m.words) > 1:  # a phrase: its words in a row, checked on the text
                text = {"title": "", "abstract": ""}
                candidates = {n for n in candidates
                              if evaluate(("match", Match(m.words, (name,))),
                                          **{**text, name: getattr(self.papers[n], name)})}
            out |= candidates or set()
        return out

    def evaluate(self, tree: Any) -> set[int]:
        kind = tree[0]
        if kind == "all":
            return set(self.all)
        if kind == "match":
            return self.match(tree[1])
        if kind == "range":
            return {n for n, p in self.papers.items() if evaluate(tree, p.title, p.abstract, p.dates)}
        if kind == "and":
            out = set(self.all)
            for child in tree[1]:
                out &= self.evaluate(child)
            return out
        if kind == "or":
            return set().union(*(self.evaluate(child) for child in tree[1]))
        return self.evaluate(tree[1]) - self.evaluate(tree[2])  # "not"


class PooledReplayServer(ReplayServer):
    """The replay server over a pooled corpus, each query answered from a word index (built once)."""

    def __init__(self, papers: list[ReplayPaper], **kwargs: Any):
        super().__init__(papers, **kwargs)
        self._index = _Index(self.papers)
        self._answers: dict[str, frozenset[int]] = {}

    def _matching(self, tree: Any, papers: list[ReplayPaper]) -> list[ReplayPaper]:
        key = repr(tree)
        with self._lock:
            found = self._answers.get(key)
        if found is None:
            found = frozenset(self._index.evaluate(tree))
            with self._lock:
                self._answers[key] = found
        return [p for p in papers if p.number in found]
