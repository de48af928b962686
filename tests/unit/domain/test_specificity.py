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


def test_with_a_background_everyday_words_frequent_there_are_generic_and_topics_are_not():
    background = {"patient*": 0.4, "dementia*": 0.2, '"heart failure"': 0.2, '"social media"': 0.0}.get

    def share(term: str) -> float:
        return background(term, 0.0)

    assert not is_generic("patient*", 5.0)  # general English alone (4.9) lets it pass
    assert is_generic("patient*", 5.0, share, share_floor=0.03)  # papers of every topic use it
    # a topic that fills the background is no generic word: a rare word, or a phrase
    assert not is_generic("dementia*", 5.0, share, share_floor=0.03)
    assert not is_generic('"heart failure"', 5.0, share, share_floor=0.03)
    # common in general English, rare in the background: a topic there
    assert is_generic('"social media"', 5.0) and not is_generic('"social media"', 5.0, share, share_floor=0.03)
    assert is_generic("make", 5.0, share, share_floor=0.03)  # common anywhere
