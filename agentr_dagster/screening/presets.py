"""Named presets: one ranker (the order before any label) and one learner factory (the order after labels).

``default`` is what ``agentr screen``, ``agentr rerank`` and the bench's ``zero_shot``/``feedback`` modes run.
Add a preset by composing other roles (or other configs of them) and registering it in :data:`PRESETS`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import partial

from agentr_dagster.screening.active import ActiveConfig, ActiveRanker, LearnerFactory
from agentr_dagster.screening.rankers import Ranker, ZeroShotConfig, zero_shot_scores

__all__ = ["DEFAULT", "PRESETS", "STATIC_DEFAULT", "Preset", "get_preset"]


@dataclass(frozen=True)
class Preset:
    name: str
    description: str
    ranker: Ranker  # (question, feats) -> scores, no labels
    learner: LearnerFactory  # (feats, ranker's scores) -> Learner, used once there are labels
    uses_transformer: bool = True  # its features carry the transformer's vectors (when the model is built)


DEFAULT = Preset(
    "default",
    "hybrid zero-shot (weighted BM25 + dense over full text and title, the dense half from the static model and "
    "the ONNX transformer by a per-question share, design prior, query expansion, pseudo-relevance feedback, the "
    "transformer's cosine blended in by the same share); then a LinearSVC over TF-IDF (its C picked on the labels "
    "every 25) blended with that prior, decaying with includes",
    zero_shot_scores,
    ActiveRanker,
)
LEXICAL = Preset(
    "lexical",
    "as default, with the dense scores left out of the fusion (BM25 of the question terms only)",
    partial(zero_shot_scores, cfg=ZeroShotConfig(lexical_weight=1.0)),
    ActiveRanker,
    uses_transformer=False,
)
CLASSIC = Preset(
    "classic",
    "zero-shot order until the first labels, then ASReview's ELAS u4 learner alone (LinearSVC C=0.11, "
    "balanced weights with ratio 9.8, no prior, no pseudo-excludes)",
    zero_shot_scores,
    partial(ActiveRanker, cfg=ActiveConfig(neg_ratio=9.8, prior_weight=0.0, pseudo_excludes=0, C_pick_every=0)),
)
PRESETS: dict[str, Preset] = {p.name: p for p in (DEFAULT, LEXICAL, CLASSIC)}
#: The default ranker without the ONNX transformer (the static model's dense half only): where thousands of
#: records are ranked to pick a few (pseudo-relevance feedback, its bench), as it was measured; the transformer
#: encodes ~25 texts/s on a small machine.
STATIC_DEFAULT = replace(DEFAULT, uses_transformer=False)


def get_preset(preset: str | Preset) -> Preset:
    """A preset by name (or the preset itself); ValueError naming the known ones."""
    if isinstance(preset, Preset):
        return preset
    try:
        return PRESETS[preset]
    except KeyError:
        raise ValueError(f"unknown screening preset {preset!r} (known: {', '.join(PRESETS)})") from None
