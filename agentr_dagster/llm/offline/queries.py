"""Stage 2 of the offline backend: Boolean query, expanded keywords and search strings from an intent."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from agentr_dagster.domain.boolean_query import parse_boolean_query
from agentr_dagster.domain.contracts import (
    ConceptFacet,
    ResearchIntent,
    SearchQueries,
)
from agentr_dagster.domain.text import (
    acronyms,
    collect_phrases,
    is_near_duplicate,
    is_stopword,
    key_of,
    score_phrases,
    split_sentences,
    stem,
    tokenize,
    top_phrases,
)
from agentr_dagster.llm.offline.common import (
    _distinct_append,
)
from agentr_dagster.llm.offline.concepts import QUERY_SHAPE, ConceptBlock, ConceptPlan, names_animals

#: Least closeness (0.35 x best + 0.65 x centroid cosine) for a vocabulary concept to join keywords and strings.
NEIGHBOUR_MIN = 0.5


class QueriesMixin:
    if TYPE_CHECKING:  # the backend's (OfflineBackend), which every user of this mixin is
        def _neighbours(self, queries: list[str], exclude_stems: set[str], k: int) -> list[tuple[str, float]]: ...

    # -- stage 2: queries --------------------------------------------------------------------------------

    def generate_queries(self, intent: ResearchIntent) -> SearchQueries:
        """Boolean query, 10-15 expanded keywords and ten search strings (two per kind) from an intent."""
        if intent.concepts and (_fields_from_concepts(intent) or _reports_a_review(intent)):
            return self._concept_queries(intent)
        queries = self._phrase_queries(intent)
        if intent.concepts:  # a paper's own abstract: its phrases name the strings, its concept blocks the query
            boolean_query = concept_boolean_query(intent.concepts)
            parse_boolean_query(boolean_query)
            return queries.model_copy(update={"boolean_query": boolean_query})
        return queries

    def _phrase_queries(self, intent: ResearchIntent) -> SearchQueries:
        """Queries from the intent's phrase fields (methodologies, domains, seed keywords)."""
        methods = list(intent.methodologies)
        domains = list(intent.application_domains)
        constraints = list(intent.constraints)
        seeds = list(intent.seed_keywords)
        problems = self._problem_phrases(intent, exclude=methods)

        intent_texts = methods + domains + constraints + seeds + problems
        intent_stems = {s for t in intent_texts + [intent.problem_statement] for s in key_of(t)}
        neighbours = self._neighbours(
            [intent.problem_statement] + seeds[:4] + methods[:3] + domains[:3], intent_stems, 12
        )
        # The vocabulary is mostly computer science: for another field's abstract its nearest concepts are far
        # (ecology: "random forests" 0.35, "image generation" 0.27) and only add noise; keep the close ones.
        neighbours = [(c, sim) for c, sim in neighbours if sim >= NEIGHBOUR_MIN]

        boolean_query = self._boolean_query(methods, problems, domains, seeds)

        expanded: list[str] = []
        for term in seeds + methods + domains + constraints + problems:
            if len(expanded) >= 7:
                break
            if not is_near_duplicate(key_of(term), [key_of(e) for e in expanded]):
                _distinct_append(expanded, term, 15)
        text_for_acronyms = " ".join([intent.problem_statement, *intent_texts])
        for long_form, acro in acronyms(text_for_acronyms):
            if len(expanded) < 9:
                _distinct_append(expanded, acro, 15)
                _distinct_append(expanded, long_form, 15)
        for concept, _ in neighbours:
            if len(expanded) >= 14:
                break
            _distinct_append(expanded, concept, 15)
        for term in intent_texts:  # tiny intents: every remaining distinct term
            if len(expanded) >= 10:
                break
            _distinct_append(expanded, term, 15)
        if len(expanded) < 10:  # still short: more vocabulary neighbours, ignoring near-duplicate filtering
            for concept, _ in self._neighbours(intent_texts or [intent.problem_statement], set(), 40):
                if len(expanded) >= 10:
                    break
                _distinct_append(expanded, concept, 15)

        search_strings = self._search_strings(methods, domains, constraints, seeds, problems, neighbours)
        return SearchQueries(boolean_query=boolean_query, expanded_keywords=expanded, search_strings=search_strings)

    def _concept_queries(self, intent: ResearchIntent) -> SearchQueries:
        """Queries from the intent's concept blocks: the Boolean query ANDs the required blocks (each an OR of
        its terms), keywords and strings name the concepts as words; no general vocabulary neighbours, which
        are mostly computer science and only add noise to other fields' questions."""
        boolean_query = concept_boolean_query(intent.concepts)
        parse_boolean_query(boolean_query)
        labels = [c.label for c in intent.concepts]
        plain = [plain_term(t) for c in intent.concepts for t in c.terms if _readable(t)]
        expanded: list[str] = []
        phrases = [*intent.seed_keywords, *intent.methodologies, *intent.application_domains]
        for term in labels + on_topic_phrases(phrases):
            _distinct_append(expanded, term, 15)
        variants = [v for c in intent.concepts for v in c.variants]
        for term in variants + plain:  # the question's own words first, then the terms' plain forms
            if len(expanded) >= 15:
                break
            _distinct_append(expanded, term, 15)
        for long_form, acro in acronyms(intent.problem_statement):
            _distinct_append(expanded, acro, 15)
            _distinct_append(expanded, long_form, 15)
        # short questions: design terms, every term's plain form, the question's content words, and only then
        # the general vocabulary's nearest concepts (the contract wants ten)
        words = [t for t in tokenize(intent.problem_statement) if len(t) > 3 and not is_stopword(t)]
        fill = list(intent.study_design) + [t for c in intent.concepts for t in c.terms] + words
        for term in fill:
            if len(expanded) >= 10:
                break
            _distinct_append(expanded, plain_term(term), 15)
        if len(expanded) < 10:
            for concept, _ in self._neighbours([intent.problem_statement, *labels], set(), 40):
                if len(expanded) >= 10:
                    break
                _distinct_append(expanded, concept, 15)
        search_strings = concept_search_strings(intent)
        return SearchQueries(boolean_query=boolean_query, expanded_keywords=expanded, search_strings=search_strings)

    @staticmethod
    def _problem_phrases(intent: ResearchIntent, exclude: list[str]) -> list[str]:
        sentences = split_sentences(intent.problem_statement) or [intent.problem_statement]
        phrases = score_phrases(collect_phrases(sentences), len(sentences))
        picked = top_phrases(phrases, 3, exclude=[key_of(e) for e in exclude])
        if not picked:
            picked = top_phrases(phrases, 2)
        return [p.text for p in picked]

    def _boolean_query(self, methods: list[str], problems: list[str], domains: list[str], seeds: list[str]) -> str:
        groups: list[list[str]] = []
        used: list[tuple[str, ...]] = []
        for facet_terms in (methods[:3], problems[:3], domains[:3]):
            group: list[str] = []
            for term in facet_terms:
                key = key_of(term)
                if key and not any(set(key) == set(u) for u in used):
                    used.append(key)
                    group.append(term)
            if group:
                groups.append(group)
        if len(groups) < 2:
            extra = [s for s in seeds if not any(set(key_of(s)) == set(u) for u in used)][:3]
            if extra:
                groups.append(extra)
        # Synonyms: close vocabulary neighbours (cosine >= 0.75) of each group's first term join its OR list.
        all_stems = {s for u in used for s in u}
        for group in groups:
            for concept, sim in self._neighbours([group[0]], all_stems, 1):
                if sim >= 0.75 and len(group) < 5:
                    group.append(concept)
                    all_stems |= set(key_of(concept))
        rendered = []
        for group in groups:
            terms = [_bool_term(t) for t in group]
            terms = [t for t in terms if t]
            if not terms:
                continue
            rendered.append(terms[0] if len(terms) == 1 else "(" + " OR ".join(terms) + ")")
        query = " AND ".join(rendered) if rendered else _bool_term(seeds[0]) or '"research"'
        parse_boolean_query(query)  # never emit a query the contract would reject
        return query

    @staticmethod
    def _search_strings(
        methods: list[str],
        domains: list[str],
        constraints: list[str],
        seeds: list[str],
        problems: list[str],
        neighbours: list[tuple[str, float]],
    ) -> list[str]:
        near = [c for c, _ in neighbours]

        def pick(items: list[str], i: int, *fallbacks: list[str]) -> str:
            if len(items) > i:
                return items[i]
            for pool in fallbacks:
                if pool:
                    return pool[0]
            return items[0] if items else seeds[0]

        m1, m2 = pick(methods, 0, seeds), pick(methods, 1, near, seeds)
        d1, d2 = pick(domains, 0, seeds), pick(domains, 1, near, seeds)
        p1, p2 = pick(problems, 0, seeds), pick(problems, 1, seeds)
        c1 = constraints[0] if constraints else ""
        k = seeds + near
        drafts: list[tuple[str, list[str], tuple[str, ...]]] = [
            ("broad", [k[0], d1], ("overview", "survey", "review")),
            ("broad", [near[0] if near else k[1 % len(k)], ""], ("research", "state of the art", "trends")),
            ("narrow", [m1, p1, c1 or d1], ("evaluation", "benchmark", "case study")),
            ("narrow", [m2, p2, c1 or (k[2] if len(k) > 2 else "")], ("comparison", "empirical study")),
            ("method", [m1, "for", p1], ("method", "algorithm", "framework")),
            ("method", [m2, d1], ("approach", "technique", "implementation")),
            ("problem", [p1, d1], ("challenges", "open problems", "limitations")),
            ("problem", [p2, c1], ("problem formulation", "requirements", "solutions")),
            ("domain", [d1, k[1] if len(k) > 1 else m1], ("applications", "practice", "case study")),
            ("domain", [d2, "applications"], ("domain", "practice", "systems")),
        ]
        out: list[str] = []
        for _kind, parts, suffixes in drafts:
            text = _trim_words(_compose(parts), 150)
            candidates = [text] + [_compose([text, s]) for s in suffixes]
            candidates += [f"{text} {suffixes[0]} {n}".strip() for n in range(2, 13)]
            for candidate in candidates:
                if candidate and _distinct_append(out, candidate, 10):
                    break
        return out


_BOOL_UNSAFE = re.compile(r'["()]')


def _bool_term(term: str) -> str:
    """Render a term for the Boolean query: multi-word or special terms quoted, operators neutralised."""
    clean = " ".join(_BOOL_UNSAFE.sub(" ", term).split())
    if not clean:
        return ""
    if " " in clean or clean.upper() in ("AND", "OR", "NOT") or not re.fullmatch(r"[\w\-]+", clean):
        return f'"{clean}"'
    return clean


def _compose(parts: Sequence[str]) -> str:
    """Join parts, skipping empty ones and parts whose words are already all present."""
    out: list[str] = []
    seen: set[str] = set()
    keys: list[tuple[str, ...]] = []
    for part in parts:
        part = " ".join(part.split())
        if not part:
            continue
        if part.casefold() == "for":
            out.append(part)
            continue
        key = tuple(stem(t) for t in tokenize(part))
        if key and (set(key) <= seen or is_near_duplicate(key, keys)):
            continue
        out.append(part)
        keys.append(key)
        seen |= set(key)
    while out and out[-1].casefold() == "for":
        out.pop()
    return " ".join(out)


def _trim_words(text: str, limit: int) -> str:
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[:limit]
    return cut[: cut.rfind(" ")] if " " in cut else cut


def _readable(term: str) -> bool:
    """A term that reads as words once its wildcard is off (a phrase, or a whole word), not a cut stem."""
    return not term.startswith("(") and (" " in term.strip('"') or not term.endswith("*"))


def _fields_from_concepts(intent: ResearchIntent) -> bool:
    """The intent's methodologies and domains were read off its concept blocks (a review question), not off an
    abstract's own noun phrases."""
    named = {v.casefold() for c in intent.concepts for v in [c.label, *c.variants]}
    fields = [*intent.methodologies, *intent.application_domains]
    return bool(fields) and all(m.casefold() in named for m in fields)


#: A review's own method named in its intent: its abstract reports a review, whose methods are no topic.
_REVIEW_METHOD_RE = re.compile(
    r"\b(?:systematic(?:ally)?(?: literature)? review|literature review|scoping review|umbrella review|"
    r"rapid review|meta-?analy|mapping (?:study|review)|evidence map|tertiary study)", re.I)


def _reports_a_review(intent: ResearchIntent) -> bool:
    """The intent was read off a review's abstract (its methodologies or key phrases name a review's method): the
    strings come from its concept blocks, as a question's do, and never from its method phrases ("network
    meta-analysis", "systematic literature review applications")."""
    return any(_REVIEW_METHOD_RE.search(m) for m in [*intent.methodologies, *intent.seed_keywords])


def on_topic_phrases(phrases: Sequence[str]) -> list[str]:
    """The phrases that name no review method: an abstract's key phrases also say what the review was ("systematic
    review", "network meta-analysis"), which is no search string or keyword of its topic."""
    return [p for p in phrases if not _REVIEW_METHOD_RE.search(p)]


def plain_term(term: str) -> str:
    """A search term as words (quotes and wildcards off): "soft skill*" -> soft skill."""
    return " ".join(term.replace('"', " ").replace("*", " ").split())


def concept_boolean_query(concepts: Sequence[ConceptFacet], shape: str = QUERY_SHAPE,
                          leave_out: frozenset[int] = frozenset()) -> str:
    """The Boolean query of concept blocks (see :meth:`ConceptPlan.boolean_query`), without the blocks at the
    positions ``leave_out`` (relaxed by the seed studies): what the query AND-ed stays AND-ed, and no block
    comes in that it left out (``A AND B`` without B is ``A``; ``A OR (B AND C)`` without C is ``A OR B``,
    without A ``B AND C``)."""
    kept = [c for i, c in enumerate(concepts) if i not in leave_out]
    main = next((i for i, c in enumerate(concepts) if c.required), 0)
    if leave_out and any(c.independent for c in concepts):  # the main block AND-ed with the title's subjects
        kept = [c for i, c in enumerate(concepts)
                if i not in leave_out and (i == main or c.independent or c.organism)]
    elif main in leave_out:  # the rest branch alone, its blocks AND-ed as they were
        kept = [c for i, c in enumerate(concepts) if i not in leave_out and (c.required or c.in_query)]
    if main in leave_out and kept:  # the next block becomes the main one, the others AND-ed with it
        kept = [kept[0].model_copy(update={"required": True, "independent": False}),
                *(c.model_copy(update={"independent": True}) for c in kept[1:])]
    blocks = [ConceptBlock(c.facet, c.label, list(c.terms), c.required, independent=c.independent,
                           in_query=c.in_query, organism=c.organism) for c in kept]
    query = ConceptPlan(blocks=blocks).boolean_query(shape)
    return query if len(query) >= 3 else (f'"{query}"' if query else '"research"')


def concept_search_strings(intent: ResearchIntent) -> list[str]:
    """Ten short strings of the question's own words (a source ANDs a string's words, so each names one or two
    concepts only), two of each kind: broad (the main concept; with the next), narrow (a variant with the next
    concept; the main concept with the study design), method (variants of the main concept), problem (the other
    concepts), domain (the population or setting, alone and with the main concept)."""
    blocks = list(intent.concepts)
    main = blocks[0]
    main_words = list(dict.fromkeys([main.label, *main.variants]))
    others = [c for c in blocks[1:] if c.required] + [c for c in blocks[1:] if not c.required]
    other_words = [c.label for c in others]
    # the animals studied are a filter, never a string alone ("rats", "animal models"): only with the main concept
    alone = [c for c in others if not c.organism]
    where = [c.label for c in alone if c.facet in ("population", "setting")] or [c.label for c in alone]
    # who the studies are about or an aspect asked about ("risk factors"), when the query leaves them out, is never
    # a string alone, only beside the main concept
    may_stand_alone = [c for c in alone if c.required or c.in_query or c.subject]
    where_alone = ([c.label for c in may_stand_alone if c.facet in ("population", "setting")]
                   or [c.label for c in may_stand_alone])
    problem = [c.label for c in alone if c.facet in ("outcome", "exposure", "comparator")] or [c.label for c in alone]

    def at(items: list[str], i: int, default: str = "") -> str:
        return items[i] if len(items) > i else (items[-1] if items else default)

    design = next((plain_term(t) for t in intent.study_design if _readable(t)), "")
    drafts = [
        main.label,
        f"{main.label} {at(other_words, 0)}",
        f"{at(main_words, 1, main.label)} {at(other_words, 0)}",
        f"{main.label} {design}" if design else f"{at(main_words, 2, main.label)} {at(other_words, 0)}",
        at(main_words, 1, main.label),
        at(main_words, 2, main.label),
        f"{at(problem, 0)} {main.label}" if problem else at(main_words, 3, main.label),
        f"{at(problem, 1)} {at(main_words, 1, main.label)}" if problem else at(main_words, 4, main.label),
        at(where_alone, 0, f"{at(where, 0)} {at(main_words, 1, main.label)}".strip()),
        f"{at(where, 0)} {at(main_words, 2, main.label)}",
    ]
    readable = [plain_term(t) for c in [main, *may_stand_alone] for t in c.terms if _readable(t)]
    other_variants = [v for c in others for v in [c.label, *c.variants]]
    named = {w for c in [main, *may_stand_alone] for p in [c.label, *c.variants] for w in p.casefold().split()}
    keywords = [k for k in on_topic_phrases(intent.seed_keywords) if not names_animals(k)
                and (len(may_stand_alone) == len(alone) or set(k.casefold().split()) & named)]
    # the main concept with each term of the other concepts ("falls elderly"), before numbered fillers
    beside = [f"{main.label} {plain_term(t)}" for c in alone for t in c.terms if _readable(t)]
    species = [f"{w} {plain_term(t)}" for w in main_words[:2] for c in others if c.organism for t in c.terms
               if _readable(t) and " " not in plain_term(t)]  # "anxiety rats", "anxiety mice"
    pool = (drafts + main_words[3:] + [f"{w} {o}" for w in main_words for o in other_variants] + species
            + keywords + readable + [v for c in may_stand_alone for v in [c.label, *c.variants]] + beside)
    out: list[str] = []
    for i in range(10):  # each slot keeps its kind; a duplicate takes the next unused candidate
        for candidate in [drafts[i], *pool]:
            text = " ".join(candidate.split())[:150].strip()
            if text and _distinct_append(out, text, i + 1):
                break
    n = 2
    while len(out) < 10:  # a question of one concept and one variant: numbered views of it
        _distinct_append(out, f"{main.label} {n}", 10)
        n += 1
    return out
