"""Scoring throughput against the scripted OpenAI-compatible server on loopback.

Measures the paper_scores stage (stages.scoring.score_project, exactly what the asset runs) with its whole per-paper
path: response cache lookup, orphan check, reservation, HTTP call, settlement, validation and persistence.
Each measured run uses its own project with a distinct abstract, so no run is served from another's cache.
The server runs in its own process, as a real endpoint would, so its threads do not share our interpreter lock.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING

from agentr_dagster.domain.contracts import PaperRecord
from agentr_dagster.imports import content_hash, paper_key
from agentr_dagster.llm.backends import LLMStageBackend
from agentr_dagster.llm.gateway import LLMSettings, OpenAICompatibleBackend
from agentr_dagster.stages.intent import run_intent
from agentr_dagster.stages.scoring import score_project

if TYPE_CHECKING:
    from agentr_dagster.store import DomainStore

BENCH_MODEL = "bench-model"


@dataclass
class ScoringRun:
    concurrency: int
    papers: int
    latency_s: float
    wall_s: float
    calls: int
    max_in_flight: int
    papers_per_s: float
    ms_per_paper: float


def _synthetic_papers(n: int, salt: str) -> list[PaperRecord]:
    return [
        PaperRecord(
            title=f"Study {i} of screening automation ({salt})",
            abstract=f"We evaluate method {i} for selecting studies in systematic reviews; variant {salt}-{i}.",
            source_format="bench",
        )
        for i in range(n)
    ]


class ServerProcess:
    """The scripted server (schema-valid answers, fixed latency) as a separate process on loopback."""

    def __init__(self, latency: float):
        self.process = subprocess.Popen(
            [sys.executable, "-m", "agentr_dagster.testing.scripted_server", "--latency", str(latency),
             "--valid-responses"],
            stdout=subprocess.PIPE, text=True,
        )
        assert self.process.stdout is not None  # stdout=PIPE
        line = self.process.stdout.readline()
        if "listening on" not in line:
            self.process.kill()
            raise RuntimeError(f"scripted server did not start: {line!r}")
        self.base_url = line.strip().rsplit(" ", 1)[-1]

    def stats(self) -> dict:
        with urllib.request.urlopen(self.base_url + "/stats", timeout=10) as response:
            return json.load(response)

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=10)


@contextmanager
def scripted_server_process(latency: float):
    server = ServerProcess(latency)
    try:
        yield server
    finally:
        server.stop()


def open_bench_store(database_url: str | None, workdir: Path):
    from agentr_dagster.store import DomainStore

    return DomainStore(database_url or f"sqlite:///{workdir / 'bench.db'}")


def measure_scoring(
    store: DomainStore, server: ServerProcess, *, papers: int, concurrency: int, latency: float
) -> ScoringRun:
    salt = uuid.uuid4().hex[:8]
    slug = f"bench-{salt}"
    store.projects.create_project(
        slug, f"Benchmark abstract {salt}: automating study selection for systematic reviews."
    )
    store.projects.add_papers(slug, _synthetic_papers(papers, salt), key_fn=paper_key, hash_fn=content_hash,
                     provenance={"format": "bench"})
    settings = LLMSettings(base_url=server.base_url, model=BENCH_MODEL, backoff_base_s=0.05)
    backend = LLMStageBackend(OpenAICompatibleBackend(settings, store))
    run_intent(store, backend, slug)
    before = server.stats()  # also resets the server's in-flight peak
    started = time.perf_counter()
    summary = score_project(store, backend, slug, concurrency=concurrency)
    wall = time.perf_counter() - started
    if not summary.complete:
        raise RuntimeError(f"benchmark run incomplete: {summary}")
    after = server.stats()
    return ScoringRun(
        concurrency=concurrency, papers=papers, latency_s=latency, wall_s=round(wall, 4),
        calls=after["calls"] - before["calls"], max_in_flight=after["max_in_flight"],
        papers_per_s=round(papers / wall, 2), ms_per_paper=round(1000 * wall / papers, 3),
    )


def run_speedup(
    papers: int, latency: float, concurrencies: list[int], database_url: str | None = None
) -> dict:
    """Sequential run first, then each concurrency, all in one invocation against one server."""
    with tempfile.TemporaryDirectory() as tmp, scripted_server_process(latency) as server:
        store = open_bench_store(database_url, Path(tmp))
        store.ledger.set_pricing(BENCH_MODEL, Decimal("0.15"), Decimal("0.60"))
        store.ledger.grant("default", Decimal("1000000"), note="benchmark")
        sequential = measure_scoring(store, server, papers=papers, concurrency=1, latency=latency)
        runs = [sequential]
        for c in concurrencies:
            if c != 1:
                runs.append(measure_scoring(store, server, papers=papers, concurrency=c, latency=latency))
        store.close()
    rows = []
    for run in runs:
        speedup = sequential.wall_s / run.wall_s
        rows.append({**asdict(run), "speedup": round(speedup, 2),
                     "efficiency": round(speedup / run.concurrency, 3)})
    return {"papers": papers, "latency_s": latency, "database": "postgresql" if database_url else "sqlite",
            "runs": rows}


def run_overhead(papers: int, concurrency: int, database_url: str | None = None) -> dict:
    """Zero-latency scoring: what the orchestration, persistence and ledger cost per paper."""
    with tempfile.TemporaryDirectory() as tmp, scripted_server_process(0.0) as server:
        store = open_bench_store(database_url, Path(tmp))
        store.ledger.set_pricing(BENCH_MODEL, Decimal("0.15"), Decimal("0.60"))
        store.ledger.grant("default", Decimal("1000000"), note="benchmark")
        run = measure_scoring(store, server, papers=papers, concurrency=concurrency, latency=0.0)
        store.close()
    return {"database": "postgresql" if database_url else "sqlite", **asdict(run)}


def format_speedup(result: dict) -> str:
    lines = [f"scoring {result['papers']} papers at {result['latency_s']} s latency ({result['database']})",
             f"{'C':>4} {'wall_s':>8} {'speedup':>8} {'eff':>6} {'in_flight':>9} {'calls':>6}"]
    for row in result["runs"]:
        lines.append(f"{row['concurrency']:>4} {row['wall_s']:>8.3f} {row['speedup']:>8.2f} "
                     f"{row['efficiency']:>6.2f} {row['max_in_flight']:>9} {row['calls']:>6}")
    return "\n".join(lines)
