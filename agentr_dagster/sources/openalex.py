"""OpenAlex (``/works``): search and filters, cursor paging, abstracts from ``abstract_inverted_index``, the polite
pool (``mailto=``), and the citation graph for snowballing (``referenced_works``, ``filter=cites:W…``)."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from datetime import date
from typing import Any

from agentr_dagster.sources.base import Found, Page, SourceClient, load_json, make_record
from agentr_dagster.sources.contract import SourceHit, SourceQuery
from agentr_dagster.sources.http import ErrorInBody, FetchFailure, MalformedResponse
from agentr_dagster.sources.translate import OpenAlexQuery, to_openalex

log = logging.getLogger(__name__)
_ID_PREFIX = "https://openalex.org/"
_BATCH = 50  # ids per ``openalex:W1|W2|…`` filter (the API takes up to 100 OR-ed values)


def short_id(value: str | None) -> str:
    """``https://openalex.org/W123`` → ``W123``."""
    value = (value or "").strip()
    return value[len(_ID_PREFIX):] if value.startswith(_ID_PREFIX) else value.rsplit("/", 1)[-1]


def abstract_from_inverted_index(index: dict[str, list[int]] | None) -> str:
    """The abstract text from OpenAlex's ``{word: [positions]}`` form."""
    if not isinstance(index, dict):
        return ""
    positions: dict[int, str] = {}
    for word, places in index.items():
        for place in places if isinstance(places, list) else []:
            if isinstance(place, int):
                positions[place] = word
    return " ".join(positions[i] for i in sorted(positions))


def work_to_found(work: dict[str, Any]) -> Found | None:
    """One OpenAlex work object → a normalised record with its references (None without id or title)."""
    if not isinstance(work, dict):
        return None
    work_id = short_id(work.get("id"))
    if not work_id:
        return None
    location = work.get("primary_location") or {}
    source = location.get("source") or {} if isinstance(location, dict) else {}
    authors = [
        ((a.get("author") or {}).get("display_name") or a.get("raw_author_name") or "")
        for a in work.get("authorships") or [] if isinstance(a, dict)
    ]
    doi = work.get("doi") or (work.get("ids") or {}).get("doi")
    record = make_record(
        "openalex", work_id,
        title=work.get("title") or work.get("display_name"),
        abstract=abstract_from_inverted_index(work.get("abstract_inverted_index")),
        year=work.get("publication_year") or (work.get("publication_date") or "")[:4] or None,
        doi=doi,
        authors=authors,
        venue=source.get("display_name") if isinstance(source, dict) else None,
        url=doi if doi and str(doi).startswith("http") else (location.get("landing_page_url") or work.get("id")),
    )
    if record is None:
        return None
    references = [short_id(r) for r in work.get("referenced_works") or [] if isinstance(r, str)]
    return Found(record, work_id, references)


def _error_in(data: object) -> None:
    if isinstance(data, dict) and data.get("error"):  # an error document, whatever the status it came with
        raise ErrorInBody(f"OpenAlex: {data['error']}" + (f": {data['message']}" if data.get("message") else ""))


def _list_page(body: str) -> dict:
    data = load_json(body)
    _error_in(data)
    if isinstance(data, dict) and data.get("results") is None and (data.get("meta") or {}).get("count") == 0:
        data["results"] = []  # an empty answer may leave the list out
    if not isinstance(data, dict) or not isinstance(data.get("results"), list):
        raise MalformedResponse("an OpenAlex list answer has no 'results' list")
    return data


def _counted(body: str) -> int:
    """``meta.count`` of a list answer (how many works match its search and filters)."""
    count = (_list_page(body).get("meta") or {}).get("count")
    if not isinstance(count, int) or isinstance(count, bool):
        raise MalformedResponse("an OpenAlex list answer has no 'meta.count'")
    return count


def _work(body: str) -> dict:
    data = load_json(body)
    _error_in(data)
    if not isinstance(data, dict) or not data.get("id"):
        raise MalformedResponse("an OpenAlex work has no 'id'")
    return data


class SnowballHits(list):
    """``list[SourceHit]`` that also says whether the walk was complete (``failure``) and what it cost."""

    failure: str | None = None
    requests: int = 0


class OpenAlexSource(SourceClient):
    name = "openalex"
    default_interval = 0.1  # the polite pool allows about 10 requests a second
    default_page_size = 100  # the current documentation bounds per-page at 100 (it was 200)
    max_page_size = 200
    max_url_length = 4000  # the documented limit is 4,094 bytes for the whole request URL

    def _works_url(self) -> str:
        base = self.base_url
        return base if base.endswith("/works") else f"{base}/works"

    def _common(self) -> dict[str, str | None]:
        return {"mailto": self.contact_email, "api_key": self.api_key}

    def query_params(self, query: SourceQuery) -> OpenAlexQuery:
        tree = self.tree(query)
        if tree is None:
            return OpenAlexQuery()
        return to_openalex(tree, boolean=query.tree is not None, text=None if query.tree is not None else query.text)

    def translate(self, query: SourceQuery) -> str:
        return self.query_params(query).describe()

    created_date_refused = False  # OpenAlex has offered from_created_date to premium keys only: then publication date

    def _search_params(self, query: SourceQuery, since: date | None) -> dict[str, Any]:
        translated = self.query_params(query)
        filters = list(translated.filters)
        if since is not None:  # when OpenAlex added the work, not when it was published: late records count
            by = "publication" if self.created_date_refused else "created"
            filters.append(f"from_{by}_date:{since.isoformat()}")
        return {**OpenAlexQuery(translated.search, tuple(filters)).params(), "per-page": self.page_size}

    def _first_request(self, query: SourceQuery, since: date | None) -> tuple[str, dict[str, Any]]:
        return self._works_url(), {**self._search_params(query, since), **self._common(), "cursor": "*"}

    counts = True

    def count(self, query: SourceQuery) -> int:
        params = {**self._search_params(query, None), "per-page": 1, "select": "id"}
        return self.fetcher.fetch(self._works_url(), {**params, **self._common()}, _counted)

    def record_count(self) -> int:
        # ``/works`` with no search nor filter lists every work; ``meta.count`` is their number
        return self.fetcher.fetch(self._works_url(), {"per-page": 1, "select": "id", **self._common()}, _counted)

    def _pages(self, query: SourceQuery, *, max_results: int, since: date | None) -> Iterator[Page]:
        pages = self._cursor_pages(self._search_params(query, since), max_results)
        try:
            first = next(pages, None)
        except FetchFailure as exc:
            if since is None or self.created_date_refused or exc.transport or exc.status not in (400, 401, 403):
                raise
            log.warning("openalex refused from_created_date (%s): filtering on the publication date", exc)
            self.created_date_refused = True
            yield from self._cursor_pages(self._search_params(query, since), max_results)
            return
        if first is not None:
            yield first
            yield from pages

    def _cursor_pages(self, params: dict[str, Any], max_results: int) -> Iterator[Page]:
        cursor: str | None = "*"
        count = 0
        while cursor and count < max_results:
            try:
                data = self.fetcher.fetch(self._works_url(), {**params, **self._common(), "cursor": cursor},
                                          _list_page)
            except FetchFailure as exc:
                # OpenAlex may refuse cursor paging without an API key (401/403): number the pages instead
                if cursor != "*" or exc.status not in (401, 403):
                    raise
                yield from self._numbered_pages(params, max_results)
                return
            found = [f for f in (work_to_found(w) for w in data["results"]) if f]
            count += len(found)
            meta = data.get("meta") or {}
            yield Page(found, meta.get("count") if isinstance(meta.get("count"), int) else None)
            next_cursor = meta.get("next_cursor")
            if not data["results"] or next_cursor == cursor:
                break
            cursor = next_cursor

    def _numbered_pages(self, params: dict[str, Any], max_results: int) -> Iterator[Page]:
        page_number, count = 1, 0
        while count < max_results and page_number * self.page_size <= 10_000:  # basic paging's documented limit
            data = self.fetcher.fetch(self._works_url(), {**params, **self._common(), "page": page_number},
                                      _list_page)
            found = [f for f in (work_to_found(w) for w in data["results"]) if f]
            count += len(found)
            meta = data.get("meta") or {}
            total = meta.get("count") if isinstance(meta.get("count"), int) else None
            yield Page(found, total)
            if not data["results"] or (total is not None and page_number * self.page_size >= total):
                break
            page_number += 1

    # -- snowballing -------------------------------------------------------------------------------------------

    def work(self, work_id: str) -> SourceHit | None:
        """One work by its OpenAlex id (``W…``); None if OpenAlex does not know it. FetchFailure on failure."""
        data: dict[str, Any] = self.fetcher.fetch(f"{self._works_url()}/{short_id(work_id)}", self._common(), _work,
                                                  not_found={})
        found = work_to_found(data) if data else None
        return self._hit(found, "lookup", 1) if found else None

    def work_by_doi(self, doi: str) -> SourceHit | None:
        """The work with this DOI, or None (not in OpenAlex, or the lookup failed)."""
        doi = doi.strip().lower().removeprefix("https://doi.org/").removeprefix("doi:")
        if not doi or "," in doi:
            return None
        params = {"filter": f"doi:https://doi.org/{doi}", "per-page": 1, **self._common()}
        try:
            data = self.fetcher.fetch(self._works_url(), params, _list_page)
        except FetchFailure:
            return None
        found = next((f for f in (work_to_found(w) for w in data["results"]) if f), None)
        return self._hit(found, f"doi:{doi}", 1) if found else None

    def references(self, work_id: str, *, max_results: int = 200) -> SnowballHits:
        """The works ``work_id`` cites (backward snowballing), as hits with ``query_name="backward:W…"``."""
        work_id = short_id(work_id)
        hits = SnowballHits()
        with self.fetcher.counting() as stats:
            try:
                data: dict[str, Any] = self.fetcher.fetch(f"{self._works_url()}/{work_id}", self._common(), _work,
                                                          not_found={})
                cited = [short_id(r) for r in (data or {}).get("referenced_works") or [] if isinstance(r, str)]
                cited = list(dict.fromkeys(cited))[:max_results]
                for start in range(0, len(cited), _BATCH):
                    batch = cited[start:start + _BATCH]
                    params = {"filter": "openalex:" + "|".join(batch), "per-page": len(batch), **self._common()}
                    page = self.fetcher.fetch(self._works_url(), params, _list_page)
                    for found in (work_to_found(w) for w in page["results"]):
                        if found:
                            hits.append(self._hit(found, f"backward:{work_id}", len(hits) + 1))
            except FetchFailure as exc:
                hits.failure = str(exc)
        hits.requests = stats.requests
        return hits

    def citing(self, work_id: str, *, max_results: int = 200) -> SnowballHits:
        """The works that cite ``work_id`` (forward snowballing), ``query_name="forward:W…"``."""
        work_id = short_id(work_id)
        hits = SnowballHits()
        with self.fetcher.counting() as stats:
            try:
                params = {"filter": f"cites:{work_id}", "per-page": self.page_size}
                for page in self._cursor_pages(params, max_results):
                    for found in page.found:
                        if len(hits) < max_results:
                            hits.append(self._hit(found, f"forward:{work_id}", len(hits) + 1))
            except FetchFailure as exc:
                hits.failure = str(exc)
        hits.requests = stats.requests
        return hits

    def _hit(self, found: Found, query_name: str, rank: int) -> SourceHit:
        return SourceHit(record=found.record, source=self.name, source_id=found.source_id, query_name=query_name,
                         rank=rank, references=found.references)
