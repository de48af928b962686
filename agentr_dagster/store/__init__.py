"""Domain store: projects and papers, results and cache, lifecycle and failures, the credit ledger, labels —
each a part of :class:`DomainStore` (``store.projects``, ``store.results``, ``store.lifecycle``, ``store.ledger``,
``store.labels``).

from agentr_dagster.store import DomainStore, UsageIn, default_database_url
"""

from agentr_dagster.store.database import Database
from agentr_dagster.store.engine import default_database_url, normalise_url
from agentr_dagster.store.labels import Labels
from agentr_dagster.store.ledger import CallBound, Ledger
from agentr_dagster.store.lifecycle import Lifecycle
from agentr_dagster.store.projects import Projects
from agentr_dagster.store.results import Results
from agentr_dagster.store.rows import (
    AccountRow,
    AddPapersResult,
    ArtifactRow,
    DefaultCreditsRow,
    FailureRow,
    InsufficientCredits,
    LabelRow,
    LedgerRow,
    MultiplierRow,
    OrphanError,
    PaperRow,
    PricingRow,
    ProjectNotFound,
    ProjectRow,
    ReservationRow,
    ResultRow,
    StatusRow,
    StoreError,
    TransitionRow,
    UsageIn,
    UsageRow,
)
from agentr_dagster.store.schema import FAILURE_CLASSES, STATES
from agentr_dagster.store.store import PROJECT_STAGE, DomainStore

__all__ = [
    "CallBound",
    "FAILURE_CLASSES",
    "PROJECT_STAGE",
    "STATES",
    "AccountRow",
    "AddPapersResult",
    "ArtifactRow",
    "Database",
    "DefaultCreditsRow",
    "DomainStore",
    "FailureRow",
    "InsufficientCredits",
    "Labels",
    "LabelRow",
    "Ledger",
    "LedgerRow",
    "Lifecycle",
    "MultiplierRow",
    "OrphanError",
    "PaperRow",
    "PricingRow",
    "ProjectNotFound",
    "ProjectRow",
    "Projects",
    "ReservationRow",
    "ResultRow",
    "Results",
    "StatusRow",
    "StoreError",
    "TransitionRow",
    "UsageIn",
    "UsageRow",
    "default_database_url",
    "normalise_url",
]
