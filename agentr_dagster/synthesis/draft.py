"""The related-work draft: one section per taxonomy node, written extractively from the landscape (offline),
rendered to Markdown (Pandoc citations) and LaTeX (natbib-style \\cite) with a BibTeX file of the cited papers.

Every sentence records the evidence it rests on: the paper, its stored result row and the score fields (or the
abstract sentence) it states. Nothing is invented: sentences are templates filled with stored scores, routed
papers, recorded gaps and sentences quoted from the papers' own abstracts.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

import numpy as np

from agentr_dagster.domain.text import is_stopword, truncate
from agentr_dagster.domain.text import split_sentences as text_sentences
from agentr_dagster.synthesis.corpus import Corpus, ScoredPaper
from agentr_dagster.synthesis.landscape import CONTRIBUTION_LABELS
from agentr_dagster.synthesis.models import (
    BibEntry,
    Draft,
    Evidence,
    Landscape,
    Paragraph,
    Section,
    Sentence,
    TaxonomyNode,
)
from agentr_dagster.synthesis.sanitize import (  # noqa: F401 - md_escape/md_unescape/tex_escape re-exported
    bib_literal,
    bib_value,
    md_data,
    md_escape,
    md_unescape,
    paper_text,
    tex_escape,
)
from agentr_dagster.synthesis.taxonomy import COMPETITORS_ID, GAPS_ID
from agentr_dagster.synthesis.validate import is_literature_claim, normalised_keys

DRAFT_VERSION = "related-work-v2"  # v2: one paragraph per theme


@dataclass(frozen=True)
class DraftSettings:
    cites_per_sentence: int = 5
    papers_quoted_per_section: int = 5
    competitors_with_gap: int = 3
    gap_sentences: int = 5
    quote_chars: int = 240
    title_chars: int = 90


# ------------------------------------------------------------------------------------------------ text helpers

def cite(*keys: str) -> str:
    return "[@" + "; @".join(keys) + "]"


def _first_lower(text: str) -> str:
    """Lower-case the first letter only when the first word is a function word ("The", "We", "This"), so a
    quoted sentence runs on after "reports that" while names ("Wipro", "Software Project Estimation") keep
    their capitals."""
    words = text.split(" ", 1)
    if words and words[0][:1].isupper() and (words[0][1:].islower() or len(words[0]) == 1) and is_stopword(words[0]):
        return text[0].lower() + text[1:]
    return text


_GAP_VERBS = {"does not": "do not", "doesn't": "don't", "do not": "do not", "lacks": "lack", "ignores": "ignore",
              "omits": "omit", "fails": "fail", "neglects": "neglect", "overlooks": "overlook"}


def gap_clause(gap: str, plural: bool) -> str | None:
    """'Does not address X' as 'they do not address X' / 'it does not address X'; None when the statement does
    not open with one of these verbs (it is then shown after a colon as recorded)."""
    low = gap.casefold()
    for singular, many in _GAP_VERBS.items():
        if low.startswith(singular + " "):
            rest = gap[len(singular) :]
            return f"they {many}{rest}" if plural else f"it {singular}{rest}"
    return None


def _join(items: list[str]) -> str:
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def _verb(papers: list, verb: str) -> str:
    return verb + "s" if len(papers) == 1 else verb


def _count(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def _score(value: float) -> str:
    return f"{value:.1f}".rstrip("0").rstrip(".") if value != int(value) else f"{int(value)}"


_LEAD_RE = re.compile(r"^(?:[^\w“\"'(]+|abstract\b[\s:.\-–—]*)+", re.I)
_AIM_RE = re.compile(r"\b(?:this (?:paper|study|article|review|work|chapter|report)|we|the authors)\b", re.I)
_CONNECTIVE_RE = re.compile(
    r"^(?:however|moreover|furthermore|finally|first(?:ly)?|second(?:ly)?|third(?:ly)?|also|thus|therefore|hence"
    r"|in addition|additionally|consequently|then|besides|nevertheless|nonetheless|still|yet|in contrast|on the"
    r" other hand|results|conclusions?|method|methods|background|objective|aims?|purpose)\b\W",
    re.I,
)


# ------------------------------------------------------------------------------------------------ the writer

class _Writer:
    def __init__(self, landscape: Landscape, corpus: Corpus, embedder, settings: DraftSettings):
        self.l = landscape
        self.s = settings
        self.by_id = corpus.by_id()
        self.embedder = embedder
        self.quoted: set[int] = set()
        self.used_quotes: set[str] = set()
        self.included = [p.paper_id for p in landscape.papers if p.included]
        self.heuristic = landscape.backend == "offline"  # C1/C2 are heuristics: the sentences say so
        self._sentences: dict[int, list[str]] = {}
        self._sentence_vecs: dict[int, np.ndarray] = {}
        self._paper_vecs: dict[int, np.ndarray] | None = None

    # -- building blocks
    def ranked(self, paper_ids) -> list[ScoredPaper]:
        return sorted((self.by_id[i] for i in set(paper_ids)), key=lambda p: (-p.relevance, p.paper_id))

    def title(self, p: ScoredPaper) -> str:
        title = paper_text(p.title).rstrip(". ")
        return "“" + md_escape(truncate(title, self.s.title_chars) if title else "(untitled)") + "”"

    def ev(self, p: ScoredPaper, **fields) -> Evidence:
        return Evidence(paper_id=p.paper_id, key=p.key, result_id=p.result_id, fields=fields)

    def sentence(self, text: str, evidence: list[Evidence]) -> Sentence:
        return Sentence(id="", text=text, cites=normalised_keys(text), claim=is_literature_claim(text),
                        evidence=evidence)

    def abstract_sentences(self, p: ScoredPaper) -> list[str]:
        if p.paper_id not in self._sentences:
            # Records carry debris before the first word ("?This report", "Abstract In this paper"): cut it off,
            # so a quote is still a verbatim substring of the abstract.
            cleaned = (_LEAD_RE.sub("", s) for s in text_sentences(p.abstract))
            usable = [s for s in cleaned if 8 <= len(paper_text(s).split()) <= 60][:8]
            self._sentences[p.paper_id] = usable
            if usable:
                self._sentence_vecs[p.paper_id] = self.embedder.encode(usable)
        return self._sentences[p.paper_id]

    def best_quote(self, p: ScoredPaper, centroid: np.ndarray | None) -> tuple[int, str] | None:
        """The abstract sentence to quote, never one already quoted in the draft (records sometimes share an
        abstract), or None."""
        sentences = self.abstract_sentences(p)
        if not sentences:
            return None
        # Closeness to the section, plus a prior for sentences that state what the paper does (early, "this
        # paper", "we") and against ones that lean on their neighbours ("However, ...", "Third, ...").
        sims = self._sentence_vecs[p.paper_id] @ centroid if centroid is not None else np.zeros(len(sentences))
        score = [float(sims[i]) + 0.15 / (1 + i) + 0.1 * bool(_AIM_RE.search(s)) - 0.3 * bool(_CONNECTIVE_RE.match(s))
                 for i, s in enumerate(sentences)]
        order = sorted(range(len(sentences)), key=lambda i: (-round(score[i], 6), i))
        for i in order:
            if sentences[i].casefold() not in self.used_quotes:
                self.used_quotes.add(sentences[i].casefold())
                quote = truncate(sentences[i].rstrip(". "), self.s.quote_chars).rstrip(".")
                return i, quote
        return None

    def centroid(self, paper_ids) -> np.ndarray | None:
        papers = self.ranked(paper_ids)
        if not papers:
            return None
        if self._paper_vecs is None:  # every discussed paper embedded once, in one batch
            ids = sorted(set(self.included))
            self._paper_vecs = dict(zip(ids, self.embedder.encode([self.by_id[i].text for i in ids]), strict=True))
        missing = [p for p in papers if p.paper_id not in self._paper_vecs]
        if missing:
            self._paper_vecs.update(zip([p.paper_id for p in missing],
                                        self.embedder.encode([p.text for p in missing]), strict=True))
        c = np.stack([self._paper_vecs[p.paper_id] for p in papers]).mean(axis=0)
        n = float(np.linalg.norm(c))
        return c / n if n > 0 else None

    def role(self, p: ScoredPaper) -> tuple[str, dict]:
        if p.is_competitor(self.l.settings.get("c1_threshold", 5.0)):
            if self.heuristic:
                return (f"as a candidate competitor (offline C1 heuristic {_score(p.c1)}/10)",
                        {"c1_direct_competitor.score": p.c1})
            return (f"as a direct competitor (C1 {_score(p.c1)}/10)",
                    {"c1_direct_competitor.score": p.c1})
        label = CONTRIBUTION_LABELS[p.contribution_type]
        return (f"as supporting work on {label} (C2 {_score(p.c2)}/10)",
                {"c2_supporting_work.score": p.c2, "c2_supporting_work.contribution_type": p.contribution_type})

    def gap_of(self, paper_ids: list[int]):
        """The recurring gap that sets these papers apart: the largest lift of its share here over its share
        among all discussed papers, then the largest share. (cluster, papers sharing it, lift) or None."""
        members = set(paper_ids)
        total = max(1, len(self.included))
        best = None
        for cluster in self.l.gap_clusters:
            shared = members & set(cluster.papers)
            if not shared:
                continue
            share = len(shared) / len(members)
            lift = share - len(cluster.papers) / total
            rank = (round(lift, 6), round(share, 6))
            if best is None or rank > best[0]:
                best = (rank, cluster, shared, lift)
        return None if best is None else best[1:]

    def cites_for(self, paper_ids) -> list[ScoredPaper]:
        return self.ranked(paper_ids)[: self.s.cites_per_sentence]

    def gap_evidence(self, cluster, papers: list[ScoredPaper]) -> list[Evidence]:
        wanted = {p.paper_id for p in papers}
        out = []
        for st in cluster.statements:
            if st.paper_id in wanted:
                p = self.by_id[st.paper_id]
                out.append(self.ev(p, **{f"research_gaps[{st.index}]": st.text}))
        return out

    def selection_text(self, n_scored: int) -> str:
        """Which papers the draft discusses and why: the screening engine's likely includes."""
        st = self.l.settings
        if not st.get("relevance_floor_applied", True):
            return (f"This section discusses all {n_scored} scored candidate papers: "
                    f"{st.get('selection', 'no ranking to choose from')}.")
        by_rank, labelled = st.get("likely_by_rank", 0), st.get("labelled_includes", 0)
        text = (f"This section discusses {len(self.included)} of the {n_scored} scored candidate papers, the likely "
                f"includes: the {by_rank} the screening engine ranks highest, as many as the includes it expects "
                f"among the papers not yet labelled (about {float(st.get('expected_includes') or 0):.0f}")
        if by_rank > round(float(st.get("expected_includes") or 0)):
            text = text.replace("as many as the includes it expects", f"at least {st.get('min_discussed', 10)} "
                                "papers, although it expects fewer includes")
        if st.get("lowest_p_include") is not None:
            text += f"; P(include) from {float(st['lowest_p_include']):.3f} up"
        text += ")"
        if labelled:
            text += f", and the {labelled} the researcher labelled include"
        return text + "."

    # -- sections
    def root(self, node: TaxonomyNode) -> list[list[Sentence]]:
        tax = self.l.taxonomy
        themes = [tax.node(c) for c in node.children if c not in (COMPETITORS_ID, GAPS_ID)]
        n_scored = self.l.n_papers
        first = self.sentence(self.selection_text(n_scored), [])
        parts, evidence = [], []
        for theme in themes:
            top = self.cites_for(tax.subtree_papers(theme.id))[:2]
            parts.append(f"{md_data(theme.label.lower() if theme.label[:2].istitle() else theme.label)} "
                         f"{cite(*(p.key for p in top))}")
            evidence += [self.ev(p, route=theme.id, semantic_similarity=p.similarity) for p in top]
        sentences = [first]
        if parts:
            noun = "theme" if len(parts) == 1 else "themes"
            sentences.append(self.sentence(f"The literature they represent falls into {len(parts)} {noun} (clusters "
                                           f"of their titles and abstracts by embedding, a heuristic): "
                                           f"{_join(parts)}.", evidence))
        if self.l.competitors:
            top = [self.by_id[c.paper_id] for c in self.l.competitors[:3]]
            lead = ("By the offline C1 heuristic (facet overlap, not a reading), the closest candidate competitors "
                    "of the planned work are" if self.heuristic else "The closest competitors of the planned work are")
            sentences.append(self.sentence(
                f"{lead} {_join([cite(p.key) for p in top])}, with "
                f"direct-competitor scores of {_join([_score(p.c1) for p in top])} out of 10.",
                [self.ev(p, **{"c1_direct_competitor.score": p.c1}) for p in top]))
        return [sentences]

    def navigational(self, node: TaxonomyNode) -> list[list[Sentence]]:
        tax = self.l.taxonomy
        parts, evidence = [], []
        for child_id in node.children:
            child = tax.node(child_id)
            top = self.cites_for(tax.subtree_papers(child.id))[:2]
            parts.append(f"{md_data(child.label.lower() if child.label[:2].istitle() else child.label)} "
                         f"{cite(*(p.key for p in top))}")
            evidence += [self.ev(p, route=child.id, semantic_similarity=p.similarity) for p in top]
        papers = tax.subtree_papers(node.id)
        out = [self.sentence(f"The {len(papers)} candidates in this theme divide into {len(parts)} strands: "
                             f"{_join(parts)}.", evidence)]
        comps = [p for p in self.ranked(papers) if p.is_competitor(self.l.settings.get("c1_threshold", 5.0))]
        if comps:
            shown = comps[: self.s.cites_per_sentence]
            out.append(self.sentence(
                (f"{_count(len(comps), 'of them is a candidate competitor', 'of them are candidate competitors')}"
                 f" by the offline C1 heuristic {cite(*(p.key for p in shown))}." if self.heuristic else
                 f"{_count(len(comps), 'of them competes', 'of them compete')} directly with the planned work "
                 f"{cite(*(p.key for p in shown))}."),
                [self.ev(p, **{"c1_direct_competitor.score": p.c1}) for p in shown]))
        return [out]

    def analytical(self, node: TaxonomyNode) -> list[list[Sentence]]:
        """One paragraph per theme: what it holds, what its most likely includes say in their own words (one
        sentence carries several papers), and how it relates to the planned work."""
        papers = self.ranked(node.papers)
        threshold = self.l.settings.get("c1_threshold", 5.0)
        label = md_data(node.label.lower() if node.label[:2].istitle() else node.label)
        k = self.s.cites_per_sentence
        top = papers[:k]
        out = [self.sentence(
            (f"{len(papers)} of the likely includes concern {label}, notably {cite(*(p.key for p in top))}."
             if len(papers) > len(top) else
             f"{'One likely include concerns' if len(papers) == 1 else f'{len(papers)} likely includes concern'} "
             f"{label} {cite(*(p.key for p in top))}."),
            [self.ev(p, route=node.id, semantic_similarity=p.similarity) for p in top])]
        comps = [p for p in papers if p.is_competitor(threshold)]
        support = [p for p in papers if not p.is_competitor(threshold)]
        if comps and support:
            types = sorted({p.contribution_type for p in support}, key=lambda t: (
                -sum(p.contribution_type == t for p in support), t))
            c_show, s_show = comps[:k], support[:k]
            basis = " (by the offline C1 and C2 heuristics)" if self.heuristic else ""
            out.append(self.sentence(
                f"Of these{basis}, {cite(*(p.key for p in c_show))} {_verb(c_show, 'compete')} directly with the "
                f"planned work, while {cite(*(p.key for p in s_show))} {_verb(s_show, 'support')} it, mainly "
                f"through {CONTRIBUTION_LABELS[types[0]]}.",
                [self.ev(p, **{"c1_direct_competitor.score": p.c1}) for p in c_show]
                + [self.ev(p, **{"c2_supporting_work.score": p.c2,
                                 "c2_supporting_work.contribution_type": p.contribution_type}) for p in s_show]))
        centroid = self.centroid(node.papers)
        fresh = [p for p in papers if p.paper_id not in self.quoted]
        chosen = (fresh + [p for p in papers if p.paper_id in self.quoted])[: self.s.papers_quoted_per_section]
        out += self.quotes(chosen, centroid)
        gap = self.gap_of(node.papers)
        if gap is not None:
            cluster, shared, lift = gap
            shown = self.ranked(shared)[:k]
            how_many = f"all {len(papers)}" if len(shared) == len(papers) else f"{len(shared)} of {len(papers)}"
            setting = ("that sets these papers apart" if lift > 0.05 else "that they share with the other candidates")
            clause = gap_clause(cluster.representative, plural=True)
            statement = f"is that {clause}" if clause else f"is: {cluster.representative}"
            basis = " (an offline heuristic)" if self.heuristic else ""
            out.append(self.sentence(
                f"Relative to the planned work, the recorded gap{basis} {setting} ({how_many}) "
                f"{md_data(statement)} {cite(*(p.key for p in shown))}.",
                self.gap_evidence(cluster, shown)))
        return [out]

    def quotes(self, chosen: list[ScoredPaper], centroid: np.ndarray | None) -> list[Sentence]:
        """The chosen papers in their own words: the first in a sentence of its own, the others two to a
        sentence ("Similarly, [@a] states that ..., and [@b] that ..."): prose, not one template per paper."""
        found = []
        for p in chosen:
            quote = self.best_quote(p, centroid)
            self.quoted.add(p.paper_id)
            if quote is not None:
                found.append((p, *quote))
        if not found:
            return []
        p, i, q = found[0]
        role, fields = self.role(p)
        lead_in = "The most likely include among them" if p.p_include is not None else "The first of them"
        out = [self.sentence(
            f"{lead_in}, {self.title(p)} {cite(p.key)}, relevant {role}, reports that "
            f"“{md_data(_first_lower(q))}”.", [self.ev(p, **fields, **{f"abstract.sentence[{i}]": q})])]
        openers = ("Similarly,", "In the same vein,", "Along related lines,")
        rest = found[1:]
        for n in range(0, len(rest), 2):
            pair = rest[n:n + 2]
            parts = [f"{cite(pp.key)} {'states' if j == 0 else ''} that “{md_data(_first_lower(qq))}”".replace(
                "  ", " ") for j, (pp, _, qq) in enumerate(pair)]
            text = f"{openers[(n // 2) % len(openers)]} {' and '.join(parts)}."
            out.append(self.sentence(text, [self.ev(pp, **{f"abstract.sentence[{ii}]": qq}) for pp, ii, qq in pair]))
        return out

    def competitors(self, node: TaxonomyNode) -> list[list[Sentence]]:
        """One paragraph: who the candidate competitors are and on what basis, the closest in its own words, and
        how their overlaps with the planned work fall (grouped, not paper by paper)."""
        comps = [self.by_id[c.paper_id] for c in self.l.competitors if c.paper_id in set(node.papers)]
        scores = [p.c1 for p in comps]
        lo, hi = _score(min(scores)), _score(max(scores))
        basis = ("by the offline C1 heuristic (the overlap of the planned work's problem and method terms with "
                 "each paper's title and abstract, not a reading)" if self.heuristic else "by the model's C1 score")
        out = [self.sentence(
            f"Among the likely includes, the candidates closest to the planned work {basis} are "
            f"{cite(*(p.key for p in comps))}, with direct-competitor scores "
            f"{'of ' + hi if lo == hi else f'from {lo} to {hi}'} out of 10.",
            [self.ev(p, **{"c1_direct_competitor.score": p.c1}) for p in comps])]
        centroid = self.centroid(node.papers)
        out += self.quotes(comps[:3], centroid)
        by_level: dict[tuple[str, str], list[ScoredPaper]] = {}
        for p in comps:
            o = p.assessment.overlap
            by_level.setdefault((o.problem.value, o.method.value), []).append(p)
        parts, evidence = [], []
        for (problem, method), group in sorted(by_level.items(), key=lambda kv: -len(kv[1])):
            shown = group[: self.s.cites_per_sentence]
            parts.append(f"{problem} problem and {method} method overlap for {cite(*(p.key for p in shown))}")
            evidence += [self.ev(p, **{"overlap.problem": problem, "overlap.method": method}) for p in shown]
        out.append(self.sentence(f"Their overlaps with the planned work are {_join(parts)}.", evidence))
        return [out]

    def gaps(self, node: TaxonomyNode) -> list[list[Sentence]]:
        n = len(self.included)
        basis = ("By the offline heuristic (a term of the planned work that a paper's title and abstract match at "
                 "most weakly, lexically and by embedding, abbreviations, plurals and spellings taken into account; "
                 "statements grouped by the similarity of their wording), " if self.heuristic else
                 "Among the model's per-paper gaps, grouped by the similarity of their wording, ")
        out = []
        ordinals = ("most frequent", "second most frequent", "third most frequent", "fourth most frequent",
                    "fifth most frequent", "sixth most frequent")
        openers = ("", "Next, ", "Then, ", "Further, ", "Finally, ", "Also, ")
        used: set[int] = set()
        clusters = self.l.gap_clusters[: self.s.gap_sentences]
        for k, cluster in enumerate(clusters):
            pool = [p for p in self.ranked(cluster.papers) if p.paper_id in set(node.papers)]
            # Cite papers not cited for an earlier gap first, so the section shows more of the literature.
            shown = ([p for p in pool if p.paper_id not in used] + [p for p in pool if p.paper_id in used])
            shown = shown[: self.s.cites_per_sentence] or self.ranked(cluster.papers)[: self.s.cites_per_sentence]
            used.update(p.paper_id for p in shown)
            how_many = f"all {n}" if len(cluster.papers) == n else f"{len(cluster.papers)} of the {n}"
            clause = gap_clause(cluster.representative, plural=True)
            statement = f"is that {clause}" if clause else f"is: {cluster.representative}"
            opener = openers[k] if k < len(openers) and k < len(clusters) - 1 else ("Finally, " if k else "")
            opener = basis if k == 0 else opener
            text = (f"{opener}the {ordinals[min(k, len(ordinals) - 1)]} gap, recorded for {how_many} likely "
                    f"includes, {md_data(statement)} {cite(*(p.key for p in shown))}.")
            out.append(self.sentence(text[0].upper() + text[1:], self.gap_evidence(cluster, shown)))
        return [out]


def plan_draft(landscape: Landscape, corpus: Corpus, embedder=None, settings: DraftSettings | None = None,
               title: str | None = None) -> Draft:
    """The extractive draft: every section of the taxonomy, each paragraph scoped to the section's papers."""
    if embedder is None:
        from agentr_dagster.domain.embeddings import get_embedder

        embedder = get_embedder()
    w = _Writer(landscape, corpus, embedder, settings or DraftSettings())
    tax = landscape.taxonomy
    sections: list[Section] = []
    for node in tax.preorder():
        if node.parent is None:
            blocks = w.root(node)
        elif node.id == COMPETITORS_ID:
            blocks = w.competitors(node)
        elif node.id == GAPS_ID:
            blocks = w.gaps(node)
        elif node.children:
            blocks = w.navigational(node)
        else:
            blocks = w.analytical(node)
        members = set(w.included) if node.parent is None else set(tax.subtree_papers(node.id))
        scope = sorted(w.by_id[i].key for i in members)
        paragraphs = []
        for k, sentences in enumerate([b for b in blocks if b], start=1):
            pid = f"{node.id}.p{k}"
            for j, s in enumerate(sentences, start=1):
                s.id = f"{pid}.s{j}"
            paragraphs.append(Paragraph(id=pid, role=_role(node, k), scope=scope, sentences=sentences))
        heading = paper_text(node.label if node.parent is not None else (title or node.label)) or node.id
        sections.append(Section(node_id=node.id, title=heading, level=tax.depth(node.id) + 1, kind=node.kind,
                                paragraphs=paragraphs))
    draft = Draft(slug=landscape.slug, version=DRAFT_VERSION, sections=sections, bib=[])
    draft.bib = bib_entries(draft, corpus)
    return draft


def _role(node: TaxonomyNode, k: int) -> str:
    if node.parent is None or node.children:
        return "overview"
    if node.id == COMPETITORS_ID:
        return "overview" if k == 1 else "competitors"
    if node.id == GAPS_ID:
        return "gaps"
    return ("overview", "papers", "relation")[min(k, 3) - 1]


# ------------------------------------------------------------------------------------------------ BibTeX

def bib_entries(draft: Draft, corpus: Corpus) -> list[BibEntry]:
    """One entry per cited paper (only the project's papers can be cited), in citation order."""
    by_key = corpus.by_key()
    order: list[str] = []
    for paragraph in draft.paragraphs():
        for sentence in paragraph.sentences:
            for key in sentence.cites:
                if key in by_key and key not in order:
                    order.append(key)
    out = []
    for key in order:
        p = by_key[key]
        fields = {"title": p.title}
        if p.authors:
            fields["author"] = " and ".join(a for a in map(paper_text, p.authors) if a)
        if p.year:
            fields["year"] = str(p.year)
        if p.venue:
            fields["journal"] = p.venue
        if p.doi:
            fields["doi"] = p.doi
        if p.url:
            fields["url"] = p.url
        out.append(BibEntry(key=key, paper_id=p.paper_id, entry_type="article" if p.venue else "misc",
                            fields=fields))
    return out


def to_bibtex(entries: list[BibEntry]) -> str:
    blocks = []
    for entry in entries:
        lines = [f"@{entry.entry_type}{{{entry.key},"]
        for name, value in entry.fields.items():
            value = bib_value(value) if name not in ("url", "doi") else bib_literal(value)
            wrapped = f"{{{{{value}}}}}" if name == "title" else f"{{{value}}}"
            lines.append(f"  {name} = {wrapped},")
        lines.append("}")
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks) + "\n"


# ------------------------------------------------------------------------------------------------ Markdown

def to_markdown(draft: Draft, header: str | None = None) -> str:
    lines = ["---", f"title: {json.dumps(draft.sections[0].title if draft.sections else 'Related work')}",
             "bibliography: related_work.bib", "link-citations: true", "---", ""]
    if header:
        lines += [f"<!-- {header.replace('--', '—')} -->", ""]
    for section in draft.sections:
        lines.append(f"{'#' * section.level} {md_escape(section.title)} {{#sec-{section.node_id}}}")
        lines.append("")
        for paragraph in section.paragraphs:
            lines.append(f"<!-- para {paragraph.id} -->")
            lines.append(paragraph.text)
            lines.append("")
    return "\n".join(lines).rstrip() + "\n"


# ------------------------------------------------------------------------------------------------ LaTeX

_CITE_SPLIT_RE = re.compile(r"(?<!\\)(\[@[^\]]*\])")


def markdown_to_latex(text: str) -> str:
    """One sentence/paragraph of our Markdown (escaped text + [@a; @b] citations) as LaTeX with \\cite{a,b}."""
    parts = []
    for piece in _CITE_SPLIT_RE.split(text):
        if piece.startswith("[@") and piece.endswith("]"):
            keys = [k.strip().lstrip("@") for k in piece[1:-1].split(";")]
            parts.append("~\\cite{" + ",".join(k for k in keys if k) + "}")
        else:
            parts.append(tex_escape(md_unescape(piece)))
    text = re.sub(r"\s+~\\cite", "~\\\\cite", "".join(parts))
    return re.sub(r"([,;:(])~\\cite", r"\1 \\cite", text)  # a tie only binds a citation to a word


LATEX_LEVELS = {1: "section", 2: "subsection", 3: "subsubsection", 4: "paragraph"}


def to_latex(draft: Draft, header: str | None = None) -> str:
    lines = []
    if header:
        lines.append(f"% {header}")
    lines += [
        r"\documentclass{article}",
        r"\usepackage[utf8]{inputenc}",
        r"\usepackage[T1]{fontenc}",
        r"\usepackage[numbers]{natbib}",
        r"\begin{document}",
        "",
    ]
    for section in draft.sections:
        command = LATEX_LEVELS.get(section.level, "paragraph")
        lines.append(f"\\{command}{{{tex_escape(section.title)}}}\\label{{sec:{section.node_id}}}")
        lines.append("")
        for paragraph in section.paragraphs:
            lines.append(f"% para {paragraph.id}")
            lines.append(markdown_to_latex(paragraph.text))
            lines.append("")
    lines += [r"\bibliographystyle{plainnat}", r"\bibliography{related_work}", r"\end{document}", ""]
    return "\n".join(lines)
