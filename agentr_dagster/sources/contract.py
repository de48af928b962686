"""The one contract every search source keeps (no Dagster here).

A source translates the project's parsed Boolean query (or a plain search string) into its own dialect, pages
through the answers up to a bound, and normalises each answer to a :class:`PaperRecord` with provenance. Network
failures never raise out of :meth:`SearchSource.search`: they come back as ``SearchOutcome.failure`` with whatever
records arrived before the failure, so the stage goes on with the other sources and the next run retries only what
is missing.
"""

from __future__ import annotations

from datetime import date
from typing import Protocol, runtime_checkable

from pydantic import BaseModel, Field

from agentr_dagster.domain.boolean_query import Node
from agentr_dagster.domain.contracts import PaperRecord


class SourceQuery(BaseModel):
    """One of a project's queries: ``name`` is ``boolean``, ``keywords`` or ``string-01`` .. ``string-10``."""

    name: str
    text: str  # the project's own wording
    tree: Node | None = None  # the parsed Boolean query, when the query is the Boolean one

    model_config = {"arbitrary_types_allowed": True}


class SourceHit(BaseModel):
    """A record as one source returned it for one query."""

    record: PaperRecord  # source_format = the source name, source_id = the source's own id (W…, PMID, PMCID, arXiv id)
    source: str
    source_id: str
    query_name: str
    rank: int  # 1-based position in the source's answer
    references: list[str] = Field(default_factory=list)  # source ids of works it cites, where the source tells


class SearchOutcome(BaseModel):
    """What one (source, query) search brought back."""

    source: str
    query_name: str
    translated: str  # the query as sent, in the source's dialect (shown in asset metadata)
    hits: list[SourceHit] = Field(default_factory=list)
    total: int | None = None  # how many the source says match
    requests: int = 0  # HTTP requests actually sent (cache hits are not requests)
    cached_pages: int = 0
    failure: str | None = None  # None when the search completed up to its bound
    failure_kind: str | None = None  # "query": the server refused this request; "source": it is down for the run
    shards: int = 1  # OR-shards sent (a query too long for one URL)


@runtime_checkable
class SearchSource(Protocol):
    name: str

    def translate(self, query: SourceQuery) -> str:
        """The query in this source's dialect."""
        ...

    def search(self, query: SourceQuery, *, max_results: int, since: date | None = None) -> SearchOutcome:
        """Run ``query`` (records published on or after ``since`` when given), at most ``max_results`` hits."""
        ...


class CountingSource(SearchSource, Protocol):
    """A source that also tells how many of its records match a query, and how many it holds (``counts`` True):
    a background of the database the query runs on (``sources/background.py``)."""

    counts: bool

    def count(self, query: SourceQuery) -> int:
        """How many records match ``query`` (FetchFailure when the source cannot say)."""
        ...

    def record_count(self) -> int:
        """How many records the source holds (FetchFailure when it cannot say)."""
        ...
