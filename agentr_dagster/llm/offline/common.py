"""Constants, small helpers and data holders shared by the offline backend's parts."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from agentr_dagster.domain import lexicon as lx
from agentr_dagster.domain.contracts import (
    Overlap,
)
from agentr_dagster.domain.text import (
    key_of,
    truncate,
)

OFFLINE_MODEL = "offline-hybrid-v2"  # v2: a term the paper names in any variant is matched
OFFLINE_NAME = "offline"
OFFLINE_LABEL = (
    "Offline backend: results are computed by deterministic lexical statistics (key-phrase extraction, cue "
    "patterns, word overlap) and static-embedding cosine similarity - not by an LLM. No API calls, no cost."
)
JUSTIFICATION_PREFIX = "[offline heuristic]"

#: The kind of each of the ten search strings, in order.
SEARCH_STRING_KINDS: tuple[str, ...] = (
    "broad", "broad", "narrow", "narrow", "method", "method", "problem", "problem", "domain", "domain",
)  # fmt: skip

# Calibration of static-embedding cosines (measured on model2vec all-MiniLM-L6-v2: unrelated abstracts
# ~0.40, same field ~0.70, near duplicates > 0.85; term vs unrelated sentence < 0.2, paraphrase ~0.7).
# Similarity maps [0.35, 0.90] -> [0, 1]: unrelated fields land near 0.1, the same field near 0.6.
DOC_COS_RANGE = (0.35, 0.90)
TERM_COS_RANGE = (0.20, 0.75)
EMBED_WEIGHT = 0.5
#: Facet strength thresholds: below LOW -> none, below MEDIUM -> low, below HIGH -> medium, else high.
LOW, MEDIUM, HIGH = 0.20, 0.40, 0.62
#: C1 rubric bands (AgentR Table 4).
C1_BANDS: dict[str, tuple[float, float, str]] = {
    "9-10": (9.0, 10.0, "near-identical problem and method"),
    "7-8": (7.0, 8.0, "same problem, similar method with variations"),
    "5-6": (5.0, 6.0, "same problem with a different method, or vice versa"),
    "3-4": (3.0, 4.0, "partial overlap in both dimensions"),
    "0-2": (0.0, 2.0, "minimal overlap, not a competitor"),
}
FACETS = ("problem", "method", "domain", "constraint")
_RANK = {Overlap.none: 0, Overlap.low: 1, Overlap.medium: 2, Overlap.high: 3}
_MAX_SENTENCES_PER_PAPER = 40
#: Minimum cue evidence for a phrase to be tagged as a method / domain / constraint.
MIN_CUE = 0.7
_CONCEPT_KEYS = [key_of(c) for c in lx.CONCEPTS]
_STRONG_THEORY_RE = re.compile(r"\b(?:" + "|".join(re.escape(c) for c in lx.STRONG_THEORY_CUES) + ")")
#: Contribution-type cues as word-prefix patterns ("model" matches "models", not "remodel").
_CONTRIBUTION_RES = {
    name: re.compile(r"\b(?:" + "|".join(re.escape(c) for c in cues) + ")")
    for name, cues in lx.CONTRIBUTION_CUES.items()
}


class EmbedderLike(Protocol):
    name: str

    def encode(self, texts: list[str]) -> np.ndarray: ...


# ------------------------------------------------------------------------------------------------------------
# Small helpers
# ------------------------------------------------------------------------------------------------------------


def _calibrate(values: np.ndarray | float, lo: float, hi: float) -> np.ndarray:
    return np.clip((np.asarray(values, dtype=np.float64) - lo) / (hi - lo), 0.0, 1.0)


def level_of(strength: float) -> Overlap:
    """Threshold a facet strength in [0, 1] into the four overlap levels."""
    if strength >= HIGH:
        return Overlap.high
    if strength >= MEDIUM:
        return Overlap.medium
    if strength >= LOW:
        return Overlap.low
    return Overlap.none


def _short(text: str, limit: int = 200) -> str:
    return truncate(" ".join(text.split()), limit)


def _q(term: str) -> str:
    """Quote a term for display in prose (single quotes, shortened)."""
    return "'" + _short(term, 80) + "'"


def _join_terms(terms: Sequence[str], limit: int = 4) -> str:
    shown = [_q(t) for t in terms[:limit]]
    if len(terms) > limit:
        shown.append(f"{len(terms) - limit} more")
    if len(shown) <= 1:
        return "".join(shown)
    return ", ".join(shown[:-1]) + " and " + shown[-1]


def _distinct_append(out: list[str], item: str, limit: int) -> bool:
    item = " ".join(item.split())
    if not item or len(out) >= limit or len(item) > 200:
        return False
    if item.casefold() in {o.casefold() for o in out}:
        return False
    out.append(item)
    return True


def _matches_any(text: str, patterns: Sequence[str]) -> int:
    return sum(len(re.findall(p, text)) for p in patterns)


@dataclass
class _Term:
    facet: str
    text: str
    key: tuple[str, ...]
    holistic: bool = False  # the whole problem statement (matched as a sentence, not listed as a gap)

    @property
    def label(self) -> str:
        return "the problem statement" if self.holistic else _q(self.text)


@dataclass
class _TermMatch:
    term: _Term
    embed: float  # calibrated best sentence cosine
    lexical: float  # share of the term's stems present in the paper
    score: float


@dataclass
class _FacetResult:
    facet: str
    strength: float
    level: Overlap
    matches: list[_TermMatch]  # best first

    @property
    def best(self) -> _TermMatch | None:
        return self.matches[0] if self.matches else None
