"""The project's queries in each source's dialect: field tags, phrases, NOT per dialect, wildcards, encoding."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from agentr_dagster.domain.boolean_query import And, Not, Or, Term, parse_boolean_query
from agentr_dagster.sources.translate import query_tree, to_arxiv, to_europepmc, to_openalex, to_pubmed

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


def test_a_not_with_nothing_to_subtract_from_is_left_out_where_the_dialect_has_no_unary_not():
    lone = parse_boolean_query("NOT animal")
    assert to_arxiv(lone) == "" and to_pubmed(lone) == ""
    assert to_europepmc(lone) == "NOT (TITLE:animal OR ABSTRACT:animal)"
    # under an OR the exclusion would need a unary NOT: arXiv and PubMed widen the search instead
    widened = Or((Term("mri"), Not(Term("animal"))))
    assert to_arxiv(widened) == "(ti:mri OR abs:mri)"
    assert to_pubmed(widened) == "mri[tiab]"


def test_several_exclusions_each_get_their_own_not():
    query = And((Term("mri"), Not(Term("rat")), Not(Term("mouse"))))
    assert to_arxiv(query) == "(ti:mri OR abs:mri) ANDNOT (ti:rat OR abs:rat) ANDNOT (ti:mouse OR abs:mouse)"
    assert to_pubmed(query) == "mri[tiab] NOT rat[tiab] NOT mouse[tiab]"


def test_characters_that_would_break_the_syntax_are_removed_from_terms():
    query = Term('covid-19 [review] (meta):"x"')
    assert to_pubmed(query) == '"covid-19 review meta x"[tiab]'
    assert to_arxiv(Term("risk*")) == "(ti:risk OR abs:risk)"


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


@pytest.mark.parametrize("render", [to_pubmed, to_europepmc, to_arxiv])
def test_translations_survive_url_encoding_unchanged(render):
    text = render(QUERY)
    url = httpx.URL("http://example.test/q", params={"term": text})
    assert "%22" in str(url) and " " not in str(url)  # quotes and spaces are encoded
    assert parse_qs(urlsplit(str(url)).query)["term"] == [text]  # and decode back to the same query
