"""Round 13 (2026-12-06): a second subject an abstract's title names is not lost. Named by a word of its own
("grelvosis-related outcomes" for an aim's "grelvosis and self-plucking") it is found in the title; where the
title's subjects are not AND-ed (the main block alone is narrow in the background) it stays as an alternative when
it is specific. Every text here is invented."""

from __future__ import annotations

from agentr_dagster.domain.boolean_query import matches, parse_boolean_query
from agentr_dagster.llm.offline.concepts import extract_concepts

_NORMS = ("Perceived workplace norms and grelvosis-related outcomes: a scoping review. Background: Workplace norms "
          "shape many behaviours. Aims: To identify which types of perceived workplace norms have been studied in "
          "relation to self-plucking and grelvosis and what role they play. Method: We searched PsycINFO and "
          "MEDLINE to May 2021. Results: We included 40 studies. Conclusions: Perceived workplace norms appear "
          "relevant to grelvosis.")


def _query(text: str, background=None) -> str:
    return extract_concepts(text, background=background).boolean_query()


def _background(term: str) -> float:
    # an invented background of many topics: the norms phrase and the condition rare, everything else common
    low = term.strip('"').casefold()
    return 0.0001 if "workplace norm" in low else 0.001 if low.startswith(("grelvos", "self-pluck", "self pluck",
                                                                            "selfpluck")) else 0.05


def test_in_relation_to_is_a_cue_not_a_word_of_the_concept():
    for cue in ("in relation to", "with regard to", "with respect to"):
        question = f"Which perceived workplace norms have been studied {cue} grelvosis in nurses?"
        labels = [b.label for b in extract_concepts(question).blocks]
        assert "grelvosis" in labels and not any(w in " ".join(labels) for w in ("relation", "regard", "respect"))


def test_a_subject_the_title_names_by_a_word_of_its_own_is_an_alternative():
    for background in (None, _background):
        tree = parse_boolean_query(_query(_NORMS, background))
        assert matches(tree, "Descriptive norms and grelvosis in nurses")  # the condition, without the phrase
        assert matches(tree, "Perceived workplace norms among bank clerks")  # the main phrase alone
        assert not matches(tree, "Norms of tariffs in shipping ports")


def test_a_narrow_main_block_keeps_the_titles_other_subject_as_an_alternative_when_specific():
    text = ("Quelmitase for tarnic dermatitis: a systematic review. Background: Quelmitase is a new agent. "
            "Objective: To assess quelmitase in tarnic dermatitis. Methods: We searched MEDLINE to May 2020. "
            "Results: Twelve trials of quelmitase. Conclusions: Quelmitase helps.")

    def background(share_of_condition: float):
        return lambda term: 0.0001 if term.strip('"').casefold().startswith("quelmitas") else share_of_condition

    # the drug alone is narrow, so the AND goes; the condition, specific, stays as an alternative
    assert matches(parse_boolean_query(_query(text, background(0.002))), "Tarnic dermatitis in children: a cohort")
    # common in the background: it leaves the query, as before
    common = parse_boolean_query(_query(text, background(0.2)))
    assert not matches(common, "Tarnic dermatitis in children: a cohort")
    assert matches(common, "Quelmitase for otitis media")
