"""Stage 3 of the offline backend: paper scoring against the intent (moved verbatim from domain/offline.py)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from agentr_dagster.domain import lexicon as lx
from agentr_dagster.domain.concept_match import ConceptText
from agentr_dagster.domain.contracts import (
    NO_GAP_STATEMENT,
    ContributionType,
    DirectCompetitor,
    Overlap,
    OverlapAssessment,
    PaperAssessment,
    ResearchIntent,
    SupportingWork,
)
from agentr_dagster.domain.text import (
    collect_phrases,
    key_of,
    normalize,
    score_phrases,
    split_sentences,
    stem,
    tokenize,
    top_phrases,
)
from agentr_dagster.llm.offline.common import (
    _MAX_SENTENCES_PER_PAPER,
    _RANK,
    _STRONG_THEORY_RE,
    C1_BANDS,
    DOC_COS_RANGE,
    EMBED_WEIGHT,
    FACETS,
    JUSTIFICATION_PREFIX,
    LOW,
    MEDIUM,
    TERM_COS_RANGE,
    _calibrate,
    _distinct_append,
    _FacetResult,
    _join_terms,
    _short,
    _Term,
    _TermMatch,
    level_of,
)


class ScoringMixin:
    if TYPE_CHECKING:  # supplied by the backend this is mixed into (OfflineBackend, QueriesMixin)
        def _encode(self, texts: list[str]) -> np.ndarray: ...

        @staticmethod
        def _problem_phrases(intent: ResearchIntent, exclude: list[str]) -> list[str]: ...

    # -- stage 3: scoring --------------------------------------------------------------------------------

    def score_papers(
        self, intent: ResearchIntent, abstract: str, papers: Sequence[tuple[str, str]]
    ) -> list[PaperAssessment]:
        """Assess each (title, abstract) paper against the intent and the user's abstract, in one batch."""
        papers = [(str(t or ""), str(a or "")) for t, a in papers]
        if not papers:
            return []
        user_text = normalize(abstract or "") or normalize(" ".join([intent.problem_statement, *intent.seed_keywords]))
        terms = self._intent_terms(intent)

        # Lexical views of every paper.
        paper_texts: list[str] = []
        paper_sentences: list[list[str]] = []
        paper_stems: list[set[str]] = []
        for title, body in papers:
            title_n, body_n = normalize(title), normalize(body)
            paper_texts.append(f"{title_n}. {body_n}" if title_n and body_n else title_n or body_n)
            sents = ([title_n] if title_n else []) + split_sentences(body)
            paper_sentences.append(sents[:_MAX_SENTENCES_PER_PAPER] or [""])
            paper_stems.append({stem(t) for t in tokenize(paper_texts[-1])})

        # Embeddings, batched: documents, sentences and intent terms.
        # Dot products in float64 so an assessment does not depend on the batch it was computed in.
        docs = self._encode([user_text] + paper_texts).astype(np.float64)
        doc_cos = docs[1:] @ docs[0]
        similarity = np.round(_calibrate(doc_cos, *DOC_COS_RANGE), 3)
        flat = [s for sents in paper_sentences for s in sents]
        offsets = np.cumsum([0] + [len(s) for s in paper_sentences[:-1]])
        sent_vecs = self._encode(flat).astype(np.float64)
        term_vecs = self._encode([t.text for t in terms]).astype(np.float64) if terms else None
        if term_vecs is not None:
            best_cos = np.maximum.reduceat(term_vecs @ sent_vecs.T, offsets, axis=1)  # (n_terms, n_papers)
            term_embed = _calibrate(best_cos, *TERM_COS_RANGE)
        else:
            term_embed = np.zeros((0, len(papers)))

        user_stems = {stem(t) for t in tokenize(user_text)}
        user_key_phrases = self._user_key_phrases(user_text)
        # the planned work's definitions ("systematic literature reviews (SLRs)") expand a paper's abbreviations
        context = [user_text, intent.problem_statement]
        results = []
        for j in range(len(papers)):
            concepts = ConceptText(paper_texts[j], context=context)
            facets = self._facet_results(terms, term_embed[:, j], paper_stems[j], concepts)
            results.append(
                self._assess(
                    float(similarity[j]),
                    facets,
                    paper_texts[j],
                    paper_sentences[j],
                    user_stems,
                    user_key_phrases,
                    paper_stems[j],
                    ConceptText(user_text, context=[paper_texts[j]]),  # what the user's abstract names
                )
            )
        return results

    def _intent_terms(self, intent: ResearchIntent) -> list[_Term]:
        """The facet terms matched against papers. The problem facet is the problem statement as a whole plus
        its key phrases that are not also method terms (so C1's two axes do not count the same words twice).
        """
        terms: list[_Term] = []
        problem_phrases = self._problem_phrases(intent, exclude=list(intent.methodologies))
        statement = intent.problem_statement
        if key_of(statement):
            terms.append(_Term("problem", statement, key_of(statement), holistic=True))
        for facet, texts in (
            ("problem", problem_phrases),
            ("method", list(intent.methodologies)),
            ("domain", list(intent.application_domains)),
            ("constraint", list(intent.constraints)),
        ):
            for text in texts:
                key = key_of(text)
                if key:
                    terms.append(_Term(facet, text, key))
        return terms

    @staticmethod
    def _facet_results(terms: list[_Term], embed: np.ndarray, stems: set[str],
                       concepts: ConceptText | None = None) -> dict[str, _FacetResult]:
        """Each facet's matches. A term the paper names in any variant (an abbreviation or its expansion, a
        plural, a spelling: :class:`ConceptText`) is fully present lexically, so it is never reported missing."""
        by_facet: dict[str, list[_TermMatch]] = {f: [] for f in FACETS}
        for i, term in enumerate(terms):
            lexical = sum(1 for s in term.key if s in stems) / len(term.key)
            if concepts is not None and not term.holistic and lexical < 1 and concepts.contains(term.text):
                lexical = 1.0
            e = float(embed[i])
            score = EMBED_WEIGHT * e + (1 - EMBED_WEIGHT) * lexical
            by_facet[term.facet].append(_TermMatch(term, e, lexical, score))
        out = {}
        for facet, matches in by_facet.items():
            matches.sort(key=lambda m: (-round(m.score, 9), m.term.text))
            mean = sum(m.score for m in matches) / len(matches) if matches else 0.0
            strength = round(0.7 * matches[0].score + 0.3 * mean, 4) if matches else 0.0
            out[facet] = _FacetResult(facet, strength, level_of(strength), matches)
        return out

    @staticmethod
    def _user_key_phrases(user_text: str) -> list[tuple[str, tuple[str, ...]]]:
        sentences = split_sentences(user_text) or [user_text]
        ranked = top_phrases(score_phrases(collect_phrases(sentences), len(sentences)), 10)
        return [(p.text, p.key) for p in ranked]

    def _assess(
        self,
        similarity: float,
        facets: dict[str, _FacetResult],
        paper_text: str,
        paper_sentences: list[str],
        user_stems: set[str],
        user_key_phrases: list[tuple[str, tuple[str, ...]]],
        paper_stems: set[str],
        user_concepts: ConceptText | None = None,
    ) -> PaperAssessment:
        problem, method = facets["problem"], facets["method"]
        overlap = OverlapAssessment(
            problem=problem.level, method=method.level, domain=facets["domain"].level,
            constraint=facets["constraint"].level,
        )  # fmt: skip
        c1 = self._c1(problem, method)
        c2 = self._c2(similarity, facets, paper_text)

        gaps, uncovered = _gap_statements(facets)

        if uncovered:
            parts = []
            for facet in FACETS:
                names = [m.term.text for m in uncovered if m.term.facet == facet]
                if names:
                    parts.append(f"{facet} {_join_terms(names, 3)}")
            user_novelty = (
                "Relative to this paper, the user's work adds " + "; ".join(parts) + " - intent terms with no "
                "more than a weak match in the paper's title and abstract."
            )
        else:
            user_novelty = (
                "Every extracted intent term is matched in this paper; the user's novelty, if any, lies in "
                "details an abstract-level lexical+embedding comparison cannot resolve."
            )

        sents = [s for s in paper_sentences if s]
        paper_phrases = score_phrases(collect_phrases(sents), len(sents)) if sents else []
        only_paper = [
            p.text
            for p in top_phrases(paper_phrases, 20)
            if p.key and not any(s in user_stems for s in p.key) and len(p.key) >= 1
            and not (user_concepts is not None and user_concepts.contains(p.text))
        ][:4]
        if only_paper:
            shared = [p for p, k in user_key_phrases if k and all(s in paper_stems for s in k)][:3]
            candidate_advantage = (
                f"The paper covers {_join_terms(only_paper)}, which the user's abstract does not mention"
                + (f"; it shares {_join_terms(shared, 3)} with it." if shared else ".")
            )
        else:
            candidate_advantage = (
                "No key phrase of the paper is absent from the user's abstract; any advantage of the paper "
                "(results, data, depth) is not visible to the offline comparison."
            )

        return PaperAssessment(
            semantic_similarity=similarity,
            overlap=overlap,
            c1_direct_competitor=c1,
            c2_supporting_work=c2,
            research_gaps=[_short(g, 400) for g in gaps[:6]],
            user_novelty=_short(user_novelty, 1200),
            candidate_advantage=_short(candidate_advantage, 1200),
        )

    @staticmethod
    def _c1(problem: _FacetResult, method: _FacetResult) -> DirectCompetitor:
        p, m = _RANK[problem.level], _RANK[method.level]
        if p == 3 and m == 3:
            band = "9-10"
        elif (p == 3 and m == 2) or (p == 2 and m == 3):
            band = "7-8"
        elif (p == 3 or m == 3) and min(p, m) <= 1:
            band = "5-6"
        elif p >= 1 and m >= 1 and p + m >= 3:
            band = "3-4"
        else:
            band = "0-2"
        lo, hi, meaning = C1_BANDS[band]
        frac = (problem.strength + method.strength) / 2
        score = round(lo + (hi - lo) * frac, 1)
        justification = (
            f"{JUSTIFICATION_PREFIX} Rubric band {band} ({meaning}): problem overlap {problem.level.value} "
            f"({_facet_evidence(problem)}), method overlap {method.level.value} ({_facet_evidence(method)}). "
            f"Score = band floor + band width x mean facet strength ({frac:.2f})."
        )
        strengths, weaknesses = [], []
        for facet, what in ((problem, "problem"), (method, "method")):
            best = facet.best
            if best is None:
                weaknesses.append(f"No {what} terms were extracted from the user's intent to compare.")
            elif _RANK[facet.level] >= 2:
                strengths.append(
                    f"Shares the user's {what}: {best.term.label} ({_words_found(best)}, embedding {best.embed:.2f})."
                )
            else:
                weaknesses.append(
                    f"Different {what}: the closest user {what} term {best.term.label} matches only "
                    f"{best.score:.2f} ({_words_found(best)})."
                )
        return DirectCompetitor(
            score=score,
            justification=_short(justification, 1200),
            strengths=[_short(s, 400) for s in strengths],
            weaknesses=[_short(w, 400) for w in weaknesses],
        )

    @staticmethod
    def _c2(similarity: float, facets: dict[str, _FacetResult], paper_text: str) -> SupportingWork:
        order = ("method", "problem", "domain", "constraint")
        ranked = sorted(order, key=lambda f: (-facets[f].strength, order.index(f)))
        top, second = facets[ranked[0]], facets[ranked[1]]
        score = round(10 * min(1.0, 0.4 * similarity + 0.4 * top.strength + 0.2 * second.strength), 1)
        low = paper_text.casefold()
        theory = sum(low.count(cue) for cue in lx.THEORY_CUES) >= 2 or bool(_STRONG_THEORY_RE.search(low))
        application = any(cue in low for cue in lx.APPLICATION_CUES)
        if top.facet in ("method", "problem") and theory:
            ctype, why = ContributionType.theoretical_foundation, "theory cues (theorem/proof/formal) in the paper"
        elif top.facet == "method":
            ctype, why = ContributionType.methodology, "strongest overlap is the method facet"
        elif top.facet == "problem":
            ctype, why = ContributionType.problem_context, "strongest overlap is the problem facet"
        elif top.facet == "domain" and (application or _RANK[facets["method"].level] >= 2):
            ctype, why = (
                ContributionType.related_application,
                "strongest overlap is the domain facet and the paper reports an application",
            )
        elif top.facet == "domain":
            ctype, why = ContributionType.domain_knowledge, "strongest overlap is the domain facet"
        else:
            ctype, why = ContributionType.constraint_analysis, "strongest overlap is the constraint facet"
        areas: list[str] = []
        for f in ranked:
            if facets[f].level == Overlap.none:
                continue
            # the best matching term by name (the problem statement as a whole is no area: its best phrase is)
            named = next((m for m in facets[f].matches if not m.term.holistic and m.score >= LOW), None)
            if named is not None:
                _distinct_append(areas, _short(f"{f}: {named.term.text}", 120), 6)
        justification = (
            f"{JUSTIFICATION_PREFIX} C2 = 10 x (0.4 x similarity {similarity:.2f} + 0.4 x {top.facet} "
            f"strength {top.strength:.2f} + 0.2 x {second.facet} strength {second.strength:.2f}). "
            f"Type {ctype.value}: {why}."
        )
        strengths = [
            f"Supports the user's {f}: {best.term.label} ({_words_found(best)})."
            for f in ranked
            if (best := facets[f].best) is not None and _RANK[facets[f].level] >= 2
        ]
        weaknesses = [
            f"No {f} overlap with the user's intent."
            for f in ranked
            if facets[f].level == Overlap.none and facets[f].matches
        ]
        if similarity < 0.3:
            weaknesses.append(f"Low overall semantic similarity to the user's abstract ({similarity:.2f}).")
        return SupportingWork(
            score=score,
            justification=_short(justification, 1200),
            contribution_type=ctype,
            relevance_areas=areas,
            strengths=[_short(s, 400) for s in strengths[:6]],
            weaknesses=[_short(w, 400) for w in weaknesses[:6]],
        )



def _words_found(match: _TermMatch) -> str:
    n = len(match.term.key)
    found = round(match.lexical * n)
    return f"{found}/{n} words present"


def _facet_evidence(facet: _FacetResult) -> str:
    best = facet.best
    if best is None:
        return "no terms extracted for this facet"
    return (
        f"strength {facet.strength:.2f}; best term {best.term.label}: {_words_found(best)}, embedding {best.embed:.2f}"
    )


def _gap_statements(facets: dict[str, _FacetResult]) -> tuple[list[str], list[_TermMatch]]:
    """At most six "does not address" statements (constraints first), and every intent term the paper matches
    only weakly; a paper that matches every term gets the one statement that says so."""
    gaps: list[str] = []
    uncovered: list[_TermMatch] = []
    for facet in ("constraint", "method", "domain", "problem"):
        for match in facets[facet].matches:
            if match.score < MEDIUM and not match.term.holistic:
                uncovered.append(match)
                if len(gaps) < 6:
                    gaps.append(
                        f"Does not address the user's {facet} {match.term.label} "
                        f"(match {match.score:.2f}: {_words_found(match)}, embedding {match.embed:.2f})."
                    )
    if not gaps:
        gaps.append(
            f"{NO_GAP_STATEMENT}: every extracted problem, method, domain and constraint term has at "
            "least a medium lexical+embedding match in this paper; remaining gaps are below abstract level."
        )
    return gaps, uncovered
