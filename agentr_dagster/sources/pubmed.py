"""PubMed through the E-utilities: ``esearch.fcgi`` with the history server (``usehistory=y`` → WebEnv and
query_key), then ``efetch.fcgi`` XML pages (``retstart``/``retmax``). Dates: ``mindate``/``maxdate`` with
``datetype=pdat``. An API key raises NCBI's limit from 3 to 10 requests a second."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from datetime import date
from typing import Any
from xml.etree.ElementTree import Element

from agentr_dagster.sources.base import Found, Page, SourceClient, element_text, fold, load_xml, make_record
from agentr_dagster.sources.contract import SourceQuery
from agentr_dagster.sources.http import ErrorInBody, FetchFailure, MalformedResponse, RejectedRequest
from agentr_dagster.sources.translate import to_pubmed

TOOL = "agentr-dagster"
FAR_FUTURE = "3000/12/31"
ALL_CITATIONS = "all[sb]"  # the subset of every citation: PubMed's documented query for all of them


def _esearch(body: str) -> Element:
    root = load_xml(body)
    if root.tag != "eSearchResult":
        raise MalformedResponse(f"esearch answered <{root.tag}>")
    error = element_text(root.find("ERROR"))
    if error and root.findtext("Count") is None:
        raise RejectedRequest(f"esearch: {error}")
    if error:  # a count beside an <ERROR> ("Search Backend failed") is no answer: the count is not the query's
        raise ErrorInBody(f"esearch: {error}")
    if root.findtext("Count") is None:
        raise MalformedResponse("esearch answer without <Count>")
    return root


def _esearch_count(body: str) -> int:
    count = (_esearch(body).findtext("Count") or "").strip()
    if not count.isdigit():
        raise MalformedResponse(f"esearch <Count> is not a number: {count[:40]!r}")
    return int(count)


def _efetch(body: str) -> Element:
    root = load_xml(body)
    if root.tag == "eFetchResult" and root.findtext("ERROR"):
        raise RejectedRequest(f"efetch: {root.findtext('ERROR')}")  # e.g. an expired WebEnv
    if root.tag != "PubmedArticleSet":
        raise MalformedResponse(f"efetch answered <{root.tag}>: {element_text(root)[:200]}")
    return root


def _year(article: Element) -> str | None:
    pub_date = article.find("Journal/JournalIssue/PubDate")
    if pub_date is not None:
        year = pub_date.findtext("Year") or (pub_date.findtext("MedlineDate") or "")[:4]
        if year.strip().isdigit():
            return year.strip()
    electronic = article.findtext("ArticleDate/Year")  # the electronic publication date, when the issue has none
    return electronic.strip() if electronic and electronic.strip().isdigit() else None


def _abstract(article: Element) -> str:
    parts = []
    for text in article.findall("Abstract/AbstractText"):
        body = element_text(text)
        if not body:
            continue
        label = (text.get("Label") or "").strip()
        parts.append(f"{label.capitalize()}: {body}" if label else body)
    return " ".join(parts)


def _authors(article: Element) -> list[str]:
    names = []
    for author in article.findall("AuthorList/Author"):
        collective = element_text(author.find("CollectiveName"))
        if collective:
            names.append(collective)
            continue
        first = author.findtext("ForeName") or author.findtext("Initials") or ""
        last = author.findtext("LastName") or ""
        if fold(f"{first} {last}"):
            names.append(fold(f"{first} {last}"))
    return names


def _doi(pubmed_article: Element, article: Element) -> str | None:
    for location in article.findall("ELocationID"):
        if location.get("EIdType") == "doi" and fold(location.text):
            return fold(location.text)
    for article_id in pubmed_article.findall("PubmedData/ArticleIdList/ArticleId"):
        if article_id.get("IdType") == "doi" and fold(article_id.text):
            return fold(article_id.text)
    return None


def article_to_found(pubmed_article: Element) -> Found | None:
    """One ``<PubmedArticle>`` → a normalised record (None without PMID or title)."""
    citation = pubmed_article.find("MedlineCitation")
    article = citation.find("Article") if citation is not None else None
    pmid = fold(citation.findtext("PMID")) if citation is not None else ""
    if article is None or not pmid:
        return None
    title = element_text(article.find("ArticleTitle")) or element_text(article.find("VernacularTitle"))
    if title.endswith(".") and not title.endswith(".."):
        title = title[:-1]  # MEDLINE ends every title with a period
    record = make_record(
        "pubmed", pmid, title=title, abstract=_abstract(article), year=_year(article),
        doi=_doi(pubmed_article, article), authors=_authors(article),
        venue=element_text(article.find("Journal/Title")) or None,
        url=f"https://pubmed.ncbi.nlm.nih.gov/{pmid}/",
    )
    return Found(record, pmid) if record else None


class PubMedSource(SourceClient):
    name = "pubmed"
    default_interval = 0.34  # NCBI: at most 3 requests a second without an API key (10 with one)
    default_page_size = 200
    max_page_size = 500

    def _default_interval(self) -> float:
        return 0.1 if self.api_key else self.default_interval

    def _url(self, tool: str) -> str:
        base = self.base_url
        for suffix in ("/esearch.fcgi", "/efetch.fcgi"):
            base = base.removesuffix(suffix)
        return f"{base}/{tool}"

    def _common(self) -> dict[str, str | None]:
        return {"tool": TOOL, "email": self.contact_email, "api_key": self.api_key}

    def translate(self, query: SourceQuery) -> str:
        tree = self.tree(query)
        return to_pubmed(tree) if tree is not None else ""

    def _search_params(self, query: SourceQuery, since: date | None) -> dict[str, Any]:
        search: dict[str, Any] = {"db": "pubmed", "term": self.translate(query), "usehistory": "y", "retmax": 0,
                                  "retstart": 0}
        if since is not None:  # the Entrez date (when PubMed added the record), not the publication date
            search.update(datetype="edat", mindate=since.strftime("%Y/%m/%d"), maxdate=FAR_FUTURE)
        return search

    def _first_request(self, query: SourceQuery, since: date | None) -> tuple[str, dict[str, Any]]:
        return self._url("esearch.fcgi"), {**self._search_params(query, since), **self._common()}

    counts = True

    def count(self, query: SourceQuery) -> int:
        return self._count(self.translate(query))

    def record_count(self) -> int:
        return self._count(ALL_CITATIONS)

    def _count(self, term: str) -> int:
        # esearch's <Count> with no id list (retmax=0) and no history session
        params = {"db": "pubmed", "term": term, "retmax": 0, **self._common()}
        return self.fetcher.fetch(self._url("esearch.fcgi"), params, _esearch_count)

    def _pages(self, query: SourceQuery, *, max_results: int, since: date | None) -> Iterator[Page]:
        search = self._search_params(query, since)
        fresh = False
        result = self.fetcher.fetch(self._url("esearch.fcgi"), {**search, **self._common()}, _esearch)
        total = int(result.findtext("Count") or 0)
        if not (result.findtext("WebEnv") and result.findtext("QueryKey")):  # a mirror without the history server
            yield from self._pages_by_id(search, total, max_results)
            return
        # efetch pages are cached under the search they belong to, not the WebEnv (a session id that expires)
        search_id = hashlib.sha256(repr(sorted(search.items())).encode()).hexdigest()[:32]
        retstart = 0
        while retstart < min(total, max_results):
            fetch = {"db": "pubmed", "query_key": result.findtext("QueryKey"), "WebEnv": result.findtext("WebEnv"),
                     "retstart": retstart, "retmax": self.page_size, "retmode": "xml", "rettype": "abstract"}
            key = {"search": search_id, "retstart": retstart, "retmax": self.page_size}
            try:
                root = self.fetcher.fetch(self._url("efetch.fcgi"), {**fetch, **self._common()}, _efetch,
                                          key_params=key)
            except FetchFailure as exc:
                # a cached search's WebEnv may have expired on the server (efetch answers with an ERROR or a
                # 400): search again once, then go on; a server that is down is not asked twice
                if fresh or exc.status not in (200, 400):
                    raise
                fresh = True
                result = self.fetcher.fetch(self._url("esearch.fcgi"), {**search, **self._common()}, _esearch,
                                            use_cache=False)
                total = int(result.findtext("Count") or 0)
                continue
            articles = root.findall("PubmedArticle")
            found = [f for f in (article_to_found(a) for a in articles) if f]
            yield Page(found, total)
            if not articles:
                break
            retstart += self.page_size

    def _pages_by_id(self, search: dict, total: int, max_results: int) -> Iterator[Page]:
        """esearch pages of PMIDs (``retstart``/``retmax``), each fetched with ``efetch id=…``."""
        plain = {k: v for k, v in search.items() if k != "usehistory"}
        retstart = 0
        while retstart < min(total, max_results):
            page = {**plain, "retstart": retstart, "retmax": self.page_size}
            ids = [fold(i.text) for i in self.fetcher.fetch(self._url("esearch.fcgi"), {**page, **self._common()},
                                                            _esearch).findall("IdList/Id") if fold(i.text)]
            if not ids:
                break
            fetch = {"db": "pubmed", "id": ",".join(ids), "retmode": "xml", "rettype": "abstract"}
            root = self.fetcher.fetch(self._url("efetch.fcgi"), {**fetch, **self._common()}, _efetch)
            yield Page([f for f in (article_to_found(a) for a in root.findall("PubmedArticle")) if f], total)
            retstart += self.page_size
