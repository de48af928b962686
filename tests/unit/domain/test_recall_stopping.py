"""The stopping rule of `--stop-at-recall`: a hypergeometric test on the papers screened last. It stops only when
the evidence supports the target at the stated confidence; a weak ranker keeps it going, and it says why."""

from __future__ import annotations

import numpy as np
import pytest

from agentr_dagster.domain.recall_stopping import (
    DEFAULT_CONFIDENCE,
    MODEL_FLOOR_GAP,
    assess_recall,
    decaying_rate_left_upper,
    includes_allowed_left,
    model_fit_start,
)


def _stop_point(labels: np.ndarray, batch: int, target: float, confidence: float) -> int:
    """Papers screened when the rule, asked after every batch, first says stop."""
    for end in range(batch, len(labels), batch):
        if assess_recall(labels[:end], len(labels), target, confidence).stop:
            return end
    return len(labels)


def _ranked(rng: np.random.Generator, n: int, includes: int, strength: float) -> np.ndarray:
    """Labels in a ranker's order: each include's score is shifted up by ``strength`` (0: a random order)."""
    labels = np.zeros(n, dtype=np.int64)
    labels[rng.choice(n, includes, replace=False)] = 1
    scores = rng.normal(size=n) + strength * labels
    return labels[np.argsort(-scores, kind="stable")]


@pytest.mark.parametrize(("found", "target", "allowed"), [(19, 0.95, 1), (18, 0.95, 0), (100, 0.95, 5),
                                                          (12, 0.8, 3), (40, 1.0, 0)])
def test_the_includes_that_may_be_left_follow_from_the_target(found, target, allowed):
    assert includes_allowed_left(found, target) == allowed
    assert found / (found + allowed) >= target
    assert found / (found + allowed + 1) < target


def test_the_default_confidence_is_the_conventional_95_percent():
    assert DEFAULT_CONFIDENCE == 0.95


def test_nothing_found_yet_keeps_going_and_says_why():
    result = assess_recall(np.zeros(50, dtype=int), 500, 0.95)
    assert not result.stop and result.recall_lower == 0.0 and result.left_upper == 450
    assert "no include found" in result.reason


def test_everything_screened_stops_with_recall_one():
    result = assess_recall(np.array([1, 0, 1, 0]), 4, 0.95)
    assert result.stop and result.recall_lower == 1.0 and result.left_upper == 0


def test_the_weak_start_of_the_rodent_review_does_not_stop():
    """The case of issue 33: 16 papers of 271 scored, 2 includes among the first, then none. The old rule stopped
    here (recall was 0.10); recall >= 0.95 with 2 found means none is left, which 14 papers cannot show."""
    seen = np.array([1, 0, 1] + [0] * 13)
    result = assess_recall(seen, 271, 0.95)
    assert not result.stop
    assert result.recall_lower < 0.05 and result.left_upper > 20
    assert "only 2 includes found" in result.reason and "keeps going" in result.reason


def test_a_weak_ranker_does_not_stop_early():
    """A ranker no better than chance: includes spread evenly through the order. Recall 0.95 is reached only near
    the end of such an order, and the rule must not stop before; over 10 simulated reviews it never does."""
    rng = np.random.default_rng(7)
    for _ in range(10):
        labels = _ranked(rng, 400, 30, strength=0.0)
        stop = _stop_point(labels, 20, 0.95, 0.95)
        assert labels[:stop].sum() / labels.sum() >= 0.95
        assert stop >= 0.8 * len(labels)


def _stop_point_sample(labels: np.ndarray, batch: int, target: float, confidence: float) -> int:
    for end in range(batch, len(labels), batch):
        if assess_recall(labels[:end], len(labels), target, confidence, model=False).stop:
            return end
    return len(labels)


def test_a_strong_ranker_stops_early_with_the_target_supported():
    rng = np.random.default_rng(3)
    labels = _ranked(rng, 2000, 100, strength=4.0)
    stop = _stop_point_sample(labels, 25, 0.95, 0.95)
    result = assess_recall(labels[:stop], len(labels), 0.95, model=False)
    # a random order stops near the end (about 97 %); even every include first would stop only at 56 % here: the
    # run of excludes must cover most of what is left, at 99 % per look (LOOK_SPLIT)
    assert stop < 0.7 * len(labels)
    assert result.stop and result.recall_lower >= 0.95 and labels[:stop].sum() / labels.sum() >= 0.95
    assert result.left_upper <= includes_allowed_left(result.found, 0.95)
    assert "stop" in result.reason and result.window > 0


def test_the_bound_widens_with_fewer_includes_found():
    """The same run of excludes at the end supports less when fewer includes came before it."""
    tail = [0] * 300
    many = assess_recall(np.array([1] * 60 + tail), 1000, 0.95)
    few = assess_recall(np.array([1] * 6 + [0] * 54 + tail), 1000, 0.95)
    assert few.recall_lower < many.recall_lower
    assert many.left_upper < 60 and few.left_upper >= 1


def test_the_estimate_lies_in_the_interval_and_the_description_states_both():
    result = assess_recall(np.array([1] * 30 + [0] * 200), 600, 0.95)
    assert result.recall_lower <= result.recall_estimate <= 1.0
    described = result.describe()
    assert described["recall_interval"] == [round(result.recall_lower, 4), 1.0]
    assert described["confidence"] == 0.95 and described["reason"] == result.reason


def test_a_stricter_confidence_never_stops_sooner():
    rng = np.random.default_rng(11)
    for _ in range(5):
        labels = _ranked(rng, 600, 40, strength=2.5)
        assert _stop_point(labels, 20, 0.95, 0.99) >= _stop_point(labels, 20, 0.95, 0.8)


@pytest.mark.parametrize("strength", [0.0, 1.5])
def test_the_promised_recall_holds_in_simulation_at_the_stated_confidence(strength):
    """Property: over many simulated reviews (a random order, where the test is exact, and a middling ranker,
    where it is conservative), stopping at target 0.9 with 80 % confidence falls short of 0.9 at most 20 % of the
    time. (A low confidence, so that a rule breaking its promise would show in 40 reviews: a binomial(40, 0.2)
    exceeds 14 only with probability < 1 %.) The rule is asked after every batch, as the scoring stage asks it."""
    rng = np.random.default_rng(2026)
    short = 0
    for _ in range(40):
        n = int(rng.integers(150, 300))
        labels = _ranked(rng, n, int(rng.integers(15, 60)), strength=strength)
        stop = _stop_point(labels, 10, 0.9, 0.8)
        short += labels[:stop].sum() / labels.sum() < 0.9
    assert short <= 14


def test_a_point_estimate_in_place_of_the_bound_would_break_the_promise():
    """The control for the property above: stopping once the *estimate* reaches the target (no confidence) falls
    short far more often on the same simulated reviews, so the property test can fail."""
    rng = np.random.default_rng(2026)
    short = 0
    for _ in range(40):
        n = int(rng.integers(150, 300))
        labels = _ranked(rng, n, int(rng.integers(15, 60)), strength=0.0)
        stop = next((end for end in range(10, n, 10)
                     if assess_recall(labels[:end], n, 0.9, 0.8).recall_estimate >= 0.9), n)
        short += labels[:stop].sum() / labels.sum() < 0.9
    assert short > 14


@pytest.mark.parametrize(("target", "confidence"), [(0, 0.95), (1.2, 0.95), (0.95, 1.0), (0.95, 0)])
def test_out_of_range_targets_and_confidences_are_refused(target, confidence):
    with pytest.raises(ValueError):
        assess_recall(np.array([1, 0]), 10, target, confidence)


def test_each_look_spends_only_a_share_of_the_error():
    """The rule is asked after every batch: a window that one test at 95 % would accept (its tail below 0.05) but
    that the look's share of the error (0.05 / LOOK_SPLIT) does not, keeps scoring going."""
    from scipy.stats import hypergeom

    from agentr_dagster.domain.recall_stopping import LOOK_SPLIT

    found, unscreened = 40, 330  # 40 found allow 2 left at 0.95: the test is "at least 3 left"
    tail = next(n for n in range(100, 2000)
                if hypergeom.cdf(0, n + unscreened, 3, n) < 0.05)  # the shortest run one 95 % test accepts
    assert hypergeom.cdf(0, tail + unscreened, 3, tail) > 0.05 / LOOK_SPLIT
    seen = np.array([1] * found + [0] * tail)
    assert not assess_recall(seen, found + tail + unscreened, 0.95, model=False).stop
    longer = next(n for n in range(tail, 4000) if hypergeom.cdf(0, n + unscreened, 3, n) < 0.05 / LOOK_SPLIT)
    result = assess_recall(np.array([1] * found + [0] * longer), found + longer + unscreened, 0.95, model=False)
    assert result.stop and result.describe()["per_look_confidence"] == pytest.approx(1 - 0.05 / LOOK_SPLIT)
    assert assess_recall(seen, found + tail + unscreened, 0.95, look_split=1, model=False).stop  # one 95 % test


def test_the_decaying_rate_model_stops_a_strong_ranker_sooner_and_says_on_what():
    """The model uses what the sample test cannot: includes thin out along a good ranker's order. It stops sooner,
    with the target reached, and states both bounds: its own and the sample's, which assumes nothing."""
    rng = np.random.default_rng(3)
    labels = _ranked(rng, 2000, 100, strength=4.0)
    sample_stop = _stop_point_sample(labels, 25, 0.95, 0.95)
    stop = _stop_point(labels, 25, 0.95, 0.95)
    assert stop < sample_stop
    assert labels[:stop].sum() / labels.sum() >= 0.95
    result = assess_recall(labels[:stop], len(labels), 0.95)
    assert result.stop and result.basis == "model" and result.recall_lower >= 0.95
    assert result.sample_lower is not None and result.sample_lower < result.recall_lower
    assert "decaying-rate model" in result.reason
    described = result.describe()
    assert described["basis"] == "model" and described["sample_recall_lower"] == round(result.sample_lower, 4)


def test_the_model_never_stops_below_the_floor_the_sample_shows():
    """Ten includes first, then a short run of excludes: the fitted rate has all but vanished, but 100 papers say
    little about the 1,890 left, so the sample cannot show even the floor (0.85): scoring goes on, and says why."""
    seen = np.array([1] * 10 + [0] * 100)
    assert decaying_rate_left_upper(seen, 2000, 0.99, 0.95) == 0  # the model alone would stop
    result = assess_recall(seen, 2000, 0.95)
    assert not result.stop and result.basis == "sample"
    assert f"sample alone shows recall >= {0.95 - MODEL_FLOOR_GAP:g}" in result.reason


def test_the_model_can_be_switched_off():
    rng = np.random.default_rng(3)
    labels = _ranked(rng, 2000, 100, strength=4.0)
    stop = _stop_point(labels, 25, 0.95, 0.95)
    assert not assess_recall(labels[:stop], len(labels), 0.95, model=False).stop


def test_the_models_bound_widens_with_few_includes():
    """The rodent review's weak start (2 includes, then 13 excludes, of 271): the decay's interval reaches a flat
    rate, so the model alone would not stop either; forty includes and 150 excludes: few left. Never more than
    the papers left."""
    few = decaying_rate_left_upper(np.array([1, 0, 1] + [0] * 13), 271, 0.99, 0.95)
    many = decaying_rate_left_upper(np.array([1] * 40 + [0] * 150), 1000, 0.99, 0.95)
    assert 20 < few <= 255 and many <= 2


def test_the_model_is_fitted_to_the_tail_so_a_steep_head_does_not_hide_a_slow_tail():
    """Thirty includes at once, then one in every 40 papers, then 250 excludes, of 1,500: fitted to the whole
    order, the head's fall says at most 1 include is left (the run would stop: 2 may be left for 0.95); fitted
    after the first half of the includes, the slow tail says 3 may be left, so scoring goes on and says why."""
    seen = np.array([1] * 30 + ([0] * 39 + [1]) * 10 + [0] * 250)
    assert model_fit_start(seen) == 20  # just after the 20th of 40 includes
    assert decaying_rate_left_upper(seen, 1500, 0.95, 0.95, tail_share=0) <= 2
    assert decaying_rate_left_upper(seen, 1500, 0.95, 0.95) == 3
    result = assess_recall(seen, 1500, 0.95)
    assert not result.stop
    assert "under the decaying-rate model the unscreened may hold 3" in result.reason


def test_the_models_fit_starts_after_the_first_share_of_the_includes():
    assert model_fit_start(np.array([0, 0, 1, 0, 0])) == 0  # one include: half of it is none, the whole order
    assert model_fit_start(np.array([1, 0, 1, 0, 1, 1, 0])) == 3  # 4 includes: after the 2nd
    assert model_fit_start(np.array([1, 1, 1, 1]), tail_share=0) == 0
