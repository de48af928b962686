"""arXiv's API (``/api/query``, an Atom feed): ``search_query`` with ``ti:``/``abs:`` prefixes and
``AND``/``OR``/``ANDNOT``, ``start``/``max_results`` paging, ``submittedDate:[from TO to]`` for dates, and its
request spacing (the terms of use ask for one request every three seconds)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import date
from xml.etree.ElementTree import Element

from agentr_dagster.sources.base import Found, Page, SourceClient, element_text, fold, load_xml, make_record
from agentr_dagster.sources.contract import SourceQuery
from agentr_dagster.sources.http import MalformedResponse, RejectedRequest
from agentr_dagster.sources.translate import to_arxiv

ATOM = "{http://www.w3.org/2005/Atom}"
OPENSEARCH = "{http://a9.com/-/spec/opensearch/1.1/}"
ARXIV = "{http://arxiv.org/schemas/atom}"
_VERSION_RE = re.compile(r"v\d+$")


def arxiv_id(entry_id: str | None) -> str:
    """``http://arxiv.org/abs/2101.00001v2`` → ``2101.00001`` (old style ``hep-th/9901001`` kept whole)."""
    text = fold(entry_id)
    if "/abs/" in text:
        text = text.split("/abs/", 1)[1]
    return _VERSION_RE.sub("", text)


def _feed(body: str) -> Element:
    root = load_xml(body)
    if root.tag != f"{ATOM}feed":
        raise MalformedResponse(f"arXiv answered <{root.tag}>, not an Atom feed")
    for entry in root.findall(f"{ATOM}entry"):
        if "/api/errors" in (entry.findtext(f"{ATOM}id") or ""):
            raise RejectedRequest(element_text(entry.find(f"{ATOM}summary")) or "arXiv API error")
    return root


def entry_to_found(entry: Element) -> Found | None:
    """One Atom ``<entry>`` → a normalised record (None for an error entry or one without id/title)."""
    entry_id = entry.findtext(f"{ATOM}id") or ""
    if "/api/errors" in entry_id:
        return None
    ident = arxiv_id(entry_id)
    if not ident:
        return None
    url = next((link.get("href") for link in entry.findall(f"{ATOM}link") if link.get("rel") == "alternate"),
               entry_id)
    record = make_record(
        "arxiv", ident,
        title=element_text(entry.find(f"{ATOM}title")),
        abstract=element_text(entry.find(f"{ATOM}summary")),
        year=(entry.findtext(f"{ATOM}published") or "")[:4] or None,
        doi=entry.findtext(f"{ARXIV}doi"),
        authors=[element_text(a.find(f"{ATOM}name")) for a in entry.findall(f"{ATOM}author")],
        venue=element_text(entry.find(f"{ARXIV}journal_ref")) or "arXiv",
        url=url,
    )
    return Found(record, ident) if record else None


class ArxivSource(SourceClient):
    name = "arxiv"
    default_interval = 3.0
    default_page_size = 100
    max_page_size = 2000

    def _query_url(self) -> str:
        base = self.base_url
        if base.endswith("/query"):
            return base
        return f"{base}/query" if base.endswith("/api") else f"{base}/api/query"

    def translate(self, query: SourceQuery) -> str:
        tree = self.tree(query)
        return to_arxiv(tree) if tree is not None else ""

    def _query_text(self, query: SourceQuery, since: date | None) -> str:
        text = self.translate(query)
        if since is not None:  # the submission date: when the record appeared on arXiv
            text = f"({text}) AND submittedDate:[{since:%Y%m%d}0000 TO 300012312359]"
        return text

    def _first_request(self, query: SourceQuery, since: date | None) -> tuple[str, dict]:
        return self._query_url(), {"search_query": self._query_text(query, since), "start": 0,
                                   "max_results": self.page_size}

    def _pages(self, query: SourceQuery, *, max_results: int, since: date | None) -> Iterator[Page]:
        text = self._query_text(query, since)
        start = 0
        while start < max_results:
            params = {"search_query": text, "start": start, "max_results": self.page_size}
            root = self.fetcher.fetch(self._query_url(), params, _feed)
            entries = root.findall(f"{ATOM}entry")
            total_text = root.findtext(f"{OPENSEARCH}totalResults")
            total = int(total_text) if total_text and total_text.strip().isdigit() else None
            found = [f for f in (entry_to_found(e) for e in entries) if f]
            yield Page(found, total)
            start += self.page_size
            if not entries or (total is not None and start >= total):
                break
