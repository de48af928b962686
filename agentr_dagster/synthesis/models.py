"""Serialisable shapes of the synthesis stage: evidence pointers, claims, the landscape, the taxonomy, the draft.

They are stored as artifact payloads (``model_dump(mode="json")``) and read back with ``model_validate``, so the
report and ``agentr trace`` work from exactly what the stage produced.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Evidence(_Model):
    """What one claim rests on in one paper: the stored result row and the score fields (with their values at
    synthesis time, so a later re-score is detectable)."""

    paper_id: int
    key: str
    result_id: int | None = None
    fields: dict[str, Any] = Field(default_factory=dict)


class Claim(_Model):
    id: str
    kind: str  # competitor | supporting | gap | taxonomy | draft
    text: str
    section: str | None = None
    evidence: list[Evidence] = Field(default_factory=list)

    @property
    def paper_ids(self) -> list[int]:
        return sorted({e.paper_id for e in self.evidence})


class PaperSummary(_Model):
    paper_id: int
    result_id: int
    key: str
    title: str
    year: int | None = None
    doi: str | None = None
    c1: float
    c2: float
    similarity: float
    contribution_type: str
    overlap: dict[str, str]
    relevance: float
    included: bool
    exclusion_reason: str | None = None
    sections: list[str] = Field(default_factory=list)
    p_include: float | None = None  # the screening engine's calibrated probability of inclusion
    engine_rank: int | None = None  # the engine's rank (1 = most likely include)


class CompetitorEntry(_Model):
    rank: int
    paper_id: int
    key: str
    c1: float
    similarity: float
    overlap: dict[str, str]
    justification: str
    claim_id: str


class SupportingEntry(_Model):
    paper_id: int
    key: str
    c2: float
    relevance_areas: list[str] = Field(default_factory=list)


class SupportGroup(_Model):
    contribution_type: str
    label: str
    papers: list[SupportingEntry]
    claim_id: str


class GapStatement(_Model):
    paper_id: int
    key: str
    index: int  # position in the paper's research_gaps list
    text: str


class GapCluster(_Model):
    id: str
    label: str
    representative: str
    key_phrases: list[str] = Field(default_factory=list)
    papers: list[int]
    statements: list[GapStatement]
    claim_id: str


NodeKind = Literal["navigational", "analytical", "reflective"]


class TaxonomyNode(_Model):
    id: str
    label: str
    kind: NodeKind
    parent: str | None = None
    children: list[str] = Field(default_factory=list)
    papers: list[int] = Field(default_factory=list)  # papers routed to this node (leaves only)
    key_phrases: list[str] = Field(default_factory=list)


class Route(_Model):
    paper_id: int
    node: str
    score: float  # cosine of the paper to the node's centroid (1.0 for role-based nodes)
    primary: bool


class Taxonomy(_Model):
    nodes: list[TaxonomyNode]
    routes: list[Route] = Field(default_factory=list)

    def node(self, node_id: str) -> TaxonomyNode:
        for node in self.nodes:
            if node.id == node_id:
                return node
        raise KeyError(node_id)

    @property
    def root(self) -> TaxonomyNode:
        return next(n for n in self.nodes if n.parent is None)

    def depth(self, node_id: str) -> int:
        depth, node = 0, self.node(node_id)
        while node.parent is not None and depth < 64:
            node, depth = self.node(node.parent), depth + 1
        return depth

    def preorder(self) -> list[TaxonomyNode]:
        out: list[TaxonomyNode] = []

        def walk(node: TaxonomyNode) -> None:
            out.append(node)
            for child in node.children:
                walk(self.node(child))

        walk(self.root)
        return out

    def subtree_papers(self, node_id: str) -> list[int]:
        node = self.node(node_id)
        found = set(node.papers)
        for child in node.children:
            found.update(self.subtree_papers(child))
        return sorted(found)


class Landscape(_Model):
    slug: str
    version: str
    backend: str | None = None
    model: str | None = None
    n_papers: int
    papers: list[PaperSummary]
    competitors: list[CompetitorEntry]
    supporting: list[SupportGroup]
    gap_clusters: list[GapCluster]
    taxonomy: Taxonomy
    claims: list[Claim]
    structure_problems: list[str] = Field(default_factory=list)
    settings: dict[str, Any] = Field(default_factory=dict)

    def paper(self, paper_id: int) -> PaperSummary:
        return self._by_id()[paper_id]

    def _by_id(self) -> dict[int, PaperSummary]:
        cache = self.__dict__.get("_paper_index")
        if cache is None:
            cache = {p.paper_id: p for p in self.papers}
            self.__dict__["_paper_index"] = cache
        return cache

    def claim(self, claim_id: str) -> Claim:
        for claim in self.claims:
            if claim.id == claim_id:
                return claim
        raise KeyError(claim_id)


class Sentence(_Model):
    id: str
    text: str  # Markdown, citations as [@key] or [@a; @b]
    cites: list[str] = Field(default_factory=list)
    claim: bool = False
    evidence: list[Evidence] = Field(default_factory=list)


class Paragraph(_Model):
    id: str
    role: str
    origin: str = "extractive"  # extractive | llm | llm-redrafted | extractive-fallback
    scope: list[str] = Field(default_factory=list)  # the citation keys this paragraph may use
    sentences: list[Sentence]

    @property
    def text(self) -> str:
        return " ".join(s.text for s in self.sentences)


class Section(_Model):
    node_id: str
    title: str
    level: int  # 1 = the related-work chapter itself
    kind: NodeKind
    paragraphs: list[Paragraph]


class BibEntry(_Model):
    key: str
    paper_id: int
    entry_type: str
    fields: dict[str, str]


class Draft(_Model):
    slug: str
    version: str
    sections: list[Section]
    bib: list[BibEntry]
    redraft_log: list[dict[str, Any]] = Field(default_factory=list)

    def paragraphs(self) -> list[Paragraph]:
        return [p for s in self.sections for p in s.paragraphs]

    def sentence(self, sentence_id: str) -> tuple[Section, Paragraph, Sentence]:
        for section in self.sections:
            for paragraph in section.paragraphs:
                for sentence in paragraph.sentences:
                    if sentence.id == sentence_id:
                        return section, paragraph, sentence
        raise KeyError(sentence_id)

    @property
    def keys(self) -> set[str]:
        return {b.key for b in self.bib}
