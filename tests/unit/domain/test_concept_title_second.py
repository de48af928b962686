"""Round 13a (2026-12-06): a second subject an abstract's title names by a word of its own ("grelvosis-related
outcomes" for an aim's "self-plucking and grelvosis") is found in the title and kept as an alternative, never
AND-ed. Every text here is invented."""

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



def test_without_is_a_cue_not_a_word_of_the_concept():
    # "with or without X": X's block is labelled by X, so a title that names X names the block
    text = ("Quelmitase for tarnic bladder and grelvotic incontinence in adults: a systematic review. Objective: To "
            "compare quelmitase, dravolin and sefutrin in adults with tarnic bladder with or without grelvotic "
            "incontinence. Methods: We searched MEDLINE to May 2020. Results: Twelve trials. Conclusions: They help.")
    labels = [b.label for b in extract_concepts(text).blocks]
    assert any("incontinence" in label for label in labels)
    assert not any("without" in label.casefold() for label in labels)
