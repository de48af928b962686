"""What the source clients share: construction, the search loop (pages up to a bound, failures as outcomes) and
the normalisation helpers (a record the paper model accepts, tags stripped, whitespace folded)."""

from __future__ import annotations

import html
import json
import logging
import re
from abc import ABC, abstractmethod
from collections.abc import Iterator
from contextlib import nullcontext
from dataclasses import dataclass, field
from datetime import date
from typing import Any
from xml.etree.ElementTree import Element, ParseError

from defusedxml import ElementTree as SafeET
from pydantic import ValidationError

from agentr_dagster.domain.boolean_query import Node
from agentr_dagster.domain.contracts import PaperRecord
from agentr_dagster.sources.cache import ResponseCache
from agentr_dagster.sources.contract import SearchOutcome, SourceHit, SourceQuery
from agentr_dagster.sources.http import Fetcher, FetchFailure, MalformedResponse, request_length
from agentr_dagster.sources.translate import or_shards, query_tree

log = logging.getLogger(__name__)

_TAG_RE = re.compile(r"<[^>]+>")
TITLE_MAX, ABSTRACT_MAX = 1000, 20000
STALE_STATUSES = frozenset({400, 404, 410, 422})  # what a server says to a cursor or session id it has forgotten
# the title of a record that came with a DOI and no title, until Crossref completes it (never stored so: the search
# stage asks Crossref before merging, and drops what Crossref cannot name)
UNTITLED = "[untitled] doi:"


def is_untitled(record: PaperRecord) -> bool:
    return record.title.startswith(UNTITLED)


def fold(text: str | None) -> str:
    """Whitespace folded to single spaces."""
    return " ".join((text or "").split())


def strip_tags(text: str | None) -> str:
    """Markup (JATS, HTML) removed, entities decoded, whitespace folded."""
    return fold(html.unescape(_TAG_RE.sub(" ", text or "")))


def element_text(element: Element | None) -> str:
    """All text inside an XML element (inline markup such as <i> kept as text), folded."""
    return fold("".join(element.itertext())) if element is not None else ""


def load_json(body: str) -> Any:
    try:
        return json.loads(body)
    except ValueError as exc:
        raise MalformedResponse(f"not JSON ({exc})") from None


def load_xml(body: str) -> Element:
    try:
        return SafeET.fromstring(body.encode())
    except (ParseError, ValueError) as exc:  # ValueError: defusedxml's forbidden entities/DTD tricks
        raise MalformedResponse(f"not XML ({exc})") from None


def make_record(
    source: str,
    source_id: str,
    *,
    title: str | None,
    abstract: str | None = None,
    year: int | str | None = None,
    doi: str | None = None,
    authors: list[str] | None = None,
    venue: str | None = None,
    url: str | None = None,
) -> PaperRecord | None:
    """A PaperRecord from a source's fields, or None when the entry has neither a title nor a DOI (with a DOI and
    no title, the title is :data:`UNTITLED` + the DOI, for Crossref to complete)."""
    title = fold(title)[:TITLE_MAX]
    if not title and fold(doi):
        title = f"{UNTITLED}{fold(doi)}"[:TITLE_MAX]
    if not title:
        return None
    try:
        year_value = int(str(year)[:4]) if year not in (None, "") else None
    except ValueError:
        year_value = None
    if year_value is not None and not 1000 <= year_value <= 2200:
        year_value = None
    try:
        return PaperRecord(
            title=title,
            abstract=fold(abstract)[:ABSTRACT_MAX],
            year=year_value,
            doi=fold(doi) or None,
            authors=[fold(a) for a in authors or [] if fold(a)][:100],
            venue=fold(venue)[:500] or None,
            url=url or None,
            source_id=source_id,
            source_format=source,
        )
    except ValidationError as exc:
        log.warning("%s record %s skipped: %s", source, source_id, exc)
        return None


@dataclass
class Found:
    """One normalised entry of a page."""

    record: PaperRecord
    source_id: str
    references: list[str] = field(default_factory=list)


@dataclass
class Page:
    found: list[Found]
    total: int | None = None


class SourceClient(ABC):
    """Base of the search-source clients (``name``, the dialect and the paging are each client's own)."""

    name = "source"
    default_interval = 0.0  # seconds between two requests to this API from one process
    default_page_size = 100
    max_page_size = 100
    # the longest request URL sent; a longer query goes as OR-shards (docs/search.md, the limits table)
    max_url_length = 7500

    def __init__(
        self,
        base_url: str,
        *,
        cache: ResponseCache,
        contact_email: str | None = None,
        api_key: str | None = None,
        timeout: float = 30.0,
        max_retries: int = 4,
        limiter: Any = None,
        page_size: int | None = None,
        request_interval: float | None = None,
        backoff_base: float = 1.0,
    ):
        self.base_url = base_url.rstrip("/")
        self.cache = cache
        self.contact_email = contact_email or None
        self.api_key = api_key or None
        self.page_size = max(1, min(self.max_page_size, page_size or self.default_page_size))
        self.fetcher = Fetcher(
            self.name,
            cache=cache,
            timeout=timeout,
            max_retries=max_retries,
            limiter=limiter,
            request_interval=self._default_interval() if request_interval is None else request_interval,
            backoff_base=backoff_base,
            spacing_key=f"{self.name}:{self.base_url}",
            contact_email=self.contact_email,
        )

    def _default_interval(self) -> float:
        return self.default_interval

    def close(self) -> None:
        self.fetcher.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @staticmethod
    def tree(query: SourceQuery) -> Node | None:
        return query_tree(query.text, query.tree)

    # -- the contract -----------------------------------------------------------------------------------------

    @abstractmethod
    def translate(self, query: SourceQuery) -> str:
        """The query in this source's dialect (what ``search`` sends, before the date filter)."""

    def _first_request(self, query: SourceQuery, since: date | None) -> tuple[str, dict[str, Any]]:
        """The URL and parameters of the first request ``search`` sends (for the URL-length guard)."""
        return self.base_url, {}

    def fits(self, query: SourceQuery, since: date | None = None) -> bool:
        """Whether the first request of ``query`` stays within :attr:`max_url_length`."""
        return request_length(*self._first_request(query, since)) <= self.max_url_length

    def shards(self, query: SourceQuery, since: date | None = None) -> list[SourceQuery]:
        """``query`` itself, or OR-shards of it whose union it is, each within the URL limit."""
        tree = self.tree(query)
        if tree is None or self.fits(query, since):
            return [query]

        def as_query(node) -> SourceQuery:
            return SourceQuery(name=query.name, text=query.text, tree=node)

        return [as_query(node) for node in or_shards(tree, lambda node: self.fits(as_query(node), since))]

    def search(self, query: SourceQuery, *, max_results: int, since: date | None = None) -> SearchOutcome:
        """Pages through the answers to ``query`` up to ``max_results`` hits (per OR-shard when the query is too
        long for one URL); never raises for a network or format problem: that becomes ``failure`` (with
        ``failure_kind`` "query" when the server refused this request, "source" when it could not be reached or
        kept failing), with the hits of the pages that did arrive.

        A date-filtered search (``since``, a living-review update) never reads the response cache: new records
        appear under the same request, and a second update on one day must see them."""
        translated = self.translate(query)
        outcome = SearchOutcome(source=self.name, query_name=query.name, translated=translated)
        if not translated or max_results <= 0:
            return outcome
        shards = self.shards(query, since)
        if len(shards) > 1:
            outcome.shards = len(shards)
            outcome.translated = " || ".join(self.translate(s) for s in shards)
        seen: set[str] = set()
        with self.fetcher.counting() as stats, self.fetcher.fresh() if since is not None else nullcontext():
            for shard in shards:
                if not self._search_one(shard, outcome, seen, stats, max_results=max_results, since=since):
                    break
        outcome.requests, outcome.cached_pages = stats.requests, stats.cached
        return outcome

    def _search_one(self, query: SourceQuery, outcome: SearchOutcome, seen: set[str], stats, *, max_results: int,
                    since: date | None) -> bool:
        """One shard into ``outcome``; False when the source is down (the other shards would fail the same way)."""
        first, total_before = len(outcome.hits), outcome.total
        try:
            try:
                self._collect(query, outcome, seen, max_results=max_results, since=since)
            except FetchFailure as exc:
                # A cursor or session id from a stored page that the server no longer accepts: walk again
                # from the first page, fetching every page anew.
                if not (stats.cached and exc.status in STALE_STATUSES):
                    raise
                for hit in outcome.hits[first:]:
                    seen.discard(hit.source_id)
                del outcome.hits[first:]
                outcome.total = total_before
                with self.fetcher.fresh():
                    self._collect(query, outcome, seen, max_results=max_results, since=since)
        except FetchFailure as exc:
            outcome.failure = outcome.failure or str(exc)
            outcome.failure_kind = "source" if exc.transport else (outcome.failure_kind or "query")
            return not exc.transport
        except Exception as exc:  # a shape no parser foresaw must not stop the other sources
            log.exception("%s search %s failed", self.name, query.name)
            outcome.failure = outcome.failure or f"{self.name}: unexpected {type(exc).__name__}: {exc}"
            outcome.failure_kind = outcome.failure_kind or "query"
        return True

    def _collect(self, query: SourceQuery, outcome: SearchOutcome, seen: set[str], *, max_results: int,
                 since: date | None) -> None:
        count, base_total = 0, outcome.total or 0  # over shards: the sum of their totals (overlaps counted twice)
        for page in self._pages(query, max_results=max_results, since=since):
            if page.total is not None:
                outcome.total = page.total if outcome.shards == 1 else base_total + page.total
            for found in page.found:
                if found.source_id in seen:  # a record repeated across pages counts once
                    continue
                seen.add(found.source_id)
                outcome.hits.append(SourceHit(
                    record=found.record, source=self.name, source_id=found.source_id,
                    query_name=query.name, rank=len(outcome.hits) + 1, references=found.references,
                ))
                count += 1
                if count >= max_results:
                    return

    # -- hit counts (a background of the source's own records: sources/background.py) --------------------------

    #: whether the source answers ``count`` and ``record_count`` (:class:`~agentr_dagster.sources.contract.
    #: CountingSource`; OpenAlex, Europe PMC and PubMed do, one request each)
    counts = False

    @abstractmethod
    def _pages(self, query: SourceQuery, *, max_results: int, since: date | None) -> Iterator[Page]:
        """The answer pages, in order, until the source has no more or enough hits arrived."""
