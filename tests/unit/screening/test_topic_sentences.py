"""An abstract's aim sentence is read as its topic, as a question's first sentence is (2026-12-06). Invented texts."""

from __future__ import annotations

from agentr_dagster.screening.features import stemmed_terms
from agentr_dagster.screening.question import topic_sentences
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
