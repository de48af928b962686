"""Which search sources a deployment runs: a pure function of the settings (no Dagster, no environment).

``AGENTR_SOURCES`` names them; each gets its base URL, the contact e-mail and (PubMed, OpenAlex) its API key from
the settings, and the one response cache. Crossref is not searched: it fills missing abstracts, years and venues of
records that carry a DOI (:attr:`EnabledSources.enricher`).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from agentr_dagster.settings import Settings

if TYPE_CHECKING:
    from agentr_dagster.sources.cache import ResponseCache
    from agentr_dagster.sources.contract import SearchSource


@dataclass
class EnabledSources:
    """The searchable sources in the order configured, and the Crossref enricher when enabled."""

    search: list[SearchSource] = field(default_factory=list)
    enricher: Any | None = None  # sources.crossref.CrossrefClient: enrich(records) -> records

    @property
    def names(self) -> list[str]:
        return [s.name for s in self.search] + (["crossref"] if self.enricher is not None else [])

    def by_name(self, name: str) -> SearchSource | None:
        return next((s for s in self.search if s.name == name), None)


# name -> (module, class, settings field of the base URL, settings field of the API key or None)
CLIENTS = {
    "openalex": ("openalex", "OpenAlexSource", "openalex_url", "openalex_api_key"),
    "pubmed": ("pubmed", "PubMedSource", "pubmed_url", "pubmed_api_key"),
    "europepmc": ("europepmc", "EuropePMCSource", "europepmc_url", None),
    "arxiv": ("arxiv", "ArxivSource", "arxiv_url", None),
    "crossref": ("crossref", "CrossrefClient", "crossref_url", None),
}


def _client(name: str, settings: Settings, cache: ResponseCache, limiter=None):
    module, class_name, url_field, key_field = CLIENTS[name]
    cls = getattr(importlib.import_module(f"agentr_dagster.sources.{module}"), class_name)
    key = getattr(settings, key_field).get_secret_value() if key_field else ""
    return cls(getattr(settings, url_field), cache=cache, contact_email=settings.contact_email or None,
               api_key=key or None, limiter=limiter)


def build_sources(settings: Settings, cache: ResponseCache, *, names: list[str] | None = None,
                  limiter=None) -> EnabledSources:
    """The clients for ``settings.sources`` (or ``names``, a subset such as ``["openalex"]`` for snowballing)."""
    enabled = EnabledSources()
    for name in settings.sources if names is None else names:
        client = _client(name, settings, cache, limiter)
        if name == "crossref":
            enabled.enricher = client
        else:
            enabled.search.append(client)
    return enabled
