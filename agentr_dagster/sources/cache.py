"""The durable cache of search-source answers: a repeated request is answered from here and sends nothing.

A key is the source, the request URL and its parameters normalised (sorted; credentials and contact details
left out, so a new API key or e-mail address does not make every answer stale); the page is one of the
parameters (cursor, start, retstart). Bodies live in the domain store (``store.sources``, table
``source_responses``), or in memory for unit tests. ``refresh=True`` (``agentr run --refresh-sources``) reads
nothing from the cache and overwrites what it fetches.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode

if TYPE_CHECKING:
    from agentr_dagster.store import DomainStore

# Never part of a cache key nor of a stored URL.
PRIVATE_PARAMS = frozenset({"api_key", "apikey", "mailto", "email", "tool"})


def _normalised(params: Mapping[str, Any]) -> list[tuple[str, str]]:
    return sorted((str(k), str(v)) for k, v in params.items() if v is not None and k not in PRIVATE_PARAMS)


def cache_key(source: str, url: str, params: Mapping[str, Any]) -> str:
    """sha256 of (source, URL without trailing slash, sorted public parameters)."""
    payload = json.dumps([source, url.rstrip("/"), _normalised(params)], separators=(",", ":"))
    return hashlib.sha256(payload.encode()).hexdigest()


def display_url(url: str, params: Mapping[str, Any]) -> str:
    """The request as a readable URL, without credentials (stored next to the body, for people)."""
    query = urlencode(_normalised(params))
    return f"{url}?{query}" if query else url


class ResponseCache:
    """``ResponseCache(store)`` keeps answers in the domain store; ``ResponseCache()`` keeps them in memory.

    ``refresh=True``: :meth:`get` always misses and :meth:`put` overwrites, so every request is sent again."""

    def __init__(self, store: DomainStore | None = None, *, refresh: bool = False):
        self.store = store
        self.refresh = refresh
        self._memory: dict[str, tuple[str, str, str]] = {}
        self._lock = threading.Lock()

    def refreshing(self) -> ResponseCache:
        """The same storage in refresh mode."""
        twin = ResponseCache(self.store, refresh=True)
        twin._memory, twin._lock = self._memory, self._lock
        return twin

    def get(self, key: str) -> str | None:
        if self.refresh:
            return None
        if self.store is not None:
            return self.store.sources.get_response(key)
        with self._lock:
            entry = self._memory.get(key)
        return entry[2] if entry else None

    def put(self, key: str, source: str, url: str, body: str) -> None:
        if self.store is not None:
            self.store.sources.put_response(key, source=source, url=url, body=body)
            return
        with self._lock:
            self._memory[key] = (source, url, body)

    def count(self, source: str | None = None) -> int:
        """How many answers are stored (for one source)."""
        if self.store is not None:
            return self.store.sources.count_responses(source)
        with self._lock:
            return sum(1 for entry in self._memory.values() if source is None or entry[0] == source)
