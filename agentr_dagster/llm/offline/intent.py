"""Stage 1 of the offline backend: intent decomposition from an abstract (see the package docstring)."""

from __future__ import annotations

import re
from collections.abc import Sequence, Set
from typing import TYPE_CHECKING, Literal, cast

from agentr_dagster.domain import lexicon as lx
from agentr_dagster.domain.contracts import (
    ConceptFacet,
    ContributionType,
    ResearchIntent,
)
from agentr_dagster.domain.specificity import Background
from agentr_dagster.domain.text import (
    FUNCTION_WORDS,
    Phrase,
    collect_phrases,
    is_near_duplicate,
    is_stopword,
    key_of,
    normalize,
    score_phrases,
    split_sentences,
    stem,
    tokenize,
    top_phrases,
    truncate,
)
from agentr_dagster.llm.offline.common import (
    _CONTRIBUTION_RES,
    MIN_CUE,
    _distinct_append,
    _matches_any,
)
from agentr_dagster.llm.offline.concepts import (
    ConceptBlock,
    ConceptPlan,
    classify_sentences,
    extract_concepts,
    is_review_question,
    is_subject,
)

# ConceptFacet's facet names: every block of a ConceptPlan is named by one (concepts.clauses._facet_for)
_FacetName = Literal["population", "intervention", "exposure", "comparator", "outcome", "setting"]


MAX_FACET_TERMS = 40  # a block's terms kept in the stored intent; how many were cut is stored beside them


def _facet(block: ConceptBlock) -> ConceptFacet:
    """A concept block as the stored intent's facet (terms and variants of at most 200 characters)."""
    terms = [t for t in block.terms if len(t) <= 200]
    return ConceptFacet(facet=cast(_FacetName, block.facet), label=block.label[:200], terms=terms[:MAX_FACET_TERMS],
                        required=block.required, independent=block.independent, in_query=block.in_query,
                        organism=block.organism, subject=is_subject(block),
                        terms_cut=max(0, len(terms) - MAX_FACET_TERMS),
                        variants=list(dict.fromkeys(v[:200] for v in block.items if v.strip()))[:20])


class IntentMixin:
    if TYPE_CHECKING:  # the backend's (OfflineBackend), which every user of this mixin is
        def _neighbours(self, queries: list[str], exclude_stems: set[str], k: int) -> list[tuple[str, float]]: ...

    # -- stage 1: intent ---------------------------------------------------------------------------------

    def decompose_intent(self, abstract: str, background: Background | None = None) -> ResearchIntent:
        """Structured research intent from a free-text abstract. ``ValueError`` for empty/contentless text.
        ``background``: a term's share of a background's records (the lake), which
        judges which of the concept's terms are generic."""
        if not isinstance(abstract, str):
            raise ValueError("abstract must be a string")
        text = normalize(abstract)
        tokens = tokenize(text)
        if not tokens:
            raise ValueError("abstract is empty: it contains no words to decompose")
        if all(t in FUNCTION_WORDS for t in tokens):
            raise ValueError("abstract has no content words (only function words such as 'the', 'of')")
        # Every text - a review question or an abstract - gets concept blocks (one path: its topic sentences, never
        # its methods, results, eligibility or provenance). A review question's phrases come from its topic
        # sentences only; an abstract's phrase heuristics still read all of it.
        review = is_review_question(abstract)
        plan = extract_concepts(abstract, background=background)
        topic = classify_sentences(abstract)[0] if review else []
        sentences = topic or split_sentences(abstract) or [text]
        phrases = score_phrases(collect_phrases(sentences), len(sentences))
        if not phrases and topic:  # topic sentences with no content ("How many?"): the whole text, as before
            sentences = split_sentences(abstract) or [text]
            phrases = score_phrases(collect_phrases(sentences), len(sentences))
        if not phrases:
            raise ValueError(
                "abstract has no topical content: every word is a function word or generic academic filler "
                "(e.g. 'we propose a novel approach'); describe the problem, method or domain"
            )
        # Terms are the abstract's own noun phrases: cut at verbs, no adjective tails, two words or more (a very
        # short abstract may have none: then its single words are all there is).
        phrases = _noun_phrase_terms(phrases) or phrases
        result_sentences = {i for i, s in enumerate(sentences) if _matches_any(s.casefold(), lx.RESULT_PATTERNS) >= 2}
        problem = self._problem_statement(sentences)
        methods, domains, constraints = self._facet_terms(phrases, result_sentences)
        ranked_texts = [p.text for p in top_phrases(phrases, 12)]
        if not methods:
            methods = [ranked_texts[0]]
        if not domains:
            others = [t for t in ranked_texts if t.casefold() not in {m.casefold() for m in methods}]
            domains = [others[0] if others else ranked_texts[0]]

        seeds: list[str] = []
        for phrase in top_phrases(phrases, 6):
            _distinct_append(seeds, phrase.text, 8)
        for extra in (methods[0], domains[0]):
            if not is_near_duplicate(key_of(extra), [key_of(s) for s in seeds]):
                _distinct_append(seeds, extra, 8)
        if len(seeds) < 4:  # short abstracts: close vocabulary concepts, then single content words
            present = {stem(t) for t in tokens}
            for concept, sim in self._neighbours([text], present, 4):
                if len(seeds) < 4 and sim >= 0.55:
                    _distinct_append(seeds, concept, 8)
            for tok in tokens:
                if not is_stopword(tok) and len(seeds) < 4:
                    _distinct_append(seeds, tok, 8)
            for concept, _ in self._neighbours([text], present, 8):
                if len(seeds) >= 4:
                    break
                _distinct_append(seeds, concept, 8)

        if review:  # an abstract's own noun phrases name its methods and domains better than its concept labels
            methods, domains, seeds = _concept_fields(plan, methods, domains, seeds)
        return ResearchIntent(
            problem_statement=problem,
            methodologies=methods,
            application_domains=domains,
            constraints=constraints,
            contribution_types=self._contribution_types(text, bool(constraints)),
            seed_keywords=seeds,
            concepts=[_facet(b) for b in plan.blocks[:8] if any(len(t) <= 200 for t in b.terms)],
            study_design=[t for t in plan.design.terms if len(t) <= 200][:12] if plan.design else [],
        )

    @staticmethod
    def _problem_statement(sentences: list[str]) -> str:
        """At most two sentences that state the problem: the two with the strongest problem cues ("remains
        slow", "little is known", a question), in text order; with only one, the aim sentence joins it (cut
        to its main clause); with none, the aim sentence alone, else the first sentence."""
        aim_scores: list[float] = []
        problem_scores: list[float] = []
        for i, sentence in enumerate(sentences):
            low = sentence.casefold()
            position = 0.3 / (1 + i)
            results = 0.8 * min(2, _matches_any(low, lx.RESULT_PATTERNS))
            aim = 2.0 * min(2, _matches_any(low, lx.AIM_PATTERNS))
            problem = 1.5 * min(2, _matches_any(low, lx.PROBLEM_PATTERNS))
            problem += 1.5 if sentence.rstrip().endswith("?") else 0.0
            problem += 0.5 if any(re.search(rf"\b{w}\b", low) for w in lx.CONTRAST_WORDS) else 0.0
            aim_scores.append(aim + position - results if aim else 0.0)
            problem_scores.append(problem + position - results - (aim if aim else 0.0) if problem else 0.0)
        by_problem = sorted((i for i, v in enumerate(problem_scores) if v > 0), key=lambda i: (-problem_scores[i], i))
        picked = by_problem[:2]
        parts: dict[int, str] = {i: sentences[i] for i in picked}
        if len(picked) < 2:
            aims = sorted((i for i, v in enumerate(aim_scores) if v > 0 and i not in picked),
                          key=lambda i: (-aim_scores[i], i))
            if aims:
                parts[aims[0]] = _main_clause(sentences[aims[0]])
        if not parts:
            parts[0] = sentences[0]
        return truncate(" ".join(truncate(parts[i], 500) for i in sorted(parts)), 1000)

    @staticmethod
    def _facet_terms(
        phrases: list[Phrase], result_sentences: Set[int] = frozenset()
    ) -> tuple[list[str], list[str], list[str]]:
        """Tag each phrase as method / domain / constraint from its cue context; keep the best of each.

        Cue evidence per occurrence: the words before it ("using X", "based on X" / "in X", "for X" /
        "under X", "without X"), the head noun in or right after it ("X framework", "X applications"), and cue
        vocabularies inside it. Occurrences in result sentences ("outperforms ... in mean absolute error")
        count half.
        """
        tagged: dict[str, list[tuple[float, int, Phrase]]] = {"method": [], "domain": [], "constraint": []}
        for rank, phrase in enumerate(phrases):
            cue = {"method": 0.0, "domain": 0.0, "constraint": 0.0}
            words = {w.casefold() for w in phrase.words}
            for occ in phrase.occurrences:
                weight = 0.5 if occ.sentence in result_sentences else 1.0
                before = [b for b in occ.before if b not in lx.DETERMINERS]
                last = before[-1] if before else ""
                pair = tuple(before[-2:])
                if last in lx.METHOD_BEFORE or pair in lx.METHOD_BEFORE_PAIRS:
                    cue["method"] += weight
                elif last in lx.METHOD_BEFORE_WEAK:
                    cue["method"] += 0.5 * weight
                heads = (set(occ.run[-1:]) | set(occ.after[:1])) & lx.METHOD_HEADS
                if heads - lx.AMBIGUOUS_METHOD_HEADS or (heads and words & lx.METHOD_WORDS):
                    cue["method"] += weight
                if last in lx.DOMAIN_BEFORE or pair in lx.DOMAIN_BEFORE_PAIRS:
                    cue["domain"] += 0.75 * weight
                if set(occ.after[:1]) & lx.DOMAIN_HEADS:
                    cue["domain"] += weight
                if last in lx.CONSTRAINT_BEFORE or any(b in ("under", "without", "despite") for b in before):
                    cue["constraint"] += weight
            if words & lx.METHOD_WORDS or any(w.endswith("-based") for w in words):
                cue["method"] += 0.75
            if words & lx.DOMAIN_WORDS:
                cue["domain"] += 0.75
            if words & lx.CONSTRAINT_WORDS or any(w.endswith(("ability", "ibility")) for w in words):
                cue["constraint"] += 1.25
            elif words & lx.CONSTRAINT_NOUNS:
                cue["constraint"] += 0.5
            best = max(("method", "domain", "constraint"), key=lambda f: cue[f])
            if cue[best] >= MIN_CUE:
                tagged[best].append((cue[best] * (0.5 + phrase.score), rank, phrase))
        out: dict[str, list[str]] = {}
        for facet, items in tagged.items():
            items.sort(key=lambda item: (-round(item[0], 9), item[1]))
            picked = top_phrases([p for _, _, p in items], 5)
            out[facet] = [p.text for p in picked]
        return out["method"], out["domain"], out["constraint"]

    @staticmethod
    def _contribution_types(text: str, has_constraints: bool) -> list[ContributionType]:
        low = text.casefold()
        scores = {name: len(pattern.findall(low)) for name, pattern in _CONTRIBUTION_RES.items()}
        if has_constraints:
            scores["constraint_analysis"] += 1
        order = list(lx.CONTRIBUTION_CUES)
        floor = max(1, max(scores.values()) / 3)
        ranked = sorted((n for n in order if scores[n] >= floor), key=lambda n: (-scores[n], order.index(n)))
        if not ranked:
            ranked = ["methodology"]
        return [ContributionType(n) for n in ranked[:6]]


def _adjective_like(word: str) -> bool:
    low = word.casefold()
    return low.endswith(lx.TERM_ADJECTIVE_ENDINGS) and low not in lx.NOUNS_LIKE_ADJECTIVES and len(low) > 3


def _is_acronym(word: str) -> bool:
    core = word.strip("-")
    return len(core) >= 2 and any(c.isupper() for c in core[1:])


def as_term(words: Sequence[str]) -> tuple[str, ...] | None:
    """The noun phrase in a run of content words, or None: the longest stretch between verbs ("pollinator
    declines threaten crop" -> "pollinator declines"), without adjective tails ("intermediate artifact durable"
    -> "intermediate artifact"), of two words or more (an acronym may stand alone)."""
    spans: list[list[str]] = [[]]
    for word in words:
        if word.casefold() in lx.TERM_VERBS:
            spans.append([])
        else:
            spans[-1].append(word)
    best: tuple[str, ...] | None = None
    for span in spans:
        while span and _adjective_like(span[-1]):
            span = span[:-1]
        is_term = len(span) >= 2 or (len(span) == 1 and _is_acronym(span[0]))
        if is_term and (best is None or len(span) > len(best)):
            best = tuple(span)
    return best


def _noun_phrase_terms(phrases: list[Phrase]) -> list[Phrase]:
    """The phrases as noun-phrase terms (:func:`as_term`), in the same order, merged when two become one."""
    out: dict[tuple[str, ...], Phrase] = {}
    for phrase in phrases:
        words = as_term(phrase.words)
        if words is None:
            continue
        key = tuple(stem(w) for w in words)
        if key in out:
            out[key].occurrences.extend(phrase.occurrences)
            continue
        out[key] = phrase if words == phrase.words else Phrase(
            key=key, words=words, occurrences=list(phrase.occurrences), score=phrase.score)
    return list(out.values())


def _main_clause(sentence: str) -> str:
    """A long sentence cut at its first colon or semicolon ("We propose X: a is b, c is d" -> "We propose X.")."""
    if len(sentence.split()) <= 25:
        return sentence
    head = re.split(r"[:;]\s", sentence, maxsplit=1)[0].rstrip(" ,")
    return head if head.endswith((".", "?", "!")) else head + "."


def _concept_fields(
    plan: ConceptPlan, methods: list[str], domains: list[str], seeds: list[str]
) -> tuple[list[str], list[str], list[str]]:
    """Methodologies, domains and seed keywords from the concept blocks (the phrase heuristics' values only
    where the question has no block of that kind): what is studied -> methodologies, who or where -> domains."""
    if not plan.blocks:
        return methods, domains, seeds
    what = [i for b in plan.blocks if b.facet in ("intervention", "exposure", "comparator") for i in b.items[:3]]
    who = [i for b in plan.blocks if b.facet in ("population", "setting", "outcome") for i in b.items[:3]]
    new_methods: list[str] = []
    for item in what:
        _distinct_append(new_methods, item, 5)
    new_domains: list[str] = []
    for item in who:
        _distinct_append(new_domains, item, 5)
    new_seeds: list[str] = []
    for block in plan.blocks:  # each block's label first, then its other variants
        _distinct_append(new_seeds, block.label, 8)
    for block in plan.blocks:
        for item in block.items[1:3]:
            _distinct_append(new_seeds, item, 8)
    for seed in seeds:
        if len(new_seeds) >= 4:
            break
        _distinct_append(new_seeds, seed, 8)
    return new_methods or methods, new_domains or domains, new_seeds
