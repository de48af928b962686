"""The one HTTP fetch every source client uses: cache first, then a polite, retried GET.

Order of a fetch: the response cache (a hit sends nothing); the per-source request spacing and the project's
limiter (shared over Redis when configured); a GET with a timeout; on 429/5xx, a connection error, a truncated
or malformed body: exponential backoff with full jitter, or the server's ``Retry-After`` (seconds or HTTP-date)
when it gives one. Only a body that parses is cached, so a bad answer is never replayed. What cannot be fetched
raises :class:`FetchFailure`; the clients turn that into ``SearchOutcome.failure``.
"""

from __future__ import annotations

import html
import json
import re
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, TypeVar, cast

import httpx

from agentr_dagster.domain.retry import backoff_delay, parse_retry_after
from agentr_dagster.limits import EndpointLimits, make_limiter
from agentr_dagster.sources.cache import ResponseCache, cache_key, display_url

T = TypeVar("T")

RETRY_STATUSES = frozenset({408, 425, 429, 500, 502, 503, 504})
MAX_RETRY_AFTER_S = 300.0  # a server asking for a longer pause than this is treated as down for this run
_STATS_LOCK = threading.Lock()
USER_AGENT = "agentr-dagster/0.1 (literature review)"
NOT_FOUND_BODY = "\x00not found"  # what the cache keeps for a 404, so an unknown id is not asked for again


class FetchFailure(Exception):
    """A request that could not be answered (after retries, or a permanent HTTP error)."""

    def __init__(self, message: str, *, status: int | None = None, transport: bool = False):
        super().__init__(message)
        self.status = status
        # True: the source itself could not be reached or kept failing past the retry budget (refused, 5xx, 429):
        # the source is down for this run. False: the server answered that this request is wrong (a 4xx, an
        # error document): only this query failed.
        self.transport = transport


class MalformedResponse(ValueError):
    """The body arrived but is not what the API documents (raised by a client's parser; retried, never cached)."""


class ErrorInBody(MalformedResponse):
    """A 200 whose body is the API's error (Europe PMC ``errMsg``, PubMed ``<ERROR>``, OpenAlex ``error``): no answer
    to the search, however well-formed. Retried like a malformed answer and never cached; its text (the server's
    own words) is the failure's reason when the retries run out."""


class RejectedRequest(Exception):
    """A well-formed answer saying the request itself is wrong (raised by a parser; not retried, not cached)."""


# What each API's terms allow (requests a minute), for a limiter shared by every process (over Redis).
DEFAULT_REQUESTS_PER_MINUTE = {"openalex": 600, "pubmed": 180, "europepmc": 600, "arxiv": 20, "crossref": 600}


def source_limiter(source: str, *, redis_url: str | None = None, requests_per_minute: int | None = None,
                   api_key: str | None = None):
    """The project's endpoint limiter for one source (``agentr_dagster.limits``): a request rate per minute, shared over
    Redis when ``redis_url`` is given, and a ``Retry-After`` from the source pauses every caller."""
    rpm = requests_per_minute or DEFAULT_REQUESTS_PER_MINUTE.get(source)
    if source == "pubmed" and api_key and not requests_per_minute:
        rpm = 600  # NCBI: 10 a second with a key
    return make_limiter(EndpointLimits(requests_per_minute=rpm, redis_url=redis_url), f"source:{source}")


class _Spacing:
    """At least ``interval`` seconds between the starts of two requests to one API from this process."""

    _lock = threading.Lock()
    _last: dict[str, float] = {}

    @classmethod
    def wait(cls, key: str, interval: float) -> None:
        if interval <= 0:
            return
        while True:
            with cls._lock:
                now = time.monotonic()
                due = cls._last.get(key, 0.0) + interval
                if now >= due:
                    cls._last[key] = now
                    return
            time.sleep(min(due - now, 1.0))


@dataclass
class FetchStats:
    requests: int = 0  # HTTP requests sent, retries included
    cached: int = 0  # answers served from the cache


class Fetcher:
    """GETs for one source. ``fetch(url, params, parse)`` returns ``parse(body)``; see the module docstring."""

    def __init__(
        self,
        source: str,
        *,
        cache: ResponseCache,
        timeout: float = 30.0,
        max_retries: int = 4,
        limiter: Any = None,
        request_interval: float = 0.0,
        backoff_base: float = 1.0,
        backoff_cap: float = 60.0,
        spacing_key: str | None = None,
        contact_email: str | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ):
        self.source = source
        self.cache = cache
        self.timeout = timeout
        self.max_retries = max(0, max_retries)
        # Without a configured limiter there is still one per source in the process: a 429's Retry-After
        # pauses every caller of that API, not only the request that got it.
        self.limiter = limiter if limiter is not None else make_limiter(None, f"source:{spacing_key or source}")
        self.request_interval = request_interval
        self.backoff_base = backoff_base
        self.backoff_cap = backoff_cap
        self.spacing_key = spacing_key or source
        self.sleep = sleep
        self.stats = FetchStats()  # over the fetcher's life, every thread
        self._local = threading.local()  # per-call counters (``counting``), so parallel searches do not mix
        # the polite pools (OpenAlex, Crossref) ask for a contact in the User-Agent as well as in mailto=
        agent = f"{USER_AGENT[:-1]}; mailto:{contact_email})" if contact_email else USER_AGENT
        self._client = httpx.Client(timeout=httpx.Timeout(timeout), headers={"User-Agent": agent},
                                    follow_redirects=True)

    def close(self) -> None:
        self._client.close()

    @contextmanager
    def counting(self) -> Iterator[FetchStats]:
        """Counts the requests and cache hits of the fetches made by this thread inside the block."""
        outer = getattr(self._local, "stats", None)
        stats = self._local.stats = FetchStats()
        try:
            yield stats
        finally:
            self._local.stats = outer
            if outer is not None:
                outer.requests += stats.requests
                outer.cached += stats.cached

    @contextmanager
    def fresh(self) -> Iterator[None]:
        """Inside the block this thread's fetches skip the cache (and overwrite what they fetch)."""
        outer = getattr(self._local, "fresh", False)
        self._local.fresh = True
        try:
            yield
        finally:
            self._local.fresh = outer

    def _count(self, *, requests: int = 0, cached: int = 0) -> None:
        local = getattr(self._local, "stats", None)
        with _STATS_LOCK:
            self.stats.requests += requests
            self.stats.cached += cached
        if local is not None:
            local.requests += requests
            local.cached += cached

    def fetch(
        self,
        url: str,
        params: Mapping[str, Any],
        parse: Callable[[str], T],
        *,
        key_params: Mapping[str, Any] | None = None,
        use_cache: bool = True,
        not_found: T | None = None,
    ) -> T:
        """``parse(body)`` of the answer to ``GET url?params``.

        ``key_params`` replaces ``params`` in the cache key when some parameters are session-bound (PubMed's
        WebEnv). ``not_found``: the value for an HTTP 404 (the 404 is cached too); without it a 404 fails.

        A loop of its own rather than :func:`agentr_dagster.domain.retry.retrying`: between tries a server's
        Retry-After pauses every caller of the source (the shared limiter), and one asking too long gives up for
        this run; the waits are :func:`~agentr_dagster.domain.retry.backoff_delay`'s."""
        key = cache_key(self.source, url, key_params if key_params is not None else params)
        if use_cache and not getattr(self._local, "fresh", False):
            hit, value = self._from_cache(key, parse, not_found)
            if hit:
                return cast(T, value)  # a hit is a parsed body, or ``not_found`` when one was given
        attempt = 0
        while True:
            attempt += 1
            retry_after: float | None = None
            try:
                body, status, retry_after = self._get_once(url, params)
            except httpx.TransportError as exc:  # refused, reset, timeout, truncated body (incomplete read)
                problem = f"{type(exc).__name__}: {exc}"
            else:
                if status == 404 and not_found is not None:
                    self.cache.put(key, self.source, display_url(url, params), NOT_FOUND_BODY)
                    return not_found
                if status == 200:
                    try:
                        value = parse(body)
                    except RejectedRequest as exc:
                        raise FetchFailure(f"{self.source}: request rejected: {exc}", status=status) from None
                    except ErrorInBody as exc:
                        problem = f"error in a 200 answer: {exc}"
                    except (MalformedResponse, ValueError) as exc:
                        problem = f"malformed answer: {exc}"
                    else:
                        self.cache.put(key, self.source, display_url(url, params), body)
                        return value
                elif status in RETRY_STATUSES:
                    problem = f"HTTP {status}"
                else:
                    raise FetchFailure(f"{self.source}: HTTP {status}: {_server_message(body)}", status=status)
            if attempt > self.max_retries:
                raise FetchFailure(f"{self.source}: {problem} (gave up after {attempt} attempts) at {url}",
                                   transport=True)
            if retry_after is not None and retry_after > MAX_RETRY_AFTER_S:
                raise FetchFailure(f"{self.source}: {problem}, asked to wait {retry_after:.0f} s; giving up for now",
                                   transport=True)
            if retry_after is not None:
                self.limiter.pause(retry_after)
                wait = retry_after
            else:
                wait = backoff_delay(attempt - 1, self.backoff_base, self.backoff_cap)
            self.sleep(wait)

    def _from_cache(self, key: str, parse: Callable[[str], T], not_found: T | None) -> tuple[bool, T | None]:
        body = self.cache.get(key)
        if body is None or (body == NOT_FOUND_BODY and not_found is None):
            return False, None
        if body == NOT_FOUND_BODY:
            self._count(cached=1)
            return True, not_found
        try:
            value = parse(body)
        except (MalformedResponse, RejectedRequest, ValueError):
            return False, None  # an unreadable stored body (an older parser's?) is fetched again
        self._count(cached=1)
        return True, value

    def _get_once(self, url: str, params: Mapping[str, Any]) -> tuple[str, int, float | None]:
        with self.limiter.slot(0):
            _Spacing.wait(self.spacing_key, self.request_interval)
            self._count(requests=1)
            response = self._client.get(url, params=_public(params))
            text = response.text  # reads the whole body: a short read raises RemoteProtocolError here
        return text, response.status_code, parse_retry_after(response.headers.get("Retry-After"))


def request_length(url: str, params: Mapping[str, Any]) -> int:
    """The length of ``GET url?params`` as sent (percent-encoded, credentials included: they travel too)."""
    return len(str(httpx.URL(url, params=_public(params))))


# where an XML or HTML error document says what went wrong: arXiv's Atom error entry, E-utilities' <ERROR>, a title
_XML_ERROR = (re.compile(r"<entry>.*?/api/errors.*?<summary[^>]*>(.*?)</summary>", re.S),
              re.compile(r"<ERROR>(.*?)</ERROR>", re.S), re.compile(r"<title>(.*?)</title>", re.S | re.I))
_TAG = re.compile(r"<[^>]*>")


def _server_message(body: str) -> str:
    """What the server said was wrong, in its words and without its markup: the ``message``/``error``/``errMsg`` of a
    JSON error; the error element of an XML or HTML document (else its text); else the body's start."""
    try:
        data = json.loads(body)
    except ValueError:
        data = None
    if isinstance(data, dict):
        parts = [str(data[k]) for k in ("error", "message", "errMsg") if data.get(k)]
        if parts:
            return ": ".join(parts)[:500]
    if body.lstrip().startswith("<"):
        said = next((m.group(1) for pattern in _XML_ERROR if (m := pattern.search(body))), None)
        body = html.unescape(_TAG.sub(" ", said if said is not None else re.sub(r"<\?xml[^>]*>", "", body)))
    return " ".join(body.split())[:500]


def _public(params: Mapping[str, Any]) -> dict[str, str]:
    return {k: str(v) for k, v in params.items() if v is not None}
