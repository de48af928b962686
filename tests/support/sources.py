"""Helpers for the search-source pipeline tests: a project with offline queries that the replay corpus answers,
and the environment that points every enabled source at a replay server."""

from __future__ import annotations

from datetime import date

from agentr_dagster.llm.backends import make_backend
from agentr_dagster.stages.intake import add_project
from agentr_dagster.stages.intent import run_intent
from agentr_dagster.stages.queries import run_queries
from agentr_dagster.testing.replay_server import ReplayPaper

# The offline backend turns this into queries ("active learning" OR ...) AND ("public health" OR ...) and strings
# such as "public health" that the replay corpus (methods x tasks x domains) answers.
SOURCES_ABSTRACT = (
    "We apply active learning and large language models to systematic review screening in public health, ranking "
    "candidate papers so reviewers read fewer abstracts; we compare with transfer learning."
)


def project_with_queries(store, slug: str, abstract: str = SOURCES_ABSTRACT) -> None:
    """A project whose intent and queries exist (offline backend), with no imported paper."""
    add_project(store, slug, abstract)
    backend = make_backend(None, store)
    run_intent(store, backend, slug)
    run_queries(store, backend, slug)


def point_sources_at(monkeypatch, server, names: str) -> None:
    """AGENTR_SOURCES = names, every source's base URL on the replay server."""
    monkeypatch.setenv("AGENTR_SOURCES", names)
    monkeypatch.setenv("AGENTR_SOURCE_REQUEST_INTERVAL", "0")  # a loopback server needs no politeness spacing
    for source in ("openalex", "pubmed", "europepmc", "arxiv", "crossref"):
        monkeypatch.setenv(f"AGENTR_{source.upper()}_URL", server.base_url(source))


def new_paper(number: int, title: str, published: date, **extra) -> ReplayPaper:
    """A replay paper every source indexes."""
    return ReplayPaper(number=number, title=title, published=published, doi=f"10.5555/replay.{number:04d}",
                       abstract=f"We study {title.lower()}. Public health reviewers read fewer abstracts.",
                       authors=("Ada Okafor",), venue="Replay Letters", **extra)
