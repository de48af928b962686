"""The offline backend's intent reads as a person would write it: terms are the abstract's own multi-word noun
phrases (no verbs inside, no adjective tails, no lone generic words), and the problem statement is at most two
sentences chosen for stating the problem. On the demo abstract and three abstracts from other fields."""

from __future__ import annotations

import pandas as pd
import pytest

from agentr_dagster.domain import lexicon as lx
from agentr_dagster.domain.contracts import ResearchIntent
from agentr_dagster.domain.text import normalize, split_sentences
from agentr_dagster.llm.offline import OfflineBackend, as_term
from tests.support import ABSTRACT, DEMO

ECOLOGY = """Pollinator declines threaten crop yields and wild plant reproduction, yet the relative contribution of
habitat loss and pesticide exposure to wild bee decline remains poorly understood at the landscape scale. We
combine ten years of standardised bee monitoring transects across 120 agricultural landscapes with land-cover
maps and records of neonicotinoid application. Using hierarchical occupancy models that account for imperfect
detection, we estimate how semi-natural habitat cover and insecticide use affect the occupancy of 180 wild bee
species. Species with narrow diet breadth and large body size declined most strongly where semi-natural habitat
cover fell below 10 percent. The results suggest that restoring flower-rich field margins can buffer
pesticide effects on wild bee communities."""

EDUCATION = """Many first-year university students struggle with introductory programming courses, and high failure
rates persist despite a decade of curriculum reform. Little is known about whether formative feedback delivered
by automated assessment tools improves persistence for students without prior programming experience. This study
reports a randomised controlled trial with 640 students in four introductory programming courses, in which half
of the students received immediate automated feedback on weekly exercises and half received feedback from
teaching assistants after one week. We measured course completion, exam performance and self-efficacy with a
validated questionnaire. Immediate automated feedback increased course completion by nine percentage points and
raised self-efficacy among students without prior experience, while exam performance did not differ. We discuss
implications for the design of feedback in large programming courses."""

SOFTWARE = """Flaky tests, which pass and fail on the same code without any change, erode developer trust in
continuous integration and waste build time, but detecting them usually requires rerunning a test suite many
times. How can flaky tests be identified from a single run? We present a lightweight approach that predicts test
flakiness from static features of the test code and dynamic features of one execution, such as timing variance
and shared resource access. We train gradient boosted classifiers on a dataset of 8,000 flaky and stable tests
from 26 open-source Java projects. The classifier reaches an F1 score of 0.86 and ranks 80 percent of flaky tests
in the top decile, reducing the reruns needed to confirm flakiness by a factor of five. Our results show that
flaky test detection is feasible in continuous integration pipelines without repeated execution."""

ABSTRACTS = {"demo": ABSTRACT, "ecology": ECOLOGY, "education": EDUCATION, "software": SOFTWARE}


@pytest.fixture(scope="module")
def backend() -> OfflineBackend:
    return OfflineBackend()


@pytest.fixture(scope="module")
def intents(backend) -> dict[str, ResearchIntent]:
    return {name: backend.decompose_intent(text) for name, text in ABSTRACTS.items()}


def _terms(intent: ResearchIntent) -> list[str]:
    return [*intent.methodologies, *intent.application_domains, *intent.constraints, *intent.seed_keywords]


@pytest.mark.parametrize("name", sorted(ABSTRACTS))
def test_terms_are_the_abstracts_own_multi_word_noun_phrases(intents, name):
    intent = intents[name]
    ResearchIntent.model_validate(intent.model_dump())  # the contract holds
    text = normalize(ABSTRACTS[name]).casefold()
    for term in _terms(intent):
        words = term.split()
        assert len(words) >= 2 or words[0].isupper(), (name, term)  # no lone (generic) word
        assert term.casefold() in text, (name, term)  # the abstract's own words, in its order
        assert not {w.casefold() for w in words} & lx.TERM_VERBS, (name, term)
        assert as_term(words) == tuple(words), (name, term)  # nothing left to cut: no verb, no adjective tail


@pytest.mark.parametrize("name", sorted(ABSTRACTS))
def test_problem_statement_is_at_most_two_sentences_that_state_the_problem(intents, name):
    statement = intents[name].problem_statement
    sentences = split_sentences(statement)
    assert 1 <= len(sentences) <= 2, statement
    source = normalize(ABSTRACTS[name])
    for sentence in sentences:  # each is the abstract's sentence, or its main clause
        assert sentence.rstrip(".") in source, sentence
    assert not any(s.casefold().startswith(("the results", "our results", "we measured")) for s in sentences)


def test_the_demo_abstract(intents):
    intent = intents["demo"]
    assert {"relevance", "relation"}.isdisjoint(d.casefold() for d in intent.application_domains)
    assert "software engineering" in intent.application_domains
    assert "systematic literature reviews" in intent.methodologies
    assert not {"aggregate empirical", "intermediate artifact durable"} & set(intent.seed_keywords)
    first_two = " ".join(split_sentences(normalize(ABSTRACT))[:2])
    statement = intent.problem_statement
    assert "remains slow, error-prone and hard to audit" in statement
    assert statement != first_two and "decomposed into structured intent" not in statement  # not verbatim


def test_an_ecology_abstract(intents):
    intent = intents["ecology"]
    assert "hierarchical occupancy models" in intent.methodologies
    assert {"habitat loss", "pesticide exposure", "pollinator declines"} <= set(intent.seed_keywords)
    assert "remains poorly understood" in intent.problem_statement


def test_an_education_abstract(intents):
    intent = intents["education"]
    assert "randomised controlled trial" in intent.methodologies
    assert "large programming courses" in intent.application_domains
    assert "formative feedback" in intent.seed_keywords  # "formative feedback delivered by ..." cut at the verb
    assert "Little is known about whether formative feedback" in intent.problem_statement
    assert "This study reports" not in intent.problem_statement  # the design, not the problem


def test_a_software_engineering_abstract(intents):
    intent = intents["software"]
    assert "gradient boosted classifiers" in intent.methodologies  # "we train gradient boosted ..." cut
    assert "continuous integration" in intent.application_domains
    assert "How can flaky tests be identified from a single run?" in intent.problem_statement
    assert "developer trust" in intent.seed_keywords and "erode developer trust" not in intent.seed_keywords


def test_relevance_areas_name_terms_not_the_problem_statement(backend, intents):
    papers = pd.read_csv(DEMO / "papers.csv").head(12)
    pairs = list(zip(papers["title"], papers["abstract"].fillna(""), strict=True))
    assessments = backend.score_papers(intents["demo"], ABSTRACT, pairs)
    areas = [a for assessment in assessments for a in assessment.c2_supporting_work.relevance_areas]
    assert areas, "no paper has a relevance area"
    for area in areas:
        facet, _, term = area.partition(": ")
        assert facet in ("problem", "method", "domain", "constraint") and term != "problem statement", area
        assert len(term.split()) >= 2, area


@pytest.mark.parametrize(("words", "term"), [
    ("pollinator declines threaten crop", "pollinator declines"),
    ("train gradient boosted classifiers", "gradient boosted classifiers"),
    ("intermediate artifact durable", "intermediate artifact"),
    ("formative feedback delivered", "formative feedback"),
    ("randomised controlled trial", "randomised controlled trial"),
    ("aggregate empirical", None),
    ("relevance", None),
    ("LLM", "LLM"),
])
def test_as_term_keeps_the_noun_phrase(words, term):
    got = as_term(words.split())
    assert (" ".join(got) if got else None) == term
