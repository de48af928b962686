"""The zero-shot rankers' knobs, in one frozen object (the defaults are the tuned run-time values)."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["ZeroShotConfig"]


@dataclass(frozen=True)
class ZeroShotConfig:
    lexical_weight: float = 0.6  # share of BM25 (vs dense) inside each field's fusion
    title_weight: float = 0.5  # weight of the title-field fusion relative to the full-text fusion
    first_sentence_weight: float = 1.0  # query-term weight of the question's first sentence (the topic)
    other_sentence_weight: float = 0.5  # query-term weight of the other sentences (criteria, outcomes)
    design_weight: float = 0.25  # bonus (in z units) for a record with a cue of a design the question wants
    excluded_type_weight: float = 0.25  # malus per cue of an excluded publication type (case report, letter...)
    narrative_weight: float = 0.5  # malus of a narrative review
    empty_abstract_penalty: float = 0.25  # malus of a title-only record (mostly letters/comments in MEDLINE)
    prf: bool = True  # pseudo-relevance feedback round
    prf_top_frac: float = 0.10  # top share of the fused list taken as pseudo-includes
    prf_min_top: int = 10
    prf_bottom_frac: float = 0.5  # bottom share taken as pseudo-excludes
    prf_prior_weight: float = 0.5  # weight of the fused prior blended with the PRF classifier
    prf_min_records: int = 40  # below this, PRF is skipped
    topic_dense_weight: float = 0.5  # extra dense query of the first sentence alone (the topic), vs full question
    expansion_weight: float = 0.3  # RM3-style BM25 query expansion: weight of the top added term (0 = off)
    expansion_terms: int = 20  # terms added from the top of the first fused list
    # The transformer encoder (all-MiniLM-L6-v2, ONNX), used when the features carry its vectors. Weights chosen
    # leave-one-review-out on the 18 shared reviews (mean WSS@95 0.419 -> 0.424 held out, 0.433 in-sample):
    transformer_weight: float = 1.0  # its share of the dense half of the fusion (vs the static model), at most
    # ... scaled down per question by the share of its topic sentence's words the transformer cannot read (split
    # into >= 3 word pieces: drug and chemical names), reaching 0 at this share; BM25 matches such names exactly
    transformer_unreadable_cut: float = 0.15
    readable_lexical_weight: float | None = None  # lexical_weight when the transformer has its full share
    prf_transformer_weight: float = 0.0  # weight of its vectors as a feature block beside TF-IDF in the PRF round
    prf_transformer_blend: float = 1.0  # weight of its z-scored cosine added after the PRF round (x the share)
    # ... and the bottom 30 % of the final list re-ordered by z(score) + 2 z(its cosine), on every question
    # (rerank_tail; 0 = off): picked leave-one-review-out on the 18 shared reviews (the same pick in every fold),
    # mean WSS@95 0.433 -> 0.437, below the MiniLM cosine on 4 instead of 5 (docs/screening.md "Zero-shot fusion")
    tail_transformer_frac: float = 0.3
    tail_transformer_weight: float = 2.0
    # Round 3 re-picked the cut, readable_lexical_weight, the blend, the PRF feature weight, the tail and a rank
    # fusion / max / agreement gate with the cosine leave-one-review-out, drug and non-drug reviews weighted equally:
    # none beat these values held out (these: drug 0.435, 3 below the cosine; other 0.440, 1 below; each family's
    # held-out pick 0.414-0.437 on the equal-weight mean), and no setting was below it on fewer than 3 even in-sample
    # (docs/screening.md "Zero-shot fusion, round 3")

    def prf_top_k(self, n: int) -> int:
        """How many of ``n`` records the top of a list is (pseudo-includes, expansion source)."""
        return min(max(self.prf_min_top, int(self.prf_top_frac * n)), n // 4)
