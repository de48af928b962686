"""The research landscape of a project: ranked direct competitors (C1), supporting work by contribution type
(C2), recurring gaps (the per-paper research gaps clustered and labelled) and the taxonomy with routing.
Every claim carries evidence pointers: the papers, stored result rows and score fields it rests on."""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from typing import Protocol

import numpy as np

from agentr_dagster.domain.concept_match import ConceptText
from agentr_dagster.domain.contracts import NO_GAP_STATEMENT, ContributionType
from agentr_dagster.synthesis.clustering import (
    distinctive_phrases,
    doc_phrases,
    medoid,
    threshold_clusters,
)
from agentr_dagster.synthesis.corpus import Corpus, ScoredPaper
from agentr_dagster.synthesis.models import (
    Claim,
    CompetitorEntry,
    Evidence,
    GapCluster,
    GapStatement,
    Landscape,
    PaperSummary,
    SupportGroup,
    SupportingEntry,
    Taxonomy,
)
from agentr_dagster.synthesis.taxonomy import COMPETITORS_ID, GAPS_ID, build_taxonomy, check_taxonomy

SYNTHESIS_VERSION = "synthesis-v2"  # v2: the likely includes; no gap a paper names itself

CONTRIBUTION_LABELS = {
    "methodology": "methodology",
    "problem_context": "problem context",
    "domain_knowledge": "domain knowledge",
    "constraint_analysis": "constraint analysis",
    "related_application": "related applications",
    "theoretical_foundation": "theoretical foundations",
}


@dataclass(frozen=True)
class LandscapeSettings:
    c1_threshold: float = 5.0  # rubric: 5-6 = same problem with a different method (or vice versa)
    c2_threshold: float = 5.0
    competitor_section_max: int = 6  # competitors discussed in their own section
    gap_distance: float = 0.5  # cosine distance (after centring) within which gap statements are one gap
    max_gap_clusters: int = 10
    gap_section_clusters: int = 5
    cites_per_claim: int = 5  # a sentence cites at most this many papers (the evidence lists all)


class Embedder(Protocol):  # domain.embeddings.Embedder or anything with encode(texts) -> unit rows
    def encode(self, texts: list[str]) -> np.ndarray: ...


_DETAIL_RE = re.compile(r"\s*\([^()]*\d[^()]*\)")  # "(match 0.12: 0/2 words present)" and the like
_SPACE_RE = re.compile(r"\s+")


def clean_gap(text: str) -> str:
    """A gap statement without parenthesised measurements, so equal gaps compare equal across papers."""
    return _SPACE_RE.sub(" ", _DETAIL_RE.sub("", text)).strip().rstrip(".;:") or text.strip()


def planned_work_voice(text: str) -> str:
    """Per-paper outputs speak of 'the user'/'the researcher'; a related-work draft speaks of the planned work."""
    text = re.sub(r"\b(?:the )?(?:user|researcher)(?:'s|’s)", "the planned work's", text, flags=re.I)
    return re.sub(r"\bthe (?:user|researcher)\b", "the planned work", text, flags=re.I)


def _ev(paper: ScoredPaper, **fields) -> Evidence:
    return Evidence(paper_id=paper.paper_id, key=paper.key, result_id=paper.result_id, fields=fields)


def _overlap(paper: ScoredPaper) -> dict[str, str]:
    o = paper.assessment.overlap
    return {"problem": o.problem.value, "method": o.method.value, "domain": o.domain.value,
            "constraint": o.constraint.value}


def build_landscape(corpus: Corpus, embedder: Embedder | None = None,
                    settings: LandscapeSettings | None = None) -> Landscape:
    settings = settings or LandscapeSettings()
    if embedder is None:
        from agentr_dagster.domain.embeddings import get_embedder

        embedder = get_embedder()
    papers = sorted(corpus.papers, key=lambda p: p.paper_id)
    included, selection = likely_includes(papers, corpus.expected_unlabelled)
    included_ids = {p.paper_id for p in included}
    by_id = {p.paper_id: p for p in papers}
    # Each section appends its claims in turn, so claim order is competitors, supporting, gaps, taxonomy.
    claims: list[Claim] = []
    competitors = _competitors(included, settings, claims)
    supporting = _supporting_groups(included, settings, claims)
    gap_clusters = _gap_clusters(included, embedder, settings, claims,
                                 context=(corpus.abstract or "", corpus.intent.problem_statement))
    taxonomy = _taxonomy(included, by_id, competitors, gap_clusters, embedder, settings)
    claims += _taxonomy_claims(taxonomy, by_id)
    first = papers[0]
    return Landscape(
        slug=corpus.slug, version=SYNTHESIS_VERSION, backend=first.backend, model=first.model,
        n_papers=len(papers), papers=_paper_summaries(papers, included_ids, taxonomy, selection),
        competitors=competitors, supporting=supporting, gap_clusters=gap_clusters, taxonomy=taxonomy, claims=claims,
        structure_problems=check_taxonomy(taxonomy, sorted(included_ids)),
        settings={**asdict(settings), **selection, "unscored_papers": corpus.unscored},
    )


MIN_DISCUSSED = 10  # a draft needs material: below this many likely includes, the next ones in the engine's order


def likely_includes(papers: list[ScoredPaper], expected_unlabelled: float | None) -> tuple[list[ScoredPaper], dict]:
    """The papers the synthesis discusses: those the screening engine judges likely includes, and how they were
    chosen (stored in the landscape's settings, stated by the draft and the report).

    The person's includes always; of the papers nobody labelled, as many as the engine expects includes among
    them (the sum of their calibrated P(include)), in the engine's order: the expected count of includes, read
    from the head of the list (at least :data:`MIN_DISCUSSED` papers in all, where the list has them). Not a
    threshold on a score of this backend (the offline C1/C2 are heuristics), and no paper labelled exclude (those
    never reach the corpus). Without a ranking by the engine, or with fewer than two papers so chosen, every
    scored paper is discussed, and the selection says so."""
    labelled = [p for p in papers if p.included_by_person]
    ranked = sorted((p for p in papers if p.label is None and p.engine_rank is not None),
                    key=lambda p: (p.engine_rank, p.paper_id))
    if expected_unlabelled is None or not ranked:
        return list(papers), {"selection": "all scored papers (the screening engine has not ranked them)",
                              "relevance_floor_applied": False}
    take = min(max(int(round(expected_unlabelled)), MIN_DISCUSSED - len(labelled)), len(ranked))
    chosen = labelled + ranked[:take]
    if len(chosen) < 2:
        return list(papers), {"selection": "all scored papers (fewer than two likely includes)",
                              "relevance_floor_applied": False, "expected_includes": expected_unlabelled}
    lowest = min((p.p_include for p in ranked[:take] if p.p_include is not None), default=None)
    return chosen, {
        "selection": "likely includes (the screening engine's expected count, read from the head of its order)",
        "relevance_floor_applied": True, "expected_includes": expected_unlabelled,
        "likely_by_rank": len(ranked[:take]), "labelled_includes": len(labelled),
        "lowest_p_include": lowest, "min_discussed": MIN_DISCUSSED,
    }


def _competitors(included: list[ScoredPaper], settings: LandscapeSettings,
                 claims: list[Claim]) -> list[CompetitorEntry]:
    """Direct competitors (C1), best first; appends one claim per competitor to ``claims``."""
    # the person's includes first (their decision is the finding), then by the C1 heuristic/judgement
    ranked = sorted((p for p in included if p.is_competitor(settings.c1_threshold)),
                    key=lambda p: (not p.included_by_person, -p.c1, -p.similarity, p.paper_id))
    competitors = []
    for rank, p in enumerate(ranked, start=1):
        overlap = _overlap(p)
        claim = Claim(
            id=f"c1-{rank:02d}", kind="competitor",
            text=_competitor_text(p, overlap),
            evidence=[_ev(p, **{"c1_direct_competitor.score": p.c1,
                                "c1_direct_competitor.justification": p.assessment.c1_direct_competitor.justification,
                                "overlap.problem": overlap["problem"], "overlap.method": overlap["method"],
                                "semantic_similarity": p.similarity})],
        )
        claims.append(claim)
        competitors.append(CompetitorEntry(
            rank=rank, paper_id=p.paper_id, key=p.key, c1=p.c1, similarity=p.similarity, overlap=overlap,
            justification=p.assessment.c1_direct_competitor.justification, claim_id=claim.id,
        ))
    return competitors


def _competitor_text(p: ScoredPaper, overlap: dict[str, str]) -> str:
    """The competitor claim, saying what it rests on: the person's include, an LLM's C1, or the offline heuristic."""
    detail = f"problem overlap {overlap['problem']}, method overlap {overlap['method']}"
    if p.included_by_person:
        return f"{p.key} is labelled include by the researcher (C1 {p.c1:.1f}/10; {detail})."
    if p.backend == "offline":
        return f"{p.key} is a candidate competitor by the offline C1 heuristic ({p.c1:.1f}/10; {detail})."
    return f"{p.key} is a direct competitor of the planned work (C1 {p.c1:.1f}/10; {detail})."


def _supporting_groups(included: list[ScoredPaper], settings: LandscapeSettings,
                       claims: list[Claim]) -> list[SupportGroup]:
    """Supporting work (C2) grouped by contribution type, in the contract's order; one claim per group."""
    supporting = []
    for ctype in ContributionType:
        group = sorted((p for p in included if p.c2 >= settings.c2_threshold and p.contribution_type == ctype.value),
                       key=lambda p: (-p.c2, p.paper_id))
        if not group:
            continue
        label = CONTRIBUTION_LABELS[ctype.value]
        basis = " by the offline C2 heuristic (facet overlap, not a reading)" if group[0].backend == "offline" else ""
        lead = ", ".join(f"{p.key} (C2 {p.c2:.1f})" for p in group[:3])
        claim = Claim(
            id=f"c2-{ctype.value}", kind="supporting",
            text=(f"{len(group)} candidate(s) support the planned work through {label}"
                  f"{basis}"
                  f", led by {lead}."),
            evidence=[_ev(p, **{
                "c2_supporting_work.score": p.c2, "c2_supporting_work.contribution_type": p.contribution_type,
                "c2_supporting_work.relevance_areas": list(p.assessment.c2_supporting_work.relevance_areas),
            }) for p in group],
        )
        claims.append(claim)
        supporting.append(SupportGroup(
            contribution_type=ctype.value, label=label, claim_id=claim.id,
            papers=[SupportingEntry(paper_id=p.paper_id, key=p.key, c2=p.c2,
                                    relevance_areas=list(p.assessment.c2_supporting_work.relevance_areas))
                    for p in group],
        ))
    return supporting


def _taxonomy(included: list[ScoredPaper], by_id: dict[int, ScoredPaper], competitors: list[CompetitorEntry],
              gap_clusters: list[GapCluster], embedder: Embedder, settings: LandscapeSettings) -> Taxonomy:
    """The taxonomy over the included papers, with the competitor and gap sections as role-based nodes
    holding the papers those sections will cite."""
    vectors = embedder.encode([p.text for p in included])
    phrases = doc_phrases([p.abstract for p in included], titles=[p.title for p in included])
    cited_gap_papers: set[int] = set()
    for cluster in gap_clusters[: settings.gap_section_clusters]:
        cited_gap_papers.update(top_papers(cluster.papers, by_id, settings.cites_per_claim))
    return build_taxonomy(
        [p.paper_id for p in included], vectors, phrases,
        [c.paper_id for c in competitors[: settings.competitor_section_max]], sorted(cited_gap_papers),
    )


def _taxonomy_claims(taxonomy: Taxonomy, by_id: dict[int, ScoredPaper]) -> list[Claim]:
    """One claim per theme and sub-theme (the root and the role-based sections make none)."""
    claims = []
    for node in taxonomy.preorder():
        if node.parent is None or node.id in (COMPETITORS_ID, GAPS_ID):
            continue
        members = [by_id[i] for i in taxonomy.subtree_papers(node.id)]
        leaves = {node.id, *node.children}
        scores = {r.paper_id: r.score for r in taxonomy.routes if r.node in leaves}
        claims.append(Claim(
            id=f"tax-{node.id}", kind="taxonomy", section=node.id,
            text=(f"{len(members)} likely include(s) are routed to the theme '{node.label}' (a heuristic: a "
                  "cluster of their title-and-abstract embeddings"
                  + (f"; distinctive phrases: {', '.join(node.key_phrases)})." if node.key_phrases else ").")),
            evidence=[_ev(p, semantic_similarity=p.similarity, route_cosine=scores.get(p.paper_id)) for p in members],
        ))
    return claims


def _paper_summaries(papers: list[ScoredPaper], included_ids: set[int], taxonomy: Taxonomy,
                     selection: dict) -> list[PaperSummary]:
    """Every scored paper: its scores, whether it is discussed (and why not), and the sections it is routed to."""
    routes: dict[int, list[str]] = {}
    for route in taxonomy.routes:
        routes.setdefault(route.paper_id, []).append(route.node)
    return [
        PaperSummary(
            paper_id=p.paper_id, result_id=p.result_id, key=p.key, title=p.title, year=p.year, doi=p.doi,
            c1=p.c1, c2=p.c2, similarity=p.similarity, contribution_type=p.contribution_type, overlap=_overlap(p),
            relevance=p.relevance, included=p.paper_id in included_ids,
            exclusion_reason=None if p.paper_id in included_ids else _why_not_discussed(p, selection),
            sections=routes.get(p.paper_id, []), p_include=p.p_include, engine_rank=p.engine_rank,
        )
        for p in papers
    ]


def _gap_basis(included: list[ScoredPaper]) -> str:
    if included and included[0].backend == "offline":
        return ("offline heuristic: a term of the planned work with no more than a weak lexical and embedding "
                "match in the paper's title and abstract")
    return "the model's per-paper gaps, clustered by embedding"


def _why_not_discussed(p: ScoredPaper, selection: dict) -> str:
    taken = selection.get("likely_by_rank", 0)
    where = f"engine rank {p.engine_rank}, P(include) {p.p_include:.4f}" if p.engine_rank is not None else "not ranked"
    return f"not among the likely includes (the {taken} the screening engine ranks highest; {where})"


def centre(vectors: np.ndarray) -> np.ndarray:
    """Subtract the mean and re-normalise: statements written from one template (or in one register) share a
    large common direction that would otherwise make them all look alike."""
    if len(vectors) < 3:
        return vectors
    centred = vectors - vectors.mean(axis=0)
    norms = np.linalg.norm(centred, axis=1, keepdims=True)
    return np.where(norms > 1e-6, centred / np.maximum(norms, 1e-6), vectors)


def top_papers(paper_ids: list[int], by_id: dict[int, ScoredPaper], n: int) -> list[int]:
    """The ``n`` most relevant of ``paper_ids`` (relevance, then id)."""
    return sorted(paper_ids, key=lambda i: (-by_id[i].relevance, i))[:n]


_NEGATED_RE = re.compile(
    r"^\s*(?:it\s+|the paper\s+|this paper\s+)?(?:does not|doesn't|do not|did not|lacks?|ignores?|omits?|neglects?"
    r"|overlooks?|fails? to|never)\b(?:\s+(?:address|consider|cover|study|examine|evaluate|discuss|mention|include"
    r"|treat|investigate|report|use|apply|explore)(?:es|s)?)?\s+(?:the\s+(?:user|researcher|planned work)(?:'s|’s)"
    r"\s+(?:problem|method|domain|constraint)\s+)?(?P<rest>.+)$", re.I)
_QUOTED_RE = re.compile(r"['‘“\"]([^'’”\"]{2,120})['’”\"]")


def lacked_concepts(gap: str) -> list[str]:
    """The concepts a gap statement says the paper lacks ("Does not address the user's method 'SLRs'" -> SLRs):
    the quoted terms of a negated statement, or the phrase after its verb; [] when it states no absence."""
    match = _NEGATED_RE.match(clean_gap(gap))
    if match is None:
        return []
    quoted = _QUOTED_RE.findall(match.group("rest"))
    if quoted:
        return quoted
    phrase = re.split(r"[,;:.()]| - | which | that | because ", match.group("rest"), maxsplit=1)[0].strip()
    return [phrase] if phrase else []


def names_what_it_lacks(gap: str, own: ConceptText) -> bool:
    """A false finding: the gap says the paper lacks a concept that its own title or abstract names (in any
    variant :class:`ConceptText` knows). Such statements are left out of the landscape and the draft."""
    concepts = lacked_concepts(gap)
    return bool(concepts) and all(own.contains(c) for c in concepts)


def _gap_clusters(included: list[ScoredPaper], embedder: Embedder, settings: LandscapeSettings,
                  claims: list[Claim], context: tuple[str, ...] = ()) -> list[GapCluster]:
    """Recurring gaps: the included papers' gap statements clustered. A heuristic (embedding distance between
    statements), and the offline statements themselves are heuristics (an intent term with a weak lexical and
    embedding match); a statement that a paper lacks what its own text names is dropped first, and so is the
    offline backend's statement that a paper has no gap."""
    statements: list[tuple[ScoredPaper, int, str, str]] = []  # paper, index, original, cleaned
    for p in included:
        own = ConceptText(p.text, context=context)
        for i, gap in enumerate(p.assessment.research_gaps):
            if not gap.startswith(NO_GAP_STATEMENT) and not names_what_it_lacks(gap, own):
                statements.append((p, i, gap, clean_gap(gap)))
    if not statements:
        return []
    unique: dict[str, int] = {}
    for _, _, _, cleaned in statements:
        unique.setdefault(cleaned.casefold(), len(unique))
    texts = [""] * len(unique)
    for _, _, _, cleaned in statements:
        texts[unique[cleaned.casefold()]] = texts[unique[cleaned.casefold()]] or cleaned
    vectors = centre(embedder.encode(texts))
    labels = threshold_clusters(vectors, settings.gap_distance)
    members: dict[int, list[int]] = {}
    for u, c in enumerate(labels.tolist()):
        members.setdefault(c, []).append(u)
    support: dict[int, set[int]] = {}  # unique text -> papers stating it
    for p, _, _, cleaned in statements:
        support.setdefault(unique[cleaned.casefold()], set()).add(p.paper_id)
    groups = []
    for c, units in members.items():
        papers = set().union(*(support[u] for u in units))
        groups.append((c, units, papers))
    groups.sort(key=lambda g: (-len(g[2]), -len(g[1]), min(g[1])))
    groups = groups[: settings.max_gap_clusters]
    names = distinctive_phrases(doc_phrases([planned_work_voice(t) for t in texts], per_doc=6),
                                [g[1] for g in groups], k=3)
    result_ids = {p.paper_id: p.result_id for p in included}
    out = []
    for n, ((_, units, papers), phrases) in enumerate(zip(groups, names, strict=True), start=1):
        mid = medoid(vectors, units)
        # The statement most papers make stands for the cluster; the medoid breaks ties.
        rep = max(units, key=lambda u: (len(support[u]), u == mid, -u))
        in_cluster = set(units)
        stated = [GapStatement(paper_id=p.paper_id, key=p.key, index=i, text=gap)
                  for p, i, gap, cleaned in statements if unique[cleaned.casefold()] in in_cluster]
        cid = f"gap-{n:02d}"
        representative = planned_work_voice(texts[rep])
        claims.append(Claim(
            id=cid, kind="gap",
            text=(f"A gap recorded for {len(papers)} of the {len(included)} likely includes "
                  f"({_gap_basis(included)}): {representative}."),
            evidence=[Evidence(paper_id=s.paper_id, key=s.key, result_id=result_ids[s.paper_id],
                               fields={f"research_gaps[{s.index}]": s.text}) for s in stated],
        ))
        out.append(GapCluster(
            id=cid, label=representative[:120], representative=representative, key_phrases=phrases,
            papers=sorted(papers), statements=stated, claim_id=cid,
        ))
    return out
