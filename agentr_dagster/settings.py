"""Every setting in one place: the one module that reads the environment.

`get_settings()` reads the AGENTR_* variables (and DAGSTER_HOME, the tiktoken cache) each time it is called, so
nothing is read at import time and a changed environment (a test, a long-lived process) is seen at once.
Everything else asks this module: resources are built from it, and "is an LLM configured?" is decided here.
docs/configuration.md lists the same variables (a test checks it).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError, field_validator

DEFAULT_MODEL = "gpt-4o-mini"
SOURCE_NAMES = ("openalex", "pubmed", "europepmc", "arxiv", "crossref")  # the search sources AGENTR_SOURCES names
_SECRET_WORDS = ("KEY", "SECRET", "PASSWORD", "TOKEN")


class Settings(BaseModel):
    """The deployment's configuration. Field names are the variable names without the AGENTR_ prefix."""

    model_config = ConfigDict(frozen=True)

    home: Path = Field(Path(".agentr"), description="AGENTR_HOME: inbox, results, SQLite store, Dagster home")
    dagster_home: Path | None = Field(None, description="DAGSTER_HOME (default $AGENTR_HOME/dagster)")
    database_url: str = Field("", description="AGENTR_DATABASE_URL (default SQLite under AGENTR_HOME)")
    db_pool_size: int = Field(8, ge=1, description="AGENTR_DB_POOL_SIZE: connections kept per process")
    db_pool_overflow: int = Field(0, ge=0, description="AGENTR_DB_POOL_OVERFLOW: extra connections on demand")

    llm_base_url: str = Field("", description="AGENTR_LLM_BASE_URL: OpenAI-compatible endpoint; empty = offline")
    llm_api_key: SecretStr = Field(SecretStr(""), description="AGENTR_LLM_API_KEY")
    llm_model: str = Field(DEFAULT_MODEL, description="AGENTR_LLM_MODEL")
    llm_provider: str = Field("default", description="AGENTR_LLM_PROVIDER (selects the pricing row)")
    llm_concurrency: int = Field(4, ge=1, le=256, description="AGENTR_LLM_CONCURRENCY: scoring calls per run")
    llm_timeout_s: float = Field(120.0, gt=0, description="AGENTR_LLM_TIMEOUT: seconds per LLM request")
    llm_max_unanswered: int = Field(3, ge=0, description="AGENTR_LLM_MAX_UNANSWERED: calls without an answer "
                                    "(timeouts, 429, 5xx) one request may cost within the retry window")
    llm_retry_window_hours: float = Field(6.0, gt=0, description="AGENTR_LLM_RETRY_WINDOW_HOURS: the window "
                                          "of AGENTR_LLM_MAX_UNANSWERED; older unanswered attempts no longer count")
    llm_schema_hint: bool = Field(False, description="AGENTR_LLM_SCHEMA_HINT=1 sends the JSON schema (llama.cpp)")
    llm_max_concurrent: int | None = Field(None, ge=1, description="AGENTR_LLM_MAX_CONCURRENT: endpoint-wide")
    llm_rpm: int | None = Field(None, ge=1, description="AGENTR_LLM_RPM: endpoint-wide requests per minute")
    llm_tpm: int | None = Field(None, ge=1, description="AGENTR_LLM_TPM: endpoint-wide tokens per minute")
    redis_url: str = Field("", description="AGENTR_REDIS_URL: shares the endpoint limits across processes")
    stop_at_recall: float | None = Field(None, gt=0, le=1, description="AGENTR_STOP_AT_RECALL: LLM scoring "
                                         "may stop once this recall is reached (stopping rule); unset = score all")
    scoring_budget_credits: float | None = Field(None, ge=0, description="AGENTR_SCORING_BUDGET_CREDITS: credits "
                                                 "a project's scoring may spend in all; unset = no cap")

    lake_dir: Path | None = Field(None, description="AGENTR_LAKE_DIR (default $AGENTR_HOME/lake)")
    lake_per_query: int = Field(20, ge=0, description="AGENTR_LAKE_PER_QUERY: lake papers taken per query")
    model_dir: Path | None = Field(None, description="AGENTR_MODEL_DIR: the static embedding model")
    encoder_threads: int = Field(0, ge=0, description="AGENTR_ENCODER_THREADS: transformer threads (0 = all cores)")
    embedding_cache: Path | None = Field(
        None, description="AGENTR_EMBEDDING_CACHE: transformer vectors per text (default $AGENTR_HOME/embeddings)"
    )
    import_max_bytes: int | None = Field(None, ge=1, description="AGENTR_IMPORT_MAX_BYTES")
    import_max_rows: int | None = Field(None, ge=1, description="AGENTR_IMPORT_MAX_ROWS")
    import_max_field_chars: int | None = Field(None, ge=1, description="AGENTR_IMPORT_MAX_FIELD_CHARS")

    sensor_files_per_tick: int = Field(25, ge=1, description="AGENTR_SENSOR_FILES_PER_TICK")
    labels_quiet_seconds: float = Field(60.0, ge=0, description="AGENTR_LABELS_QUIET_SECONDS: how long a "
                                        "project's labels must be unchanged before the labels sensor re-ranks it")
    inbox_job: str = Field("", description="AGENTR_INBOX_JOB: the job the inbox launches (default the main job)")
    repair_max_per_day: int = Field(2, ge=0, description="AGENTR_REPAIR_MAX_PER_DAY: repair runs per project")
    repair_cron: str = Field("17 * * * *", description="AGENTR_REPAIR_CRON: when the repair schedule ticks")
    lease_ttl_s: float = Field(180.0, gt=0, description="AGENTR_LEASE_TTL_S: a lease or claim held from another "
                               "host, boot or PID namespace is taken over after this long without a heartbeat "
                               "(a late answer of the old holder is then refused by the settlement fence)")

    sources: tuple[str, ...] = Field((), description="AGENTR_SOURCES: comma list of search sources; empty = offline")
    openalex_url: str = Field("https://api.openalex.org", description="AGENTR_OPENALEX_URL")
    pubmed_url: str = Field("https://eutils.ncbi.nlm.nih.gov/entrez/eutils", description="AGENTR_PUBMED_URL")
    europepmc_url: str = Field("https://www.ebi.ac.uk/europepmc/webservices/rest", description="AGENTR_EUROPEPMC_URL")
    arxiv_url: str = Field("https://export.arxiv.org", description="AGENTR_ARXIV_URL")
    crossref_url: str = Field("https://api.crossref.org", description="AGENTR_CROSSREF_URL")
    contact_email: str = Field("", description="AGENTR_CONTACT_EMAIL: sent to OpenAlex and Crossref (polite pool)")
    pubmed_api_key: SecretStr = Field(SecretStr(""), description="AGENTR_PUBMED_API_KEY: NCBI E-utilities key")
    openalex_api_key: SecretStr = Field(SecretStr(""), description="AGENTR_OPENALEX_API_KEY")
    source_max_results: int = Field(200, ge=1, description="AGENTR_SOURCE_MAX_RESULTS: records per source and query")
    source_request_interval: float | None = Field(None, ge=0, description="AGENTR_SOURCE_REQUEST_INTERVAL")
    source_timeout: float = Field(30.0, gt=0, description="AGENTR_SOURCE_TIMEOUT: seconds per source request")
    living_review_cron: str = Field("0 6 * * 1", description="AGENTR_LIVING_REVIEW_CRON: when living reviews update")

    celery_broker_url: str = Field("", description="AGENTR_CELERY_BROKER_URL")
    celery_backend_url: str = Field("", description="AGENTR_CELERY_BACKEND_URL")
    celery_queue: str = Field("", description="AGENTR_CELERY_QUEUE")

    asreview_python: str = Field("", description="AGENTR_ASREVIEW_PYTHON: interpreter with ASReview (bench)")
    bench_cache: Path | None = Field(None, description="AGENTR_BENCH_CACHE (default ~/.cache/agentr-dagster/bench)")
    tiktoken_cache_dir: str | None = Field(None, description="TIKTOKEN_CACHE_DIR / DATA_GYM_CACHE_DIR")

    @field_validator("*", mode="before")
    @classmethod
    def _blank_is_unset(cls, value, info):
        # An empty TIKTOKEN_CACHE_DIR means "no cache" to tiktoken, so that one keeps its value as given.
        if not isinstance(value, str) or info.field_name == "tiktoken_cache_dir":
            return value
        return value.strip() or cls.model_fields[info.field_name].default

    @field_validator("sources", mode="before")
    @classmethod
    def _known_sources(cls, value):
        names = value.split(",") if isinstance(value, str) else list(value or ())
        names = [str(n).strip().lower() for n in names if str(n).strip()]
        unknown = [n for n in names if n not in SOURCE_NAMES]
        if unknown:
            raise ValueError(f"unknown source {', '.join(map(repr, unknown))}; choose from {', '.join(SOURCE_NAMES)}")
        return tuple(dict.fromkeys(names))  # in the order given, each once

    @property
    def llm_configured(self) -> bool:
        """The one answer to "is an LLM configured?": an endpoint is set (else the offline backend runs)."""
        return bool(self.llm_base_url)

    def fingerprint(self) -> str:
        """A hash of the configuration (secrets by presence only), to tell a job built for another one."""
        values = self.model_dump()
        for name in ("llm_api_key", "pubmed_api_key", "openalex_api_key"):
            values[name] = bool(getattr(self, name).get_secret_value())
        for name in ("database_url", "redis_url", "celery_broker_url", "celery_backend_url"):
            values[name] = _without_password(values[name])
        return hashlib.sha256(repr(sorted(values.items())).encode()).hexdigest()[:16]


_VARIABLES = {name: f"AGENTR_{name.upper()}" for name in Settings.model_fields}
_VARIABLES.update(dagster_home="DAGSTER_HOME", llm_timeout_s="AGENTR_LLM_TIMEOUT", tiktoken_cache_dir="")


def variable_name(field: str) -> str:
    """The environment variable behind a settings field (for error messages and docs/configuration.md)."""
    return _VARIABLES[field]


def get_settings() -> Settings:
    """The settings as the environment gives them now. A bad value names its variable."""
    env = os.environ
    # environment strings (and the one bool below), validated by Settings
    raw: dict[str, Any] = {f: env[v] for f, v in _VARIABLES.items() if v and v in env}
    tiktoken = env.get("TIKTOKEN_CACHE_DIR", env.get("DATA_GYM_CACHE_DIR"))
    if tiktoken is not None:
        raw["tiktoken_cache_dir"] = tiktoken
    if "llm_schema_hint" in raw:
        raw["llm_schema_hint"] = raw["llm_schema_hint"] == "1"
    try:
        return Settings(**raw)
    except ValueError as exc:
        errors = exc.errors() if isinstance(exc, ValidationError) else []
        names = ", ".join(sorted({variable_name(str(e["loc"][0])) for e in errors if e.get("loc")}))
        raise ValueError(f"invalid setting {names}: {exc}") from exc


def _without_password(url: str) -> str:
    head, at, tail = url.rpartition("@")
    if not at or "://" not in head:
        return url
    scheme, _, user = head.partition("://")
    return f"{scheme}://{user.split(':')[0]}@{tail}"


def child_env(**extra: str) -> dict[str, str]:
    """The environment for a child process: this one's, plus `extra`."""
    return {**os.environ, **extra}


def use_home(home: Path) -> None:
    """Point this process (and what it starts) at another AGENTR_HOME (benchmarks that build a scratch home)."""
    os.environ["AGENTR_HOME"] = str(home)


def keep_hugging_face_offline() -> None:
    """Model loaders must never reach the network: the models ship in packages or are built once."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")


# ---------------------------------------------------------------- where things live
def agentr_home() -> Path:
    home = get_settings().home.expanduser().resolve()
    home.mkdir(parents=True, exist_ok=True)
    return home


def inbox_dir(home: Path | None = None) -> Path:
    return (home or agentr_home()) / "inbox"


def rejected_dir(home: Path | None = None) -> Path:
    return inbox_dir(home) / "rejected"


def processed_dir(home: Path | None = None) -> Path:
    return inbox_dir(home) / "processed"


def results_dir(slug: str, home: Path | None = None) -> Path:
    return (home or agentr_home()) / "results" / slug


def lake_dir() -> Path:
    """``$AGENTR_LAKE_DIR`` if set, else ``$AGENTR_HOME/lake``."""
    configured = get_settings().lake_dir
    return configured.expanduser().resolve() if configured else agentr_home() / "lake"


def dagster_home(home: Path | None = None) -> Path:
    """DAGSTER_HOME if set, else $AGENTR_HOME/dagster with an embedded SQLite instance."""
    configured = get_settings().dagster_home
    if configured:
        return configured.expanduser().resolve()
    path = (home or agentr_home()) / "dagster"
    path.mkdir(parents=True, exist_ok=True)
    config = path / "dagster.yaml"
    if not config.exists():
        from importlib import resources

        config.write_text(resources.files("agentr_dagster.data").joinpath("dagster.yaml").read_text())
    return path

