"""Every search-source client against the replay server over loopback: paging to the bound, the date filter,
faults survived (retried to success; a permanent failure reported with the hits that arrived), the cache
(a repeated search sends nothing; refresh sends again), and OpenAlex's citation graph."""

from __future__ import annotations

import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from datetime import date, datetime, timedelta, timezone
from email.utils import format_datetime

import pytest

from agentr_dagster.domain.boolean_query import matches, parse_boolean_query
from agentr_dagster.domain.contracts import PaperRecord
from agentr_dagster.limits import EndpointLimits, make_limiter
from agentr_dagster.sources.cache import ResponseCache
from agentr_dagster.sources.contract import SearchSource, SourceQuery
from agentr_dagster.sources.crossref import CrossrefClient
from agentr_dagster.sources.registry import SEARCH_SOURCES
from agentr_dagster.testing.replay_server import Fault
from tests.support.polling import wait_for

BOOLEAN = '("transfer learning" OR "active learning" OR "random forests") NOT oncology'
QUERY = SourceQuery(name="boolean", text=BOOLEAN, tree=parse_boolean_query(BOOLEAN))
FIRST_ROUTE = {"openalex": "openalex", "pubmed": "pubmed.efetch", "europepmc": "europepmc", "arxiv": "arxiv"}


def make(name, server, cache=None, **kwargs):
    kwargs = {"page_size": 3, "request_interval": 0.0, "backoff_base": 0.01, "max_retries": 3, **kwargs}
    return SEARCH_SOURCES[name](server.base_url(name), cache=cache or ResponseCache(), **kwargs)


def expected(server, name, since=None):
    """What the source indexes that the query matches (the replay's own evaluation of the Boolean query)."""
    tree = QUERY.tree
    return [p for p in server.papers if name in p.sources and matches(tree, p.text)
            and (since is None or p.published >= since)]


@pytest.fixture(params=sorted(SEARCH_SOURCES))
def name(request):
    return request.param


def test_pages_to_the_bound_with_provenance(name, replay_server):
    source = make(name, replay_server)
    assert isinstance(source, SearchSource)
    matching = expected(replay_server, name)
    assert len(matching) > 8  # the corpus gives every source several pages for this query
    outcome = source.search(QUERY, max_results=8)
    assert outcome.failure is None and outcome.total == len(matching)
    assert [h.rank for h in outcome.hits] == list(range(1, 9))
    assert len({h.source_id for h in outcome.hits}) == 8
    assert all(h.source == name and h.query_name == "boolean" and h.record.source_format == name
               for h in outcome.hits)
    assert outcome.translated == source.translate(QUERY) and outcome.translated
    titles = {p.title for p in matching}
    assert {h.record.title for h in outcome.hits} <= titles
    everything = make(name, replay_server).search(QUERY, max_results=500)
    assert everything.failure is None and len(everything.hits) == len(matching)  # paged to the end, no duplicate


def test_since_filter_returns_only_newer_records(name, replay_server):
    since = date(2023, 1, 1)
    outcome = make(name, replay_server).search(QUERY, max_results=500, since=since)
    newer = expected(replay_server, name, since)
    assert outcome.failure is None and 0 < len(outcome.hits) == len(newer) < len(expected(replay_server, name))
    assert all(h.record.year >= 2023 for h in outcome.hits)


def test_second_identical_search_sends_nothing_and_refresh_sends_again(name, replay_server):
    cache = ResponseCache()
    first = make(name, replay_server, cache).search(QUERY, max_results=7)
    sent = replay_server.total_requests
    assert first.requests == sent > 1 and first.cached_pages == 0
    again = make(name, replay_server, cache).search(QUERY, max_results=7)
    assert replay_server.total_requests == sent and again.requests == 0 and again.cached_pages > 0
    assert [h.source_id for h in again.hits] == [h.source_id for h in first.hits]
    refreshed = make(name, replay_server, cache.refreshing()).search(QUERY, max_results=7)
    assert refreshed.requests > 0 and replay_server.total_requests == sent + refreshed.requests
    assert [h.source_id for h in refreshed.hits] == [h.source_id for h in first.hits]


@pytest.mark.parametrize("fault", [
    Fault("status", 429, retry_after=0.2),
    Fault("status", 503),
    Fault("truncate"),
    Fault("malformed"),
    Fault("drop"),
    Fault("slow", latency=0.8),
], ids=["429-retry-after", "503", "truncated", "malformed", "dropped", "slow"])
def test_each_fault_is_retried_to_the_same_answer(name, replay_server, fault):
    assert_fault_survived(name, replay_server, fault)


def test_retry_after_as_an_http_date_is_honoured(replay_server):
    # an HTTP-date has whole seconds: +1.5 s gives a first pause of at least half a second
    # (dated when the faults are set, after the clean search: on loaded cores that search can take a second)
    def fault() -> Fault:
        soon = format_datetime(datetime.now(timezone.utc) + timedelta(seconds=1.5), usegmt=True)
        return Fault("status", 429, retry_after=soon)

    assert_fault_survived("openalex", replay_server, fault)


def assert_fault_survived(name, replay_server, fault):
    clean = make(name, replay_server).search(QUERY, max_results=7)
    fault = fault() if callable(fault) else fault
    route = FIRST_ROUTE[name]
    replay_server.faults(route, None, fault, fault)  # the second and third requests of the route fail
    replay_server.reset_counts()
    started = datetime.now(timezone.utc)
    outcome = make(name, replay_server, timeout=0.4).search(QUERY, max_results=7)
    waited = (datetime.now(timezone.utc) - started).total_seconds()
    assert outcome.failure is None
    assert [h.source_id for h in outcome.hits] == [h.source_id for h in clean.hits]
    assert outcome.requests == replay_server.total_requests == clean.requests + 2
    if fault.kind == "status" and fault.status == 429:
        assert waited >= 0.4  # the Retry-After pause was honoured (a backoff would be ~0.01 s)


def test_permanent_failure_is_reported_with_the_hits_that_arrived(name, replay_server):
    route = FIRST_ROUTE[name]
    replay_server.faults(route, None, then=Fault("status", 500))  # the first page, then the service is down
    cache = ResponseCache()
    outcome = make(name, replay_server, cache).search(QUERY, max_results=9)
    assert outcome.failure and "500" in outcome.failure
    assert len(outcome.hits) == 3  # the first page of three
    assert replay_server.counts[route] == 1 + 4  # one answer, then one try and three retries
    # the next run retries only what is missing: the answered page comes from the cache
    replay_server.clear_faults()
    replay_server.reset_counts()
    retry = make(name, replay_server, cache).search(QUERY, max_results=9)
    assert retry.failure is None and len(retry.hits) == 9
    assert [h.source_id for h in retry.hits[:3]] == [h.source_id for h in outcome.hits]
    assert retry.cached_pages >= 1


def test_a_stored_cursor_the_server_no_longer_accepts_restarts_the_walk(name, replay_server):
    cache = ResponseCache()
    route = FIRST_ROUTE[name]
    replay_server.faults(route, None, then=Fault("status", 500))
    assert make(name, replay_server, cache, max_retries=0).search(QUERY, max_results=9).failure
    replay_server.faults(route, Fault("status", 400))  # the next page asked with the stored cursor is refused
    replay_server.reset_counts()
    retry = make(name, replay_server, cache).search(QUERY, max_results=9)
    assert retry.failure is None and len(retry.hits) == 9 == len({h.source_id for h in retry.hits})
    assert [h.rank for h in retry.hits] == list(range(1, 10))


def test_client_errors_are_not_retried(replay_server):
    replay_server.faults("europepmc", then=Fault("status", 400))
    outcome = make("europepmc", replay_server).search(QUERY, max_results=5)
    assert outcome.failure and "HTTP 400" in outcome.failure and replay_server.counts["europepmc"] == 1


def test_a_retry_after_beyond_reason_gives_up_at_once(replay_server):
    replay_server.faults("openalex", then=Fault("status", 429, retry_after=3600))
    outcome = make("openalex", replay_server).search(QUERY, max_results=5)
    assert outcome.failure and "3600" in outcome.failure and replay_server.counts["openalex"] == 1


def test_arxiv_spaces_its_requests(replay_server):
    source = make("arxiv", replay_server, request_interval=0.25)
    started = datetime.now(timezone.utc)
    outcome = source.search(QUERY, max_results=9)
    elapsed = (datetime.now(timezone.utc) - started).total_seconds()
    assert outcome.requests == 3 and elapsed >= 0.5  # three requests, two gaps


def test_pubmed_searches_again_when_a_cached_webenv_has_expired(replay_server):
    cache = ResponseCache()
    replay_server.faults("pubmed.efetch", None, then=Fault("status", 500))  # one page, then efetch is down
    outcome = make("pubmed", replay_server, cache).search(QUERY, max_results=9)
    assert outcome.failure and len(outcome.hits) == 3
    replay_server.forget_history()  # the cached esearch's WebEnv is no longer known to the server
    replay_server.clear_faults()
    replay_server.reset_counts()
    retry = make("pubmed", replay_server, cache).search(QUERY, max_results=9)
    assert retry.failure is None and [h.source_id for h in retry.hits[:3]] == [h.source_id for h in outcome.hits]
    assert len(retry.hits) == 9
    assert replay_server.counts["pubmed.esearch"] == 1  # searched again, once, for a live WebEnv


def test_openalex_snowballing_references_citing_and_doi_lookup(replay_server):
    source = make("openalex", replay_server, page_size=2)
    papers = {p.number: p for p in replay_server.papers}
    citing_paper = next(p for p in replay_server.papers if len(p.references) >= 3)
    backward = source.references(citing_paper.openalex_id)
    assert backward.failure is None
    assert {h.source_id for h in backward} == {papers[n].openalex_id for n in citing_paper.references}
    assert {h.query_name for h in backward} == {f"backward:{citing_paper.openalex_id}"}
    cited = papers[1]
    citers = [p for p in replay_server.papers if 1 in p.references]
    forward = source.citing(cited.openalex_id, max_results=500)
    assert forward.failure is None and len(citers) > 2
    assert sorted(h.source_id for h in forward) == sorted(p.openalex_id for p in citers)
    assert all(h.query_name == f"forward:{cited.openalex_id}" for h in forward)
    hit = source.work_by_doi(f"https://doi.org/{cited.doi.upper()}")
    assert hit is not None and hit.source_id == cited.openalex_id
    assert source.work_by_doi("10.9999/unknown") is None
    assert source.work("W1") is None
    assert replay_server.path_counts[f"/openalex/works/{citing_paper.openalex_id}"] == 1
    replay_server.faults("openalex", None, then=Fault("status", 503))
    broken = make("openalex", replay_server, max_retries=1).references(citing_paper.openalex_id)
    assert broken.failure and len(broken) == 0


def test_crossref_fills_missing_fields_and_leaves_the_rest(replay_server):
    cache = ResponseCache()
    client = CrossrefClient(replay_server.base_url("crossref"), cache=cache, request_interval=0.0,
                            backoff_base=0.01, max_retries=2)
    paper = replay_server.papers[4]
    records = [
        PaperRecord(title="bare", doi=paper.doi),
        PaperRecord(title="complete", doi=paper.doi, abstract="kept", year=1999, venue="Mine"),
        PaperRecord(title="unknown doi", doi="10.9999/none"),
        PaperRecord(title="no doi"),
    ]
    out = client.enrich(records)
    assert (out[0].abstract, out[0].year, out[0].venue) == (paper.abstract, paper.published.year, paper.venue)
    assert out[1:] == records[1:]
    assert replay_server.counts["crossref"] == 2 and client.last_stats.enriched == 1
    assert client.enrich(records) == out and replay_server.counts["crossref"] == 2  # the 404 is remembered too
    replay_server.faults("crossref", then=Fault("status", 500))
    failing = CrossrefClient(replay_server.base_url("crossref"), cache=ResponseCache(), request_interval=0.0,
                             backoff_base=0.01, max_retries=1)
    assert failing.enrich(records[:1]) == records[:1] and failing.last_stats.failed == 1
    sent = replay_server.counts["crossref"]
    assert client.enrich(records[:1]) == out[:1]  # answered from the cache despite the fault
    assert replay_server.counts["crossref"] == sent


def test_openalex_numbers_its_pages_when_cursor_paging_needs_a_key(replay_servers):
    server = replay_servers(openalex_cursor_needs_key=True)
    outcome = make("openalex", server).search(QUERY, max_results=500)
    assert outcome.failure is None and len(outcome.hits) == len(expected(server, "openalex"))
    assert any("page" in params for _, _, params in server.requests)
    keyed = make("openalex", server, api_key="secret").search(QUERY, max_results=5)
    assert keyed.failure is None and "cursor" in server.requests[-1][2]


def test_pubmed_pages_by_id_when_the_server_keeps_no_history(replay_servers):
    server = replay_servers(pubmed_history=False)
    outcome = make("pubmed", server).search(QUERY, max_results=8)
    assert outcome.failure is None and len(outcome.hits) == 8 and outcome.total == len(expected(server, "pubmed"))
    assert all("id" in params for route, _, params in server.requests if route == "pubmed.efetch")


def test_parallel_searches_on_one_client_count_their_own_requests(replay_server):
    source = make("europepmc", replay_server)
    queries = [SourceQuery(name=f"string-{i:02d}", text=text) for i, text in
               enumerate(["transfer learning", "active learning", "random forests", "federated learning"], 1)]
    with ThreadPoolExecutor(4) as pool:
        outcomes = list(pool.map(lambda q: source.search(q, max_results=6), queries))
    assert all(o.failure is None and o.query_name == q.name for o, q in zip(outcomes, queries, strict=True))
    assert sum(o.requests for o in outcomes) == replay_server.total_requests
    assert all(o.requests == -(-len(o.hits) // 3) for o in outcomes)  # pages of three


@pytest.mark.parametrize("shared", ["in-process", "redis"])
def test_a_retry_after_pauses_every_client_of_the_source(replay_server, shared):
    limiter = None  # the default: one in-process limiter per source and base URL
    if shared == "redis":
        limiter = make_limiter(EndpointLimits(redis_url="redis://127.0.0.1:6379/0"), f"test-{uuid.uuid4().hex}")
    replay_server.faults("openalex", Fault("status", 429, retry_after=1))
    first = make("openalex", replay_server, limiter=limiter)
    second = make("openalex", replay_server, limiter=limiter)
    told_to_wait = threading.Event()

    def sleep_told(seconds: float) -> None:  # the fetcher sleeps once it has paused the limiter for the 429
        told_to_wait.set()
        time.sleep(seconds)

    first.fetcher.sleep = sleep_told
    runner = threading.Thread(target=first.search, args=(QUERY,), kwargs={"max_results": 3})
    runner.start()
    wait_for(told_to_wait.is_set, "the first client paused by its 429")
    told = replay_server.arrivals[0]
    other = SourceQuery(name="string-01", text="federated learning")
    assert second.search(other, max_results=3).failure is None
    runner.join()
    arrivals = replay_server.arrivals
    assert len(arrivals) == 3 and min(arrivals[1:]) - told >= 0.9  # nobody asked again before the pause ended
