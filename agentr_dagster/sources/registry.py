"""Which client serves which source name, and each public API's base URL (the settings' defaults)."""

from __future__ import annotations

from agentr_dagster.sources.arxiv import ArxivSource
from agentr_dagster.sources.crossref import CrossrefClient
from agentr_dagster.sources.europepmc import EuropePMCSource
from agentr_dagster.sources.openalex import OpenAlexSource
from agentr_dagster.sources.pubmed import PubMedSource

SEARCH_SOURCES: dict[str, type] = {
    "openalex": OpenAlexSource,
    "pubmed": PubMedSource,
    "europepmc": EuropePMCSource,
    "arxiv": ArxivSource,
}
CLIENTS: dict[str, type] = {**SEARCH_SOURCES, "crossref": CrossrefClient}

PUBLIC_BASE_URLS = {
    "openalex": "https://api.openalex.org",
    "pubmed": "https://eutils.ncbi.nlm.nih.gov/entrez/eutils",
    "europepmc": "https://www.ebi.ac.uk/europepmc/webservices/rest",
    "arxiv": "https://export.arxiv.org",
    "crossref": "https://api.crossref.org",
}
