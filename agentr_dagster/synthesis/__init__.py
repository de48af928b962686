"""Synthesis: the research landscape (C1 competitors, C2 supporting work by type, recurring gaps, a taxonomy
with paper-to-section routing), a related-work draft in Markdown/LaTeX/BibTeX gated by a deterministic
validator (with bounded, scoped LLM re-drafting when an LLM is configured), evidence pointers for every claim,
and a self-contained HTML report. Pure logic over the domain store; no Dagster imports.

    from agentr_dagster.synthesis import run_landscape, run_related_work, trace, build_report
"""

from agentr_dagster.synthesis.landscape import SYNTHESIS_VERSION, LandscapeSettings, build_landscape
from agentr_dagster.synthesis.models import Claim, Draft, Evidence, Landscape, Taxonomy
from agentr_dagster.synthesis.stage import (
    DRAFT_STAGE,
    LANDSCAPE_STAGE,
    current_draft,
    current_landscape,
    run_landscape,
    run_related_work,
    trace,
)
from agentr_dagster.synthesis.validate import ValidationReport, validate_latex, validate_markdown

__all__ = [
    "DRAFT_STAGE",
    "LANDSCAPE_STAGE",
    "SYNTHESIS_VERSION",
    "Claim",
    "Draft",
    "Evidence",
    "Landscape",
    "LandscapeSettings",
    "Taxonomy",
    "ValidationReport",
    "build_landscape",
    "current_draft",
    "current_landscape",
    "run_landscape",
    "run_related_work",
    "trace",
    "validate_latex",
    "validate_markdown",
]
