"""The search path never narrows what the query says, against the replay server's strict dialect parsers over
loopback: every source returns a superset of what the project's Boolean matcher matches (a wildcard inside an OR
group included, where the engine has no truncation); an error carried in a 200 body is a failed search (retried,
stored as failed, listed, sent again next run), never a completed one with 0 hits; a record with a DOI and no title
that Crossref cannot name is kept under a readable placeholder (or, with no abstract either, reported by DOI); an
error's reason is the server's text, not its markup."""

from __future__ import annotations

import random
from datetime import date

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentr_dagster.domain.boolean_query import And, Not, Or, Term, parse_boolean_query
from agentr_dagster.sources.cache import ResponseCache
from agentr_dagster.sources.contract import SourceQuery
from agentr_dagster.sources.http import Fetcher, FetchFailure
from agentr_dagster.sources.registry import SEARCH_SOURCES, EnabledSources
from agentr_dagster.stages.queries import current_queries
from agentr_dagster.stages.search import pending_searches, search_project
from agentr_dagster.testing.dialects import reference_match
from agentr_dagster.testing.replay_server import Fault, ReplayPaper, ReplayServer
from tests.support.sources import new_paper, project_with_queries

DIALECTS = sorted(SEARCH_SOURCES)
WORDS = ["effect", "effects", "effective", "effectively", "effectiveness", "schema", "therapy", "therapies",
         "therapist", "borderline", "personality", "disorder", "disorders", "mentalization", "dialectical",
         "behaviour", "behavioural", "trial", "trials", "randomised", "randomized", "randomly", "patients",
         "psychotherapy", "psychotherapeutic", "breast", "feeding", "feed", "model", "models", "rat", "rats"]
TERMS = ["effect*", "schema therapy", "therap*", "borderline personality disorder*", "mentali*",
         "dialectical behavio*", "random*", "trial*", "psychotherap*", "breast feed*", "rat model*", "rat",
         "patients", "behaviour", "breast-feed*", "rat-model*"]


def corpus(n: int = 90, seed: int = 3) -> list[ReplayPaper]:
    rng = random.Random(seed)
    return [ReplayPaper(number=i, title=f"{i} " + " ".join(rng.choices(WORDS, k=rng.randint(2, 6))),
                        abstract=" ".join(rng.choices(WORDS, k=rng.randint(0, 14))), published=date(2020, 1, 1),
                        doi=f"10.5555/narrow.{i:04d}", authors=("Ada Okafor",), venue="Replay Letters")
            for i in range(1, n + 1)]


def make(name, server, **kwargs):
    kwargs = {"page_size": 200, "request_interval": 0.0, "backoff_base": 0.01, "max_retries": 2, **kwargs}
    return SEARCH_SOURCES[name](server.base_url(name), cache=ResponseCache(), **kwargs)


def found(name: str, server: ReplayServer, tree) -> set[str]:
    outcome = make(name, server).search(SourceQuery(name="q", text=repr(tree), tree=tree), max_results=1000)
    assert outcome.failure is None, outcome.failure
    return {h.record.title.casefold() for h in outcome.hits}  # arXiv gives some records no DOI


def matching(server: ReplayServer, tree) -> set[str]:
    return {p.title.casefold() for p in server.papers if reference_match(tree, p.title, p.abstract)}


@pytest.mark.parametrize("name", DIALECTS)
def test_a_wildcard_in_an_or_group_loses_no_ending_on_any_source(name):
    with ReplayServer(corpus()) as server:
        tree = parse_boolean_query('effect* OR "schema therapy"')
        expected = matching(server, tree)
        assert any("effectiveness" in p.text.split() and "effect" not in p.text.split() for p in server.papers)
        assert found(name, server, tree) >= expected and expected


@pytest.mark.parametrize("name", DIALECTS)
def test_a_hyphenated_stem_is_searched_as_its_phrase_on_every_source(name):
    extra = ["breast-feeding in rat models", "breast feeding trials", "dialectical-behaviour therapy trial",
             "dialectical behavioural therapies", "rat-models of effective therapy"]
    papers = corpus() + [ReplayPaper(number=100 + i, title=t, abstract="", published=date(2020, 1, 1),
                                     doi=f"10.5555/hyphen.{i}", authors=("Ada Okafor",), venue="Replay Letters")
                         for i, t in enumerate(extra)]
    with ReplayServer(papers) as server:
        for text in ("breast-feed*", "rat-model*", "dialectical-behavio* AND therap*"):
            tree = parse_boolean_query(text)
            expected = matching(server, tree)
            assert expected and make(name, server).translate(SourceQuery(name="q", text="", tree=tree))
            got = found(name, server, tree)
            # a superset, and still a search: not the whole corpus, which a dropped term would give
            assert got >= expected and len(got) < len(server.papers), (text, len(got), len(expected))


trees = st.recursive(
    st.sampled_from(TERMS).map(Term),
    lambda children: st.one_of(children.map(Not),
                               st.lists(children, min_size=2, max_size=3).map(lambda c: And(tuple(c))),
                               st.lists(children, min_size=2, max_size=3).map(lambda c: Or(tuple(c)))),
    max_leaves=6,
)


def test_every_source_returns_a_superset_of_what_the_query_matches():
    with ReplayServer(corpus()) as server:

        @settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
        @given(tree=trees)
        def check(tree):
            expected = matching(server, tree)
            for name in DIALECTS:
                if not make(name, server).translate(SourceQuery(name="q", text="", tree=tree)):
                    continue  # only exclusions: nothing to search for, the source is not asked (unconstrained)
                missing = expected - found(name, server, tree)
                assert not missing, (name, tree, sorted(missing)[:3])

        check()


# -- an error in a 200 body ----------------------------------------------------------------------------------
ERROR_ROUTES = {"europepmc": "europepmc", "pubmed": "pubmed.esearch", "openalex": "openalex"}


@pytest.mark.parametrize("name", sorted(ERROR_ROUTES))
def test_an_error_in_a_200_body_is_retried_and_fails_the_search_with_the_servers_words(name):
    with ReplayServer(corpus()) as server:
        server.faults(ERROR_ROUTES[name], then=Fault("error_body", message="Search Backend failed: timeout"))
        outcome = make(name, server).search(SourceQuery(name="q", text="therapy", tree=Term("therapy")),
                                            max_results=50)
        assert outcome.failure and "Search Backend failed: timeout" in outcome.failure and not outcome.hits
        assert server.counts[ERROR_ROUTES[name]] == 3  # the first request and two retries
        server.faults(ERROR_ROUTES[name], Fault("error_body"), None)  # once: the retry gets the answer
        again = make(name, server).search(SourceQuery(name="q", text="therapy", tree=Term("therapy")),
                                          max_results=50)
        assert again.failure is None and len(again.hits) == len(matching(server, Term("therapy"))) > 0


@pytest.mark.parametrize("name", sorted(ERROR_ROUTES))
def test_a_search_answered_with_an_error_body_is_stored_failed_listed_and_sent_again(sqlite_store, name):
    store = sqlite_store
    papers = [new_paper(i, f"Active learning for systematic review screening in public health {i}",
                        date(2021, 1, i)) for i in range(1, 6)]
    with ReplayServer(papers) as server:
        project_with_queries(store, "errbody")
        server.faults(ERROR_ROUTES[name], then=Fault("error_body", message="Search Backend failed: timeout"))
        first = search_project(store, "errbody", EnabledSources(search=[make(name, server)]), max_results=20,
                               add_to_lake=False)
        # the first search fails with the server's words; the source counts as down for the rest of this run
        assert len(first.failures()) == len(first.searches) > 1
        assert "Search Backend failed: timeout" in first.failures()[0].failure
        assert not any(r.status == "completed" for r in store.searches.searches("errbody"))
        assert store.projects.count_papers("errbody") == 0
        pending = pending_searches(store, "errbody", [name])
        assert {p.query_name for p in pending} == {s.query_name for s in first.searches}
        assert any("Search Backend failed: timeout" in p.reason for p in pending)

        server.clear_faults()
        second = search_project(store, "errbody", EnabledSources(search=[make(name, server)]), max_results=20,
                                add_to_lake=False)
        assert second.failures() == [] and second.skipped == 0 and second.added > 0
        assert pending_searches(store, "errbody", [name]) == []
        assert current_queries(store, "errbody") is not None


# -- a DOI and no title -------------------------------------------------------------------------------------
def test_a_doi_only_record_crossref_cannot_name_is_kept_under_a_placeholder_or_reported(sqlite_store):
    store = sqlite_store
    named = new_paper(1, "Active learning for screening in public health", date(2021, 3, 1),
                      untitled_in=frozenset({"openalex"}), sources=frozenset({"openalex"}))
    bare = ReplayPaper(number=2, title="Transfer learning for screening in public health", abstract="",
                       published=date(2022, 5, 1), doi="10.5555/replay.0002", authors=("Ada Okafor",),
                       venue="Replay Letters", untitled_in=frozenset({"openalex"}), sources=frozenset({"openalex"}))
    with ReplayServer([named, bare]) as server:
        project_with_queries(store, "untitled")
        summary = search_project(store, "untitled", EnabledSources(search=[make("openalex", server)]),
                                 max_results=10, add_to_lake=False)  # no Crossref: nobody can name them
        titles = {p.doi: p.title for p in store.projects.list_papers("untitled")}
        assert titles[named.doi].startswith("[no title] We study active learning for screening in public health")
        assert bare.doi not in titles
        meta = summary.metadata()
        assert meta["source_untitled_kept"] == 1 and meta["source_untitled_dropped"] == 1
        assert meta["source_untitled_dropped_dois"] == [bare.doi]


# -- the server's words, not its markup ------------------------------------------------------------------------
def test_an_arxiv_error_is_reported_as_its_text_not_its_atom_feed():
    with ReplayServer(corpus(5)) as server:
        fetcher = Fetcher("arxiv", cache=ResponseCache(), max_retries=0)
        with pytest.raises(FetchFailure) as failed:
            fetcher.fetch(f"{server.base_url('arxiv')}/api/query", {"search_query": "ti:effect*"}, lambda body: body)
    message = str(failed.value)
    assert message == "arxiv: HTTP 400: arxiv rejects the query: 'effect*': the arXiv API has no truncation"
    assert "<" not in message
