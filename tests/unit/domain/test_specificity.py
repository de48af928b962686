"""Term specificity judged by data: general-English frequency (wordfreq), or a background's document frequency."""

from __future__ import annotations

from agentr_dagster.domain.specificity import any_share, general_share, general_zipf, is_generic, term_share


def test_general_frequency_orders_generic_words_above_topic_words():
    assert general_zipf("effect") > 4.9 > general_zipf("dementia")
    assert general_zipf("human*") >= general_zipf("human")  # a stem is as common as its commonest completion
    assert general_zipf("adolesc*") > 0  # a cut stem is judged by its completions, not as a non-word
    assert general_zipf('"schema therapy"') < general_zipf("therapy")
    assert general_share("effect*") > general_share("microdialysis")


def test_a_background_takes_precedence_over_general_english():
    background = {"sleep*": 0.01, "effect*": 0.4}.get
    assert is_generic("effect*", 5.0) and is_generic("sleep*", 5.0)  # common English, both
    assert not is_generic("sleep*", 5.0, lambda t: background(t, 0.0), share_floor=0.05)
    assert is_generic("effect*", 5.0, lambda t: background(t, 0.0), share_floor=0.05)
    assert term_share("sleep*", lambda t: background(t, 0.0)) == 0.01
    assert abs(any_share(["sleep*", "effect*"], lambda t: background(t, 0.0)) - (1 - 0.99 * 0.6)) < 1e-9
