"""The offline backend's ten search strings are each a search of their own (issue 32): a source ANDs a string's
words, so no string is one everyday word alone ("oral", "techniques", "veterans"), none is a numbered copy
("X 2"), and a question's or a review abstract's strings carry no phrase-path filler ("evaluation",
"applications") and no word of where the review searched ("ACM digital library", "Petersen guidelines").

Every text here is invented for these tests (fields: animal studies, pharmacology, genetics, nutrition, public
administration, education, software testing, psychology).
"""

from __future__ import annotations

import re

import pytest

from agentr_dagster.domain.specificity import general_zipf
from agentr_dagster.domain.word_class import word_classes
from agentr_dagster.llm.offline import OfflineBackend
from agentr_dagster.llm.offline.queries import (
    SINGLE_WORD_ZIPF,
    _fields_from_concepts,
    concept_search_strings,
    keywords_of,
    stands_alone,
)
from tests.unit.domain.test_offline import HashingEmbedder

QUESTIONS = [
    "Which animal models of neuropathic pain respond to gabapentinoids?",
    "What is the bioavailability of oral versus intravenous levetiracetam?",
    "What motivates public servants to report wrongdoing?",
    "Does polygenic risk score improve prediction of coronary artery disease beyond clinical factors?",
    "Do default options increase organ donor registration?",
    "What techniques exist for automated generation of unit tests?",
    "Do CYP2C19 polymorphisms affect clopidogrel response?",
    "What is the prevalence of problematic smartphone use among adolescents?",
    "How does red meat intake relate to skeletal muscle mass in older adults?",
    "Does maternal dietary folate intake reduce neural tube defects?",
    "What environmental and behavioural factors explain PTSD among veterans?",
    "How do citizens respond to government transparency initiatives?",
    "Do mindfulness interventions reduce burnout among emergency nurses?",
    "Does mutation testing improve the effectiveness of test suites?",
    "Do teacher feedback practices improve reading outcomes in primary education?",
    "Which rodent models of anxiety respond to benzodiazepines?",
    "Is fuzzing effective for detecting security vulnerabilities in smart contracts?",
]

REVIEW_ABSTRACTS = [
    "Systematic review automation tools can reduce workload. We performed a systematic mapping study following "
    "Petersen guidelines of tools that support study selection in software engineering reviews. We searched the ACM "
    "Digital Library, IEEE Xplore and Scopus. We identified 45 tools; most use active learning and text "
    "classification. Few tools were evaluated on software engineering reviews.",
    "Peer tutoring is widely used in primary education. This systematic review synthesises the effect of peer "
    "tutoring on reading achievement of primary school pupils. A systematic search of ERIC, PsycINFO and the British "
    "Education Index identified 31 studies. Peer tutoring had a moderate positive effect on reading achievement. "
    "Effects were larger for cross-age tutoring.",
    "Gabapentinoids are used for neuropathic pain. We conducted a systematic review and meta-analysis of animal "
    "studies testing gabapentin or pregabalin in rodent models of neuropathic pain. We searched PubMed and Embase. "
    "120 studies were included. Gabapentinoids reduced mechanical allodynia in rats and mice. Study quality was low "
    "and publication bias likely.",
]

#: The phrase path's filler suffixes (``QueriesMixin._search_strings``): no question's string carries them.
FILLERS = ("evaluation", "applications", "challenges", "problem formulation", "benchmark", "case study", "approach",
           "method", "framework", "overview", "survey", "state of the art", "trends", "limitations", "requirements")
PROVENANCE = ("library", "librar", "guideline", "xplore", "scopus", "pubmed", "embase", "psycinfo", "eric ",
              "index", "searched", "search ", "publication bias", "included")


@pytest.fixture(scope="module")
def backend() -> OfflineBackend:
    return OfflineBackend(embedder=HashingEmbedder())


def _strings(backend: OfflineBackend, text: str) -> tuple[list[str], object]:
    intent = backend.decompose_intent(text, None)
    return backend.generate_queries(intent).search_strings, intent


def _generic_alone(string: str) -> bool:
    """One word, no acronym or code, that is an adjective or as common as everyday English (the data's bar)."""
    words = string.split()
    if len(words) != 1:
        return False
    word = words[0]
    if any(c.isdigit() for c in word) or any(c.isupper() for c in word[1:]):
        return False
    classes = word_classes(word)
    if "-" in word:
        return bool(classes) and "NOUN" not in classes
    return ("ADJ" in classes and "NOUN" not in classes) or general_zipf(word) >= SINGLE_WORD_ZIPF


@pytest.mark.parametrize("text", QUESTIONS + REVIEW_ABSTRACTS)
def test_ten_distinct_strings_none_a_generic_word_alone_nor_numbered(backend, text):
    strings, intent = _strings(backend, text)
    assert len(strings) == 10
    assert len({s.casefold() for s in strings}) == 10
    assert not [s for s in strings if _generic_alone(s)], strings
    assert not [s for s in strings if re.search(r"\s\d+$", s)], strings  # no "X 2", "X 3"
    main = intent.concepts[0].label.casefold()
    assert any(main in s.casefold() for s in strings), (main, strings)


@pytest.mark.parametrize("text", QUESTIONS + REVIEW_ABSTRACTS)
def test_no_phrase_path_filler_nor_provenance(backend, text):
    strings, _ = _strings(backend, text)
    low = text.casefold()
    for s in strings:
        words = s.casefold()
        assert not [f for f in FILLERS if re.search(rf"\b{f}$", words) and f not in low], s
        # at a word's start: "search " is provenance, "research gap" is not
        assert not [p for p in PROVENANCE if re.search(rf"\b{re.escape(p)}", words + " ")], s


@pytest.mark.parametrize("text", QUESTIONS)
def test_no_string_repeats_a_word_or_another_strings_words(backend, text):
    strings, _ = _strings(backend, text)
    for s in strings:
        words = [w.casefold() for w in s.split()]
        assert len(words) == len(set(words)), s


def test_the_generic_words_of_the_issue_never_stand_alone(backend):
    seen = {s.casefold() for text in QUESTIONS for s in _strings(backend, text)[0]}
    for word in ("oral", "effective", "techniques", "default", "options", "red", "skeletal", "muscle", "response",
                 "mutations", "efficacy", "prevalence", "emergency", "behavioural", "environmental", "dietary",
                 "polymorphisms", "problematic", "maternal", "government", "citizens", "adolescents", "veterans"):
        assert word not in seen


def test_a_rare_word_or_an_acronym_stands_alone():
    concept = {"burnout", "tacrolimus", "gabapentinoids", "skeletal", "techniques", "self-harm", "school-based"}
    assert stands_alone("burnout", concept) and stands_alone("tacrolimus", concept)
    assert stands_alone("PTSD") and stands_alone("CYP2C19")  # an acronym or a code, whatever its block
    assert not stands_alone("skeletal", concept)  # an adjective names nothing alone
    assert not stands_alone("techniques", concept)  # everyday English
    assert not stands_alone("polymorphisms", concept)  # one word cut from a longer concept, not a concept's own
    assert stands_alone("self-harm", concept) and not stands_alone("school-based", concept)
    assert not stands_alone("disease beyond") and not stands_alone("beyond clinical factor")


def test_a_question_without_a_who_or_where_block_takes_the_concept_path(backend):
    intent = backend.decompose_intent("Which animal models of neuropathic pain respond to gabapentinoids?", None)
    assert _fields_from_concepts(intent)
    strings = backend.generate_queries(intent).search_strings
    assert "neuropathic pain respond" not in strings
    assert not [s for s in strings if s.split()[-1] in ("evaluation", "applications", "method")]


def test_a_question_of_one_concept_fills_ten_without_numbers(backend):
    intent = backend.decompose_intent("What is burnout?", None)
    strings = backend.generate_queries(intent).search_strings
    assert len(strings) == 10 and "burnout" in strings
    assert all("burnout" in s for s in strings)  # every fill names the concept, none is a number
    assert not [s for s in strings if re.search(r"\s\d+$", s)]


def test_the_boolean_query_does_not_depend_on_the_strings(backend):
    intent = backend.decompose_intent("Do mindfulness interventions reduce burnout among emergency nurses?", None)
    queries = backend.generate_queries(intent)
    assert "burnout" in queries.boolean_query and "mindful" in queries.boolean_query
    assert concept_search_strings(intent) == queries.search_strings


def test_a_question_without_concept_blocks_gets_no_filler_suffix(backend):
    intent = backend.decompose_intent("How is trust measured?", None)
    strings = backend.generate_queries(intent).search_strings
    assert len(strings) == 10
    assert not [s for s in strings if re.search(r"\b(?:evaluation|applications|challenges|problem formulation|"
                                                r"overview|method|approach)$", s)], strings


def test_a_key_phrase_cut_from_a_clause_joins_no_string():
    phrases = ["risking viral rebound", "reviewed randomised field", "targeted therapy", "vertical transmission"]
    assert keywords_of(phrases) == ["targeted therapy", "vertical transmission"]
