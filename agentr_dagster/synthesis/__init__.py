"""Synthesis: the research landscape (C1 competitors, C2 supporting work by type, recurring gaps, a taxonomy
with paper-to-section routing), a related-work draft in Markdown/LaTeX/BibTeX gated by a deterministic
validator (with bounded, scoped LLM re-drafting when an LLM is configured), evidence pointers for every claim,
and a self-contained HTML report. Pure logic; no Dagster imports. The stage functions that read and write the
domain store (build, reuse, trace) live in ``agentr_dagster.stages.synthesis``:

    from agentr_dagster.stages.synthesis import run_landscape, run_related_work, trace
    from agentr_dagster.stages.report import build_report
"""

from agentr_dagster.synthesis.landscape import SYNTHESIS_VERSION, LandscapeSettings, build_landscape
from agentr_dagster.synthesis.models import Claim, Draft, Evidence, Landscape, Taxonomy
from agentr_dagster.synthesis.validate import ValidationReport, validate_latex, validate_markdown

__all__ = [
    "SYNTHESIS_VERSION",
    "Claim",
    "Draft",
    "Evidence",
    "Landscape",
    "LandscapeSettings",
    "Taxonomy",
    "ValidationReport",
    "build_landscape",
    "validate_latex",
    "validate_markdown",
]
