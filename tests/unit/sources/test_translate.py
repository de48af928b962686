"""The project's queries in each source's dialect: field tags, phrases, NOT per dialect, wildcards, encoding."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentr_dagster.domain.boolean_query import And, Not, Or, Term, parse_boolean_query
from agentr_dagster.sources.translate import (
    MAX_STEM_WORDS,
    or_shards,
    query_tree,
    sent_as_word_lists,
    to_arxiv,
    to_europepmc,
    to_openalex,
    to_pubmed,
)
from agentr_dagster.testing.dialects import DialectError, evaluate, parse, reference_match

QUERY = parse_boolean_query('("deep learning" OR convol*) AND mri NOT animal')


def test_pubmed_tags_every_term_tiab_quotes_phrases_and_keeps_wildcards():
    assert to_pubmed(QUERY) == '(("deep learning"[tiab] OR convol*[tiab]) AND mri[tiab]) NOT animal[tiab]'


def test_europepmc_searches_title_or_abstract_for_each_term():
    assert to_europepmc(Term("deep learning")) == '(TITLE:"deep learning" OR ABSTRACT:"deep learning")'
    assert to_europepmc(QUERY) == (
        '(((TITLE:"deep learning" OR ABSTRACT:"deep learning") OR (TITLE:convol* OR ABSTRACT:convol*)) AND '
        "(TITLE:mri OR ABSTRACT:mri)) NOT (TITLE:animal OR ABSTRACT:animal)"
    )


def test_arxiv_uses_ti_abs_prefixes_andnot_and_sends_a_stem_as_its_words():
    # no truncation in arXiv: the stem becomes the OR of the words it matches, never a bare stem that matches no word
    translated = to_arxiv(QUERY)
    assert translated.startswith('(((ti:"deep learning" OR abs:"deep learning") OR ((ti:convoluted OR abs:convoluted)')
    assert "(ti:convolutional OR abs:convolutional)" in translated
    assert translated.endswith("AND (ti:mri OR abs:mri)) ANDNOT (ti:animal OR abs:animal)")
    assert "*" not in translated


def test_wildcards_become_each_dialects_truncation_or_their_words():
    query = parse_boolean_query("psychotherap* AND borderline")
    assert to_pubmed(query) == "psychotherap*[tiab] AND borderline[tiab]"
    assert to_europepmc(query) == (
        "(TITLE:psychotherap* OR ABSTRACT:psychotherap*) AND (TITLE:borderline OR ABSTRACT:borderline)")
    assert to_arxiv(query).endswith(
        "(ti:psychotherapies OR abs:psychotherapies)) AND (ti:borderline OR abs:borderline)")
    assert to_openalex(query, boolean=True).filters == (
        "title_and_abstract.search:(psychotherapy OR psychotherapist OR psychotherapists OR psychotherapeutic OR "
        "psychotherapies) AND borderline",)
    # a stem matching too many words to send (``ab*``, too short for PubMed's four letters) is widened away
    assert to_pubmed(parse_boolean_query("ab* AND mri")) == "mri[tiab]"


def test_a_wildcard_in_an_or_group_keeps_every_ending_where_the_engine_cannot_truncate():
    # the case: ``effect*`` must not lose "effective" and "effectiveness" on OpenAlex and arXiv
    query = parse_boolean_query('effect* OR "schema therapy"')
    for translated in (to_openalex(query, boolean=True).filters[0], to_arxiv(query)):
        for word in ("effect", "effects", "effective", "effectively", "effectiveness"):
            assert f"{word} OR" in translated or f":{word} OR" in translated
        assert '"schema therapy"' in translated


def test_a_phrase_with_a_wildcard_is_split_where_the_dialect_cannot_expand_it():
    query = parse_boolean_query('"breast feed*" AND infant')
    assert to_pubmed(query) == '"breast feed*"[tiab] AND infant[tiab]'  # PubMed truncates inside phrases
    assert to_europepmc(query) == ("((TITLE:breast OR ABSTRACT:breast) AND (TITLE:feed* OR ABSTRACT:feed*)) AND "
                                   "(TITLE:infant OR ABSTRACT:infant)")
    # no truncation at all: the phrase's own phrases, one per word the stem matches
    assert '("breast feed" OR "breast feedback" OR "breast feeding" OR' in to_openalex(query, boolean=True).filters[0]
    # inside an exclusion only exact phrases subtract (a split phrase would subtract too much: the query would narrow)
    excluded = to_europepmc(parse_boolean_query('mri NOT "rat model*"'))
    assert excluded.startswith('(TITLE:mri OR ABSTRACT:mri) NOT ((TITLE:"rat model" OR ABSTRACT:"rat model") OR ')
    assert '"rat models"' in excluded and "model*" not in excluded


def test_a_query_made_only_of_stems_is_sent_with_their_word_lists():
    translated = to_openalex(parse_boolean_query("psychotherap*"), boolean=True).filters[0]
    assert "psychotherapy OR psychotherapist" in translated and "psychotherapies" in translated
    many = to_openalex(parse_boolean_query("imm*"), boolean=True).filters[0]  # too many words: the most frequent
    assert "immediately OR" in many and many.count(" OR ") == MAX_STEM_WORDS - 1


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
    text = render(parse_boolean_query('"deep learning" AND mri NOT animal'))
    url = httpx.URL("http://example.test/q", params={"term": text})
    assert "%22" in str(url) and " " not in str(url)  # quotes and spaces are encoded
    assert parse_qs(urlsplit(str(url)).query)["term"] == [text]  # and decode back to the same query


# -- the translations mean what the query means (property-based) ----------------------------------------------
# Every translation is read back by the strict parser of its dialect (testing/dialects.py, what the replay server
# answers with: it rejects what the real API rejects) and evaluated on generated records by whole words, as the
# engines match; the Boolean query's own meaning is the same matching on the tree. A translation must parse and
# match a superset of what the query matches.

VOCAB = ["mri", "brain scan", "covid-19", "deep*", "rat", "cat", "psychotherap*", "breast feed*", "ab*",
         "tumour*", "neural net*", "ai/ml", "t-cell*", "x-ray imag*", "effect*", "schema therapy", "rat model*"]
WORDS = ["mri", "brain", "scan", "covid", "19", "deep", "deeply", "rat", "cat", "dog", "psychotherapy",
         "psychotherapeutic", "breast", "feeding", "feed", "abc", "about", "tumours", "tumour", "neural",
         "network", "nets", "ai", "ml", "t", "cell", "cells", "x", "ray", "imaging", "effect", "effective",
         "effectiveness", "effects", "schema", "therapy", "model", "models", "modelling"]
terms = st.sampled_from(VOCAB).map(Term)
trees = st.recursive(
    terms,
    lambda children: st.one_of(
        children.map(Not),
        st.lists(children, min_size=2, max_size=3).map(lambda c: And(tuple(c))),
        st.lists(children, min_size=2, max_size=3).map(lambda c: Or(tuple(c))),
    ),
    max_leaves=7,
)
fields = st.lists(st.sampled_from(WORDS), max_size=6).map(" ".join)
records = st.lists(st.tuples(fields, fields), min_size=1, max_size=8)


def _openalex_filter(tree) -> str:
    filters = to_openalex(tree, boolean=True).filters
    return filters[0].split(":", 1)[1] if filters else ""


RENDERERS = {"pubmed": to_pubmed, "europepmc": to_europepmc, "arxiv": to_arxiv, "openalex": _openalex_filter}


@pytest.mark.parametrize("dialect", sorted(RENDERERS))
@settings(max_examples=300, deadline=None)
@given(tree=trees, sample=records)
def test_a_translation_parses_in_its_dialect_and_matches_a_superset_of_the_query(dialect, tree, sample):
    translated = RENDERERS[dialect](tree)
    if not translated:  # nothing could be said (a lone NOT): the source is not asked at all
        return
    parsed = parse(dialect, translated)  # raises DialectError where the API would answer 400
    if sent_as_word_lists(dialect, tree):  # only stems, no truncation: word lists, the documented exception
        return
    for title, abstract in sample:
        if reference_match(tree, title, abstract):
            assert evaluate(parsed, title, abstract), (translated, title, abstract)


@pytest.mark.parametrize("dialect", sorted(RENDERERS))
def test_the_strict_parsers_reject_what_the_apis_reject(dialect):
    bad = {"pubmed": ["ab*[tiab]", "wom*n[tiab]", "(mri[tiab]"],
           "europepmc": ['TITLE:"breast feed*"', "TITLE:ab*", "FOO:mri"],
           "arxiv": ["ti:psychotherap*", "ti:mri NOT ti:rat", "ti:mri ti:rat"],
           "openalex": ["(mri", "title:mri", 'mri AND "open'][: 3]}
    for query in bad[dialect]:
        with pytest.raises(DialectError):
            parse(dialect, query)


def test_or_shards_cover_every_term_and_each_fits():
    terms = " OR ".join(f"term{i:03d}" for i in range(120))
    tree = parse_boolean_query(f"(screening OR triage) AND ({terms})")
    shards = or_shards(tree, lambda node: len(to_pubmed(node)) <= 600)
    assert len(shards) > 1 and all(len(to_pubmed(s)) <= 600 for s in shards)
    sent = " ".join(to_pubmed(s) for s in shards)
    assert all(f"term{i:03d}[tiab]" in sent for i in range(120))
    for title in ("screening term007", "triage term119", "term050", "screening"):  # the union is the query
        assert reference_match(tree, title, "") == any(reference_match(s, title, "") for s in shards)


@settings(max_examples=200, deadline=None)
@given(tree=trees, sample=records, limit=st.integers(min_value=20, max_value=200))
def test_or_shards_are_exactly_the_query(tree, sample, limit):
    shards = or_shards(tree, lambda node: len(to_pubmed(node)) <= limit)
    for title, abstract in sample:
        assert reference_match(tree, title, abstract) == any(reference_match(s, title, abstract) for s in shards)


plain = st.lists(st.sampled_from(list("abc xyz\"()-:*/?,&'é") + ["AND", " OR ", " NOT ", "mri", "scan*"]),
                 max_size=20).map("".join)


@settings(max_examples=400, deadline=None)
@given(text=plain)
def test_any_plain_string_translates_to_something_every_dialect_accepts(text):
    tree = query_tree(text)
    if tree is None:
        return
    for dialect, render in (("pubmed", to_pubmed), ("europepmc", to_europepmc), ("arxiv", to_arxiv)):
        translated = render(tree)
        if translated:
            parse(dialect, translated)  # DialectError: the API would answer 400
    params = to_openalex(tree, boolean=False, text=text).params()
    value = params.get("search") or params.get("filter", ":").split(":", 1)[1]
    if value:
        parse("openalex", value)
