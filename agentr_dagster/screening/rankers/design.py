"""Design-prior ranker: study-design cues the question asks for up, publication types it does not ask for down.

A generic lexicon, no labels: randomised trials, systematic reviews, observational, qualitative, survey and
diagnostic designs; case reports, letters, animal/in-vitro work, narrative reviews and title-only records.
"""

from __future__ import annotations

import re

import numpy as np

from agentr_dagster.screening.features import ScreeningFeatures
from agentr_dagster.screening.question import question_sentences
from agentr_dagster.screening.rankers.config import ZeroShotConfig

__all__ = ["design_prior", "question_designs"]

# Study-design lexicon: name -> (pattern that says the question wants this design, cue of it in a record).
_DESIGNS: dict[str, tuple[str, str]] = {
    "rct": (
        r"randomi[sz]ed|controlled (?:clinical )?trials?|\brcts?\b|clinical trials?",
        r"randomi[sz]|double[- ]blind|single[- ]blind|placebo|controlled (?:clinical )?trial|cross-?over",
    ),
    "systematic_review": (
        r"systematic (?:literature )?reviews?|meta-analy|literature reviews?|tertiary|secondary stud|mapping stud",
        r"systematic (?:literature )?review|meta-analy|systematic mapping|mapping stud|literature review|"
        r"tertiary stud|structured review",
    ),
    "observational": (
        r"observational|cohort|case-control|registry|population-based|longitudinal",
        r"observational|cohort|case-control|retrospective|prospective|registry|population-based|longitudinal|"
        r"follow-up",
    ),
    "qualitative": (r"qualitative|interviews?|focus groups?", r"qualitative|interview|focus group|thematic"),
    "survey": (r"surveys?|questionnaires?|cross-sectional", r"survey|questionnaire|cross-sectional"),
    "diagnostic": (
        r"diagnostic accuracy|sensitivity and specificity",
        r"sensitivity|specificity|diagnostic accuracy|roc curve|area under",
    ),
}
# Publication types that screening almost always excludes, unless the question asks for them:
# name -> (pattern that says the question wants them, cue in a record).
_EXCLUDED_TYPES: dict[str, tuple[str, str]] = {
    "case_report": (
        r"case reports?|case series",
        r"\bcase reports?\b|\ba case of\b|we (?:report|describe|present) (?:a|an|two|three) (?:case|patient)",
    ),
    "letter": (
        r"letters?|editorials?|comments?\b|commentar",
        r"\bletter to the editor\b|\beditorial\b|\bin reply\b|\berratum\b|\bcomment on\b",
    ),
    "animal_or_in_vitro": (
        r"animals?|\brats?\b|\bmice\b|in vitro|preclinical",
        r"\b(?:rats?|mice|mouse|murine|rabbits?|dogs?|pigs?|rodents?)\b|\bin vitro\b|\bcell lines?\b",
    ),
}
# A narrative review (title says review/overview/update, nothing says systematic): excluded both by reviews of
# primary studies and by reviews of systematic reviews, unless the question asks for review articles.
_NARRATIVE_WANTED = re.compile(r"narrative reviews?|review articles?|overviews?", re.IGNORECASE)
_NARRATIVE_TITLE = re.compile(r"\breview\b|\boverview\b|\bupdate\b", re.IGNORECASE)
_SYSTEMATIC = re.compile(r"systematic|meta-analy|pooled analysis|mapping", re.IGNORECASE)


def question_designs(question: str) -> tuple[list[str], list[str]]:
    """(designs the question asks for, publication types to penalise as the question does not ask for them).

    Only the wanted sentences count (see :func:`agentr_dagster.screening.question.clean_question`): "opinion
    papers are not relevant" neither asks for opinion papers nor prevents penalising letters."""
    text = " ".join(question_sentences(question))
    wanted = [k for k, (q, _) in _DESIGNS.items() if re.search(q, text, re.IGNORECASE)]
    excluded = [k for k, (q, _) in _EXCLUDED_TYPES.items() if not re.search(q, text, re.IGNORECASE)]
    return wanted, excluded


def design_prior(question: str, feats: ScreeningFeatures, cfg: ZeroShotConfig = ZeroShotConfig()) -> np.ndarray:
    """Study-design prior, in z units to add to the fused relevance: + a cue of a wanted design, - cues of
    excluded publication types, - a narrative review, - no abstract. Zero for every record when nothing
    applies. Generic lexicon, no labels."""
    n = len(feats)
    out = np.zeros(n, dtype=np.float64)
    if n == 0:
        return out
    wanted, excluded = question_designs(question)
    texts = feats.texts
    if wanted and cfg.design_weight:
        cue = re.compile("|".join(f"(?:{_DESIGNS[k][1]})" for k in wanted), re.IGNORECASE)
        out += cfg.design_weight * np.array([1.0 if cue.search(t) else 0.0 for t in texts])
    for k in excluded:
        cue = re.compile(_EXCLUDED_TYPES[k][1], re.IGNORECASE)
        out -= cfg.excluded_type_weight * np.array([1.0 if cue.search(t) else 0.0 for t in texts])
    if cfg.narrative_weight and not _NARRATIVE_WANTED.search(" ".join(question_sentences(question))):
        narrative = [
            bool(_NARRATIVE_TITLE.search(ti)) and not _SYSTEMATIC.search(f"{ti} {ab[:300]}")
            for ti, ab in zip(feats.titles, feats.abstracts, strict=True)
        ]
        out -= cfg.narrative_weight * np.asarray(narrative, dtype=np.float64)
    if cfg.empty_abstract_penalty:
        out -= cfg.empty_abstract_penalty * np.array([0.0 if ab else 1.0 for ab in feats.abstracts])
    return out
