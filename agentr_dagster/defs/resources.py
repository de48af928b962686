"""Dagster resources: the domain store, the LLM backend and the search sources. Thin wrappers; the logic lives
elsewhere."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

from dagster import ConfigurableResource, EnvVar
from pydantic import BaseModel, Field, SecretStr

from agentr_dagster.llm.backends import StageBackend, make_backend
from agentr_dagster.llm.gateway import LLMSettings
from agentr_dagster.settings import LLMConfig, Settings, SourcesConfig, StoreConfig, agentr_home, get_settings

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
    """The settings' llm section (``settings.LLMConfig``): an OpenAI-compatible endpoint, or the offline backend
    when no base URL is set. ``settings`` holds values by field name (``{"model": ..., "rpm": ...}``, or one of
    what the gateway tunes, ``gateway.LLMSettings``) laid over the environment's section; the endpoint and key come
    apart, so ``resources_from_env`` can hand them to Dagster as ``EnvVar`` (never in the run config the UI shows)."""

    base_url: str = Field(default="", description="AGENTR_LLM_BASE_URL; empty: the environment's")
    api_key: str = Field(default="", description="AGENTR_LLM_API_KEY; empty: the environment's")
    settings: dict[str, Any] = Field(default_factory=dict, description="the llm section's other values by field "
                                     "name (settings.LLMConfig); a field left out takes the environment's")

    def llm_settings(self) -> LLMSettings:
        """The section as this run sees it, with what the gateway needs besides (the one place it is built)."""
        base = get_settings()
        given = {k: v for k, v in (("base_url", self.base_url), ("api_key", self.api_key)) if v}
        return LLMSettings.model_validate({
            **dict(base.llm), "unsettled_dir": str(agentr_home() / "unsettled"), "redis_url": base.store.redis_url,
            **self.settings, **given})

    def backend(self, store: DomainStore) -> StageBackend:
        settings = self.llm_settings()
        return make_backend(settings if settings.configured else None, store)

    def scoring_plan(self):
        """When scoring may stop early (stages.scoring.ScoringPlan); the default scores every candidate."""
        from decimal import Decimal

        from agentr_dagster.stages.scoring import ScoringPlan

        settings = self.llm_settings()
        budget = settings.scoring_budget_credits
        return ScoringPlan(stop_at_recall=settings.stop_at_recall, model=settings.stop_model,
                           budget_credits=None if budget is None else Decimal(str(budget)))


class SourcesResource(ConfigurableResource):
    """The settings' sources section (``settings.SourcesConfig``: which sources run, their base URLs, bounds).
    ``settings`` holds the section's values by field name laid over the environment's, so ``SourcesResource()`` is
    the deployment's configuration; the API keys are read from the environment when a step builds the clients, so
    no key ever appears in the run config."""

    settings: dict[str, Any] = Field(default_factory=dict, description="the sources section's values by field "
                                     "name (settings.SourcesConfig); a field left out takes the environment's")

    def section(self) -> SourcesConfig:
        """The section this resource stands for, validated as the environment's would be."""
        section = get_settings().sources
        return SourcesConfig.model_validate({**dict(section), **self.settings}) if self.settings else section

    def build(self, store: DomainStore, *, refresh: bool = False, names: list[str] | None = None):
        """The enabled sources over the store's response cache; ``refresh`` re-sends every request."""
        from agentr_dagster.sources.cache import ResponseCache
        from agentr_dagster.sources.registry import build_sources

        settings = get_settings().model_copy(update={"sources": self.section()})
        return build_sources(settings, ResponseCache(store, refresh=refresh), names=names)

    def enabled(self) -> tuple[str, ...]:
        return self.section().names


def _secret_or_value(value: str, variable: str, *, resolve: bool):
    """EnvVar keeps secrets (and URLs that may hold passwords) out of the run config shown in the UI; outside
    Dagster (resolve=True) the value itself is used, since nothing would resolve the EnvVar."""
    if not value:
        return ""
    return value if resolve else EnvVar(variable)


def resources_from_env(*, resolve: bool = False, settings: Settings | None = None) -> dict:
    """The resources as the settings (AGENTR_* variables) configure them; resolve=True outside a Dagster run."""
    s = settings or get_settings()
    llm = s.llm
    return {
        "store": StoreResource(
            database_url=_secret_or_value(s.store.database_url, StoreConfig.variable("database_url"), resolve=resolve)),
        "llm": LLMResource(
            base_url=_secret_or_value(llm.base_url, LLMConfig.variable("base_url"), resolve=resolve),
            api_key=_secret_or_value(llm.api_key.get_secret_value(), LLMConfig.variable("api_key"), resolve=resolve),
            settings=llm.model_dump(exclude={"base_url", "api_key"}, exclude_none=True),
        ),
        "sources": SourcesResource(
            settings=s.sources.model_dump(mode="json", exclude=_secret_fields(s.sources), exclude_none=True)),
    }


def _secret_fields(section: BaseModel) -> set[str]:
    return {name for name, value in section if isinstance(value, SecretStr)}
