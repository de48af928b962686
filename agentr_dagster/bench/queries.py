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

import json
import random
import re
import statistics
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tqdm import tqdm

from agentr_dagster.bench.pseudo import bench_pseudo, leave_one_out_pseudo, pseudo_lines
from agentr_dagster.bench.screening import discover_reviews, load_review
from agentr_dagster.domain.boolean_query import And, Node, Not, Term, fold, matches, parse_boolean_query
from agentr_dagster.domain.seed_check import (
    MAJORITY_SHARE,
    MAX_GROWTH,
    MINED_GENERIC_SHARE,
    SPECIFIC_SHARE,
    SeedStudy,
    improve_blocks,
)
from agentr_dagster.domain.specificity import GENERIC_SHARE
from agentr_dagster.llm.offline import OfflineBackend
from agentr_dagster.llm.offline.concepts import (
    GENERIC_ZIPF,
    QUERY_SHAPE,
    QUERY_SHAPES,
    REST_SHARE,
    SHAPES_WITH_EVERY_CONCEPT,
    content_words_baseline,
    extract_concepts,
)
from agentr_dagster.llm.offline.queries import concept_boolean_query
from agentr_dagster.sources.translate import query_tree
from agentr_dagster.stages.seeds import embedding_relatedness, general_english_pool

TARGET_RECALL = 0.9  # the bar for the mean include recall
#: How much a query widened by seed terms may match beyond what it matched (``max_growth``), judged
#: leave-one-review-out (:func:`leave_one_out_growth`).
GROWTH_GRID = (1.0, 1.25, 1.5, 2.0, 3.0)
#: From which share of the other reviews' records a mined seed term is boilerplate or generic
#: (``MINED_GENERIC_SHARE``), judged leave-one-review-out too; 1.0: none is.
MINED_SHARE_GRID = (0.005, 0.01, 0.02, 0.05, 1.0)
#: Under which share of the other reviews' records a term several seeds share joins its block unasked
#: (``SPECIFIC_SHARE``), judged leave-one-review-out too; 0.0: none does (only terms naming a lost seed).
SPECIFIC_SHARE_GRID = (0.0, 0.005, 0.01, 0.02, 0.05)
#: Under which share of the other reviews' records a term most seeds share joins past the growth bound while the
#: query misses seeds (``MAJORITY_SHARE``), judged leave-one-review-out too; 0.0: none does.
MAJORITY_SHARE_GRID = (0.0, 0.002, 0.005, 0.01, 0.02)


def question_kind(question: str) -> str:
    low = question.casefold()
    if re.search(r"\b(effectiveness|efficacy|benefit|(?<!-)harms?|effects? of|does \w+ .*(?:improve|reduce))\b", low):
        return "effectiveness"
    if re.search(r"\b(associated|association|relationship|role|predict\w*|risk factors?|correlat\w*)\b", low):
        return "association"
    return "descriptive"


DRUG_PREFIX = "Cohen_2006_"  # the 12 drug-class reviews, reported apart from the others


def is_drug_review(name: str) -> bool:
    return name.startswith(DRUG_PREFIX)


class Pool:
    """Every review folder's records under the roots, one corpus: which records a query matches, by the project's
    own matcher's rule (a term is a case-insensitive substring; ``stem*`` a word starting with the stem) or, with
    ``whole_words``, as a source matches (a term written whole only as whole words: ``"software process"`` does
    not find "software processes"), each term's matches computed once."""

    def __init__(self, texts: list[str], owners: list[str], titles: list[str] | None = None,
                 abstracts: list[str] | None = None, whole_words: bool = False):
        self.low = [fold(t) for t in texts]
        self.whole_words = whole_words
        # the records as a source returns them, for ranking what a query matches (pseudo-relevance feedback)
        self.titles = titles if titles is not None else list(texts)
        self.abstracts = abstracts if abstracts is not None else [""] * len(texts)
        self.owners = owners
        self.size_of: dict[str, int] = {}
        for o in owners:
            self.size_of[o] = self.size_of.get(o, 0) + 1
        self._terms: dict[str, frozenset[int]] = {}

    def term_ids(self, term: str) -> frozenset[int]:
        key = fold(term)
        if key not in self._terms:
            if key.endswith("*"):
                stem = key[:-1]
                pattern = re.compile(r"\b" + re.escape(stem))
                ids = [i for i, t in enumerate(self.low) if stem in t and pattern.search(t)]
            elif self.whole_words:
                pattern = re.compile(r"(?<!\w)" + re.escape(key) + r"(?!\w)")
                ids = [i for i, t in enumerate(self.low) if key in t and pattern.search(t)]
            else:
                ids = [i for i, t in enumerate(self.low) if key in t]
            self._terms[key] = frozenset(ids)
        return self._terms[key]

    def ids(self, node: Node | None) -> frozenset[int]:
        if node is None:
            return frozenset()
        if isinstance(node, Term):
            return self.term_ids(node.text)
        if isinstance(node, Not):
            return frozenset(range(len(self.low))) - self.ids(node.child)
        parts = [self.ids(c) for c in node.children]
        return frozenset.intersection(*parts) if isinstance(node, And) else frozenset().union(*parts)

    def df(self, term: str) -> float:
        """Share of the pool's records a term matches (its document frequency)."""
        return len(self.term_ids(term.strip('"'))) / max(1, len(self.low))

    def background_without(self, owner: str) -> Callable[[str], float]:
        """A term's share of the OTHER reviews' records: the background a review's own query is judged by (as a
        lake holds other projects' papers), never its own records."""
        others = max(1, len(self.low) - self.size_of.get(owner, 0))
        own = frozenset(i for i, o in enumerate(self.owners) if o == owner)

        def share(term: str) -> float:
            ids = self.term_ids(term.strip('"'))
            return (len(ids) - len(ids & own)) / others

        return share

    def specificity(self, node: Node | None, owner: str, exclude: frozenset[int] = frozenset()) -> dict:
        """What a query matches in the pool: the share of the OTHER reviews' records (``off_topic``), and all it
        matches relative to the review's own record count N (``ratio_n``)."""
        hits = self.ids(node) - exclude
        others = len(self.low) - self.size_of.get(owner, 0)
        off = sum(1 for i in hits if self.owners[i] != owner)
        own_n = self.size_of.get(owner, 0)
        return {"off_topic": round(off / others, 4) if others else None,
                "pool_matched": len(hits), "ratio_n": round(len(hits) / own_n, 3) if own_n else None}


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


def _own_stats(pool: Pool, tree: Node | None, own: range, labels: list[int], subset: list[int] | None = None) -> dict:
    """Recall of the includes, share of the review's records matched, precision (on its own records, or
    ``subset`` of them: positions in ``own``)."""
    idx = subset if subset is not None else list(range(len(own)))
    hits_all = pool.ids(tree)
    hits = [i for i in idx if own[i] in hits_all]
    inc = [i for i in idx if labels[i]]
    found = sum(1 for i in hits if labels[i])
    return {
        "recall": round(found / len(inc), 4) if inc else None,
        "share": round(len(hits) / len(idx), 4) if idx else None,
        "precision": round(found / len(hits), 4) if hits else 0.0,
        "matched": len(hits),
    }


def _judge(pool: Pool, name: str, query: str, own: range, labels: list[int],
           subset: list[int] | None = None, exclude: frozenset[int] = frozenset()) -> dict:
    tree = parse_boolean_query(query) if query.strip() else None
    return {**_own_stats(pool, tree, own, labels, subset), **pool.specificity(tree, name, exclude)}


def bench_text(text: str, name: str, pool: Pool, own: range, labels: list[int], backend: OfflineBackend,
               titles: list[str], abstracts: list[str], seeds: int = 5, seed: int = 0,
               shapes: bool = True, background: str = "pool", pseudo_seeds: int = 0) -> dict[str, Any]:
    """One input text (a question, or a published abstract) judged on the pool: the Boolean query's recall of
    the review's includes, share of its own records, off-topic rate and matches relative to N; with seeds, the
    query improved by the seed studies (:func:`agentr_dagster.domain.seed_check.improve_query`).

    ``background``: "pool", the other reviews' records judge the terms and bound the seeds (as a lake of many
    topics would); "none", a fresh project's case (no lake, no candidates, no source counts): the intent has no
    background and the seeds are weighed by general English, as a fresh project weighs them
    (:func:`agentr_dagster.stages.seeds.general_english_pool`)."""
    fresh = background == "none"
    intent = backend.decompose_intent(text, None if fresh else pool.background_without(name))
    queries = backend.generate_queries(intent)
    out: dict[str, Any] = {
        "boolean_query": queries.boolean_query,
        "concepts": [{"label": c.label, "required": c.required, "terms": len(c.terms)} for c in intent.concepts],
        "boolean": _judge(pool, name, queries.boolean_query, own, labels),
        "baseline": _judge(pool, name, content_words_baseline(text), own, labels),
    }
    if shapes:
        by_shape = {}
        for shape in QUERY_SHAPES:
            q = concept_boolean_query(intent.concepts, shape) if intent.concepts else queries.boolean_query
            by_shape[shape] = {**_judge(pool, name, q, own, labels), "chars": len(q)}
        out["by_shape"] = by_shape
    # the ten strings, as a source reads them
    in_pool = [pool.ids(query_tree(s)) for s in queries.search_strings]
    per_string = [ids & frozenset(own) for ids in in_pool]
    union = frozenset().union(*per_string)
    inc = [i for i in range(len(own)) if labels[i]]
    others = len(pool.low) - len(own)
    out["strings"] = {
        "union_recall": round(sum(1 for i in inc if own[i] in union) / len(inc), 4) if inc else None,
        "union_share": round(len(union) / len(own), 4) if len(own) else None,
        "matching_nothing": sum(1 for s in per_string if not s),
        # what the strings bring from the other reviews (each string matches what its words match; a source
        # caps each string's results, so this bounds the off-topic share a run takes in)
        "union_off_topic": round(len(frozenset().union(*in_pool) - frozenset(own)) / others, 4) if others else None,
    }
    if seeds and len(inc) > seeds:
        out["seeded"] = _bench_seeded(intent, queries.boolean_query, name, pool, own, labels, backend, titles,
                                      abstracts, seeds, seed, fresh)
    if pseudo_seeds and intent.concepts:
        out["pseudo"] = _bench_pseudo(intent, queries.boolean_query, text, name, pool, own, labels, backend,
                                      pseudo_seeds, fresh)
    return out


def _bench_pseudo(intent: Any, query: str, text: str, name: str, pool: Pool, own: range, labels: list[int],
                  backend: OfflineBackend, max_k: int, fresh: bool) -> dict[str, Any]:
    """The query refined by its own top-ranked matches in the pool (:func:`agentr_dagster.bench.pseudo.
    bench_pseudo`), weighed as the seeded run weighs seeds: general English for a fresh project, else the other
    reviews' records."""
    generic: Callable[[str], float] | None
    off_topic: Callable[[Node], float] | None
    if fresh:
        english = general_english_pool()
        weigh, count, generic, off_topic = english.background, english.count, None, None
    else:
        weigh = generic = pool.background_without(name)

        def count(node: Node) -> int:
            return len(pool.ids(node))

        def off_topic(node: Node) -> float:
            return pool.specificity(node, name)["off_topic"] or 0.0

    return bench_pseudo([(c.label, list(c.terms)) for c in intent.concepts], query, text, pool, name,
                        lambda ts: _render(intent, ts), lambda q: _judge(pool, name, q, own, labels), weigh, count,
                        generic, off_topic, embedding_relatedness(backend.embedder), backend.embedder, max_k,
                        [i for i, c in enumerate(intent.concepts) if c.required])


def _bench_seeded(intent: Any, query: str, name: str, pool: Pool, own: range, labels: list[int],
                  backend: OfflineBackend, titles: list[str], abstracts: list[str], seeds: int, seed: int,
                  fresh: bool) -> dict[str, Any]:
    """The query improved by ``seeds`` of the review's includes (drawn by ``seed``), judged on the remaining
    includes, at the shipped bounds and over each bound's grid (see :func:`bench_text`)."""
    inc = [i for i in range(len(own)) if labels[i]]
    rng = random.Random(f"{seed}:{name}")
    chosen = sorted(rng.sample(inc, seeds))
    rest = [i for i in range(len(own)) if i not in set(chosen)]
    studies = [SeedStudy(titles[i], abstracts[i] if abstracts[i] != "nan" else "") for i in chosen]
    seed_ids = frozenset(own[i] for i in chosen)
    by_growth: dict[str, dict] = {}
    added: dict[str, list[str]] = {}
    after = query
    related = embedding_relatedness(backend.embedder)
    by_share: dict[str, dict] = {}
    if fresh:  # as a fresh project weighs the seeds: general English, no background of other topics
        english = general_english_pool()
        weigh, count, generic, off_topic = english.background, english.count, None, None
    else:  # the other reviews' records, as a lake of many topics
        weigh, count = pool.df, lambda node: len(pool.ids(node))
        generic = pool.background_without(name)

        def off_topic(node: Node) -> float:
            return pool.specificity(node, name)["off_topic"] or 0.0

    by_specific: dict[str, dict] = {}
    by_majority: dict[str, dict] = {}
    relaxed: list[str] = []
    shipped = (MAX_GROWTH, MINED_GENERIC_SHARE, SPECIFIC_SHARE, MAJORITY_SHARE)
    for run in _seed_runs(fresh) if intent.concepts else ():
        growth, share, specific, majority = run
        mined = improve_blocks([(c.label, c.terms) for c in intent.concepts], studies,
                               lambda ts: _render(intent, ts), background=weigh, count=count,
                               max_growth=growth, relatedness=related, generic=generic,
                               generic_share=share, specific_share=specific, off_topic=off_topic,
                               relax=lambda ts, leave: _render(intent, ts, leave), majority_share=majority)
        judged = _judge(pool, name, mined.query, own, labels, rest, seed_ids)
        # each value of a grid at the shipped values of the others
        for grid, pos in ((by_growth, 0), (by_share, 1), (by_specific, 2), (by_majority, 3)):
            if all(v == shipped[k] for k, v in enumerate(run) if k != pos):
                grid[str(run[pos])] = judged
        if run == shipped:
            added, after, relaxed = mined.added, mined.query, mined.relaxed
    return {
        "seeds": seeds,
        "added_terms": added,
        "relaxed_blocks": relaxed,
        "widened_query": after if added or relaxed else None,
        "before": _judge(pool, name, query, own, labels, rest, seed_ids),
        "after": _judge(pool, name, after, own, labels, rest, seed_ids),
        "by_growth": by_growth,
        "by_generic_share": by_share,
        "by_specific_share": by_specific,
        "by_majority_share": by_majority,
    }


def _seed_runs(fresh: bool) -> list[tuple[float, ...]]:
    """The seed widening's bounds to run: (growth, generic share, specific share, majority share), each over its
    grid at the shipped values of the others; the majority share only with a background of other topics (a fresh
    project has none to judge a term by, so every value gives the same query)."""
    shipped: tuple[float, ...] = (MAX_GROWTH, MINED_GENERIC_SHARE, SPECIFIC_SHARE, MAJORITY_SHARE)
    grids = (GROWTH_GRID, MINED_SHARE_GRID, SPECIFIC_SHARE_GRID, () if fresh else MAJORITY_SHARE_GRID)
    runs = [shipped]
    for pos, grid in enumerate(grids):
        runs += [shipped[:pos] + (v,) + shipped[pos + 1:] for v in grid if v != shipped[pos]]
    return runs


def _render(intent: Any, terms: list[list[str]], leave_out: frozenset[int] = frozenset()) -> str:
    """The shipped query of the intent's concept blocks with ``terms`` as their terms, without the blocks at
    the positions ``leave_out`` (relaxed by the seeds)."""
    concepts = [c.model_copy(update={"terms": t}) for c, t in zip(intent.concepts, terms, strict=True)]
    return concept_boolean_query(concepts, leave_out=leave_out)


def bench_review(folder: Path, backend: OfflineBackend, pool: Pool, own: range, seeds: int = 5,
                 seed: int = 0, written: dict[str, str] | None = None, background: str = "pool",
                 pseudo_seeds: int = 0) -> dict[str, Any]:
    """One review judged from its question, and from its published abstract (review.json) or, failing that and
    where ``written`` has one for it, from an abstract written for the bench (:func:`load_written_abstracts`)."""
    rv = load_review(folder)
    labels = [int(v) for v in rv.labels]
    question = bench_text(rv.question, rv.name, pool, own, labels, backend, rv.titles, rv.abstracts, seeds, seed,
                          background=background, pseudo_seeds=pseudo_seeds)
    out: dict[str, Any] = {
        "name": rv.name,
        "kind": question_kind(rv.question),
        "drug": is_drug_review(rv.name),
        "n_records": len(own),
        "n_includes": sum(labels),
        **question,
    }
    text, source = review_abstract(folder, rv.name, written)
    if text:
        out["abstract"] = {"source": source, **bench_text(text, rv.name, pool, own, labels, backend, rv.titles,
                                                          rv.abstracts, seeds, seed, background=background,
                                                          pseudo_seeds=pseudo_seeds)}
    return out


#: Abstracts written for this bench from the shared reviews' questions (not published abstracts; see the file's
#: ``_about`` and the README beside it).
WRITTEN_ABSTRACTS = Path(__file__).resolve().parent.parent / "data" / "bench" / "written_abstracts.json"


def load_written_abstracts(path: Path = WRITTEN_ABSTRACTS) -> dict[str, str]:
    """Review name -> "title. abstract" of a JSON file of written abstracts: an object whose ``abstracts`` is a
    list of ``name``, ``title``, ``abstract`` (or that list alone, the shape of the published abstracts' file),
    whitespace collapsed, as :func:`published_abstract` gives a published one."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    items = data.get("abstracts", []) if isinstance(data, dict) else data
    out: dict[str, str] = {}
    for item in items:
        title = str(item.get("title") or "").strip().rstrip(".")
        text = f"{title}. {item.get('abstract') or ''}" if title else str(item.get("abstract") or "")
        name = str(item.get("name") or "").strip()
        if name and text.strip():
            out[name] = " ".join(text.split())
    return out


def published_abstract(folder: Path) -> str:
    """The review's published title and abstract, where its review.json carries one (``published_abstract``)."""
    path = Path(folder) / "review.json"
    if not path.is_file():
        return ""
    meta = json.loads(path.read_text(encoding="utf-8") or "{}")
    text = str(meta.get("published_abstract") or "").strip()
    text = re.sub(r"^#+\s*(.+?)\s*\n", lambda m: m.group(1).rstrip(".") + ". ", text)  # a Markdown title line
    return " ".join(text.split())


def review_abstract(folder: Path, name: str, written: dict[str, str] | None = None) -> tuple[str, str]:
    """The abstract a review is judged from, and its source: its published one (review.json) or, failing that,
    the one ``written`` has for ``name`` (:func:`load_written_abstracts`); ("", "") where there is neither."""
    text = published_abstract(folder)
    if text:
        return text, "published"
    text = (written or {}).get(name, "")
    return (text, "written") if text else ("", "")


def build_pool(folders: list[Path], whole_words: bool = False) -> tuple[Pool, dict[str, range]]:
    """Every folder's records in one pool, and each review's positions in it (``whole_words``: see :class:`Pool`)."""
    texts: list[str] = []
    owners: list[str] = []
    titles: list[str] = []
    abstracts: list[str] = []
    spans: dict[str, range] = {}
    for folder in folders:
        rv = load_review(folder)
        start = len(texts)
        texts += [f"{t}. {a}" if a and a != "nan" else t for t, a in zip(rv.titles, rv.abstracts, strict=True)]
        owners += [rv.name] * len(rv.titles)
        titles += list(rv.titles)
        abstracts += [a if a and a != "nan" else "" for a in rv.abstracts]
        spans[rv.name] = range(start, len(texts))
    return Pool(texts, owners, titles, abstracts, whole_words), spans


def bench_unlabelled_abstracts(path: Path, pool: Pool, backend: OfflineBackend) -> list[dict[str, Any]]:
    """Published review abstracts without labels (a JSON list of ``name``, ``title``, ``abstract``): what the
    query looks like and what it matches in the pool."""
    rows = []
    for item in json.loads(Path(path).read_text(encoding="utf-8")):
        text = f"{item.get('title', '')}. {item.get('abstract', '')}".strip(". ")
        intent = backend.decompose_intent(text, pool.df)
        query = backend.generate_queries(intent).boolean_query
        hits = pool.ids(parse_boolean_query(query))
        rows.append({"name": item.get("name", ""), "boolean_query": query,
                     "concepts": [{"label": c.label, "required": c.required} for c in intent.concepts],
                     "pool_matched": len(hits), "pool_share": round(len(hits) / max(1, len(pool.low)), 4),
                     "pool_owners": sorted({pool.owners[i] for i in hits})[:20]})
    return rows


def _mean(values: list[float | None]) -> float | None:
    vals = [v for v in values if v is not None]
    return round(statistics.mean(vals), 4) if vals else None


def _median(values: list[float | None]) -> float | None:
    vals = [v for v in values if v is not None]
    return round(statistics.median(vals), 3) if vals else None


MAX_OFF_TOPIC = 0.05  # the issue's bar for the share of other reviews' records a query matches
MAX_RATIO_N = 3.0  # ... and for the records it matches in the pool relative to the expert's own count N


def meets_bars(recall: float | None, off_topic: float | None) -> bool:
    """One review's query meets the issue's bars: recall of its includes >= 0.9, off-topic <= 5 %."""
    return (recall or 0.0) >= TARGET_RECALL and (off_topic or 0.0) <= MAX_OFF_TOPIC


def choose_shape_by_bars(reviews: list[dict], candidates: tuple[str, ...] = QUERY_SHAPES) -> str:
    """The shape under which the most of ``reviews`` meet both bars (:func:`meets_bars`), then the best mean
    recall, then the lower mean off-topic rate."""

    def key(shape: str) -> tuple:
        rows = [r["by_shape"][shape] for r in reviews]
        return (sum(meets_bars(x["recall"], x["off_topic"]) for x in rows),
                round(_mean([x["recall"] for x in rows]) or 0.0, 3), -(_mean([x["off_topic"] for x in rows]) or 0.0))

    return max(candidates, key=key)


def choose_shape(reviews: list[dict], candidates: tuple[str, ...] = SHAPES_WITH_EVERY_CONCEPT) -> str:
    """Among the shapes whose mean recall on ``reviews`` reaches ``TARGET_RECALL``, whose mean off-topic rate is
    at most ``MAX_OFF_TOPIC`` and whose median matches / N is at most ``MAX_RATIO_N``, the one matching the
    fewest records relative to N (none: the best recall, then the lower off-topic rate)."""

    def mean_of(shape: str, key: str) -> float:
        return _mean([r["by_shape"][shape][key] for r in reviews]) or 0.0

    def median_of(shape: str, key: str) -> float:
        return _median([r["by_shape"][shape][key] for r in reviews]) or 0.0

    good = [s for s in candidates if mean_of(s, "recall") >= TARGET_RECALL
            and mean_of(s, "off_topic") <= MAX_OFF_TOPIC and median_of(s, "ratio_n") <= MAX_RATIO_N]
    if good:
        return min(good, key=lambda s: (mean_of(s, "ratio_n"), -mean_of(s, "recall")))
    return max(candidates, key=lambda s: (mean_of(s, "recall"), -mean_of(s, "off_topic")))


def leave_one_out(reviews: list[dict], candidates: tuple[str, ...] = SHAPES_WITH_EVERY_CONCEPT,
                  choose: Callable[[list[dict], tuple[str, ...]], str] = choose_shape) -> dict[str, Any]:
    """Held-out recall, off-topic rate and matches / N when the shape is chosen on the other reviews."""
    picks, rows = {}, []
    for r in reviews:
        best = choose([o for o in reviews if o is not r], candidates)
        picks[r["name"]] = best
        rows.append(r["by_shape"][best])
    drug = [x for r, x in zip(reviews, rows, strict=True) if r.get("drug")]
    other = [x for r, x in zip(reviews, rows, strict=True) if not r.get("drug")]
    return {"picked": picks, "recall": _mean([x["recall"] for x in rows]), "share": _mean([x["share"] for x in rows]),
            "off_topic": _mean([x["off_topic"] for x in rows]), "median_ratio_n": _median([x["ratio_n"] for x in rows]),
            "meeting_bars": sum(meets_bars(x["recall"], x["off_topic"]) for x in rows),
            "drug": [_mean([x["recall"] for x in drug]), _mean([x["off_topic"] for x in drug])],
            "non_drug": [_mean([x["recall"] for x in other]), _mean([x["off_topic"] for x in other])]}


def _means(rows: list[dict]) -> dict[str, Any]:
    """Means over reviews of one mode's results (question, or abstract)."""
    seeded = [r["seeded"] for r in rows if "seeded" in r]
    out = {
        "n": len(rows),
        "boolean_recall": _mean([r["boolean"]["recall"] for r in rows]),
        "boolean_share": _mean([r["boolean"]["share"] for r in rows]),
        "boolean_precision": _mean([r["boolean"]["precision"] for r in rows]),
        "off_topic": _mean([r["boolean"]["off_topic"] for r in rows]),
        "max_off_topic": max((r["boolean"]["off_topic"] or 0.0 for r in rows), default=None),
        "median_ratio_n": _median([r["boolean"]["ratio_n"] for r in rows]),
        "mean_ratio_n": _mean([r["boolean"]["ratio_n"] for r in rows]),
        "reviews_recall_below_0.9": sum(1 for r in rows if (r["boolean"]["recall"] or 0) < TARGET_RECALL),
        "reviews_meeting_bars": sum(1 for r in rows if meets_bars(r["boolean"]["recall"], r["boolean"]["off_topic"])),
        "baseline_recall": _mean([r["baseline"]["recall"] for r in rows]),
        "baseline_share": _mean([r["baseline"]["share"] for r in rows]),
        "baseline_off_topic": _mean([r["baseline"]["off_topic"] for r in rows]),
        "strings_union_recall": _mean([r["strings"]["union_recall"] for r in rows]),
        "strings_matching_nothing": sum(r["strings"]["matching_nothing"] for r in rows),
        "seeded_before_recall": _mean([s["before"]["recall"] for s in seeded]),
        "seeded_after_recall": _mean([s["after"]["recall"] for s in seeded]),
        "seeded_after_share": _mean([s["after"]["share"] for s in seeded]),
        "seeded_after_off_topic": _mean([s["after"]["off_topic"] for s in seeded]),
        "seeded_after_median_ratio_n": _median([s["after"]["ratio_n"] for s in seeded]),
    }
    if rows and all("by_shape" in r for r in rows):
        out["by_shape"] = {s: {"recall": _mean([r["by_shape"][s]["recall"] for r in rows]),
                               "share": _mean([r["by_shape"][s]["share"] for r in rows]),
                               "off_topic": _mean([r["by_shape"][s]["off_topic"] for r in rows]),
                               "median_ratio_n": _median([r["by_shape"][s]["ratio_n"] for r in rows]),
                               "max_chars": max((r["by_shape"][s]["chars"] for r in rows), default=0)}
                           for s in QUERY_SHAPES}
    return out


def leave_one_out_growth(reviews: list[dict], field: str = "by_growth",
                         values: tuple[float, ...] = GROWTH_GRID) -> dict[str, Any] | None:
    """A value of the seed widening (the growth bound, ``by_growth``; the mined terms' generic share,
    ``by_generic_share``) judged leave-one-review-out: for each review, among the values whose mean off-topic
    rate on the other reviews is at most ``MAX_OFF_TOPIC``, the one with the best mean recall of the remaining
    includes there (then the lower off-topic rate)."""
    # only reviews run over the whole grid (without a background the majority share is run at its value alone)
    rows = [r for r in reviews if all(str(g) in r.get("seeded", {}).get(field, {}) for g in values)]
    if len(rows) < 2:
        return None

    def mean(g: str, group: list[dict], key: str) -> float:
        return _mean([r["seeded"][field][g][key] for r in group]) or 0.0

    grid = [str(g) for g in values]
    picks, held = {}, []
    for r in rows:
        others = [o for o in rows if o is not r]
        ok = [g for g in grid if mean(g, others, "off_topic") <= MAX_OFF_TOPIC] or grid
        best = max(ok, key=lambda g: (round(mean(g, others, "recall"), 3), -mean(g, others, "off_topic")))
        picks[r["name"]] = best
        held.append(r["seeded"][field][best])
    return {"grid": {g: {"recall": round(mean(g, rows, "recall"), 4), "off_topic": round(mean(g, rows, "off_topic"), 4)}
                     for g in grid},
            "picked": picks, "recall": _mean([h["recall"] for h in held]),
            "off_topic": _mean([h["off_topic"] for h in held]), "median_ratio_n": _median([h["ratio_n"] for h in held])}


def summarise(reviews: list[dict]) -> dict[str, Any]:
    kinds = sorted({r["kind"] for r in reviews})
    groups = {"all": reviews, "drug": [r for r in reviews if r["drug"]],
              "non-drug": [r for r in reviews if not r["drug"]]}
    abstracts = [r["abstract"] | {"name": r["name"], "drug": r["drug"]} for r in reviews if "abstract" in r]
    return {
        "all": _means(reviews),
        "drug": _means(groups["drug"]),
        "non_drug": _means(groups["non-drug"]),
        "by_kind": {k: _means([r for r in reviews if r["kind"] == k]) for k in kinds},
        "abstract": _means(abstracts) if abstracts else None,
        "abstract_drug": _means([a for a in abstracts if a["drug"]]) if abstracts else None,
        "abstract_non_drug": _means([a for a in abstracts if not a["drug"]]) if abstracts else None,
        "abstract_sources": {k: sum(1 for a in abstracts if a.get("source") == k) for k in ("published", "written")},
        "leave_one_out_shape": leave_one_out(reviews) if len(reviews) > 1 else None,
        "leave_one_out_seed_growth": leave_one_out_growth(reviews),
        "leave_one_out_seed_generic_share": leave_one_out_growth(reviews, "by_generic_share", MINED_SHARE_GRID),
        "leave_one_out_seed_specific_share": leave_one_out_growth(reviews, "by_specific_share", SPECIFIC_SHARE_GRID),
        "abstract_leave_one_out_seed_specific_share": leave_one_out_growth(
            [r["abstract"] | {"name": r["name"], "drug": r["drug"]} for r in reviews if "abstract" in r],
            "by_specific_share", SPECIFIC_SHARE_GRID),
        "leave_one_out_seed_majority_share": leave_one_out_growth(reviews, "by_majority_share", MAJORITY_SHARE_GRID),
        "abstract_leave_one_out_seed_majority_share": leave_one_out_growth(
            [r["abstract"] | {"name": r["name"], "drug": r["drug"]} for r in reviews if "abstract" in r],
            "by_majority_share", MAJORITY_SHARE_GRID),
        "leave_one_out_shape_main_allowed": leave_one_out(reviews, QUERY_SHAPES) if len(reviews) > 1 else None,
        "leave_one_out_shape_bars": leave_one_out(reviews, QUERY_SHAPES, choose_shape_by_bars)
        if len(reviews) > 1 else None,
        "query_shape": QUERY_SHAPE,
    }


GENERIC_ZIPF_GRID = (4.25, 4.5, 4.75, 5.0, 5.25, 5.5, 6.0, 9.0)  # 9.0: no word is generic
GENERIC_SHARE_GRID = (0.005, 0.01, 0.02, 0.03, 0.05, 0.1, 1.0)  # 1.0: the background calls no term generic
REST_SHARE_GRID = (0.005, 0.01, 0.02, 0.03, 0.05, 0.1, 0.2)  # REST_SHARE; 0.005: optional blocks nearly always stay


def leave_one_out_rest_share(folders: list[Path], pool: Pool, spans: dict[str, range],
                             grid: tuple[float, ...] = REST_SHARE_GRID) -> dict[str, Any]:
    """The share under which the required blocks AND-ed let the optional ones leave the rest branch
    (:data:`~agentr_dagster.llm.offline.concepts.REST_SHARE`, shape ``main_or_specific_rest``) judged
    leave-one-review-out on the questions, by the most held-in reviews meeting both bars (:func:`meets_bars`)."""
    return _leave_one_out_value(folders, pool, spans, grid, lambda question, name, s: extract_concepts(
        question, background=pool.background_without(name), rest_share=s), rule="bars")


def leave_one_out_generic_zipf(folders: list[Path], pool: Pool, spans: dict[str, range],
                               grid: tuple[float, ...] = GENERIC_ZIPF_GRID) -> dict[str, Any]:
    """The generic-word floor (:data:`~agentr_dagster.llm.offline.concepts.GENERIC_ZIPF`, general English
    alone: no background) judged leave-one-review-out on the questions (:func:`_leave_one_out_value`)."""
    return _leave_one_out_value(folders, pool, spans, grid, lambda question, name, z: extract_concepts(question, z))


def leave_one_out_generic_share(folders: list[Path], pool: Pool, spans: dict[str, range],
                                grid: tuple[float, ...] = GENERIC_SHARE_GRID) -> dict[str, Any]:
    """The background share from which a term is generic (:data:`~agentr_dagster.llm.offline.concepts.
    GENERIC_SHARE`; the background: the other reviews' records) judged leave-one-review-out on the questions, by
    the most held-in reviews meeting both bars (:func:`meets_bars`)."""
    return _leave_one_out_value(folders, pool, spans, grid, lambda question, name, s: extract_concepts(
        question, background=pool.background_without(name), generic_share=s), rule="bars")


def _leave_one_out_value(folders: list[Path], pool: Pool, spans: dict[str, range], grid: tuple[float, ...],
                         plan_of: Callable[[str, str, float], Any], rule: str = "recall") -> dict[str, Any]:
    """A tuned value of the concept path judged leave-one-review-out on the questions: for each review, among
    the values whose mean off-topic rate on the other reviews is at most ``MAX_OFF_TOPIC``, the one with the
    best mean recall there (then the lower off-topic rate) is applied to it. ``rule="bars"``: the value under
    which the most other reviews meet both bars (:func:`meets_bars`), then the best mean recall."""
    rows: dict[tuple[float, str], tuple[float, float]] = {}
    names = []
    for folder in folders:
        rv = load_review(folder)
        names.append(rv.name)
        own = spans[rv.name]
        includes = [own[i] for i, v in enumerate(rv.labels) if int(v)]
        for z in grid:
            query = plan_of(rv.question, rv.name, z).boolean_query()
            tree = parse_boolean_query(query) if query else None
            hits = pool.ids(tree)
            rows[(z, rv.name)] = (sum(1 for i in includes if i in hits) / max(1, len(includes)),
                                  pool.specificity(tree, rv.name)["off_topic"] or 0.0)

    def mean(z: float, group: list[str], k: int) -> float:
        return statistics.mean(rows[(z, n)][k] for n in group)

    def passing(z: float, group: list[str]) -> int:
        return sum(meets_bars(*rows[(z, n)]) for n in group)

    picks = {}
    for name in names:
        others = [o for o in names if o != name]
        if rule == "bars":
            picks[name] = max(grid, key=lambda z: (passing(z, others), round(mean(z, others, 0), 3),
                                                   -mean(z, others, 1)))
            continue
        ok = [z for z in grid if mean(z, others, 1) <= MAX_OFF_TOPIC] or list(grid)
        picks[name] = max(ok, key=lambda z: (round(mean(z, others, 0), 3), -mean(z, others, 1)))
    held = [rows[(picks[n], n)] for n in names]
    drug = [rows[(picks[n], n)] for n in names if is_drug_review(n)]
    other = [rows[(picks[n], n)] for n in names if not is_drug_review(n)]
    return {"grid": {str(z): {"recall": round(mean(z, names, 0), 4), "off_topic": round(mean(z, names, 1), 4),
                              "meeting_bars": passing(z, names)} for z in grid},
            "picked": picks, "recall": _mean([h[0] for h in held]), "off_topic": _mean([h[1] for h in held]),
            "meeting_bars": sum(meets_bars(*h) for h in held),
            "drug": [_mean([h[0] for h in drug]), _mean([h[1] for h in drug])],
            "non_drug": [_mean([h[0] for h in other]), _mean([h[1] for h in other])]}


def run_queries_bench(root: Path, seeds: int = 5, seed: int = 0, backend: OfflineBackend | None = None,
                      abstracts: Path | None = None, progress: bool = False,
                      written_abstracts: Path | None = None, background: str = "pool", pseudo_seeds: int = 0,
                      whole_words: bool = False) -> dict:
    """Every review under ``root`` judged from its question (and abstract), the records of all pooled; with
    ``background`` "none" as a fresh project meets them (:func:`bench_text`), without the tuning grids that
    judge terms by the pool. ``whole_words``: terms match as a source matches them (:class:`Pool`)."""
    backend = backend or OfflineBackend()
    folders = discover_reviews(Path(root))
    pool, spans = build_pool(folders, whole_words)
    written = load_written_abstracts(written_abstracts) if written_abstracts is not None else None
    reviews = []
    for folder in tqdm(folders, desc="reviews", unit="review", disable=not progress):
        name = load_review(folder).name
        reviews.append(bench_review(folder, backend, pool, spans[name], seeds, seed, written, background,
                                    pseudo_seeds))
    result: dict[str, Any] = {"pool": {"records": len(pool.low), "reviews": len(folders),
                                       "matching": "whole words" if whole_words else "substring"},
                              "background": background,
                              "reviews": reviews, "summary": summarise(reviews)}
    if pseudo_seeds:
        result["summary"]["pseudo_question"] = leave_one_out_pseudo(reviews)
        result["summary"]["pseudo_abstract"] = leave_one_out_pseudo(
            [r["abstract"] | {"name": r["name"], "drug": r["drug"]} for r in reviews if "abstract" in r])
    if len(folders) > 1 and background == "pool" and not pseudo_seeds:
        result["summary"]["leave_one_out_generic_zipf"] = leave_one_out_generic_zipf(folders, pool, spans)
        result["summary"]["leave_one_out_generic_share"] = leave_one_out_generic_share(folders, pool, spans)
        result["summary"]["leave_one_out_rest_share"] = leave_one_out_rest_share(folders, pool, spans)
    if abstracts is not None:
        result["unlabelled_abstracts"] = bench_unlabelled_abstracts(abstracts, pool, backend)
    return result


def _tuned_value_lines(loo: dict, grid_title: str, name: str, shipped: object) -> list[str]:
    """A tuned value's figures per candidate value, then what leave-one-review-out picked and how it held out."""
    median = f" median xN {loo['median_ratio_n']}" if "median_ratio_n" in loo else ""
    picked = ", ".join(sorted({str(v) for v in loo["picked"].values()}))
    return [f"{grid_title}: " + ", ".join(f"{k} {v['recall']}/{v['off_topic']}" for k, v in loo["grid"].items()),
            f"leave-one-review-out {name}: held-out recall {loo['recall']} off-topic {loo['off_topic']}{median} "
            f"(picked: {picked}; shipped: {shipped})"]


# the constants tuned leave-one-review-out: (summary key, title of the per-value line, name, the shipped value)
_TUNED_VALUES = (
    ("leave_one_out_seed_growth", "seed widening growth bound per value, recall of the remaining includes/off-topic",
     "growth bound", MAX_GROWTH),
    ("leave_one_out_seed_generic_share", "mined seed terms' generic share per value, recall of the remaining "
     "includes/off-topic", "mined generic share", MINED_GENERIC_SHARE),
    ("leave_one_out_seed_specific_share", "seed terms' specific share (question) per value, recall of the "
     "remaining includes/off-topic", "specific share", SPECIFIC_SHARE),
    ("abstract_leave_one_out_seed_specific_share", "seed terms' specific share (abstract) per value, recall of "
     "the remaining includes/off-topic", "specific share (abstract)", SPECIFIC_SHARE),
    ("leave_one_out_seed_majority_share", "seed terms' majority share (question) per value, recall of the "
     "remaining includes/off-topic", "majority share", MAJORITY_SHARE),
    ("abstract_leave_one_out_seed_majority_share", "seed terms' majority share (abstract) per value, recall of "
     "the remaining includes/off-topic", "majority share (abstract)", MAJORITY_SHARE),
    ("leave_one_out_generic_zipf", "generic-word floor (Zipf) per value, recall/off-topic", "generic-word floor",
     GENERIC_ZIPF),
    ("leave_one_out_generic_share", "generic-word background share per value, recall/off-topic",
     "generic-word share", GENERIC_SHARE),
    ("leave_one_out_rest_share", "rest-branch share (main_or_specific_rest) per value, recall/off-topic",
     "rest-branch share", REST_SHARE),
)


def format_table(result: dict) -> str:
    head = (f"{'review':34} {'mode':8} {'recall':>6} {'share':>6} {'off%':>6} {'xN':>6} {'base_r':>6} "
            f"{'base_o%':>7} {'str_r':>6} {'seed_b':>6} {'seed_a':>6} {'s_off%':>6} {'s_xN':>6}")
    lines = [f"pool: {result['pool']['records']} records of {result['pool']['reviews']} reviews; off% = share of "
             "the other reviews' records matched, xN = records matched in the pool / the review's own N; terms judged "
             f"by: {'no background (a fresh project)' if result.get('background') == 'none' else 'the pool'}", head]

    def f(v, pct: bool = False) -> str:
        if not isinstance(v, float | int):
            return f"{'-':>6}"
        return f"{100 * v:6.1f}" if pct else f"{v:6.3f}"

    def row(label: str, mode: str, r: dict) -> str:
        s = r.get("seeded", {})
        b = r["boolean"]
        return (f"{label[:34]:34} {mode:8} {f(b['recall'])} {f(b['share'])} {f(b['off_topic'], True)} "
                f"{f(b['ratio_n'])} {f(r['baseline']['recall'])} {f(r['baseline']['off_topic'], True):>7} "
                f"{f(r['strings']['union_recall'])} {f(s.get('before', {}).get('recall'))} "
                f"{f(s.get('after', {}).get('recall'))} {f(s.get('after', {}).get('off_topic'), True)} "
                f"{f(s.get('after', {}).get('ratio_n'))}")

    for r in result["reviews"]:
        lines.append(row(r["name"], "question", r))
        if "abstract" in r:
            lines.append(row(r["name"], "abs-" + r["abstract"].get("source", "published")[:4], r["abstract"]))
    summary = result["summary"]
    groups = [("all", summary["all"]), ("drug", summary["drug"]), ("non-drug", summary["non_drug"]),
              *summary["by_kind"].items()]
    for key, label in (("abstract", "abstract"), ("abstract_drug", "abstract drug"),
                       ("abstract_non_drug", "abstract non-drug")):
        if summary.get(key):
            groups.append((label, summary[key]))
    for name, m in groups:
        if not m["n"]:
            continue
        lines.append(
            f"{'mean ' + name + ' (' + str(m['n']) + ')':34} {'':8} {f(m['boolean_recall'])} {f(m['boolean_share'])} "
            f"{f(m['off_topic'], True)} {f(m['median_ratio_n'])} {f(m['baseline_recall'])} "
            f"{f(m['baseline_off_topic'], True):>7} {f(m['strings_union_recall'])} {f(m['seeded_before_recall'])} "
            f"{f(m['seeded_after_recall'])} {f(m['seeded_after_off_topic'], True)} "
            f"{f(m['seeded_after_median_ratio_n'])}"
        )
    lines.append("(mean rows: xN and s_xN are medians; reviews with recall < 0.9: "
                 + ", ".join(f"{n} {m['reviews_recall_below_0.9']}" for n, m in groups if m["n"]) + ")")
    lines.append("reviews meeting both bars (recall >= 0.9, off-topic <= 5 %): "
                 + ", ".join(f"{n} {m.get('reviews_meeting_bars')}/{m['n']}" for n, m in groups if m["n"]))
    for name, m in [("all", summary["all"]), ("drug", summary["drug"]), ("non-drug", summary["non_drug"]),
                    ("abstract", summary.get("abstract")), ("abstract drug", summary.get("abstract_drug")),
                    ("abstract non-drug", summary.get("abstract_non_drug"))]:
        if m and m["n"] and "by_shape" in m:
            lines.append(f"shapes, {name}: " + ", ".join(
                f"{k} {v['recall']}/{v['off_topic']}/{v['median_ratio_n']}" for k, v in m["by_shape"].items())
                + " (recall/off-topic/median xN)")
    for key, label in (("leave_one_out_shape", "every concept"), ("leave_one_out_shape_main_allowed", "any shape"),
                       ("leave_one_out_shape_bars", "any shape, most reviews meeting both bars")):
        loo = summary.get(key)
        if loo:
            picked = sorted(set(loo["picked"].values()))
            lines.append(f"leave-one-review-out shape ({label}): held-out recall {loo['recall']} off-topic "
                         f"{loo['off_topic']} median xN {loo['median_ratio_n']}, reviews meeting both bars "
                         f"{loo.get('meeting_bars')}, drug {loo.get('drug')} non-drug {loo.get('non_drug')} "
                         f"(picked: {', '.join(picked)}; shipped: {summary['query_shape']})")
    for key, grid_title, name, shipped in _TUNED_VALUES:
        if summary.get(key):
            lines += _tuned_value_lines(summary[key], grid_title, name, shipped)
    rs = summary.get("leave_one_out_rest_share")
    if rs:
        lines.append("  rest-branch share: reviews meeting both bars per value "
                     + ", ".join(f"{k} {v['meeting_bars']}" for k, v in rs["grid"].items())
                     + f"; held out {rs['meeting_bars']}, drug {rs['drug']} non-drug {rs['non_drug']}")
    lines += pseudo_lines("question", summary.get("pseudo_question"), result["reviews"])
    lines += pseudo_lines("abstract", summary.get("pseudo_abstract"),
                          [r["abstract"] | {"name": r["name"]} for r in result["reviews"] if "abstract" in r])
    for a in result.get("unlabelled_abstracts", []):
        lines.append(f"abstract {a['name'][:30]:30} matches {a['pool_matched']:6} ({100 * a['pool_share']:.1f} % of "
                     f"the pool): {a['boolean_query'][:150]}")
    return "\n".join(lines)
