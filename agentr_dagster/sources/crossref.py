"""Crossref ``/works/{doi}``: fills a record's missing abstract (JATS stripped), year and venue, where Crossref
has them. A DOI Crossref does not know (404) or a lookup that fails leaves the record as it was."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date
from typing import Any
from urllib.parse import quote

from agentr_dagster.domain.contracts import PaperRecord
from agentr_dagster.sources.base import ABSTRACT_MAX, Page, SourceClient, fold, load_json, strip_tags
from agentr_dagster.sources.contract import SourceQuery
from agentr_dagster.sources.http import FetchFailure, MalformedResponse

log = logging.getLogger(__name__)
_DATE_FIELDS = ("published-print", "published-online", "published", "issued", "created")


def _work(body: str) -> dict:
    data = load_json(body)
    message = data.get("message") if isinstance(data, dict) else None
    if not isinstance(message, dict):
        raise MalformedResponse("a Crossref work answer has no 'message' object")
    return message


def crossref_year(message: dict[str, Any]) -> int | None:
    """The first year among the print, online, published, issued and created dates."""
    for name in _DATE_FIELDS:
        value = message.get(name)
        parts = value.get("date-parts") if isinstance(value, dict) else None
        first = parts[0][0] if parts and isinstance(parts[0], list) and parts[0] else None
        if isinstance(first, int) and 1000 <= first <= 2200:
            return first
    return None


def crossref_venue(message: dict[str, Any]) -> str | None:
    for name in ("container-title", "short-container-title"):
        titles = message.get(name)
        if isinstance(titles, list) and titles and fold(str(titles[0])):
            return fold(str(titles[0]))[:500]
    return None


@dataclass
class EnrichStats:
    looked_up: int = 0  # records with a DOI that missed something
    enriched: int = 0  # records that gained at least one field
    failed: int = 0  # lookups that failed (the record kept as it was)


class CrossrefClient(SourceClient):
    """Not a search source: :meth:`enrich` completes records that carry a DOI."""

    name = "crossref"
    default_interval = 0.05  # the polite pool allows far more; this stays well inside it
    last_stats: EnrichStats | None = None  # what the last enrich() did

    def _work_url(self, doi: str) -> str:
        base = self.base_url.removesuffix("/works")
        return f"{base}/works/{quote(doi, safe='/:;()._-')}"

    def translate(self, query: SourceQuery) -> str:
        return ""  # Crossref is used for lookups by DOI, never searched

    def _pages(self, query: SourceQuery, *, max_results: int, since: date | None) -> Iterator[Page]:
        return iter(())

    def lookup(self, doi: str) -> dict[str, Any] | None:
        """Crossref's ``message`` for a DOI; None if Crossref does not know it. FetchFailure when it cannot say."""
        return self.fetcher.fetch(self._work_url(doi), {"mailto": self.contact_email}, _work, not_found={}) or None

    def title(self, doi: str) -> str | None:
        """The work's title as Crossref has it; None when Crossref does not know the DOI or has no title.
        FetchFailure when it cannot say."""
        message = self.lookup(doi)
        titles = (message or {}).get("title")
        text = strip_tags(str(titles[0])) if isinstance(titles, list) and titles else ""
        return text[:1000] or None

    def enrich(self, records: list[PaperRecord]) -> list[PaperRecord]:
        """The records, each with its missing abstract, year and venue filled from Crossref where it has them."""
        out: list[PaperRecord] = []
        stats = EnrichStats()
        for record in records:
            missing = not record.abstract, record.year is None, not record.venue
            if not record.doi or not any(missing):
                out.append(record)
                continue
            stats.looked_up += 1
            try:
                message = self.lookup(record.doi)
            except FetchFailure as exc:
                log.warning("crossref lookup of %s failed: %s", record.doi, exc)
                stats.failed += 1
                out.append(record)
                continue
            update: dict[str, Any] = {}
            if message:
                if missing[0] and strip_tags(message.get("abstract")):
                    abstract = strip_tags(message.get("abstract"))
                    update["abstract"] = abstract.removeprefix("Abstract ").strip()[:ABSTRACT_MAX]
                if missing[1] and crossref_year(message):
                    update["year"] = crossref_year(message)
                if missing[2] and crossref_venue(message):
                    update["venue"] = crossref_venue(message)
            if update:
                stats.enriched += 1
                out.append(record.model_copy(update=update))
            else:
                out.append(record)
        self.last_stats = stats
        return out
