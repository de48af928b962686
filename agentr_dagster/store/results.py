"""Stage artifacts, per-paper results (keyed by cache key) and the LLM response cache."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from pydantic import BaseModel
from sqlalchemy.engine import Connection

from agentr_dagster.store import hot
from agentr_dagster.store import schema as t
from agentr_dagster.store.database import Database, now_utc
from agentr_dagster.store.lifecycle import Lifecycle
from agentr_dagster.store.rows import ArtifactRow, ResultRow, from_row

_CHUNK = 500


def _payload(value: Any) -> dict:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if not isinstance(value, dict):
        raise TypeError(f"payload must be a dict or a pydantic model, got {type(value).__name__}")
    return value


class Results:
    """``store.results``: artifacts, results and cached responses. Saving a paper's result can complete the paper
    in its stage in the same transaction (through the lifecycle)."""

    def __init__(self, db: Database, lifecycle: Lifecycle):
        self.db = db
        self.lifecycle = lifecycle

    def save_artifact(
        self,
        slug: str,
        stage: str,
        payload: dict | BaseModel,
        *,
        prompt_version: str | None,
        model: str | None,
        backend: str | None,
        input_hash: str | None,
    ) -> int:
        """Append a stage artifact (the latest per (project, stage) is the current one)."""
        body = _payload(payload)

        def tx(conn: Connection) -> int:
            project = self.db.active_project(conn, slug)
            return conn.execute(
                sa.insert(t.artifacts)
                .values(
                    project_id=project.id,
                    stage=stage,
                    payload=body,
                    prompt_version=prompt_version,
                    model=model,
                    backend=backend,
                    input_hash=input_hash,
                    created_at=now_utc(),
                )
                .returning(t.artifacts.c.id)
            ).scalar_one()

        return self.db.run(tx)

    def latest_artifact(self, slug: str, stage: str) -> ArtifactRow | None:
        def tx(conn: Connection) -> ArtifactRow | None:
            project = self.db.visible_project(conn, slug, False)
            a = t.artifacts
            r = conn.execute(
                sa.select(a).where(a.c.project_id == project.id, a.c.stage == stage).order_by(a.c.id.desc()).limit(1)
            ).first()
            return None if r is None else from_row(ArtifactRow, r)

        return self.db.read(tx)

    def get_result(self, paper_id: int, cache_key: str) -> dict | None:
        pr = t.paper_results
        return self.db.read(
            lambda conn: conn.execute(
                sa.select(pr.c.payload).where(pr.c.paper_id == paper_id, pr.c.cache_key == cache_key)
            ).scalar()
        )

    def save_result(
        self,
        slug: str,
        paper_id: int,
        cache_key: str,
        payload: dict,
        *,
        prompt_version: str | None,
        model: str | None,
        backend: str | None,
        completes_stage: str | None = None,
        run_id: str | None = None,
    ) -> bool:
        """Store a paper's result once per (paper, cache key); False if it was already there. OrphanError if
        the project or paper has been deleted. With ``completes_stage``, the paper's state in that stage becomes
        ``completed`` in the same transaction (one commit per paper on the hot path)."""
        body = _payload(payload)

        def tx(conn: Connection) -> bool:
            project = self.db.active_project(conn, slug)
            self.db.check_paper(conn, project, paper_id)
            if completes_stage is not None:
                self.lifecycle.write_status(
                    conn, project.id, completes_stage, "completed", paper_id, None, run_id, now_utc()
                )
            result = conn.execute(
                self.db.insert(t.paper_results)
                .values(
                    project_id=project.id,
                    paper_id=paper_id,
                    cache_key=cache_key,
                    payload=body,
                    prompt_version=prompt_version,
                    model=model,
                    backend=backend,
                    created_at=now_utc(),
                )
                .on_conflict_do_nothing(index_elements=["paper_id", "cache_key"])
            )
            return result.rowcount == 1

        return self.db.run(tx)

    def results_for_project(self, slug: str, cache_keys: dict[int, str] | None = None) -> list[ResultRow]:
        """One result per live paper, ordered by paper id: the latest one, or with ``cache_keys`` the one whose
        key matches that paper's entry (papers without a matching result are left out)."""
        pr, pa = t.paper_results, t.papers

        def tx(conn: Connection) -> list[ResultRow]:
            project = self.db.visible_project(conn, slug, False)
            live = sa.select(pa.c.id).where(pa.c.project_id == project.id, pa.c.deleted_at.is_(None))
            if cache_keys is None:
                latest = (
                    sa.select(sa.func.max(pr.c.id))
                    .where(pr.c.project_id == project.id, pr.c.paper_id.in_(live))
                    .group_by(pr.c.paper_id)
                )
                q = sa.select(pr).where(pr.c.id.in_(latest)).order_by(pr.c.paper_id)
                return [from_row(ResultRow, r) for r in conn.execute(q)]
            wanted = set(cache_keys.values())
            if not wanted:
                return []
            q = (
                sa.select(pr)
                .where(pr.c.project_id == project.id, pr.c.paper_id.in_(live), pr.c.cache_key.in_(wanted))
                .order_by(pr.c.paper_id, pr.c.id)
            )
            return [from_row(ResultRow, r) for r in conn.execute(q) if cache_keys.get(r.paper_id) == r.cache_key]

        return self.db.read(tx)

    def cached_response(self, request_hash: str) -> str | None:
        return self.db.read(lambda conn: conn.execute(hot.CACHED_RESPONSE, {"request_hash": request_hash}).scalar())

    def save_results_many(
        self,
        slug: str,
        results: list[tuple[int, str, dict]],
        *,
        prompt_version: str | None,
        model: str | None,
        backend: str | None,
        completes_stage: str,
        run_id: str | None = None,
    ) -> list[int]:
        """Store many (paper_id, cache_key, payload) results and mark those papers completed in one transaction.
        Papers deleted meanwhile are skipped (they are orphans, not errors). Returns the ids of the papers whose
        result is now stored (new or already there)."""

        def tx(conn: Connection) -> list[int]:
            project = self.db.active_project(conn, slug)
            wanted = [paper_id for paper_id, _, _ in results]
            live: set[int] = set()
            for start in range(0, len(wanted), _CHUNK):
                live.update(conn.execute(
                    sa.select(t.papers.c.id).where(
                        t.papers.c.project_id == project.id,
                        t.papers.c.id.in_(wanted[start : start + _CHUNK]),
                        t.papers.c.deleted_at.is_(None),
                    )
                ).scalars())
            rows = [
                {"project_id": project.id, "paper_id": paper_id, "cache_key": key, "payload": _payload(payload),
                 "prompt_version": prompt_version, "model": model, "backend": backend, "created_at": now_utc()}
                for paper_id, key, payload in results if paper_id in live
            ]
            insert = self.db.insert(t.paper_results).on_conflict_do_nothing(index_elements=["paper_id", "cache_key"])
            for start in range(0, len(rows), _CHUNK):
                conn.execute(insert, rows[start : start + _CHUNK])
            self.lifecycle.write_status_many(conn, project.id, completes_stage, "completed", sorted(live), run_id, None)
            return sorted(live)

        return self.db.run(tx)
