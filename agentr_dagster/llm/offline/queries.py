"""Stage 2 of the offline backend: Boolean query, expanded keywords and search strings from an intent."""

from __future__ import annotations

import re
from collections.abc import Sequence, Set
from typing import TYPE_CHECKING

from agentr_dagster.domain import lexicon as lx
from agentr_dagster.domain.boolean_query import parse_boolean_query
from agentr_dagster.domain.contracts import (
    ConceptFacet,
    ResearchIntent,
    SearchQueries,
)
from agentr_dagster.domain.specificity import general_zipf
from agentr_dagster.domain.text import (
    FUNCTION_WORDS,
    acronyms,
    collect_phrases,
    is_near_duplicate,
    is_stopword,
    key_of,
    plural_stem,
    score_phrases,
    split_sentences,
    stem,
    tokenize,
    top_phrases,
)
from agentr_dagster.domain.word_class import is_finite_verb, is_past_participle, word_classes
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

        # a question with no concept blocks ("How is trust measured?") takes this path too: no filler suffix on it
        # ("trust evaluation", "trust problem formulation") before the phrases two by two
        question = intent.problem_statement.rstrip().endswith("?") and len(split_sentences(
            intent.problem_statement) or [""]) == 1
        search_strings = self._search_strings(methods, domains, constraints, seeds, problems, neighbours,
                                              fillers=not question)
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
        if len(search_strings) < 10:  # one concept of one variant: the general vocabulary's nearest concepts join
            near = [c for c, _ in self._neighbours([intent.problem_statement, *labels], set(), 40)]
            search_strings = concept_search_strings(intent, near)
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
        fillers: bool = True,
    ) -> list[str]:
        """Ten strings, two per kind, of a paper's own phrases; ``fillers`` False (a question): a kind's suffixed
        views ("X evaluation", "X applications") only as the very last resort, after the phrases two by two."""
        near = [c for c, _ in neighbours]
        named = {p.casefold() for p in seeds + methods + domains + problems + constraints}

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
        every: list[str] = []
        for _kind, parts, suffixes in drafts:
            text = _trim_words(_compose(parts if fillers else [p for p in parts if p != "applications"]), 150)
            suffixed = [_compose([text, s]) for s in suffixes]
            every += [text, *suffixed]
            candidates = [text, *suffixed] if fillers else [text]
            for candidate in candidates:
                if candidate and stands_alone(candidate, named) and _distinct_append(out, candidate, 10):
                    break
        # still short: the abstract's phrases two by two, never a numbered copy ("X evaluation 2")
        phrases = list(dict.fromkeys(p for p in seeds + methods + domains + problems + near if p))
        pairs = [_compose([a, b]) for i, a in enumerate(phrases) for b in phrases[i + 1:]]
        if not fillers:  # a question: the pairs the other way round before any suffixed view
            pairs += [_compose([b, a]) for i, a in enumerate(phrases) for b in phrases[i + 1:]]
        for candidate in phrases + pairs:
            if len(out) >= 10:
                break
            if stands_alone(candidate, named):
                _distinct_append(out, _trim_words(candidate, 150), 10)
        for candidate in every:  # a tiny abstract: the drafts' other views
            if len(out) >= 10:
                break
            if candidate and stands_alone(candidate, named):
                _distinct_append(out, candidate, 10)
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


def _whole_words(term: str, words: Set[str] = frozenset()) -> bool:
    """A readable term (:func:`_readable`) whose last word is a word, not a stem cut short ("meta analys*",
    "mapping stud*"): a string's words are matched whole. A truncated last word is whole where it is one of
    ``words`` (the concepts' own words, singular: "soft skill*" of "soft skills") or an everyday word."""
    if not _readable(term):
        return False
    if not term.rstrip('"').endswith("*"):
        return True
    last = plain_term(term).split()[-1].casefold() if plain_term(term) else ""
    return last in words or (bool(word_classes(last)) and general_zipf(last) >= 4.0)


def _fields_from_concepts(intent: ResearchIntent) -> bool:
    """The intent's methodologies and domains were read off its concept blocks (a review question), not off an
    abstract's own noun phrases. A review question's intent takes its methodologies from its blocks of what is
    studied and its domains from its blocks of who or where (``intent._concept_fields``), and keeps the phrase
    heuristics' values where it has no block of that kind: "Which animal models of neuropathic pain respond to
    gabapentinoids?" has no population block, so its domain stays the phrase "neuropathic pain respond", which
    says nothing about where its fields came from. Only the fields its blocks could give are checked."""
    named = {v.casefold() for c in intent.concepts for v in [c.label, *c.variants]}
    what = any(c.facet in ("intervention", "exposure", "comparator") and c.variants for c in intent.concepts)
    who = any(c.facet in ("population", "setting", "outcome") and c.variants for c in intent.concepts)
    fields = [*(intent.methodologies if what else []), *(intent.application_domains if who else [])]
    return bool(fields) and all(m.casefold() in named for m in fields)


#: A review's own method named in its intent: its abstract reports a review, whose methods are no topic.
_REVIEW_METHOD_RE = re.compile(
    r"\b(?:systematic(?:ally)?(?: literature)? review|literature review|scoping review|umbrella review|"
    r"rapid review|meta-?analy|mapping (?:study|review)|systematic mapping|evidence map|tertiary study)",
    re.I)


def _reports_a_review(intent: ResearchIntent) -> bool:
    """The intent was read off a review's abstract (its methodologies, key phrases or problem statement name a
    review's method: "We systematically reviewed ..."): the strings come from its concept blocks, as a question's
    do, and never from its method phrases ("network meta-analysis", "systematic literature review applications")."""
    return any(_REVIEW_METHOD_RE.search(m) for m in [*intent.methodologies, *intent.seed_keywords,
                                                     intent.problem_statement])


def keywords_of(phrases: Sequence[str]) -> list[str]:
    """The key phrases that may join a search string: on the topic (:func:`on_topic_phrases`), naming no laboratory
    animal (a filter, never a string's topic), no database or provenance ("ACM digital library", "following
    Petersen guidelines"), no count of what a review found ("twelve cohort") and no predicate ("neuropathic pain
    respond", "motivates public servants", "risking viral rebound": a verb's "-ing" form that is no noun)."""
    return [p for p in on_topic_phrases(phrases) if not names_animals(p) and not _PROVENANCE_RE.search(p)
            and not _COUNT_RE.match(p) and not any(is_finite_verb(w) for w in p.split())
            and not _starts_with_a_clause(p)]


def _starts_with_a_clause(phrase: str) -> bool:
    """A key phrase cut from a clause: a verb's "-ing" form that is no noun ("risking viral rebound"), or a verb's
    "-ed" form before no noun ("reviewed randomised field"; "targeted therapy" names a topic)."""
    words = phrase.split()
    first = words[0].casefold()
    if word_classes(first) != {"VERB"}:
        return False
    return first.endswith("ing") or (first.endswith("ed") and len(words) > 1 and word_classes(words[1]) != {"NOUN"})


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


#: A single word is a search string of its own only below this general-English frequency (Zipf): a source ANDs a
#: string's words, and one everyday word alone ("techniques" 4.5, "veterans" 4.3, "efficacy" 3.7, "adolescents"
#: 3.5) matches records of any topic, where a rare one names its concept ("burnout" 3.2, "tacrolimus" 1.8).
SINGLE_WORD_ZIPF = 3.5

#: Where a review searched and how (databases, guidelines, registries): no topic, never a string's word.
_PROVENANCE_RE = re.compile(
    r"\b(?:librar(?:y|ies)|databases?|index|xplore|scopus|pubmed|embase|medline|cinahl|psycinfo|eric|cochrane|"
    r"web of science|google scholar|guidelines?|search(?:ed|es|ing)?|protocols?|prisma|prospero|registr(?:y|ies)|"
    r"following|included|eligible|inclusion|exclusion|screened|synthesi[sz]e[sd]?|bias|quality assessment|"
    r"(?:controlled |randomi[sz]ed |comparative |head-to-head )?trials|effects? models?|empirical studies|"
    r"quantitative research|qualitative research)\b", re.I)


def is_function_word(word: str) -> bool:
    """A function word ("beyond", "of", "the"): never the first or last word of a search string."""
    return word.casefold() in FUNCTION_WORDS


#: The general vocabulary's concepts (mostly computer science), lower-cased.
_VOCABULARY = frozenset(c.casefold() for c in lx.CONCEPTS)

#: A phrase that counts what a review found ("twelve cohort studies", "ninety-four trials", "45 tools").
_COUNT_RE = re.compile(
    r"(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|\w+teen|twenty|thirty|forty|fifty|sixty|"
    r"seventy|eighty|ninety|hundreds?|thousands?)\b", re.I)


def _acronym_like(word: str) -> bool:
    """An acronym or a code ("PTSD", "SLRs", "CYP2C19", "COVID-19"): a capital after the first letter, or a digit."""
    return any(c.isdigit() for c in word) or any(c.isupper() for c in word[1:])


def stands_alone(text: str, concept_words: Set[str] = frozenset()) -> bool:
    """A string that a source can search on its own: two words or more, or one word that names a concept: an
    acronym or a code, or one of the concept blocks' own words (``concept_words``, lower-cased: a label, a variant
    or a term, never one word cut from a longer one, "polymorphisms" of "CYP2C19 polymorphisms") that is a noun
    (an adjective alone, "skeletal", "maternal", names nothing) and rarer than :data:`SINGLE_WORD_ZIPF`."""
    words = text.split()
    if len(words) != 1:  # a phrase, unless cut at a function word ("disease beyond", "beyond clinical factor") or
        # led by a bare number ("19 COVID")
        return not (is_function_word(words[0]) or is_function_word(words[-1]) or words[0].isdigit())
    word = words[0]
    if is_function_word(word):
        return False
    if _acronym_like(word):
        return True
    if re.search(r"[^\W\d_]-[^\W\d_]", word):  # a compound names a thing ("self-harm"), unless it only qualifies
        classes = word_classes(word)  # one ("school-based", "anxiety-related": read by its last part)
        return not classes or "NOUN" in classes
    if word.casefold() not in concept_words:
        return False
    classes = word_classes(word)
    if "ADJ" in classes and "NOUN" not in classes:
        return False
    return general_zipf(word) < SINGLE_WORD_ZIPF


def _may_join(phrase: str) -> bool:
    """A key phrase that may narrow the main concept beside it: a phrase that stands alone, or one word that is a
    noun, an acronym or a term the lexicon does not know ("sleep", "PTSD"; not "systematic")."""
    words = phrase.split()
    if len(words) != 1:
        return stands_alone(phrase)
    classes = word_classes(words[0])
    return not is_function_word(words[0]) and (_acronym_like(words[0]) or not classes or "NOUN" in classes)


def _word_set(text: str) -> frozenset[str]:
    """A string as a source reads it: its words' stems, in any order ("burnout nurses" is "nurses burnout")."""
    return frozenset(stem(t) for t in tokenize(text))


def _content_words(text: str, exclude: Set[str], zipf_below: float = 4.0) -> list[str]:
    """The words of a question or a problem statement that may narrow its main concept: no function word, no
    verb, no word as common as ``zipf_below`` (everyday words), no review method or provenance, none already named
    (``exclude``: stems)."""
    out: list[str] = []
    for word in tokenize(text):
        if (len(word) <= 3 or is_stopword(word) or stem(word) in exclude or is_finite_verb(word)
                or is_past_participle(word) or general_zipf(word) >= zipf_below or _PROVENANCE_RE.search(word)
                or _REVIEW_METHOD_RE.search(word)):
            continue
        _distinct_append(out, word, 20)
    return out


def _rare_words(phrases: Sequence[str]) -> list[str]:
    """The words of ``phrases`` that name something on their own: acronyms and codes, and words rarer than the
    everyday ones (Zipf under 4: "clopidogrel", "folate", not "response", "intake")."""
    out: list[str] = []
    for phrase in phrases:
        for word in phrase.split():
            if not is_stopword(word) and (_acronym_like(word) or general_zipf(word) < 4.0):
                _distinct_append(out, word, 12)
    return out


def _string_candidates(intent: ResearchIntent) -> tuple[list[str], list[str], set[str]]:
    """The ten slots' first choices (by kind, see :func:`concept_search_strings`), the candidates that fill a slot
    whose choice is taken or reads as no topic, and the concepts' own words (:func:`stands_alone`)."""
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

    own = {plural_stem(w) for c in intent.concepts for v in [c.label, *c.variants] for w in v.casefold().split()}
    own |= {w for c in intent.concepts for v in [c.label, *c.variants] for w in v.casefold().split()}
    design = next((plain_term(t) for t in intent.study_design if _whole_words(t, own)), "")
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
    concept_words = {p.casefold() for c in intent.concepts for p in [c.label, *c.variants]}
    concept_words |= {plain_term(t).casefold() for c in intent.concepts for t in c.terms if _whole_words(t, own)}
    other_variants = [v for c in others for v in [c.label, *c.variants]]
    pool = drafts + main_words[3:] + [f"{w} {o}" for w in main_words for o in other_variants]
    pool += _more_candidates(intent, main_words, others, alone, may_stand_alone, own)
    return drafts, pool, concept_words


def _more_candidates(intent: ResearchIntent, main_words: list[str], others: list[ConceptFacet],
                     alone: list[ConceptFacet], may_stand_alone: list[ConceptFacet], own: set[str]) -> list[str]:
    """Candidates past the drafts: the animals with the main concept, the text's key phrases, the concepts' readable
    terms, the main concept beside each other concept's terms, crossed with their variants and the study design,
    the rarer words two by two, and the text's own words beside the main concept."""
    main = intent.concepts[0]
    readable = [plain_term(t) for c in [main, *may_stand_alone] for t in c.terms if _whole_words(t, own)]
    other_variants = [v for c in others for v in [c.label, *c.variants]]
    named = {w for c in [main, *may_stand_alone] for p in [c.label, *c.variants] for w in p.casefold().split()}
    # a text's key phrases never say where it was searched or how (keywords_of: "ACM digital library", "following
    # Petersen guidelines", "publication bias"); a short text's may be the general vocabulary's concepts ("word
    # embeddings" for "What is burnout?"), and only those with a word of the text itself name its topic
    text_stems = {stem(t) for t in tokenize(intent.problem_statement) if not is_stopword(t)} | {
        stem(t) for c in intent.concepts for v in [c.label, *c.variants] for t in tokenize(v)}
    own_keywords = [k for k in keywords_of(intent.seed_keywords)
                    if k.casefold() not in _VOCABULARY or {stem(t) for t in tokenize(k)} & text_stems]
    keywords = [k for k in own_keywords if len(may_stand_alone) == len(alone) or set(k.casefold().split()) & named]
    # the main concept with each term of the other concepts ("falls elderly")
    beside = [f"{w} {plain_term(t)}" for w in main_words[:2] for c in alone for t in c.terms if _whole_words(t, own)]
    species = [f"{w} {plain_term(t)}" for w in main_words[:2] for c in others if c.organism for t in c.terms
               if _whole_words(t, own) and " " not in plain_term(t)]  # "anxiety rats", "anxiety mice"
    # the main concept's terms with the other concepts' variants ("mindfulness burnout")
    crossed = [f"{plain_term(t)} {o}" for t in main.terms if _whole_words(t, own) for o in other_variants]
    designs = [f"{w} {plain_term(t)}" for w in main_words[:2] for t in intent.study_design if _whole_words(t, own)]
    # the rarer words of the main concept with those of each other concept ("CYP2C19 clopidogrel")
    cores = [f"{a} {b}" for a in _rare_words(main_words) for c in alone
             for b in [*_rare_words([c.label, *c.variants]), c.label]]
    # the text's other key phrases (no review method, no provenance) and its rarer words, beside the main concept
    main_stems = {stem(t) for w in main_words for t in tokenize(w)}
    beside_keywords = [f"{main.label} {k}" for k in own_keywords if _may_join(k)]
    own_words = [f"{main.label} {w}" for w in _content_words(intent.problem_statement, main_stems)]
    # the main concept's own rarer words two by two ("servants wrongdoing" of "public servants wrongdoing")
    label_words = [w for w in main.label.split() if not is_stopword(w)]
    rare = set(_rare_words([main.label]))
    own_pairs = [f"{a} {b}" for i, a in enumerate(label_words) for b in label_words[i + 1:] if {a, b} & rare]
    # then the text's everyday words beside it ("public servants wrongdoing report")
    named_stems = main_stems | {stem(t) for c in intent.concepts for v in [c.label, *c.variants] for t in tokenize(v)}
    own_words += [f"{main.label} {w}" for w in _content_words(intent.problem_statement, named_stems, 5.0)
                  if word_classes(w) & {"NOUN", "ADJ"} == {"NOUN"}]
    return (species + keywords + readable + [v for c in may_stand_alone for v in [c.label, *c.variants]] + beside
            + crossed + designs + cores + beside_keywords + own_pairs + own_words)


def concept_search_strings(intent: ResearchIntent, neighbours: Sequence[str] = ()) -> list[str]:
    """Ten short strings of the question's own words (a source ANDs a string's words, so each names one or two
    concepts only), two of each kind: broad (the main concept; with the next), narrow (a variant with the next
    concept; the main concept with the study design), method (variants of the main concept), problem (the other
    concepts), domain (the population or setting, alone and with the main concept).

    Every string names a topic (:func:`stands_alone`: no everyday word alone) and reads differently to a source
    (not the same words in another order); when fewer than ten such strings exist, the main concept's words are
    combined with each other concept's terms, the study design and the text's own rarer words, then written in
    another order, and only then with ``neighbours`` (the general vocabulary's nearest concepts) - never numbered."""
    main = intent.concepts[0]
    drafts, pool, concept_words = _string_candidates(intent)
    out: list[str] = []
    seen: set[frozenset[str]] = set()

    def add(candidate: str, limit: int, same_words: bool = False) -> bool:
        text = " ".join(candidate.split())[:150].strip()
        words = _word_set(text)
        if (not text or not stands_alone(text, concept_words) or len(words) < len(tokenize(text))
                or (words in seen and not same_words)):  # no word twice ("oral oral"), no same search twice
            return False
        if _distinct_append(out, text, limit):
            seen.add(_word_set(text))
            return True
        return False

    for i in range(10):  # each slot keeps its kind; a duplicate or a lone everyday word takes the next candidate
        for candidate in [drafts[i], *pool]:
            if add(candidate, i + 1):
                break
    # still short (a question of one concept and one variant): the strings' words in another order (the same
    # search, never a generic word), and only then the main concept with the general vocabulary's nearest concepts
    for text in list(out):  # "X nurses" as "nurses X" (the main concept X), then "a b c" as "b c a"
        if text.casefold().startswith(main.label.casefold() + " "):
            add(f"{text[len(main.label):]} {main.label}", 10, same_words=True)
    for text in list(out):
        words = text.split()
        if len(words) > 1:
            add(" ".join(words[1:] + words[:1]), 10, same_words=True)
    for concept in neighbours:
        if len(out) >= 10:
            break
        add(f"{main.label} {concept}", 10)
    for concept in neighbours:  # the contract's ten, whatever the bars above left
        _distinct_append(out, f"{main.label} {concept}", 10)
    return out
