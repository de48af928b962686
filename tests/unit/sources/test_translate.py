"""The project's queries in each source's dialect: field tags, phrases, NOT per dialect, wildcards, encoding."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentr_dagster.domain.boolean_query import And, Not, Or, Term, matches, parse_boolean_query
from agentr_dagster.sources.translate import query_tree, to_arxiv, to_europepmc, to_openalex, to_pubmed
from agentr_dagster.testing.replay_server import dialect_to_boolean

QUERY = parse_boolean_query('("deep learning" OR cnn*) AND mri NOT animal')


def test_pubmed_tags_every_term_tiab_quotes_phrases_and_keeps_wildcards():
    assert to_pubmed(QUERY) == '(("deep learning"[tiab] OR cnn*[tiab]) AND mri[tiab]) NOT animal[tiab]'


def test_europepmc_searches_title_or_abstract_for_each_term():
    assert to_europepmc(Term("deep learning")) == '(TITLE:"deep learning" OR ABSTRACT:"deep learning")'
    assert to_europepmc(QUERY) == (
        '(((TITLE:"deep learning" OR ABSTRACT:"deep learning") OR (TITLE:cnn* OR ABSTRACT:cnn*)) AND '
        "(TITLE:mri OR ABSTRACT:mri)) NOT (TITLE:animal OR ABSTRACT:animal)"
    )


def test_arxiv_uses_ti_abs_prefixes_andnot_and_drops_wildcards():
    assert to_arxiv(QUERY) == (
        '(((ti:"deep learning" OR abs:"deep learning") OR (ti:cnn OR abs:cnn)) AND (ti:mri OR abs:mri)) '
        "ANDNOT (ti:animal OR abs:animal)"
    )


def test_a_not_with_nothing_to_subtract_from_leaves_its_part_unconstrained():
    lone = parse_boolean_query("NOT animal")
    assert to_arxiv(lone) == to_pubmed(lone) == to_europepmc(lone) == ""
    # "mri OR NOT animal" cannot be said: the OR is unconstrained, and the AND around it keeps its other parts
    widened = And((Term("brain"), Or((Term("mri"), Not(Term("animal"))))))
    assert to_arxiv(widened) == "(ti:brain OR abs:brain)"
    assert to_pubmed(widened) == "brain[tiab]"


def test_several_exclusions_each_get_their_own_not():
    query = And((Term("mri"), Not(Term("rat")), Not(Term("mouse"))))
    assert to_arxiv(query) == "(ti:mri OR abs:mri) ANDNOT (ti:rat OR abs:rat) ANDNOT (ti:mouse OR abs:mouse)"
    assert to_pubmed(query) == "mri[tiab] NOT rat[tiab] NOT mouse[tiab]"


def test_characters_that_would_break_the_syntax_are_removed_from_terms():
    query = Term('covid-19 [review] (meta):"x"')
    assert to_pubmed(query) == '"covid-19 review meta x"[tiab]'
    assert to_arxiv(Term("risk*")) == "(ti:risk OR abs:risk)"
    assert to_arxiv(Term("covid-19")) == '(ti:"covid-19" OR abs:"covid-19")'  # quoted: "-" is no NOT here
    assert to_europepmc(Term("AI/ML")) == '(TITLE:"AI/ML" OR ABSTRACT:"AI/ML")'


def test_openalex_boolean_query_becomes_a_title_and_abstract_filter_without_commas():
    translated = to_openalex(parse_boolean_query('"deep learning, explained" AND mri'), boolean=True)
    assert translated.search is None
    assert translated.filters == ('title_and_abstract.search:"deep learning explained" AND mri',)


def test_openalex_plain_search_string_goes_to_search_as_written():
    translated = to_openalex(query_tree("transfer learning  for MRI"), boolean=False, text="transfer learning  for MRI")
    assert translated.params() == {"search": "transfer learning for MRI"}


def test_plain_strings_parse_into_an_implicit_and_and_unparseable_ones_fall_back_to_their_words():
    assert to_pubmed(query_tree('"active learning" screening')) == '"active learning"[tiab] AND screening[tiab]'
    assert to_pubmed(query_tree('(unbalanced "quote')) == "unbalanced[tiab] AND quote[tiab]"
    assert query_tree("  ()  ") is None


def test_function_words_of_a_plain_string_are_not_required_terms():
    assert to_pubmed(query_tree("learning for screening")) == "learning[tiab] AND screening[tiab]"
    assert to_pubmed(query_tree('"state of the art" in radiology')) == '"state of the art"[tiab] AND radiology[tiab]'
    assert to_pubmed(query_tree("the")) == "the[tiab]"  # nothing else to search for
    tree = parse_boolean_query("learning AND for")
    assert query_tree("ignored", tree) is tree  # a Boolean query is taken as written


@pytest.mark.parametrize("render", [to_pubmed, to_europepmc, to_arxiv])
def test_translations_survive_url_encoding_unchanged(render):
    text = render(QUERY)
    url = httpx.URL("http://example.test/q", params={"term": text})
    assert "%22" in str(url) and " " not in str(url)  # quotes and spaces are encoded
    assert parse_qs(urlsplit(str(url)).query)["term"] == [text]  # and decode back to the same query


# -- the translations mean what the query means (property-based) ----------------------------------------------

VOCAB = ["mri", "brain scan", "covid-19", "deep*", "rat", "cat"]
WORDS = ["mri", "brain", "scan", "brain scan", "covid-19", "deep", "deeply", "rat", "cat", "dog"]
terms = st.sampled_from(VOCAB).map(Term)
trees = st.recursive(
    terms,
    lambda children: st.one_of(
        children.map(Not),
        st.lists(children, min_size=2, max_size=3).map(lambda c: And(tuple(c))),
        st.lists(children, min_size=2, max_size=3).map(lambda c: Or(tuple(c))),
    ),
    max_leaves=6,
)
texts = st.lists(st.sampled_from(WORDS), max_size=6).map(" ".join)


def _openalex_filter(tree) -> str:
    filters = to_openalex(tree, boolean=True).filters
    return filters[0].split(":", 1)[1] if filters else ""


RENDERERS = {"pubmed": to_pubmed, "europepmc": to_europepmc, "arxiv": to_arxiv, "openalex": _openalex_filter}
DROPS_WILDCARDS = {"arxiv", "openalex"}


def _expressible(node, dialect) -> bool:
    """Every NOT sits directly in an AND beside a positive part (and no wildcard is dropped)."""
    if isinstance(node, Term):
        return not (dialect in DROPS_WILDCARDS and "*" in node.text)
    if isinstance(node, Not):
        return False
    if isinstance(node, Or):
        return all(_expressible(c, dialect) for c in node.children)
    positives = [c for c in node.children if not isinstance(c, Not)]
    negatives = [c.child for c in node.children if isinstance(c, Not)]
    return bool(positives) and all(_expressible(c, dialect) for c in positives + negatives)


@pytest.mark.parametrize("dialect", sorted(RENDERERS))
@settings(max_examples=150, deadline=None)
@given(tree=trees, sample=st.lists(texts, min_size=1, max_size=8))
def test_a_translation_widens_the_query_only_and_is_exact_when_expressible(dialect, tree, sample):
    translated = RENDERERS[dialect](tree)
    if not translated:  # nothing could be said: the source is not asked at all
        return
    back = parse_boolean_query(dialect_to_boolean(translated))
    for text in sample:
        if matches(tree, text):
            assert matches(back, text), (translated, text)
        if _expressible(tree, dialect):
            assert matches(back, text) == matches(tree, text), (translated, text)
