"""The domain store, composed of small parts over one :class:`Database`:

- ``store.projects`` (:class:`Projects`): projects, papers, imported files, soft delete, the orphan check;
- ``store.results`` (:class:`Results`): stage artifacts, per-paper results, the LLM response cache;
- ``store.lifecycle`` (:class:`Lifecycle`): stage and paper status, transitions, failures;
- ``store.ledger`` (:class:`Ledger`): prices, multiplier and default credits (SCD-2), accounts, grants,
  reservations, settle/release, usage, verification;
- ``store.labels`` (:class:`Labels`): relevance labels on papers;
- ``store.relevance`` (:class:`Relevance`): the screening engine's score and rank per paper;
- ``store.leases`` (:class:`Leases`): one run per project (project leases) and per-paper claims;
- ``store.searches`` (:class:`Searches`): the searches sent to search sources and which one found which paper;
- ``store.sources`` (:class:`Sources`): the search sources' response cache;
- ``store.attempts`` (:class:`CallAttempts`): the calls made per request, for the one cap on paid attempts.

Every public method of a part is one short transaction and returns plain frozen dataclasses, never ORM objects.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy.engine import Engine

from agentr_dagster.store.attempts import CallAttempts
from agentr_dagster.store.database import Database
from agentr_dagster.store.engine import default_database_url
from agentr_dagster.store.labels import Labels
from agentr_dagster.store.leases import Leases
from agentr_dagster.store.ledger import Ledger
from agentr_dagster.store.lifecycle import PROJECT_STAGE, Lifecycle
from agentr_dagster.store.projects import Projects
from agentr_dagster.store.relevance import Relevance
from agentr_dagster.store.results import Results
from agentr_dagster.store.searches import Searches
from agentr_dagster.store.sources import Sources


class DomainStore:
    """``DomainStore(url)`` connects and (``migrate=True``) runs ``alembic upgrade head`` under a lock."""

    def __init__(self, url: str, *, migrate: bool = True, **engine_kwargs: Any):
        self.db = Database(url, migrate=migrate, **engine_kwargs)
        self.ledger = Ledger(self.db)
        self.lifecycle = Lifecycle(self.db)
        self.projects = Projects(self.db, self.ledger, self.lifecycle)
        self.results = Results(self.db, self.lifecycle)
        self.labels = Labels(self.db)
        self.relevance = Relevance(self.db)
        self.leases = Leases(self.db)
        self.searches = Searches(self.db)
        self.sources = Sources(self.db)
        self.attempts = CallAttempts(self.db, self.results)

    @property
    def url(self) -> str:
        return self.db.url

    @property
    def engine(self) -> Engine:
        return self.db.engine

    @property
    def dialect(self) -> str:
        return self.db.dialect

    @property
    def is_postgres(self) -> bool:
        return self.db.is_postgres

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> DomainStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return repr(self.db).replace("Database(", "DomainStore(", 1)


__all__ = ["PROJECT_STAGE", "DomainStore", "default_database_url"]
