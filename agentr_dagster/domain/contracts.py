"""Stage contracts: the strict shapes every backend (LLM or offline) must fill.

These models are the boundary between untrusted model output and durable state. Ranges are enforced
here, never trusted from the model; string and list lengths are bounded so a model cannot copy a whole
abstract into a field.
"""

from __future__ import annotations

import re
from enum import Enum
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, field_validator, model_validator

from agentr_dagster.domain.boolean_query import BooleanQueryError, parse_boolean_query

ShortText = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=200)]
LongText = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=1200)]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)


class ContributionType(str, Enum):
    """The six AgentR supporting-work types (C2)."""

    methodology = "methodology"
    problem_context = "problem_context"
    domain_knowledge = "domain_knowledge"
    constraint_analysis = "constraint_analysis"
    related_application = "related_application"
    theoretical_foundation = "theoretical_foundation"


class Overlap(str, Enum):
    none = "none"
    low = "low"
    medium = "medium"
    high = "high"


def _distinct(items: list[str]) -> list[str]:
    seen: set[str] = set()
    for item in items:
        key = item.casefold()
        if key in seen:
            raise ValueError(f"duplicate entry: {item!r}")
        seen.add(key)
    return items


class ConceptFacet(Strict):
    """One concept block of a search: a facet of the question and the terms that name it (OR-ed)."""

    facet: Literal["population", "intervention", "exposure", "comparator", "outcome", "setting"]
    label: ShortText
    terms: list[ShortText] = Field(min_length=1, max_length=40)
    required: bool = True  # the first required block is the main one (offline query: main OR (others AND-ed))
    variants: list[ShortText] = Field(default_factory=list, max_length=20)  # the concept as the question words it
    independent: bool = False  # AND-ed with the main block (an abstract's title naming two subjects)
    # how many of the concept's terms were left out at the 40-term bound (said in the queries' metadata)
    terms_cut: int = Field(default=0, ge=0)
    in_query: bool = True  # False: an optional block the ``main_or_specific_rest`` query shape leaves out
    organism: bool = False  # the laboratory animals studied: AND-ed with the whole query when required, else left out
    subject: bool = True  # False: who the studies are about or an aspect asked about, never a search string alone


class ResearchIntent(Strict):
    """Stage 1: the structured research intent decomposed from an abstract."""

    problem_statement: LongText
    methodologies: list[ShortText] = Field(min_length=1, max_length=8)
    application_domains: list[ShortText] = Field(min_length=1, max_length=8)
    constraints: list[ShortText] = Field(default_factory=list, max_length=8)
    contribution_types: list[ContributionType] = Field(min_length=1, max_length=6)
    seed_keywords: list[ShortText] = Field(min_length=4, max_length=8)
    # The question's concept blocks (main block first); empty for intents stored before they existed.
    concepts: list[ConceptFacet] = Field(default_factory=list, max_length=8)
    study_design: list[ShortText] = Field(default_factory=list, max_length=12)  # optional block, never required
    # What judged which terms are generic (offline): "paper lake", "openalex hit counts (N records)", "none: ...";
    # empty for a language model's intent and for intents stored before it was recorded.
    background: str = Field(default="", max_length=300)

    @field_validator("seed_keywords", "methodologies", "application_domains")
    @classmethod
    def _no_duplicates(cls, value: list[str]) -> list[str]:
        return _distinct(value)


class SearchQueries(Strict):
    """Stage 2: search strategies derived from the intent."""

    boolean_query: Annotated[str, StringConstraints(strip_whitespace=True, min_length=3, max_length=2000)]
    expanded_keywords: list[ShortText] = Field(min_length=10, max_length=15)
    search_strings: list[ShortText] = Field(min_length=10, max_length=10)

    @field_validator("boolean_query")
    @classmethod
    def _query_parses(cls, value: str) -> str:
        try:
            parse_boolean_query(value)
        except BooleanQueryError as exc:
            raise ValueError(f"boolean_query does not parse: {exc}") from exc
        return value

    @field_validator("expanded_keywords", "search_strings")
    @classmethod
    def _no_duplicates(cls, value: list[str]) -> list[str]:
        return _distinct(value)


Score10 = Annotated[float, Field(ge=0, le=10)]
BulletList = list[Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=400)]]


class DirectCompetitor(Strict):
    score: Score10
    justification: LongText
    strengths: BulletList = Field(default_factory=list, max_length=6)
    weaknesses: BulletList = Field(default_factory=list, max_length=6)


class SupportingWork(Strict):
    score: Score10
    justification: LongText
    contribution_type: ContributionType
    relevance_areas: list[ShortText] = Field(default_factory=list, max_length=6)
    strengths: BulletList = Field(default_factory=list, max_length=6)
    weaknesses: BulletList = Field(default_factory=list, max_length=6)


class OverlapAssessment(Strict):
    problem: Overlap
    method: Overlap
    domain: Overlap
    constraint: Overlap


# The offline backend's research_gaps entry when every intent term is matched (the list may not be empty): a
# statement that there is no gap, which the synthesis never reports as one.
NO_GAP_STATEMENT = "No uncovered intent facet"


class PaperAssessment(Strict):
    """Stage 3: one candidate paper scored against the intent, in one call."""

    semantic_similarity: float = Field(ge=0, le=1)
    overlap: OverlapAssessment
    c1_direct_competitor: DirectCompetitor
    c2_supporting_work: SupportingWork
    research_gaps: BulletList = Field(min_length=1, max_length=6)
    user_novelty: LongText
    candidate_advantage: LongText


SLUG_RE = re.compile(r"^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$")


def validate_slug(slug: str) -> str:
    """Project slugs are Dagster partition keys: lowercase letters, digits and inner hyphens only."""
    if not isinstance(slug, str) or not SLUG_RE.match(slug) or "--" in slug:
        raise ValueError(
            f"invalid project slug {slug!r}: use 1-64 characters of a-z, 0-9 and single inner hyphens"
        )
    return slug


class PaperRecord(Strict):
    """A candidate paper as imported (before scoring). Provenance says where it came from."""

    title: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=1000)]
    abstract: Annotated[str, StringConstraints(strip_whitespace=True, max_length=20000)] = ""
    year: int | None = Field(default=None, ge=1000, le=2200)
    doi: str | None = None
    authors: list[str] = Field(default_factory=list)
    venue: str | None = None
    url: str | None = None
    source_id: str | None = None
    source_format: str = "unknown"
    source_file: str | None = None
    source_row: int | None = None

    @model_validator(mode="after")
    def _normalise(self) -> PaperRecord:
        if self.doi:
            doi = self.doi.strip().lower()
            for prefix in ("https://doi.org/", "http://doi.org/", "https://dx.doi.org/", "doi:"):
                if doi.startswith(prefix):
                    doi = doi[len(prefix) :]
            self.doi = doi or None
        return self
