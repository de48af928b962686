"""The export's combined relevance: the LLM's judgement where it scored a paper, the engine's relevance mapped
onto the same scale elsewhere; and the judgement that turns a score into a weak label."""

from __future__ import annotations

from agentr_dagster.stages.exports import combined_relevance
from agentr_dagster.stages.relevance import WEAK_LABEL_THRESHOLD, judged_relevance, weak_label


def _payload(similarity: float, c1: float, c2: float) -> dict:
    return {"semantic_similarity": similarity, "c1_direct_competitor": {"score": c1},
            "c2_supporting_work": {"score": c2}}


def test_judged_relevance_is_the_mean_of_similarity_and_the_stronger_criterion():
    assert judged_relevance(_payload(0.8, 2, 6)) == 0.5 * 0.8 + 0.5 * 0.6
    assert weak_label(_payload(0.9, 0, 9)) == 1 and weak_label(_payload(0.1, 1, 1)) == 0
    assert weak_label(_payload(WEAK_LABEL_THRESHOLD, 0, 10 * WEAK_LABEL_THRESHOLD)) == 1


def test_without_judgements_the_ranker_order_is_kept_on_0_1():
    ranker01, combined = combined_relevance([1, 2, 3, 4], {1: -1.0, 2: 3.0, 3: 0.5, 4: 2.0}, {})
    assert ranker01 == combined == {2: 1.0, 4: 0.75, 3: 0.5, 1: 0.25}


def test_judged_papers_keep_their_judgement_and_the_rest_read_on_its_scale():
    raw = {pid: float(10 - pid) for pid in range(1, 11)}  # the engine ranks 1 best ... 10 worst
    judged = {1: 0.9, 2: 0.85, 3: 0.2, 4: 0.1}  # the model scored the top four
    ranker01, combined = combined_relevance(list(raw), raw, judged)
    assert {pid: combined[pid] for pid in judged} == judged
    # below every judged paper in the engine's order: no higher than the lowest judgement it follows
    assert all(combined[pid] <= 0.1 for pid in range(5, 11))
    assert all(0.0 <= v <= 1.0 for v in combined.values()) and ranker01[1] == 1.0


def test_papers_the_engine_never_ranked_get_no_relevance():
    ranker01, combined = combined_relevance([1, 2], {1: 0.3}, {})
    assert 2 not in ranker01 and 2 not in combined
