"""A Boolean query checked against studies known to be relevant ("seed studies", or labelled includes).

The objective approach to search strategies (Hausner et al.): a strategy is only as good as its recall on
studies that must be found. This module reports that recall, names the concept block that loses each missed
study (the AND-ed block whose OR-group none of the study's title and abstract matches), and proposes the
widened query: each losing block OR-ed with terms taken from the missed studies' own titles and abstracts,
chosen greedily by how many of the missed studies each term recovers. Pure: no store, no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from pydantic import BaseModel, Field

from agentr_dagster.domain.boolean_query import (
    And,
    Node,
    Or,
    Term,
    blocks_of,
    matches,
    parse_boolean_query,
    query_terms,
    to_query,
)
from agentr_dagster.domain.text import is_stopword, tokenize
from agentr_dagster.domain.truncation import sent_as_written, truncation
from agentr_dagster.domain.word_class import word_classes

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


#: How close each candidate term is to a block's terms (higher: closer), e.g. a static-embedding cosine.
Relatedness = Callable[[list[str], list[str]], list[float]]


def check_query(query: str, seeds: Sequence[SeedStudy], block_names: Sequence[str] | None = None,
                relatedness: Relatedness | None = None) -> SeedReport:
    """Recall of ``query`` on ``seeds``, the losing block of each missed seed, and a widened query (with
    ``relatedness``, a block is widened by the missed studies' terms closest to its own)."""
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
        terms = widening_terms(blocks[i], lost, relatedness)
        if terms:
            report.added_terms[names[i]] = terms
            block = blocks[i]
            children = list(block.children) if isinstance(block, Or) else [block]
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


def widening_terms(block: Node, lost: Sequence[SeedStudy], relatedness: Relatedness | None = None) -> list[str]:
    """Terms from the lost studies' titles and abstracts that recover them for ``block``: greedily the term
    matching the most still-missed studies (at a tie a single word before a phrase, so the block widens along
    the concept rather than one title's wording; then the word the studies repeat; then the longer one).
    With ``relatedness``, closeness to the block's own terms comes first among equal coverage."""
    pool: dict[str, set[int]] = {}
    for seed in lost:
        for cand in _candidates(seed):
            pool.setdefault(cand, set())
    for cand in pool:
        node = Term(cand)
        pool[cand] = {j for j, seed in enumerate(lost) if matches(node, seed.text)}
    # at a tie, the term the studies repeat (title and abstract), then the longer (more specific) one
    salience = {c: sum(len(re.findall(r"\b" + re.escape(c.rstrip("*")), s.text.casefold())) for s in lost)
                for c in pool}
    names = list(pool)
    close = dict(zip(names, relatedness(names, query_terms(block)), strict=True)) if relatedness and names else {}
    remaining = set(range(len(lost)))
    chosen: list[str] = []
    while remaining and len(chosen) < MAX_ADDED_TERMS_PER_BLOCK:
        best = max(pool, key=lambda c: (len(pool[c] & remaining), round(close.get(c, 0.0), 2), " " not in c,
                                        salience[c], len(c)), default=None)
        if best is None or not pool[best] & remaining:
            break
        chosen.append(best)
        remaining -= pool.pop(best)
    return chosen


#: Words of a study-design block: fine as an optional filter, never as a required block of a search.
_DESIGN_WORDS = frozenset(
    "trial trials randomized randomised controlled rct rcts review reviews systematic meta-analysis "
    "meta-analyses cohort case-control observational cross-sectional study studies survey surveys qualitative "
    "quantitative empirical".split()
)
#: Phrases about a review itself or its reporting: never a required term.
BOILERPLATE_PHRASES = (
    "leading causes", "age group", "drug effectiveness review project", "class head",
    "evidence-based practice center", "drug class review", "head to head", "test collection",
)  # fmt: skip
MAX_BLOCKS = 4
MAX_PHRASE_WORDS = 4


def structural_problems(query: str, excluded: Sequence[str] = ()) -> list[str]:
    """What makes a Boolean query a poor systematic search, as sentences (empty when none): too many AND-ed
    blocks, a required block of study designs only, boilerplate or an excluded criterion as a required term,
    phrases too long to occur verbatim in a paper."""
    tree = parse_boolean_query(query)
    blocks = blocks_of(tree)
    problems: list[str] = []
    if len(blocks) > MAX_BLOCKS:
        problems.append(f"{len(blocks)} blocks are AND-ed; use at most {MAX_BLOCKS - 1} concept blocks")
    excluded_low = [e.casefold().strip('"*') for e in excluded if e.strip()]
    for i, block in enumerate(blocks, 1):
        terms = query_terms(block)
        words = {w.casefold() for t in terms for w in re.findall(r"[\w\-]+", t)}
        if words and words <= _DESIGN_WORDS:
            problems.append(f"block {i} ({to_query(block)[:80]}) is a study-design block; drop it or make it "
                            "optional")
        for term in terms:
            low = term.casefold().strip("*")
            if any(low == b or low.startswith(b) for b in BOILERPLATE_PHRASES):
                problems.append(f"block {i} requires the boilerplate phrase {term!r}")
            if any(low == e for e in excluded_low):
                problems.append(f"block {i} requires {term!r}, which the question excludes")
            if len(term.split()) > MAX_PHRASE_WORDS:
                problems.append(f"the phrase {term!r} has more than {MAX_PHRASE_WORDS} words: papers rarely "
                                "contain it verbatim")
    return problems


def repair_feedback(problems: Sequence[str], report: SeedReport | None) -> str:
    """The repair message: the structural problems and the seed studies the query misses."""
    lines = ["Revise the JSON answer. Keep its keys; change the boolean_query (and strings if needed)."]
    if problems:
        lines.append("Problems with the boolean_query:")
        lines += [f"- {p}" for p in problems]
    if report is not None and report.missed:
        lines.append(f"It finds only {report.n_found} of {report.n_seeds} studies known to be relevant. "
                     "Widen the block that loses each one with the words these studies use:")
        lines += [f"- \"{m.title[:200]}\" (lost by {', '.join(m.facets) or 'the query'})" for m in report.missed[:10]]
    return "\n".join(lines)


# ------------------------------------------------------------------------------------------------------------
# The objective approach: terms mined from the seeds against a background
# ------------------------------------------------------------------------------------------------------------

#: A term's document frequency in a background corpus (the lake, or the other candidates): share of records.
Background = Callable[[str], float]
#: How many records of the background a query matches.
Counter = Callable[[Node], int]
#: A widened query may match at most this many times what the query matched in the background. Judged
#: leave-one-review-out on the 18 shared reviews, pooled (`agentr bench queries --seeds 5`, grid 1.0 / 1.25 / 1.5 /
#: 2 / 3, at the shipped generic share): 1.5 in 17 of 18 folds (1.5, 2 and 3 recall the same 0.949 of the
#: remaining includes at 3.1 % of the other reviews' records once boilerplate and general words are kept out).
MAX_GROWTH = 1.5
#: Terms that this many seeds share are proposed before the terms of a single seed.
MIN_SUPPORT = 2
#: A mined term in this share of a background of many topics (the lake; in the bench the other reviews'
#: records) or more is boilerplate or a general word, never added ("control*" 26 %, "structur*" 5.8 %; "rights
#: reserved" 1.3 %, "social media" 0.1 %). Judged leave-one-review-out (`agentr bench queries --seeds 5`, grid
#: 0.005 / 0.01 / 0.02 / 0.05 / 1, at growth 2): 0.05 in 17 of 18 folds; lower values keep the boilerplate out
#: too ("rights reserved" from 0.01) but cost recall of the remaining includes (0.949 at 0.01, 0.953 at 0.05).
MINED_GENERIC_SHARE = 0.05
MAX_MINED_TERMS = 8


#: A sentence of a record that is the publisher's or the database's, not the study's: its words are no concept.
_BOILERPLATE_RE = re.compile(
    r"[^.]*(?:\u00a9|\(c\)\s*\d{4}|\bcopyright\b|\ball rights reserved\b|\bpublished by\b|\blicensee\b|"
    r"\bcreative commons\b|\bpublishing (?:ltd|limited|inc|group)\b)[^.]*\.?", re.I)
#: Spelled numbers ("thirty-four patients"): a count, never a concept.
_NUMBER_WORD_RE = re.compile(
    r"(?:(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|"
    r"seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|thousand|"
    r"million)-?)+", re.I)


def _minable(word: str) -> bool:
    """A word of a seed that can name a concept: long enough, no stopword or generic study word, no spelled
    number, and not a verb's past form that is nothing else ("started", "reported": what a study did)."""
    low = word.casefold()
    if len(word) < 4 or is_stopword(word) or low in _GENERIC or _NUMBER_WORD_RE.fullmatch(low):
        return False
    return not (low.endswith("ed") and word_classes(low) == {"VERB"})


def mined_terms(seeds: Sequence[SeedStudy], background: Background, limit: int = 40) -> list[str]:
    """Candidate terms of the seeds' titles and abstracts, most characteristic first: how many seeds use a term
    against how often the background does (Hausner's frequency analysis of a test set, with the background as
    the population): single words truncated, two-word phrases of content words. Publishers' and databases'
    sentences (copyright, licence) are left out first."""
    seen: dict[str, int] = {}
    for seed in seeds:
        words = [w for w in tokenize(_BOILERPLATE_RE.sub(" ", seed.text)) if not w.isdigit()]
        good = {w for w in words if _minable(w)}
        terms = {truncation(w) for w in good}
        terms |= {f"{a.casefold()} {b.casefold()}" for a, b in zip(words, words[1:], strict=False)
                  if a in good and b in good}
        for term in terms:
            seen[term] = seen.get(term, 0) + 1
    # a term of one seed only is that study's wording; the concept is what several seeds share
    scored = [(min(n, MIN_SUPPORT), n / len(seeds) / (background(t) + 0.002), t) for t, n in seen.items()]
    return [t for *_, t in sorted(scored, reverse=True)[:limit]]


def _proposable(candidates: list[str]) -> list[str]:
    """The mined terms the concept query sends as they are counted (:func:`~agentr_dagster.domain.truncation.
    sent_as_written`): ``all-caus*`` would go as the bare stem ``all-caus``, which the local count matches in
    "all-cause" and no source does, so it would pass the growth bound and bring nothing."""
    return [c for c in candidates if sent_as_written(c)]


@dataclass
class MinedBlocks:
    """The blocks' terms after mining the seeds, the terms each block gained, the blocks left out of the query
    (relaxed: a required block the seeds show the studies often do not name), and the query they make."""

    terms: list[list[str]]
    added: dict[str, list[str]]
    query: str
    seed_recall_before: float
    seed_recall_after: float
    relaxed: list[str] = field(default_factory=list)


#: The query of the blocks' terms with the blocks of the given positions left out.
RelaxedRender = Callable[[list[list[str]], frozenset[int]], str]
#: The share of a background of many topics (the lake; in the bench the other reviews' records) a query matches.
ShareOf = Callable[[Node], float]
#: A widened or relaxed query may match up to this share of a background of many topics (the off-topic bar of
#: issue 32) even where it grows past ``MAX_GROWTH``: a term several seeds share, or a required block left out.
MAX_SEEDED_OFF_TOPIC = 0.05
#: A term that ``MIN_SUPPORT`` seeds share and under this share of a background of many topics names the seeds'
#: concept: it joins its block even where the block names every seed already (:func:`_add_specific`). Judged
#: leave-one-review-out on the 18 shared reviews, question and abstract, drug and non-drug weighted equally
#: (grid 0 / 0.002 / 0.005 / 0.01 / 0.02 / 0.03 / 0.05; docs/seed-queries.md, 2026-12-05): 0.02 in 18 of 18 folds
#: (abstract recall 0.797 -> 0.960 at 3.8 % off-topic; 0.03 and 0.05 recall no more and match more).
SPECIFIC_SHARE = 0.02
#: A term that more than half the seeds share and under this share of a background of many topics is the concept
#: itself (an invented "flurbos*" an abstract's blocks lack): where the query missed seeds it joins past
#: ``MAX_GROWTH``, within the off-topic bound only (:func:`improve_blocks`). Judged leave-one-review-out on the 18
#: shared reviews (grid 0 / 0.002 / 0.005 / 0.01 / 0.02; the most review-paths meeting recall >= 0.95, off-topic
#: <= 5 % and <= 3x N, then recall; docs/seed-queries.md, 2026-12-06): 0.005 in 17 of 18 folds on seed draw 0, 17
#: and 18 on draws 1 and 2 (abstract recall, draw 0: 0.929 -> 0.956 held out, non-drug 0.857 -> 0.940; 0.02 takes
#: an abstract over 3x N).
MAJORITY_SHARE = 0.005


@dataclass
class _Search:
    """What :func:`improve_blocks` proposes against: the seeds, the query's renderer, its bounds."""

    seeds: Sequence[SeedStudy]
    render: Callable[[list[list[str]]], str]
    count: Counter
    limit: float  # most records of the pool the query may match by growth
    off_topic: ShareOf | None
    max_off_topic: float

    def found(self, terms: list[list[str]]) -> set[int]:
        tree = parse_boolean_query(self.render(terms))
        return {j for j, s in enumerate(self.seeds) if matches(tree, s.text)}

    def within(self, query: str, broad_ok: bool) -> bool:
        """The pool grows by at most ``limit``, or (``broad_ok``) the query stays under the off-topic bound."""
        tree = parse_boolean_query(query)
        if self.count(tree) <= self.limit:
            return True
        return broad_ok and self.off_topic is not None and self.off_topic(tree) <= self.max_off_topic


def improve_blocks(blocks: Sequence[tuple[str, Sequence[str]]], seeds: Sequence[SeedStudy],
                   render: Callable[[list[list[str]]], str], background: Background, count: Counter,
                   max_growth: float = MAX_GROWTH, max_terms: int = MAX_MINED_TERMS,
                   relatedness: Relatedness | None = None, generic: Background | None = None,
                   generic_share: float = MINED_GENERIC_SHARE, off_topic: ShareOf | None = None,
                   max_off_topic: float = MAX_SEEDED_OFF_TOPIC, relax: RelaxedRender | None = None,
                   specific_share: float = SPECIFIC_SHARE, majority_share: float = MAJORITY_SHARE) -> MinedBlocks:
    """The objective approach, per concept block: the terms most characteristic of the seeds against the
    background (:func:`mined_terms`) are proposed to each block in turn (the main block first); a term is kept
    when the block then names a seed it did not name before (so the query, whatever its shape, finds the
    seeds through that block) and the query still matches at most ``max_growth`` times what it matched in the
    background (``count``) before any term was added. ``render`` makes the query of the blocks' terms.

    A term in ``generic_share`` or more of the records of ``generic`` (a background of many topics: the lake,
    a pool of reviews) is boilerplate or a general word ("rights reserved", "literatur*") and never proposed.
    Each term is proposed only to its home block (:func:`_home_blocks`): the block that misses the most seeds
    using it (seed co-occurrence: the term stands in for that concept there), at a tie the one whose terms it
    is closest to by ``relatedness`` (a drug name to the drugs, a symptom to the condition).

    What generalises comes first. With ``relax``, a block that loses seeds is left out of the query
    (:func:`_relax`) where the query then matches at most ``max_off_topic`` of ``off_topic`` (a background of
    many topics): the studies often do not name that concept, and a term per lost seed would name that study
    only. Then the terms ``MIN_SUPPORT`` seeds share and under ``specific_share`` of ``generic`` join their
    blocks whether or not they name a lost seed (:func:`_add_specific`), within the same off-topic bound and
    ``max_growth``; then the other shared terms that name a lost seed, within ``max_growth`` or the off-topic
    bound. Where the query (relaxed) missed a seed, the specific terms more than half the seeds share and under
    ``majority_share`` of ``generic`` join next, past ``max_growth`` (the concept's own word, which may rightly
    multiply what a query missing it matched), after the repairs so that they never pre-empt one. Only then the
    terms of a single seed, within ``max_growth`` alone (that study's wording, not the concept). Without
    ``off_topic`` and ``relax``: the growth bound alone, as before."""
    terms = [list(t) for _, t in blocks]
    search = _Search(seeds, render, count, max_growth * max(1, count(parse_boolean_query(render(terms)))),
                     off_topic, max_off_topic)
    before = _recall(search.found(terms), seeds)
    candidates = _proposable(mined_terms(seeds, background)) if seeds else []
    if generic is not None:
        candidates = [c for c in candidates if generic(c) < generic_share]
    home = _home_blocks(candidates, terms, seeds, relatedness)
    support = {c: sum(matches(Term(c), s.text) for s in seeds) for c in candidates}
    shared = [c for c in candidates if support[c] >= MIN_SUPPORT]
    added: dict[str, list[str]] = {}
    names = [name for name, _ in blocks]
    relaxed: frozenset[int] = frozenset()
    if relax is not None:  # before any term: a block the studies often do not name is not repaired seed by seed
        relaxed = _relax(terms, search, relax)
        if relaxed:
            search.render = lambda ts: relax(ts, relaxed)
    misses = len(search.found(terms)) < len(seeds)
    specific = [c for c in shared if generic is not None and generic(c) < specific_share]
    if generic is not None:
        terms = _add_specific(terms, specific, names, home, search, added, relaxed)
    terms = _add_terms(terms, shared, names, home, search, added, max_terms, True, relaxed)
    if generic is not None and misses:
        # the query missed seeds: a word most seeds use and almost no other topic does is the concept's, past
        # the growth bound (the off-topic bound only); after the repairs, so it never pre-empts one
        majority = [c for c in specific if 2 * support[c] > len(seeds) and generic(c) < majority_share]
        terms = _add_specific(terms, majority, names, home, search, added, relaxed, set(majority))
    single = [c for c in candidates if support[c] < MIN_SUPPORT]
    terms = _add_terms(terms, single, names, home, search, added, max_terms, False, relaxed)
    return MinedBlocks(terms=terms, added=added, query=search.render(terms), seed_recall_before=before,
                       seed_recall_after=_recall(search.found(terms), seeds),
                       relaxed=[names[i] for i in sorted(relaxed)])


def _add_specific(terms: list[list[str]], candidates: list[str], names: list[str], home: dict[str, int],
                  search: _Search, added: dict[str, list[str]], relaxed: frozenset[int],
                  unbounded: set[str] | frozenset[str] = frozenset()) -> list[list[str]]:
    """Each candidate (terms several seeds share, rare in a background of many topics) joins its home block
    whether or not the block already names the seeds using it, while the query matches at most the off-topic
    bound: five seeds are soon all named, and a word most of them use is the concept's, as likely in the
    other studies as in these (an invented "flurbos*" beside "quibble norms"). Within the growth bound too,
    except the ``unbounded`` terms (most seeds use them; almost no other topic does)."""
    if search.off_topic is None:
        return terms
    for term in candidates:
        i = home.get(term, 0)
        if i in relaxed or term in terms[i]:
            continue
        trial = [list(t) for t in terms]
        trial[i].append(term)
        tree = parse_boolean_query(search.render(trial))
        grows = term not in unbounded and search.count(tree) > search.limit
        if grows or search.off_topic(tree) > search.max_off_topic:
            continue  # a term no seed needs must not multiply what the query finds, unless it is the concept's
        terms = trial
        added.setdefault(names[i], []).append(term)
    return terms


def _recall(found: set[int], seeds: Sequence[SeedStudy]) -> float:
    return round(len(found) / len(seeds), 4) if seeds else 0.0


def _add_terms(terms: list[list[str]], candidates: list[str], names: list[str], home: dict[str, int],
               search: _Search, added: dict[str, list[str]], max_terms: int, broad_ok: bool,
               relaxed: frozenset[int] = frozenset()) -> list[list[str]]:
    """Each block in turn (not one left out of the query) gains the candidates homed to it that name a seed it
    did not name, while the query stays within the bounds (:meth:`_Search.within`); ``added`` records them by
    block name."""
    seeds = search.seeds
    for i, name in enumerate(names):
        if i in relaxed:
            continue
        for term in candidates:
            if home.get(term, i) != i:
                continue
            if len(added.get(name, [])) >= max_terms:
                break
            block = Or(tuple(parse_boolean_query(t) for t in terms[i])) if terms[i] else None
            named = {j for j, s in enumerate(seeds) if block is not None and matches(block, s.text)}
            if not any(j not in named and matches(Term(term), s.text) for j, s in enumerate(seeds)):
                continue
            trial = [list(t) for t in terms]
            trial[i].append(term)
            if not search.within(search.render(trial), broad_ok):
                continue
            terms = trial
            added.setdefault(name, []).append(term)
    return terms


def _relax(terms: list[list[str]], search: _Search, relax: RelaxedRender) -> frozenset[int]:
    """The blocks to leave out of the query: while the query misses a seed, the block whose leaving out finds
    the most missed seeds (then the fewer records of the pool), where the query then stays within the off-topic
    bound. A block the seeds name all of is never left out, nor the last one."""
    relaxed: frozenset[int] = frozenset()
    found = search.found(terms)
    while len(found) < len(search.seeds) and len(relaxed) < len(terms) - 1:
        best: tuple[int, int, int] | None = None
        for i, ts in enumerate(terms):
            block = Or(tuple(parse_boolean_query(t) for t in ts)) if ts else None
            if i in relaxed or all(block is not None and matches(block, s.text) for s in search.seeds):
                continue
            query = relax(terms, relaxed | {i})
            tree = parse_boolean_query(query)
            gain = sum(1 for j, s in enumerate(search.seeds) if j not in found and matches(tree, s.text))
            if gain and search.within(query, True) and (best is None or (gain, -search.count(tree)) > best[:2]):
                best = (gain, -search.count(tree), i)
        if best is None:
            break
        relaxed |= {best[2]}
        tree = parse_boolean_query(relax(terms, relaxed))
        found = {j for j, s in enumerate(search.seeds) if matches(tree, s.text)}
    return relaxed


def _home_blocks(candidates: list[str], terms: list[list[str]], seeds: Sequence[SeedStudy],
                 relatedness: Relatedness | None) -> dict[str, int]:
    """Each candidate term's block, by seed co-occurrence: the one missing the most of the seeds that use the
    term (it would name them), then one of whose words the term shares a stem with ("neuropath*" and
    "neuropathic pain"), then the one naming the most of those seeds already (the term is that concept's
    vocabulary), then the closest by ``relatedness``, then the earlier."""
    if len(terms) < 2 or not candidates:
        return {}
    blocks = [Or(tuple(parse_boolean_query(t) for t in ts)) if ts else None for ts in terms]
    names = [{j for j, s in enumerate(seeds) if b is not None and matches(b, s.text)} for b in blocks]
    scores = [relatedness(candidates, list(ts)) for ts in terms] if relatedness is not None else None
    stems = [{s for t in ts for s in _stems(t)} for ts in terms]
    home = {}
    for k, cand in enumerate(candidates):
        using = {j for j, s in enumerate(seeds) if matches(Term(cand), s.text)}
        words = _stems(cand)
        home[cand] = max(range(len(terms)), key=lambda i: (len(using - names[i]), bool(words & stems[i]),
                                                           len(using & names[i]),
                                                           scores[i][k] if scores is not None else 0.0, -i))
    return home


def _stems(term: str) -> set[str]:
    """The first five letters of each word of five letters or more of a term ("neuropath*" -> {"neuro"})."""
    return {w.strip('"*').casefold()[:5] for w in term.split() if len(w.strip('"*')) >= 5}


def improve_query(query: str, seeds: Sequence[SeedStudy], block_names: Sequence[str] | None = None,
                  background: Background | None = None, count: Counter | None = None,
                  max_growth: float = MAX_GROWTH) -> SeedReport:
    """:func:`check_query`, widened by the objective approach when a background is given: for each block that
    loses a seed, the terms most characteristic of the seeds against the background are tried in turn; a term
    is kept when it finds a seed the query missed and the query still matches at most ``max_growth`` times
    what it matched in the background (``count``). Without a background: :func:`check_query`'s widening."""
    if background is None or count is None or not seeds:
        return check_query(query, seeds, block_names)
    report = check_query(query, seeds, block_names)
    if not report.missed:
        return report
    tree = parse_boolean_query(query)
    blocks = list(blocks_of(tree))
    names = [(block_names[i] if block_names and i < len(block_names) else f"block {i + 1}")
             for i in range(len(blocks))]
    limit = max(1, count(tree)) * max_growth
    candidates = mined_terms(seeds, background)

    def rebuild(parts: list[Node]) -> Node:
        return parts[0] if len(parts) == 1 else And(tuple(parts))

    added: dict[str, list[str]] = {}
    current = rebuild(blocks)
    for _ in range(MAX_MINED_TERMS):
        missed = [s for s in seeds if not matches(current, s.text)]
        if not missed:
            break
        best: tuple[int, int, str, int, Node] | None = None
        for i, block in enumerate(blocks):
            lost = [s for s in missed if not matches(block, s.text)]
            if not lost:
                continue
            for term in candidates:
                gain = sum(matches(Term(term), s.text) for s in lost)
                if not gain:
                    continue
                children = list(block.children) if isinstance(block, Or) else [block]
                trial = list(blocks)
                trial[i] = Or(tuple(children + [Term(term)]))
                widened = rebuild(trial)
                found = sum(matches(widened, s.text) for s in seeds)
                if found <= len(seeds) - len(missed) or count(widened) > limit:
                    continue
                if best is None or found > best[0]:
                    best = (found, i, term, 0, trial[i])
                break  # the most characteristic term that helps this block
        if best is None:
            break
        _, i, term, _, node = best
        blocks[i] = node
        added.setdefault(names[i], []).append(term)
        current = rebuild(blocks)
    if added:
        report.added_terms = added
        report.widened_query = to_query(current)
        report.widened_recall = round(sum(matches(current, s.text) for s in seeds) / len(seeds), 4)
    else:
        report.added_terms, report.widened_query, report.widened_recall = {}, None, None
    return report


# ------------------------------------------------------------------------------------------------------------
# Pseudo-relevance feedback: the query's own best-ranked matches as seeds
# ------------------------------------------------------------------------------------------------------------

#: How many of the query's matches, ranked zero-shot against the text, stand in for seed studies; and how many
#: times what the unrefined query matched the refined one may match. Judged leave-one-review-out on the 18 shared
#: reviews' written abstracts, pooled (`agentr bench queries --pseudo-seeds 20`, k 5 / 10 / 20, growth 1.25 / 1.5 /
#: 2 / 3; docs/search-strategies.md, round 14b): 20 and 2.0 in 16 of 18 folds (recall 0.912 -> 0.955 held out,
#: drug 0.953 -> 0.978, non-drug 0.830 -> 0.909, off-topic 0.9 -> 2.0 %). From a question it gains nothing held
#: out, and without a background of many topics (a fresh project) it costs the off-topic bar: not wired in.
PSEUDO_SEEDS = 20
PSEUDO_GROWTH = 2.0
#: A mined term joins only when at least this share of the pseudo-seeds (and two of them) use it: the top of a
#: ranking holds off-topic records too, and one record's wording is not the concept's.
PSEUDO_SUPPORT = 0.3


def top_ranked(ranked_ids: Sequence[int], k: int) -> list[int]:
    """The first ``k`` of a ranking (best first): the pseudo-seeds."""
    return list(ranked_ids[: max(0, k)])


def refine_with_pseudo_seeds(blocks: Sequence[tuple[str, Sequence[str]]], pseudo: Sequence[SeedStudy],
                             render: Callable[[list[list[str]]], str], background: Background, count: Counter,
                             max_growth: float = PSEUDO_GROWTH, min_support: float = PSEUDO_SUPPORT,
                             relatedness: Relatedness | None = None, generic: Background | None = None,
                             generic_share: float = MINED_GENERIC_SHARE, off_topic: ShareOf | None = None,
                             max_off_topic: float = MAX_SEEDED_OFF_TOPIC, max_terms: int = MAX_MINED_TERMS,
                             open_blocks: Sequence[int] | None = None) -> MinedBlocks:
    """Pseudo-relevance feedback on a Boolean query: the ``pseudo`` seeds are the query's own best matches (ranked
    against the question), so they all match it and "recall on the seeds" says nothing. Instead the terms most
    characteristic of them against ``background`` (:func:`mined_terms`) that at least ``min_support`` of them
    use join their home block (:func:`_pseudo_homes`; among ``open_blocks``, default all: the required ones,
    where a new alternative finds what the query missed) in that order, each while the query matches at most
    ``max_growth`` times what it matched before (``count``) and, with ``off_topic``, at most ``max_off_topic``
    of a background of many topics. A term adding no match is skipped (the block has it already); a term in
    ``generic_share`` or more of ``generic`` is boilerplate or a general word and never proposed. The new
    alternatives are the words the studies use for a concept where the text says another ("defect" beside
    "fault")."""
    terms = [list(t) for _, t in blocks]
    names = [name for name, _ in blocks]
    start = count(parse_boolean_query(render(terms)))
    limit = max_growth * max(1, start)
    need = max(MIN_SUPPORT, min_support * len(pseudo))

    def supported(term: str) -> bool:
        return sum(matches(Term(term), s.text) for s in pseudo) >= need

    # a term too few pseudo-seeds use is never weighed (nor looked up in the background): 1.0 ranks it last
    candidates = mined_terms(pseudo, lambda t: background(t) if supported(t) else 1.0) if pseudo else []
    candidates = [c for c in _proposable(candidates) if supported(c)]
    if generic is not None:
        candidates = [c for c in candidates if generic(c) < generic_share]
    home = _pseudo_homes(candidates, terms, relatedness, open_blocks)
    added: dict[str, list[str]] = {}
    now = start
    for term in candidates:
        if sum(len(v) for v in added.values()) >= max_terms:
            break
        i = home.get(term)
        if i is None or term in terms[i]:
            continue
        trial = [list(t) for t in terms]
        trial[i].append(term)
        tree = parse_boolean_query(render(trial))
        n = count(tree)
        if n <= now or n > limit or (off_topic is not None and off_topic(tree) > max_off_topic):
            continue  # nothing new, or the query would multiply what it finds
        terms, now = trial, n
        added.setdefault(names[i], []).append(term)
    before = parse_boolean_query(render([list(t) for _, t in blocks]))
    after = parse_boolean_query(render(terms))
    return MinedBlocks(terms=terms, added=added, query=render(terms),
                       seed_recall_before=_recall({j for j, s in enumerate(pseudo) if matches(before, s.text)}, pseudo),
                       seed_recall_after=_recall({j for j, s in enumerate(pseudo) if matches(after, s.text)}, pseudo))


def _pseudo_homes(candidates: list[str], terms: list[list[str]], relatedness: Relatedness | None,
                  open_blocks: Sequence[int] | None) -> dict[str, int]:
    """Each candidate's block among ``open_blocks`` (default all): one of whose words it shares a stem with,
    then the closest by ``relatedness``, then the earlier. Not by seed co-occurrence (:func:`_home_blocks`):
    every pseudo-seed matches the query, so the only blocks missing them are the optional ones."""
    allowed = [i for i in (open_blocks if open_blocks is not None else range(len(terms))) if i < len(terms)]
    if not allowed or not candidates:
        return {}
    scores = {i: relatedness(candidates, list(terms[i])) for i in allowed} if relatedness is not None else {}
    stems = {i: {s for t in terms[i] for s in _stems(t)} for i in allowed}
    return {cand: max(allowed, key=lambda i: (bool(_stems(cand) & stems[i]),
                                              scores[i][k] if scores else 0.0, -i))
            for k, cand in enumerate(candidates)}
