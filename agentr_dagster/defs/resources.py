"""Dagster resources: the domain store, the LLM backend and the search sources. Thin wrappers; the logic lives
elsewhere."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from dagster import ConfigurableResource, EnvVar
from pydantic import Field, SecretStr

from agentr_dagster.domain.attempts import AttemptCap
from agentr_dagster.limits import EndpointLimits
from agentr_dagster.llm.backends import StageBackend, make_backend
from agentr_dagster.llm.gateway import LLMSettings
from agentr_dagster.settings import DEFAULT_MODEL, Settings, agentr_home, get_settings

if TYPE_CHECKING:
    from agentr_dagster.store import DomainStore

_stores: dict[str, DomainStore] = {}
_stores_lock = threading.Lock()


def open_store(url: str) -> DomainStore:
    """One DomainStore (engine and pool) per database URL per process."""
    from agentr_dagster.store import DomainStore

    with _stores_lock:
        if url not in _stores:
            _stores[url] = DomainStore(url)
        return _stores[url]


def close_all_stores() -> None:
    """Dispose every cached store's connection pool (tests and short-lived tools)."""
    with _stores_lock:
        for store in _stores.values():
            store.close()
        _stores.clear()


class StoreResource(ConfigurableResource):
    """The domain store: SQLite under AGENTR_HOME by default, PostgreSQL via AGENTR_DATABASE_URL."""

    database_url: str = Field(default="", description="SQLAlchemy URL; empty means the AGENTR_HOME default")

    def url(self) -> str:
        from agentr_dagster.store import default_database_url

        return self.database_url or default_database_url(agentr_home())

    def get(self):
        return open_store(self.url())


class LLMResource(ConfigurableResource):
    """An OpenAI-compatible endpoint, or the offline backend when base_url is empty."""

    base_url: str = Field(default="", description="OpenAI-compatible base URL; empty = offline backend")
    api_key: str = Field(default="", description="API key; set it from the environment with EnvVar")
    model: str = DEFAULT_MODEL
    provider: str = "default"
    concurrency: int = Field(default=4, ge=1, le=256, description="concurrent scoring calls per run")
    timeout_s: float = 120.0
    max_attempts: int = 4
    max_unanswered: int = Field(default=3, ge=0, description="calls without an answer one request may cost per "
                                "retry window (the durable attempt cap)")
    retry_window_hours: float = Field(default=6.0, gt=0, description="the window of max_unanswered")
    schema_hint: bool = Field(default=False, description="send the JSON schema in response_format (llama.cpp)")
    max_concurrent_calls: int | None = Field(default=None, description="endpoint-wide concurrent calls")
    requests_per_minute: int | None = Field(default=None, description="endpoint-wide request budget")
    tokens_per_minute: int | None = Field(default=None, description="endpoint-wide token budget")
    redis_url: str = Field(default="", description="shares the limits across processes and machines")
    stop_at_recall: float | None = Field(
        default=None, gt=0, le=1,
        description="LLM scoring stops once the stopping rule says this recall is reached; unset = score every paper")
    scoring_budget_credits: float | None = Field(
        default=None, ge=0, description="credits a project's scoring may spend over all runs; unset = no cap")

    def settings(self) -> LLMSettings | None:
        if not self.base_url:
            return None
        return LLMSettings(
            base_url=self.base_url, api_key=SecretStr(self.api_key), model=self.model, provider=self.provider,
            timeout_s=self.timeout_s, max_attempts=self.max_attempts, schema_hint=self.schema_hint,
            cap=AttemptCap(unanswered=self.max_unanswered, unanswered_window_s=self.retry_window_hours * 3600),
            unsettled_dir=str(agentr_home() / "unsettled"),
            limits=EndpointLimits(
                max_concurrent=self.max_concurrent_calls, requests_per_minute=self.requests_per_minute,
                tokens_per_minute=self.tokens_per_minute, redis_url=self.redis_url or None,
            ),
        )

    def backend(self, store: DomainStore) -> StageBackend:
        return make_backend(self.settings(), store)

    def scoring_plan(self):
        """When scoring may stop early (stages.scoring.ScoringPlan); the default scores every candidate."""
        from decimal import Decimal

        from agentr_dagster.stages.scoring import ScoringPlan

        budget = self.scoring_budget_credits
        return ScoringPlan(stop_at_recall=self.stop_at_recall,
                           budget_credits=None if budget is None else Decimal(str(budget)))


class SourcesResource(ConfigurableResource):
    """The search sources (``AGENTR_SOURCES``; none by default: offline), their base URLs and request timeout.
    A field left empty takes the settings' value, so ``SourcesResource()`` is the deployment's configuration; the
    API keys are read from the settings when a step builds the clients, so no key ever appears in the run config."""

    sources: str = Field(default="", description="comma list of search sources; empty: AGENTR_SOURCES")
    openalex_url: str = Field(default="", description="OpenAlex base URL; empty: AGENTR_OPENALEX_URL")
    pubmed_url: str = Field(default="", description="PubMed E-utilities base URL; empty: AGENTR_PUBMED_URL")
    europepmc_url: str = Field(default="", description="Europe PMC REST base URL; empty: AGENTR_EUROPEPMC_URL")
    arxiv_url: str = Field(default="", description="arXiv API base URL; empty: AGENTR_ARXIV_URL")
    crossref_url: str = Field(default="", description="Crossref base URL; empty: AGENTR_CROSSREF_URL")
    timeout_s: float | None = Field(default=None, gt=0, description="seconds per request; None: AGENTR_SOURCE_TIMEOUT")
    max_results: int | None = Field(default=None, ge=1, description="records per source and query; None: the settings'")

    def settings(self) -> Settings:
        """The settings with this resource's fields laid over them."""
        update: dict = {f"{name}_url": getattr(self, f"{name}_url") for name in
                        ("openalex", "pubmed", "europepmc", "arxiv", "crossref") if getattr(self, f"{name}_url")}
        if self.sources:
            update["sources"] = self.sources
        if self.timeout_s is not None:
            update["source_timeout"] = self.timeout_s
        if self.max_results is not None:
            update["source_max_results"] = self.max_results
        base = get_settings()
        return Settings.model_validate({**base.model_dump(), **update}) if update else base

    def build(self, store: DomainStore, *, refresh: bool = False, names: list[str] | None = None):
        """The enabled sources over the store's response cache; ``refresh`` re-sends every request."""
        from agentr_dagster.sources.cache import ResponseCache
        from agentr_dagster.sources.registry import build_sources

        return build_sources(self.settings(), ResponseCache(store, refresh=refresh), names=names)

    def enabled(self) -> tuple[str, ...]:
        return self.settings().sources


def _secret_or_value(value: str, variable: str, *, resolve: bool):
    """EnvVar keeps secrets (and URLs that may hold passwords) out of the run config shown in the UI; outside
    Dagster (resolve=True) the value itself is used, since nothing would resolve the EnvVar."""
    if not value:
        return ""
    return value if resolve else EnvVar(variable)


def resources_from_env(*, resolve: bool = False, settings: Settings | None = None) -> dict:
    """The resources as the settings (AGENTR_* variables) configure them; resolve=True outside a Dagster run."""
    s = settings or get_settings()
    return {
        "store": StoreResource(
            database_url=_secret_or_value(s.database_url, "AGENTR_DATABASE_URL", resolve=resolve)),
        "llm": LLMResource(
            base_url=_secret_or_value(s.llm_base_url, "AGENTR_LLM_BASE_URL", resolve=resolve),
            api_key=_secret_or_value(s.llm_api_key.get_secret_value(), "AGENTR_LLM_API_KEY", resolve=resolve),
            model=s.llm_model,
            provider=s.llm_provider,
            concurrency=s.llm_concurrency,
            timeout_s=s.llm_timeout_s,
            max_unanswered=s.llm_max_unanswered,
            retry_window_hours=s.llm_retry_window_hours,
            schema_hint=s.llm_schema_hint,
            max_concurrent_calls=s.llm_max_concurrent,
            requests_per_minute=s.llm_rpm,
            tokens_per_minute=s.llm_tpm,
            redis_url=s.redis_url,
            stop_at_recall=s.stop_at_recall,
            scoring_budget_credits=s.scoring_budget_credits,
        ),
        "sources": SourcesResource(
            sources=",".join(s.sources), openalex_url=s.openalex_url, pubmed_url=s.pubmed_url,
            europepmc_url=s.europepmc_url, arxiv_url=s.arxiv_url, crossref_url=s.crossref_url,
            timeout_s=s.source_timeout, max_results=s.source_max_results),
    }
