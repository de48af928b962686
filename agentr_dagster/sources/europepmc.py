"""Europe PMC REST ``/search``: its query syntax (``TITLE:``/``ABSTRACT:`` fields), ``format=json``,
``resultType=core`` (abstracts, author lists, journal), ``cursorMark`` paging; dates through a
``FIRST_PDATE:[from TO to]`` clause."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date
from typing import Any

from agentr_dagster.sources.base import Found, Page, SourceClient, fold, load_json, make_record, strip_tags
from agentr_dagster.sources.contract import SourceQuery
from agentr_dagster.sources.http import ErrorInBody, MalformedResponse
from agentr_dagster.sources.translate import to_europepmc

FAR_FUTURE = "3000-12-31"
FAR_PAST = "1000-01-01"


def _search_page(body: str) -> dict:
    data = load_json(body)
    if not isinstance(data, dict):
        raise MalformedResponse("a Europe PMC answer is not a JSON object")
    if data.get("errMsg"):  # Europe PMC reports some failures in a 200 (its hitCount then says 0)
        raise ErrorInBody(f"Europe PMC: {data['errMsg']}")
    result_list = data.get("resultList")
    results = result_list.get("result") if isinstance(result_list, dict) else None
    if results is None and data.get("hitCount") == 0:  # an empty answer may leave the list out
        data["resultList"] = {"result": []}
    elif not isinstance(results, list):
        raise MalformedResponse("a Europe PMC answer has no resultList.result")
    return data


def _hit_count(body: str) -> int:
    count = _search_page(body).get("hitCount")
    if not isinstance(count, int) or isinstance(count, bool):
        raise MalformedResponse("a Europe PMC answer has no hitCount")
    return count


def result_to_found(result: dict[str, Any]) -> Found | None:
    """One Europe PMC ``result`` → a normalised record; its id is the PMID, else the PMCID, else ``SRC:id``."""
    if not isinstance(result, dict):
        return None
    pmid, pmcid = fold(result.get("pmid")), fold(result.get("pmcid"))
    source_id = pmid or pmcid or (f"{result.get('source')}:{result.get('id')}" if result.get("id") else "")
    if not source_id:
        return None
    title = strip_tags(result.get("title"))
    if title.endswith(".") and not title.endswith(".."):
        title = title[:-1]
    authors = [a.get("fullName") or fold(f"{a.get('firstName', '')} {a.get('lastName', '')}")
               for a in ((result.get("authorList") or {}).get("author") or []) if isinstance(a, dict)]
    if not authors and result.get("authorString"):
        authors = [a for a in (fold(x).rstrip(".") for x in str(result["authorString"]).split(",")) if a]
    journal_info = result.get("journalInfo") or {}
    venue = ((journal_info.get("journal") or {}).get("title") if isinstance(journal_info, dict) else None) \
        or (result.get("bookOrReportDetails") or {}).get("publisher") or result.get("journalTitle")
    year = result.get("pubYear") or (result.get("firstPublicationDate") or "")[:4] or None
    src, ident = result.get("source"), result.get("id")
    record = make_record(
        "europepmc", source_id, title=title, abstract=strip_tags(result.get("abstractText")), year=year,
        doi=result.get("doi"), authors=authors, venue=venue,
        url=f"https://europepmc.org/article/{src}/{ident}" if src and ident else None,
    )
    return Found(record, source_id) if record else None


class EuropePMCSource(SourceClient):
    name = "europepmc"
    default_interval = 0.1
    default_page_size = 200
    max_page_size = 1000

    def _search_url(self) -> str:
        base = self.base_url
        return base if base.endswith("/search") else f"{base}/search"

    def translate(self, query: SourceQuery) -> str:
        tree = self.tree(query)
        return to_europepmc(tree) if tree is not None else ""

    def _search_params(self, query: SourceQuery, since: date | None) -> dict[str, Any]:
        text = self.translate(query)
        if since is not None:  # the record's creation (index) date, not its publication date
            text = f"({text}) AND CREATION_DATE:[{since.isoformat()} TO {FAR_FUTURE}]"
        return {"query": text, "format": "json", "resultType": "core", "pageSize": self.page_size,
                "synonym": "false", "email": self.contact_email}

    def _first_request(self, query: SourceQuery, since: date | None) -> tuple[str, dict[str, Any]]:
        return self._search_url(), {**self._search_params(query, since), "cursorMark": "*"}

    counts = True

    def count(self, query: SourceQuery) -> int:
        return self._count(self.translate(query))

    def record_count(self) -> int:
        # every record has a creation (index) date: the widest range of it matches them all
        return self._count(f"CREATION_DATE:[{FAR_PAST} TO {FAR_FUTURE}]")

    def _count(self, text: str) -> int:
        params = {"query": text, "format": "json", "resultType": "idlist", "pageSize": 1, "synonym": "false",
                  "email": self.contact_email}
        return self.fetcher.fetch(self._search_url(), params, _hit_count)

    def _pages(self, query: SourceQuery, *, max_results: int, since: date | None) -> Iterator[Page]:
        params = self._search_params(query, since)
        cursor, count = "*", 0
        while cursor and count < max_results:
            data = self.fetcher.fetch(self._search_url(), {**params, "cursorMark": cursor}, _search_page)
            results = data["resultList"]["result"]
            found = [f for f in (result_to_found(r) for r in results) if f]
            count += len(found)
            total = data.get("hitCount")
            yield Page(found, total if isinstance(total, int) else None)
            next_cursor = data.get("nextCursorMark")
            if not results or not next_cursor or next_cursor == cursor:
                break
            cursor = next_cursor
