"""The fetch helper's pure parts: Retry-After parsing, cache keys, the in-memory cache, the per-source limiter."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from email.utils import format_datetime

from agentr_dagster.domain.retry import parse_retry_after
from agentr_dagster.sources.cache import ResponseCache, cache_key, display_url
from agentr_dagster.sources.http import DEFAULT_REQUESTS_PER_MINUTE, source_limiter


def test_retry_after_in_seconds_and_as_an_http_date():
    now = datetime(2026, 12, 1, 12, 0, tzinfo=timezone.utc)
    assert parse_retry_after("7") == 7.0
    assert parse_retry_after(format_datetime(now + timedelta(seconds=30), usegmt=True), now=now) == 30.0
    assert parse_retry_after(format_datetime(now - timedelta(seconds=30), usegmt=True), now=now) == 0.0
    assert parse_retry_after("soon") is None and parse_retry_after(None) is None


def test_cache_key_ignores_parameter_order_and_credentials_and_distinguishes_pages():
    base = cache_key("openalex", "http://x/works", {"search": "a", "cursor": "*", "mailto": "me@x"})
    assert base == cache_key("openalex", "http://x/works/", {"cursor": "*", "search": "a", "api_key": "k"})
    assert base != cache_key("openalex", "http://x/works", {"search": "a", "cursor": "Ab"})
    assert base != cache_key("pubmed", "http://x/works", {"search": "a", "cursor": "*"})
    assert display_url("http://x", {"api_key": "k", "q": "a b"}) == "http://x?q=a+b"


def test_memory_cache_refresh_mode_misses_and_overwrites():
    cache = ResponseCache()
    cache.put("k", "openalex", "u", "old")
    fresh = cache.refreshing()
    assert fresh.get("k") is None and cache.get("k") == "old"
    fresh.put("k", "openalex", "u", "new")
    assert cache.get("k") == "new" and cache.count("openalex") == 1 and cache.count("pubmed") == 0


def test_source_limiter_uses_each_api_rate_and_ncbi_key_allowance():
    assert source_limiter("arxiv").limits.requests_per_minute == DEFAULT_REQUESTS_PER_MINUTE["arxiv"] == 20
    assert source_limiter("pubmed").limits.requests_per_minute == 180
    assert source_limiter("pubmed", api_key="k").limits.requests_per_minute == 600
    assert source_limiter("openalex", requests_per_minute=30).limits.requests_per_minute == 30
