"""Answered calls whose settlement the domain database refused, kept on local disk until it answers again.

The endpoint has been paid (by us, to the provider) for such a call, so it must not vanish with the process:
each one is a small JSON file (reservation id, usage, validated answer) in ``$AGENTR_HOME/unsettled``, written
before the call is reported as failed, and removed once it is settled. Whoever closes a stage next (this
process, or a later run after a crash) settles every file there: settling is idempotent, and a reservation that
was released meanwhile is charged its actual cost (the ledger notes it; ``ledger verify`` lists it).
"""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import TYPE_CHECKING

import sqlalchemy as sa

from agentr_dagster.domain.atomic import write_atomically

if TYPE_CHECKING:
    from agentr_dagster.store import DomainStore


class UnsettledSpool:
    def __init__(self, directory: Path | str):
        self.dir = Path(directory)

    def _path(self, reservation: int) -> Path:
        return self.dir / f"reservation-{reservation}.json"

    def add(self, reservation: int, usage_in, response: tuple[str, str] | None) -> Path:
        self.dir.mkdir(parents=True, exist_ok=True)
        body = {"reservation": reservation, "usage": usage_in.model_dump(mode="json"),
                "response": list(response) if response is not None else None}
        return write_atomically(self._path(reservation), lambda tmp: tmp.write_text(json.dumps(body)))

    def remove(self, reservation: int) -> None:
        with contextlib.suppress(FileNotFoundError):
            self._path(reservation).unlink()

    def settle_all(self, store: DomainStore) -> int:
        """Settle every kept call; returns how many are still kept (the database still refuses them)."""
        from agentr_dagster.store import UsageIn

        if not self.dir.is_dir():
            return 0
        left = 0
        for path in sorted(self.dir.glob("reservation-*.json")):
            try:
                body = json.loads(path.read_text())
            except (OSError, ValueError):
                continue  # being written, or already taken by another process
            response = tuple(body["response"]) if body.get("response") else None
            try:
                store.ledger.settle(body["reservation"], usage=UsageIn.model_validate(body["usage"]), response=response)
            except sa.exc.SQLAlchemyError:
                left += 1
                continue
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
        return left
