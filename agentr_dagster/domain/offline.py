"""Old import path of the offline backend, kept for callers: it lives in :mod:`agentr_dagster.llm.offline`."""

from agentr_dagster.llm.offline import (  # noqa: F401
    C1_BANDS,
    JUSTIFICATION_PREFIX,
    OFFLINE_LABEL,
    OFFLINE_MODEL,
    OFFLINE_NAME,
    SEARCH_STRING_KINDS,
    EmbedderLike,
    OfflineBackend,
    _FacetResult,
    as_term,
    level_of,
)
