"""Answered calls whose settlement the domain database refused, kept on local disk until it answers again.

The endpoint has been paid (by us, to the provider) for such a call, so it must not vanish with the process:
each one is a small JSON file (reservation id, usage, validated answer, and the fence: the claim the call was
made under, with its holder's identity) in ``$AGENTR_HOME/unsettled``, written before the call is reported as
failed, and removed once it is settled. Whoever closes a stage next (this process, or a later run after a crash)
settles every file there under its fence, as the call's own settlement would have been (docs/paid-call.md, guard
7): charged only while the claim still names the holder that made the call; after a takeover (the claims of a
gone holder are revoked when its lease is taken, ``agentr resume``, ``release-stale``) the answer is operator
waste (``fenced_late_answer``), never charged to the project. Settling is idempotent, and a reservation that was
released meanwhile is charged its actual cost if the fence holds (the ledger notes it; ``ledger verify`` lists
it). A file without a fence (a call made under no claim, or written before fences were kept) settles unfenced,
as such a call does.
"""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import TYPE_CHECKING

import sqlalchemy as sa

from agentr_dagster.domain.atomic import write_atomically
from agentr_dagster.store.leases import ClaimFence, Identity

if TYPE_CHECKING:
    from agentr_dagster.store import DomainStore


def fence_to_json(fence: ClaimFence | None) -> dict | None:
    if fence is None:
        return None
    who = fence.who
    return {"table": fence.table, "key": fence.key, "holder": fence.holder, "host": who.host, "realm": who.realm,
            "pid": who.pid}


def fence_from_json(body: dict | None) -> ClaimFence | None:
    if not body:
        return None
    return ClaimFence(body["table"], body["key"], body["holder"], Identity(body["host"], body["realm"], body["pid"]))


class UnsettledSpool:
    def __init__(self, directory: Path | str):
        self.dir = Path(directory)

    def _path(self, reservation: int) -> Path:
        return self.dir / f"reservation-{reservation}.json"

    def add(self, reservation: int, usage_in, response: tuple[str, str] | None,
            fence: ClaimFence | None = None) -> Path:
        self.dir.mkdir(parents=True, exist_ok=True)
        body = {"reservation": reservation, "usage": usage_in.model_dump(mode="json"),
                "response": list(response) if response is not None else None, "fence": fence_to_json(fence)}
        return write_atomically(self._path(reservation), lambda tmp: tmp.write_text(json.dumps(body)))

    def remove(self, reservation: int) -> None:
        with contextlib.suppress(FileNotFoundError):
            self._path(reservation).unlink()

    def settle_all(self, store: DomainStore) -> int:
        """Settle every kept call under its fence (charged, or refused as operator waste when its claim was taken
        over), then release its claim; returns how many are still kept (the database still refuses them)."""
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
            fence = fence_from_json(body.get("fence"))
            try:
                store.ledger.settle(body["reservation"], usage=UsageIn.model_validate(body["usage"]),
                                    response=response, fence=fence)
            except sa.exc.SQLAlchemyError:
                left += 1
                continue
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
            if fence is not None:
                with contextlib.suppress(sa.exc.SQLAlchemyError):  # else it goes stale and is freed as gone
                    store.leases.release_kept(fence)
        return left
