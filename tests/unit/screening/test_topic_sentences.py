"""An abstract's aim sentence is read as its topic, as a question's first sentence is (2026-12-06). Invented texts."""

from __future__ import annotations

from agentr_dagster.screening.features import stemmed_terms
from agentr_dagster.screening.question import question_sentences, topic_sentences
from agentr_dagster.screening.rankers.config import ZeroShotConfig
from agentr_dagster.screening.rankers.lexical import question_term_weights

_ABSTRACT = ("Quelmitase and its rivals in tarnic dermatitis: a systematic review. Background: Tarnic dermatitis is "
             "common in farmers. Objective: To compare quelmitase with dravolin in adults with tarnic dermatitis. "
             "Methods: We searched MEDLINE to May 2020. Results: Twelve trials reported itching.")


def test_an_abstracts_aim_joins_its_first_sentence_as_the_topic():
    topic = topic_sentences(_ABSTRACT)
    assert topic[0].startswith("Quelmitase and its rivals")
    assert any(s.startswith("Objective: To compare quelmitase with dravolin") for s in topic)
    assert not any(s.startswith(("Background", "Methods", "Results")) for s in topic)


def test_the_aim_is_found_in_the_forms_abstracts_write_it():
    for aim in ("OBJECTIVE: To assess dravolin.", "ObjectiveThis study assesses dravolin.", "Aims. To map dravolin.",
                "We aimed to estimate the effect of dravolin.", "This scoping review aims to map dravolin.",
                "The aim of this study was to assess dravolin."):
        topic = topic_sentences(f"Dravolin in farmers. Background: It is common. {aim} Results: None.")
        assert aim.split(". ")[-1] in topic and not any(s.startswith(("Background", "Results")) for s in topic)
    # a word that only begins like a heading is no aim ("Purposeful", "Aimsley")
    for other in ("Purposeful sampling was used.", "Aimsley et al. reported it."):
        assert other not in topic_sentences(f"Dravolin in farmers. {other}")


def test_a_question_keeps_its_first_sentence_alone_as_the_topic():
    question = ("Does quelmitase relieve tarnic dermatitis in adults? Relevant studies are randomised trials. "
                "Outcomes of interest include itching.")
    assert topic_sentences(question) == ["Does quelmitase relieve tarnic dermatitis in adults?"]


def test_the_aims_words_weigh_as_the_topic_in_the_lexical_query():
    cfg = ZeroShotConfig()
    weights = question_term_weights(_ABSTRACT, cfg)
    (dravolin,) = stemmed_terms("dravolin")
    (farmer,) = stemmed_terms("farmers")
    assert weights[dravolin] == cfg.first_sentence_weight  # named only in the aim
    assert weights[farmer] == cfg.other_sentence_weight  # named only in the background


# Round 2 (2026-12-06): the aim found by the sentence's structure - the review as the subject of an aim verb, "we"
# with an aim or a review verb, "the purpose of this review", a review "conducted to", an opening "To <verb>".
_AIMS_BY_STRUCTURE = (
    "We systematically reviewed trials of dravolin in farmers.",
    "This systematic review maps the literature on dravolin.",
    "This scoping review examines how dravolin is used.",
    "We conducted a systematic review to compare dravolin with placebo.",
    "We performed a scoping review of dravolin in farmers.",
    "The purpose of this review is to summarise dravolin trials.",
    "Our objective was to estimate the effect of dravolin.",
    "A systematic review of randomised trials was conducted to assess dravolin.",
    "The present meta-analysis quantified the effect of dravolin.",
    "This paper describes a systematic review of dravolin.",
    "Here, we investigate whether dravolin relieves itching.",
    "To compare dravolin with quelmitase in farmers.",
)
# Sentences of the same shapes that report the method or the results: no aim.
_NOT_AIMS = (
    "We searched MEDLINE and Embase to May 2020.",
    "We included twelve trials of dravolin.",
    "We found no difference between dravolin and placebo.",
    "This review included twelve trials.",
    "The review followed the PRISMA statement.",
    "To date, no trial has compared dravolin with quelmitase.",
    "To conclude, dravolin relieves itching.",
    "Reviewers assessed the risk of bias.",
)


def test_the_aim_is_found_by_the_structure_of_its_sentence():
    for aim in _AIMS_BY_STRUCTURE:
        topic = topic_sentences(f"Dravolin in farmers. Tarnic dermatitis is common. {aim} Results: None.")
        assert aim in topic, aim
        assert "Tarnic dermatitis is common." not in topic and "Results: None." not in topic


def test_method_and_result_sentences_are_no_aim():
    for other in _NOT_AIMS:
        assert topic_sentences(f"Dravolin in farmers. {other}") == ["Dravolin in farmers."], other


def test_sentences_glued_without_a_space_are_split_before_the_aim_is_read():
    topic = topic_sentences("Dravolin in farmers. Tarnic dermatitis is common (p = 0.01).We systematically reviewed "
                            "trials of dravolin.Twelve trials were found.")
    assert topic == ["Dravolin in farmers.", "We systematically reviewed trials of dravolin."]
    # an abbreviation with inner stops stays whole
    assert question_sentences("Dravolin was tested in the U.S.A.Farmers, i.e.Growers, used it.") == [
        "Dravolin was tested in the U.S.A.Farmers, i.e.Growers, used it."]


def _pieces(words: list[str]) -> list[int]:
    """An invented tokenizer: the invented drug names fall into 4 pieces, every other word is one piece."""
    return [4 if w.startswith(("zorvix", "quelmit")) else 1 for w in words]


def test_a_name_read_as_fragments_weighs_as_the_topic_wherever_an_abstract_names_it():
    cfg = ZeroShotConfig()
    abstract = ("Drugs for tarnic dermatitis: a systematic review. Objective: To compare drugs for tarnic dermatitis. "
                "Results: Zorvixane relieved itching in farmers.")
    (zorvix,) = stemmed_terms("zorvixane")
    (itching,) = stemmed_terms("itching")
    with_names = question_term_weights(abstract, cfg, _pieces)
    assert with_names[zorvix] == cfg.first_sentence_weight  # named only in the results
    assert with_names[itching] == cfg.other_sentence_weight  # a word the encoder reads stays as it was
    assert question_term_weights(abstract, cfg)[zorvix] == cfg.other_sentence_weight  # no encoder, no rule


def test_a_questions_names_keep_their_sentences_weight():
    cfg = ZeroShotConfig()
    question = "Do drugs relieve tarnic dermatitis? Relevant studies compare zorvixane with placebo."
    (zorvix,) = stemmed_terms("zorvixane")
    assert question_term_weights(question, cfg, _pieces) == question_term_weights(question, cfg)
    assert question_term_weights(question, cfg, _pieces)[zorvix] == cfg.other_sentence_weight
