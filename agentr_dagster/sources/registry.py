"""Which client serves which source name, and the clients a deployment runs: :func:`build_sources`, a pure
function of the settings (no Dagster, no environment).

``AGENTR_SOURCES`` names them; each gets its base URL (``settings.SourcesConfig.<name>_url``, the public API by
default), the contact e-mail and (PubMed, OpenAlex) its API key from the settings, and the one response cache.
Crossref is not searched: it fills missing abstracts, years and venues of records that carry a DOI
(:attr:`EnabledSources.enricher`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from agentr_dagster.settings import Settings
from agentr_dagster.sources.arxiv import ArxivSource
from agentr_dagster.sources.crossref import CrossrefClient
from agentr_dagster.sources.europepmc import EuropePMCSource
from agentr_dagster.sources.http import source_limiter
from agentr_dagster.sources.openalex import OpenAlexSource
from agentr_dagster.sources.pubmed import PubMedSource

if TYPE_CHECKING:
    from agentr_dagster.sources.cache import ResponseCache
    from agentr_dagster.sources.contract import SearchSource

SEARCH_SOURCES: dict[str, type] = {
    "openalex": OpenAlexSource,
    "pubmed": PubMedSource,
    "europepmc": EuropePMCSource,
    "arxiv": ArxivSource,
}
CLIENTS: dict[str, type] = {**SEARCH_SOURCES, "crossref": CrossrefClient}


@dataclass
class EnabledSources:
    """The searchable sources in the order configured, and the Crossref enricher when enabled."""

    search: list[SearchSource] = field(default_factory=list)
    enricher: CrossrefClient | None = None

    @property
    def names(self) -> list[str]:
        return [s.name for s in self.search] + (["crossref"] if self.enricher is not None else [])

    def by_name(self, name: str) -> SearchSource | None:
        return next((s for s in self.search if s.name == name), None)


def make_client(name: str, settings: Settings, cache: ResponseCache, limiter=None):
    """One client, configured from the settings (``<name>_url``, the contact e-mail, its ``<name>_api_key`` where
    it has one) and limited to the API's request rate through the project's limiter (shared over Redis when
    ``AGENTR_REDIS_URL`` is set). ``AGENTR_SOURCE_REQUEST_INTERVAL`` (a mirror or a test server) replaces both the
    spacing and that rate."""
    sources = settings.sources
    secret = getattr(sources, f"{name}_api_key", None)  # read from the environment only, never stored
    key = secret.get_secret_value() if secret is not None else ""
    if limiter is None and sources.request_interval is None:
        limiter = source_limiter(name, redis_url=settings.store.redis_url or None, api_key=key or None)
    return CLIENTS[name](sources.base_url(name), cache=cache, contact_email=sources.contact_email or None,
                         api_key=key or None, limiter=limiter, request_interval=sources.request_interval,
                         timeout=sources.timeout)


def build_sources(settings: Settings, cache: ResponseCache, *, names: list[str] | None = None,
                  limiter=None) -> EnabledSources:
    """The clients for ``settings.sources.names`` (or ``names``, a subset such as ``["openalex"]`` for
    snowballing)."""
    enabled = EnabledSources()
    for name in settings.sources.names if names is None else names:
        client = make_client(name, settings, cache, limiter)
        if name == "crossref":
            enabled.enricher = client
        else:
            enabled.search.append(client)
    return enabled
