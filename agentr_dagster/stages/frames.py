"""The pandas entry points behind ``agentr_dagster.scores(slug)`` and ``agentr_dagster.usage(slug)``.

No store plumbing for the caller: the domain store is the one the settings name (``AGENTR_DATABASE_URL``, else
SQLite under ``AGENTR_HOME``), opened once per database URL per process. The frames are the same ones the exports
and ``agentr usage`` are built from (:mod:`agentr_dagster.stages.exports`, :mod:`agentr_dagster.stages.usage`).
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from agentr_dagster.settings import agentr_home, get_settings
from agentr_dagster.stages.exports import scores_dataframe
from agentr_dagster.stages.usage import GROUP_KEYS, usage_report
from agentr_dagster.store import DomainStore, ProjectNotFound, default_database_url

if TYPE_CHECKING:
    import pandas as pd

_stores: dict[str, DomainStore] = {}
_lock = threading.Lock()


def settings_store() -> DomainStore:
    """The domain store the settings name, one per database URL per process (engine and pool kept)."""
    url = get_settings().store.database_url or default_database_url(agentr_home())
    with _lock:
        if url not in _stores:
            _stores[url] = DomainStore(url)
        return _stores[url]


def _require_project(store: DomainStore, slug: str, *, include_deleted: bool) -> None:
    """A clear error naming the database looked in and the projects it does hold."""
    try:
        store.projects.get_project(slug, include_deleted=include_deleted)
    except ProjectNotFound:
        known = [p.slug for p in store.projects.list_projects()]
        listed = ", ".join(known[:20]) + (", ..." if len(known) > 20 else "") if known else "none"
        where = store.db.engine.url.render_as_string(hide_password=True)
        raise ProjectNotFound(
            f"no project {slug!r} in the domain store {where} (AGENTR_DATABASE_URL, else the SQLite store under "
            f"AGENTR_HOME={agentr_home()}); its projects: {listed}"
        ) from None


def scores(slug: str) -> pd.DataFrame:
    """One row per paper with a current score, best direct competitors first (the columns of the exports)."""
    store = settings_store()
    _require_project(store, slug, include_deleted=False)
    return scores_dataframe(store, slug)


def usage(slug: str | None = None, by: tuple[str, ...] | list[str] = GROUP_KEYS) -> pd.DataFrame:
    """LLM usage by project, stage, model and day (or the keys in ``by``): calls, tokens, USD and credits as
    exact decimals. ``slug=None`` covers every project; a deleted project's usage is kept and shown."""
    store = settings_store()
    if slug is not None:
        _require_project(store, slug, include_deleted=True)
    return usage_report(store, slug, by)
