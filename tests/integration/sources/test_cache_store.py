"""The response cache in the domain store (``store.sources``), on SQLite and PostgreSQL: stored answers survive a
new store object, a refresh overwrites them, and a search repeated through a new store sends no request."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import sqlalchemy as sa

from agentr_dagster.domain.boolean_query import parse_boolean_query
from agentr_dagster.sources.cache import ResponseCache
from agentr_dagster.sources.contract import SourceQuery
from agentr_dagster.sources.openalex import OpenAlexSource
from agentr_dagster.sources.pubmed import PubMedSource
from agentr_dagster.store import DomainStore
from agentr_dagster.store import schema as t

TEXT = '"active learning" OR "transfer learning"'
QUERY = SourceQuery(name="boolean", text=TEXT, tree=parse_boolean_query(TEXT))


def test_store_part_reads_overwrites_and_counts(store):
    assert store.sources.get_response("k1") is None
    store.sources.put_response("k1", source="openalex", url="http://x/works?search=a", body='{"a": 1}')
    store.sources.put_response("k2", source="pubmed", url="http://x/esearch.fcgi", body="<eSearchResult/>")
    assert store.sources.get_response("k1") == '{"a": 1}'
    store.sources.put_response("k1", source="openalex", url="http://x/works?search=a", body='{"a": 2}')
    assert store.sources.get_response("k1") == '{"a": 2}'
    assert (store.sources.count_responses(), store.sources.count_responses("openalex")) == (2, 1)


def test_large_bodies_are_stored_compressed_and_read_back_whole(store):
    body = '{"results": [' + ", ".join(f'{{"id": "W{i}", "title": "work {i}"}}' for i in range(2000)) + "]}"
    tricky = "z:" + "not compressed, only looks like it"
    store.sources.put_response("big", source="openalex", url="u", body=body)
    store.sources.put_response("tricky", source="openalex", url="u", body=tricky)
    assert store.sources.get_response("big") == body and store.sources.get_response("tricky") == tricky
    sr = t.source_responses
    with store.engine.connect() as conn:
        stored = conn.execute(sa.select(sr.c.body).where(sr.c.cache_key == "big")).scalar()
    assert stored.startswith("z:") and len(stored) < len(body) / 4


def test_concurrent_writers_of_one_key_leave_one_answer(store):
    def put(i: int) -> None:
        store.sources.put_response("same", source="arxiv", url="http://x", body=f"body {i}")

    with ThreadPoolExecutor(4) as pool:
        list(pool.map(put, range(12)))
    assert store.sources.count_responses("arxiv") == 1
    assert store.sources.get_response("same").startswith("body ")


def test_a_repeated_search_through_a_new_store_sends_nothing(store, replay_server):
    def search(cache: ResponseCache, cls, name: str):
        source = cls(replay_server.base_url(name), cache=cache, page_size=4, request_interval=0.0)
        return source.search(QUERY, max_results=10)

    first = [search(ResponseCache(store), cls, name) for cls, name in ((OpenAlexSource, "openalex"),
                                                                      (PubMedSource, "pubmed"))]
    sent = replay_server.total_requests
    assert all(o.failure is None and o.requests > 0 for o in first) and sent > 2
    with DomainStore(store.url) as reopened:  # another process or run: same database, new connections
        cache = ResponseCache(reopened)
        again = [search(cache, OpenAlexSource, "openalex"), search(cache, PubMedSource, "pubmed")]
        assert replay_server.total_requests == sent and all(o.requests == 0 for o in again)
        assert [h.source_id for h in again[1].hits] == [h.source_id for h in first[1].hits]
        stored = cache.count()
        refreshed = search(ResponseCache(reopened, refresh=True), OpenAlexSource, "openalex")
        assert refreshed.requests == first[0].requests and replay_server.total_requests == sent + refreshed.requests
        assert cache.count() == stored  # overwritten in place, not duplicated
