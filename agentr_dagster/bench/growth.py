"""Growth: how time and memory grow with papers per project and with projects per instance.

Each size runs in a fresh subprocess so its peak RSS is its own. Papers: the whole chain materialised on a
Dagster instance with the offline backend, then `status`. Projects: a sensor tick over a drop of abstracts
and `status` over every project, with that many project partitions already present.
"""

from __future__ import annotations

import json
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from agentr_dagster.settings import use_home

WORDS = (
    "systematic review screening active learning citation classification software engineering evidence "
    "synthesis requirements testing cost estimation defect prediction maintenance process improvement "
    "machine learning language model ranking retrieval embedding lexical hybrid fusion workload recall "
    "precision budget audit recovery workflow orchestration durable state partition metadata quality"
).split()


def synthetic_records(n: int, seed: int = 0):
    from agentr_dagster.domain.contracts import PaperRecord

    rng = random.Random(seed)
    for i in range(n):
        title = " ".join(rng.choices(WORDS, k=8)).capitalize() + f" ({i})"
        abstract = ". ".join(" ".join(rng.choices(WORDS, k=14)) for _ in range(6)) + "."
        yield PaperRecord(title=title, abstract=abstract, year=2000 + i % 25, source_format="bench")


def _peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def measure_papers(n: int, database_url: str | None) -> dict:
    from dagster import DagsterInstance, materialize

    from agentr_dagster.defs.assets import project_assets
    from agentr_dagster.defs.resources import LLMResource, SourcesResource, StoreResource
    from agentr_dagster.imports import content_hash, paper_key
    from agentr_dagster.store import DomainStore

    with tempfile.TemporaryDirectory() as tmp:
        url = database_url or f"sqlite:///{Path(tmp) / 'growth.db'}"
        store = DomainStore(url)
        slug = f"growth-{n}-{random.randrange(10**6)}"
        store.projects.create_project(slug, "Automating study selection for systematic reviews in software engineering "
                                   "with hybrid lexical and embedding ranking under a limited budget.")
        started = time.perf_counter()
        batch: list = []
        for record in synthetic_records(n):
            batch.append(record)
            if len(batch) == 5000:
                store.projects.add_papers(
                    slug, batch, key_fn=paper_key, hash_fn=content_hash, provenance={"format": "bench"}
                )
                batch = []
        if batch:
            store.projects.add_papers(
                slug, batch, key_fn=paper_key, hash_fn=content_hash, provenance={"format": "bench"}
            )
        import_s = time.perf_counter() - started
        instance = DagsterInstance.ephemeral()
        instance.add_dynamic_partitions("projects", [slug])
        started = time.perf_counter()
        result = materialize(
            project_assets, partition_key=slug, instance=instance,
            resources={"store": StoreResource(database_url=url), "llm": LLMResource(), "sources": SourcesResource()},
            run_config={"loggers": {"console": {"config": {"log_level": "WARNING"}}}},
        )
        materialize_s = time.perf_counter() - started
        started = time.perf_counter()
        store.lifecycle.status(slug)
        status_s = time.perf_counter() - started
        store.close()
    return {"papers": n, "success": result.success, "import_s": round(import_s, 3),
            "materialize_s": round(materialize_s, 3), "status_s": round(status_s, 4),
            "ms_per_paper": round(1000 * materialize_s / n, 3), "peak_rss_mb": round(_peak_rss_mb(), 1)}


def measure_projects(n: int, database_url: str | None, drop: int = 25) -> dict:
    from dagster import DagsterInstance, build_sensor_context

    from agentr_dagster.defs.resources import StoreResource
    from agentr_dagster.defs.sensors import inbox_sensor
    from agentr_dagster.store import DomainStore

    with tempfile.TemporaryDirectory() as tmp:
        url = database_url or f"sqlite:///{Path(tmp) / 'growth.db'}"
        store = DomainStore(url)
        tag = random.randrange(10**6)
        slugs = [f"p{tag}-{i}" for i in range(n)]
        for slug in slugs:
            store.projects.create_project(slug, f"Project {slug} studies screening automation for systematic reviews.")
            store.lifecycle.set_status(slug, "intent", "completed")
        instance = DagsterInstance.ephemeral()
        instance.add_dynamic_partitions("projects", slugs)
        home = Path(tmp) / "home"
        inbox = home / "inbox"
        inbox.mkdir(parents=True)
        for i in range(drop):
            (inbox / f"new{tag}-{i}.md").write_text("A new project about ranking candidate papers for reviews.")
        use_home(home)
        resources = {"store": StoreResource(database_url=url)}
        first = build_sensor_context(instance=instance, resources=resources)
        inbox_sensor(first)  # sees the files; the next tick takes them (unchanged across two ticks)
        context = build_sensor_context(instance=instance, resources=resources, cursor=first.cursor)
        started = time.perf_counter()
        result = inbox_sensor(context)
        tick_s = time.perf_counter() - started
        started = time.perf_counter()
        rows = store.lifecycle.status()
        status_s = time.perf_counter() - started
        started = time.perf_counter()
        partitions = instance.get_dynamic_partitions("projects")
        list_s = time.perf_counter() - started
        store.close()
    return {"projects": n, "sensor_tick_s": round(tick_s, 4), "runs_requested": len(result.run_requests),
            "status_s": round(status_s, 4), "status_rows": len(rows), "list_partitions_s": round(list_s, 4),
            "partitions": len(partitions), "peak_rss_mb": round(_peak_rss_mb(), 1)}


def run_in_subprocess(kind: str, n: int, database_url: str | None) -> dict:
    args = [sys.executable, "-m", "agentr_dagster.bench.growth", kind, str(n)]
    if database_url:
        args.append(database_url)
    out = subprocess.run(args, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def run_growth(paper_sizes: list[int], project_sizes: list[int], database_url: str | None = None) -> dict:
    return {
        "database": "postgresql" if database_url else "sqlite",
        "papers": [run_in_subprocess("papers", n, database_url) for n in paper_sizes],
        "projects": [run_in_subprocess("projects", n, database_url) for n in project_sizes],
    }


def format_growth(result: dict) -> str:
    lines = [f"growth ({result['database']})", "papers  materialize_s  ms/paper  status_s  peak_rss_mb"]
    for r in result["papers"]:
        lines.append(f"{r['papers']:>6} {r['materialize_s']:>14.2f} {r['ms_per_paper']:>9.2f} "
                     f"{r['status_s']:>9.4f} {r['peak_rss_mb']:>12.0f}")
    lines.append("projects  sensor_tick_s  status_s  list_partitions_s  peak_rss_mb")
    for r in result["projects"]:
        lines.append(f"{r['projects']:>8} {r['sensor_tick_s']:>14.3f} {r['status_s']:>9.4f} "
                     f"{r['list_partitions_s']:>18.4f} {r['peak_rss_mb']:>12.0f}")
    return "\n".join(lines)


if __name__ == "__main__":
    kind, size = sys.argv[1], int(sys.argv[2])
    url = sys.argv[3] if len(sys.argv) > 3 else None
    measure = measure_papers if kind == "papers" else measure_projects
    print(json.dumps(measure(size, url)))
