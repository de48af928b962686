"""Every setting in one place: the one module that reads the environment.

The settings are one model (:class:`Settings`), nested per concern: ``llm``, ``sources``, ``store``, ``sensors``,
``paths``, ``lake``, ``encoder``, ``imports``, ``celery``, ``bench``. Each section is a pydantic-settings model whose
field ``x`` is the variable ``<its prefix>X`` (``LLMConfig.rpm`` is ``AGENTR_LLM_RPM``), unless the field names its
variable itself (``validation_alias``). `get_settings()` reads them each time it is called, so nothing is read at
import time and a changed environment (a test, a long-lived process) is seen at once. Resources hold the sections
(defs/resources.py); docs/configuration.md is generated from this model (``python scripts/config_reference.py``;
a test fails while they differ).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, SecretStr, ValidationError, field_validator
from pydantic_settings import BaseSettings, NoDecode, PydanticBaseSettingsSource, SettingsConfigDict


class _Section(BaseSettings):
    """A section of the settings. A blank value counts as unset (its default)."""

    model_config = SettingsConfigDict(env_prefix="AGENTR_", frozen=True, populate_by_name=True, extra="forbid")

    @classmethod
    def settings_customise_sources(
        cls, settings_cls: type[BaseSettings], init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource, dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        return init_settings, env_settings  # the process environment only: no .env file, no secrets directory

    @field_validator("*", mode="before")
    @classmethod
    def _blank_is_unset(cls, value, info):
        # An empty TIKTOKEN_CACHE_DIR means "no cache" to tiktoken, so that one keeps its value as given.
        if not isinstance(value, str) or info.field_name == "tiktoken_cache_dir":
            return value
        return value.strip() or cls.model_fields[info.field_name].get_default(call_default_factory=True)

    @classmethod
    def variable(cls, field: str) -> str:
        """The environment variable behind a field (the first one, where several are read)."""
        alias = cls.model_fields[field].validation_alias
        if isinstance(alias, AliasChoices):
            return str(alias.choices[0])
        return alias if isinstance(alias, str) else cls.model_config.get("env_prefix", "") + field.upper()


class PathsConfig(_Section):
    """Where things live."""

    home: Path = Field(default=Path(".agentr"), description="where the inbox, results, the SQLite store and Dagster's "
                       "home live")
    dagster_home: Path | None = Field(default=None, validation_alias="DAGSTER_HOME", description="Dagster's instance "
                                      "(embedded SQLite unless its `dagster.yaml` says otherwise); unset: "
                                      "`$AGENTR_HOME/dagster`")
    tiktoken_cache_dir: str | None = Field(
        default=None, validation_alias=AliasChoices("TIKTOKEN_CACHE_DIR", "DATA_GYM_CACHE_DIR"),
        description="where `agentr estimate`'s tokenizer files are cached (empty: no cache); unset: tiktoken's own")


class StoreConfig(_Section):
    """The domain store, and what processes share through a database or Redis."""

    database_url: str = Field(default="", description="the domain store (`postgresql+psycopg2://…` for PostgreSQL); "
                              "unset: SQLite in `$AGENTR_HOME`")
    db_pool_size: int = Field(default=8, ge=1, description="database connections kept per process")
    db_pool_overflow: int = Field(default=0, ge=0, description="database connections opened on demand beyond the pool")
    redis_url: str = Field(default="", description="shares the endpoint limits (LLM and search sources, and 429 "
                           "pauses) across processes and machines")
    lease_ttl_s: float = Field(default=180.0, gt=0, description="a lease or claim held from another host, boot or PID "
                               "namespace is taken over after this long without a heartbeat (in its own PID "
                               "namespace: only when its process is gone; a late answer of the old holder is then "
                               "refused by the settlement fence)")


class LLMConfig(_Section):
    """The LLM endpoint, its limits and the attempt cap. The gateway's `LLMSettings` extends this section."""

    model_config = SettingsConfigDict(env_prefix="AGENTR_LLM_")

    base_url: str = Field(default="", description="an OpenAI-compatible endpoint; set means \"an LLM is configured\"; "
                          "unset: the offline backend")
    api_key: SecretStr = Field(default=SecretStr(""), description="the endpoint's key (environment only, never stored)")
    model: str = Field(default="gpt-4o-mini", description="the model")
    provider: str = Field(default="default", description="the provider whose price row applies (`agentr pricing`)")
    concurrency: int = Field(default=4, ge=1, le=256, description="scoring calls in flight per run")
    timeout_s: float = Field(default=120.0, gt=0, validation_alias="AGENTR_LLM_TIMEOUT",
                             description="seconds an LLM request may take")
    max_unanswered: int = Field(default=3, ge=0, description="the attempt cap: calls without an answer (timeouts, 429, "
                                "5xx) one request may cost within the retry window; a request whose answers never "
                                "validate is capped at 2 answered calls regardless")
    retry_window_hours: float = Field(default=6.0, gt=0, description="the window of `AGENTR_LLM_MAX_UNANSWERED`; older "
                                      "unanswered attempts no longer count")
    schema_hint: bool = Field(default=False, description="`1` sends the JSON schema in `response_format` (llama.cpp's "
                              "server)")
    max_concurrent: int | None = Field(default=None, ge=1, description="endpoint-wide limit: concurrent calls")
    rpm: int | None = Field(default=None, ge=1, description="endpoint-wide limit: requests per minute")
    tpm: int | None = Field(default=None, ge=1, description="endpoint-wide limit: tokens per minute")
    stop_at_recall: float | None = Field(default=None, gt=0, le=1, validation_alias="AGENTR_STOP_AT_RECALL",
                                         description="with an LLM, stop scoring once the stopping rule says this "
                                         "recall is reached (`agentr run --stop-at-recall`); unset: score every paper")
    stop_model: bool = Field(default=True, validation_alias="AGENTR_STOP_MODEL",
                             description="`--stop-at-recall` may also stop on the decaying-rate model of the ranked "
                             "order, above a floor the sample test shows without it (docs/stopping.md); `0`: the "
                             "sample test alone, which assumes nothing of the ranker")
    scoring_budget_credits: float | None = Field(default=None, ge=0, validation_alias="AGENTR_SCORING_BUDGET_CREDITS",
                                                 description="credits a project's scoring may spend over all its "
                                                 "runs (`agentr run --budget-credits`); unset: no cap")

    @property
    def configured(self) -> bool:
        """The one answer to "is an LLM configured?": an endpoint is set (else the offline backend runs)."""
        return bool(self.base_url)


class SourcesConfig(_Section):
    """The search sources: which run, each one's base URL (its field `<name>_url`), keys and bounds."""

    names: Annotated[tuple[str, ...], NoDecode] = Field(
        default=(), validation_alias="AGENTR_SOURCES", description="comma list of the search sources "
        "`candidate_papers` runs, named as the `…_URL` settings below (Crossref fills missing abstracts, years and "
        "venues by DOI); unset: no search source (offline)")
    openalex_url: str = Field(default="https://api.openalex.org",
                              description="OpenAlex's base URL (a mirror, or a replay server in tests)")
    pubmed_url: str = Field(default="https://eutils.ncbi.nlm.nih.gov/entrez/eutils", description="PubMed E-utilities' "
                            "base URL")
    europepmc_url: str = Field(default="https://www.ebi.ac.uk/europepmc/webservices/rest",
                               description="Europe PMC's REST base URL")
    arxiv_url: str = Field(default="https://export.arxiv.org", description="arXiv's API base URL")
    crossref_url: str = Field(default="https://api.crossref.org", description="Crossref's base URL")
    contact_email: str = Field(default="", description="sent to OpenAlex and Crossref (their polite pools) and to NCBI")
    pubmed_api_key: SecretStr = Field(default=SecretStr(""), description="NCBI E-utilities' API key (environment only: "
                                      "never stored, never in a fingerprint or metadata)")
    openalex_api_key: SecretStr = Field(default=SecretStr(""), description="OpenAlex's API key (environment only)")
    max_results: int = Field(default=200, ge=1, validation_alias="AGENTR_SOURCE_MAX_RESULTS",
                             description="records taken per source and search string")
    boolean_max_results: int = Field(
        default=5000, ge=1, validation_alias="AGENTR_SOURCE_BOOLEAN_MAX_RESULTS",
        description="records taken per source for the Boolean query: the review's sensitive search, read as far as "
        "this (an expert reads theirs in full; at the search strings' cap a source's default sort, not relevance, "
        "decides which matches are kept); never less than max_results")
    background_min_records: int = Field(
        default=1_000_000, ge=1, validation_alias="AGENTR_SOURCE_BACKGROUND_MIN_RECORDS",
        description="while the paper lake is too small, a new project's offline query judges its terms by the hit "
        "counts of a search source holding at least this many records (a general database, where one topic is a "
        "small share; in a small or topic-pooled index a review's own subject looks common: docs/search-e2e.md)")
    pseudo_feedback: bool = Field(
        default=True, validation_alias="AGENTR_PSEUDO_FEEDBACK", description="after the searches, widen the offline "
        "query of an abstract (no seed studies) by the terms of its 20 best matches among the candidates and search "
        "once more (`boolean-prf`), when a background of many topics weighs the terms (the lake, or a source of "
        "`AGENTR_SOURCE_BACKGROUND_MIN_RECORDS`); 0: never (docs/search-strategies.md, round 14c)")
    timeout: float = Field(default=30.0, gt=0, validation_alias="AGENTR_SOURCE_TIMEOUT",
                           description="seconds a source request may take (connect and read) before it is retried")
    request_interval: float | None = Field(
        default=None, ge=0, validation_alias="AGENTR_SOURCE_REQUEST_INTERVAL", description="seconds between two "
        "requests to one source, replacing each API's spacing and request rate: only for a mirror or a test server "
        "(the public APIs ask for theirs); unset: each API's own (arXiv 3 s, PubMed 0.34 s, ...)")

    @field_validator("names", mode="before")
    @classmethod
    def _known_sources(cls, value):
        names = value.split(",") if isinstance(value, str) else list(value or ())
        names = [str(n).strip().lower() for n in names if str(n).strip()]
        unknown = [n for n in names if n not in SOURCE_NAMES]
        if unknown:
            raise ValueError(f"unknown source {', '.join(map(repr, unknown))}; choose from {', '.join(SOURCE_NAMES)}")
        return tuple(dict.fromkeys(names))  # in the order given, each once

    def base_url(self, name: str) -> str:
        return str(getattr(self, f"{name}_url"))


# the search sources AGENTR_SOURCES may name: those with a base URL (sources/registry.py gives each its client)
SOURCE_NAMES = tuple(field.removesuffix("_url") for field in SourcesConfig.model_fields if field.endswith("_url"))


class SensorsConfig(_Section):
    """The sensors and schedules."""

    files_per_tick: int = Field(default=25, ge=1, validation_alias="AGENTR_SENSOR_FILES_PER_TICK",
                                description="inbox files handled per sensor tick")
    labels_quiet_seconds: float = Field(default=60.0, ge=0, description="how long a project's labels must be unchanged "
                                        "before the labels sensor re-ranks it (a burst of labels is one run)")
    inbox_job: str = Field(default="", description="the job the inbox launches (`project_pipeline_celery` for Celery "
                           "workers); unset: `project_pipeline`")
    repair_max_per_day: int = Field(default=2, ge=0, description="the repair schedule's runs per project a day")
    repair_cron: str = Field(default="17 * * * *", description="when the repair schedule ticks")
    living_review_cron: str = Field(default="0 6 * * 1", description="when the `living_review` schedule (stopped by "
                                    "default) re-runs every active project's searches (Mondays 06:00 UTC)")


class LakeConfig(_Section):
    """The shared paper lake."""

    model_config = SettingsConfigDict(env_prefix="AGENTR_LAKE_")

    dir: Path | None = Field(default=None, description="the shared paper lake; unset: `$AGENTR_HOME/lake`")
    per_query: int = Field(default=20, ge=0, description="papers taken from the lake per generated query")


class EncoderConfig(_Section):
    """The embedding models."""

    model_dir: Path | None = Field(default=None, description="the static embedding model `make models` builds; unset: "
                                   "`~/.cache/agentr-dagster/models/minilm-m2v`")
    transformer: Literal["all-MiniLM-L6-v2", "all-mpnet-base-v2"] = Field(
        default="all-MiniLM-L6-v2", description="the transformer encoder of the rankers: all-MiniLM-L6-v2 (`make "
        "models`) or all-mpnet-base-v2 (`make models-mpnet`; 4x slower, docs/screening.md)")
    threads: int = Field(default=0, ge=0, validation_alias="AGENTR_ENCODER_THREADS",
                         description="threads of the transformer encoder (onnxruntime); 0: all cores")
    embedding_cache: Path | None = Field(default=None, description="transformer vectors, computed once per (text, "
                                         "model) and reused by every project; unset: `$AGENTR_HOME/embeddings`")


class ImportsConfig(_Section):
    """Bounds on an imported paper file (unset: `ImportLimits`' defaults)."""

    model_config = SettingsConfigDict(env_prefix="AGENTR_IMPORT_")

    max_bytes: int | None = Field(default=None, ge=1, description="bytes per imported file")
    max_rows: int | None = Field(default=None, ge=1, description="records per imported file")
    max_field_chars: int | None = Field(default=None, ge=1, description="characters per field of an imported record")


class CeleryConfig(_Section):
    """The Celery job (`project_pipeline_celery`, docs/scale-out.md)."""

    model_config = SettingsConfigDict(env_prefix="AGENTR_CELERY_")

    broker_url: str = Field(default="", description="the Celery job's broker; unset: the local RabbitMQ")
    backend_url: str = Field(default="", description="the Celery job's result backend; unset: `rpc://`")
    queue: str = Field(default="", description="the Celery job's queue; unset: `dagster`")


class BenchConfig(_Section):
    """The benchmarks' baselines."""

    asreview_python: str = Field(default="", description="an interpreter with ASReview, for `agentr bench screening`'s "
                                 "baseline")
    cache: Path | None = Field(default=None, validation_alias="AGENTR_BENCH_CACHE", description="cached vectors of the "
                               "benchmarks' real-MiniLM baseline; unset: `~/.cache/agentr-dagster/bench`")


class Settings(BaseModel):
    """The deployment's configuration, one section per concern."""

    model_config = ConfigDict(frozen=True)

    paths: PathsConfig = Field(default_factory=PathsConfig)
    store: StoreConfig = Field(default_factory=StoreConfig)
    llm: LLMConfig = Field(default_factory=LLMConfig)
    sources: SourcesConfig = Field(default_factory=SourcesConfig)
    sensors: SensorsConfig = Field(default_factory=SensorsConfig)
    lake: LakeConfig = Field(default_factory=LakeConfig)
    encoder: EncoderConfig = Field(default_factory=EncoderConfig)
    imports: ImportsConfig = Field(default_factory=ImportsConfig)
    celery: CeleryConfig = Field(default_factory=CeleryConfig)
    bench: BenchConfig = Field(default_factory=BenchConfig)

    def fingerprint(self) -> str:
        """A hash of the configuration (secrets by presence only), to tell a job built for another one."""
        values: dict[str, Any] = {}
        for name in type(self).model_fields:
            section = getattr(self, name)
            for field, value in section:
                if isinstance(value, SecretStr):
                    value = bool(value.get_secret_value())
                elif field.endswith("_url"):
                    value = _without_password(value)
                values[section.variable(field)] = value
        return hashlib.sha256(repr(sorted(values.items())).encode()).hexdigest()[:16]


def get_settings() -> Settings:
    """The settings as the environment gives them now. A bad value names its variable."""
    sections: dict[str, _Section] = {}
    for name, field in Settings.model_fields.items():
        section: type[_Section] = field.annotation  # type: ignore[assignment]
        try:
            sections[name] = section()
        except ValidationError as exc:
            names = ", ".join(sorted({_variable_of(section, e["loc"]) for e in exc.errors() if e.get("loc")}))
            raise ValueError(f"invalid setting {names}: {exc}") from exc
    return Settings.model_validate(sections)


def _variable_of(section: type[_Section], loc: tuple) -> str:
    key = str(loc[0])
    return section.variable(key) if key in section.model_fields else key  # a field read by its alias is named so


def _without_password(url: str) -> str:
    head, at, tail = url.rpartition("@")
    if not at or "://" not in head:
        return url
    scheme, _, user = head.partition("://")
    return f"{scheme}://{user.split(':')[0]}@{tail}"


REFERENCE_BEGIN = "<!-- generated from agentr_dagster/settings.py by scripts/config_reference.py: do not edit -->"
REFERENCE_END = "<!-- end of the generated reference -->"


def with_reference(doc: str) -> str:
    """docs/configuration.md with its generated block (between the two markers) as the model gives it now."""
    head, _, rest = doc.partition(REFERENCE_BEGIN + "\n")
    _, _, tail = rest.partition(REFERENCE_END)
    return f"{head}{REFERENCE_BEGIN}\n{configuration_reference()}{REFERENCE_END}{tail}"


def configuration_reference() -> str:
    """docs/configuration.md's tables, generated from the model: a section each, a row per variable."""
    lines: list[str] = []
    for name, field in Settings.model_fields.items():
        section: type[_Section] = field.annotation  # type: ignore[assignment]
        lines += ["", f"### `{name}`: {(section.__doc__ or '').strip()}", "",
                  "| variable | default | what it sets |", "|---|---|---|"]
        for field_name, info in section.model_fields.items():
            variable = " or ".join(f"`{v}`" for v in _variables(section, field_name))
            what, _, when_unset = (info.description or "").partition("; unset: ")  # a default said in words
            lines.append(f"| {variable} | {when_unset or _shown(info.get_default(call_default_factory=True))} | "
                         f"{what} |")
    return "\n".join(lines[1:]) + "\n"


def _variables(section: type[_Section], field: str) -> list[str]:
    alias = section.model_fields[field].validation_alias
    return [str(a) for a in alias.choices] if isinstance(alias, AliasChoices) else [section.variable(field)]


def _shown(default: object) -> str:
    if default is None or default in ("", ()) or (isinstance(default, SecretStr) and not default.get_secret_value()):
        return "unset"
    if isinstance(default, bool):
        return f"`{int(default)}`"
    return f"`{default:g}`" if isinstance(default, float) else f"`{default}`"


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
    home = get_settings().paths.home.expanduser().resolve()
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
    configured = get_settings().lake.dir
    return configured.expanduser().resolve() if configured else agentr_home() / "lake"


def dagster_home(home: Path | None = None) -> Path:
    """DAGSTER_HOME if set, else $AGENTR_HOME/dagster with an embedded SQLite instance."""
    configured = get_settings().paths.dagster_home
    if configured:
        return configured.expanduser().resolve()
    path = (home or agentr_home()) / "dagster"
    path.mkdir(parents=True, exist_ok=True)
    config = path / "dagster.yaml"
    if not config.exists():
        from importlib import resources

        config.write_text(resources.files("agentr_dagster.data").joinpath("dagster.yaml").read_text())
    return path
