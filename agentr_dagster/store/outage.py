"""A database error is transient, wherever it happens: the one place that says which errors are the database (or
the network and file system under it) away for a moment, and that turns one into a classified failure.

A blip of a few seconds can land anywhere: in a stage's own reads, in the checks right before a paid call (claims,
fences, the orphan check), in a settlement. Classified by whoever caught it, it became whatever that layer's
fallback was — "unexpected error calling the LLM", permanent, with advice to fix the API key. Every layer asks here
instead: a database error is ``transient`` (retried within the attempt cap, then `agentr resume` / `agentr run`),
never ``permanent``; no call was paid for it (a settlement that fails is kept and retried, see llm/gateway.py).
"""

from __future__ import annotations

from typing import overload

import sqlalchemy as sa

from agentr_dagster.domain.failures import TransientError

# What may be gone for a moment and back on a retry: the database (connection lost, locked, pool exhausted) and the
# network or file system. Dagster retries a step for these (defs/failures.py); anything else unexpected is a defect.
INFRASTRUCTURE_ERRORS = (sa.exc.OperationalError, sa.exc.InterfaceError, sa.exc.TimeoutError,
                         sa.exc.DisconnectionError, OSError)


def infrastructure_error(exc: BaseException) -> bool:
    """Whether an unexpected exception may pass on a retry (see :data:`INFRASTRUCTURE_ERRORS`)."""
    return isinstance(exc, INFRASTRUCTURE_ERRORS) or bool(getattr(exc, "connection_invalidated", False))


def database_error(exc: BaseException) -> bool:
    """Whether ``exc`` came from the domain database or its driver (any SQLAlchemy error)."""
    return isinstance(exc, sa.exc.SQLAlchemyError) or bool(getattr(exc, "connection_invalidated", False))


def first_line(exc: BaseException, limit: int = 200) -> str:
    """The error's first line: a driver's message, without the SQL statement and parameters SQLAlchemy appends."""
    return (str(exc).strip().splitlines() or [""])[0][:limit]


@overload
def database_failure(exc: sa.exc.SQLAlchemyError, where: str) -> TransientError: ...
@overload
def database_failure(exc: BaseException, where: str) -> TransientError | None: ...
def database_failure(exc: BaseException, where: str) -> TransientError | None:
    """The transient failure for a database error met ``where`` (None when ``exc`` is not one)."""
    if not database_error(exc):
        return None
    return TransientError(f"{where}: the domain database failed ({type(exc).__name__}: {first_line(exc, 300)}); "
                          "transient: retried once it answers")
