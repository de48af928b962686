"""Recovery report: inject every fault class, kill a run, wipe Dagster's storage, resume, and count.

    .venv/bin/python scripts/recovery_report.py [--papers 24] [--json out.json]     (or: make recovery-report)

Each scenario gets its own AGENTR_HOME (domain store on SQLite, Dagster instance, results) and its own scripted
OpenAI-compatible server on loopback, so no response cache is shared between scenarios. After each scenario the
completed project is materialised once more to prove that re-executing completed work charges nothing.

Printed per scenario and in total:
- faults injected: faulted requests (HTTP errors, drops, truncations, invalid / off-schema JSON) + kills + wipes
  + deletions;
- runs completed: projects that end complete (orphans end terminal, by design);
- papers lost: papers of live projects without a current score at the end (must be 0);
- duplicate charges: usage rows beyond the answers actually served per paper and stage, settle entries beyond one
  per reservation, and usage added by re-running completed work (must be 0);
- the ledger check (balance == sum of entries, no reservation left open) and wall time.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import zlib
from collections import Counter
from dataclasses import asdict, dataclass, field
from decimal import Decimal
from pathlib import Path

import pandas as pd

DEMO = Path(__file__).resolve().parents[1] / "agentr_dagster" / "data" / "demo"
MODEL = "scripted-model"
BILLABLE = {"ok", "latency", "invalid_json", "schema_violation"}


@dataclass
class ScenarioResult:
    name: str
    faults: int = 0
    runs: int = 0
    completed: bool = False
    papers: int = 0
    papers_lost: int = 0
    orphaned_papers: int = 0
    duplicate_charges: int = 0
    calls: int = 0
    charged_calls: int = 0
    unsettled_in_crash: int = 0
    ledger_ok: bool = False
    open_reservations: int = 0
    seconds: float = 0.0
    notes: list[str] = field(default_factory=list)


class Scenario:
    """One isolated world: AGENTR_HOME, SQLite store, Dagster instance and a scripted server."""

    def __init__(self, root: Path, name: str, papers: int, latency: float = 0.0, faults=None, responder=None):
        from agentr_dagster.defs.resources import open_store
        from agentr_dagster.stages.intake import add_papers_file, add_project
        from agentr_dagster.testing.scripted_server import ScriptedOpenAIServer

        self.name, self.slug, self.home = name, name, root / name
        self.home.mkdir(parents=True)
        os.environ["AGENTR_HOME"] = str(self.home)
        os.environ.pop("DAGSTER_HOME", None)
        self.server = ScriptedOpenAIServer(responder or chain_responder, latency=latency, faults=faults).start()
        os.environ.update({
            "AGENTR_LLM_BASE_URL": self.server.base_url, "AGENTR_LLM_MODEL": MODEL,
            "AGENTR_LLM_API_KEY": "sk-report-not-a-real-key", "AGENTR_LLM_CONCURRENCY": "4",
            "AGENTR_DATABASE_URL": f"sqlite:///{self.home / 'agentr.db'}",
        })
        self.store = open_store(os.environ["AGENTR_DATABASE_URL"])
        self.store.ledger.set_pricing(MODEL, Decimal("2.50"), Decimal("10.00"))
        self.store.ledger.ensure_account("default")
        add_project(self.store, self.slug, (DEMO / "abstract.md").read_text())
        csv = self.home / "papers.csv"
        pd.read_csv(DEMO / "papers.csv").head(papers).to_csv(csv, index=False)
        add_papers_file(self.store, self.slug, csv)
        self.result = ScenarioResult(name, papers=papers)
        self.started = time.monotonic()
        self.extra_faults = 0
        self.unsettled = 0

    def instance(self):
        from agentr_dagster.defs.recovery import open_instance

        return open_instance()

    def run(self, max_attempts: int = 4) -> bool:
        """`agentr run`'s path (materialise the chain on the local instance), quietly."""
        from dagster import materialize

        from agentr_dagster.defs.assets import project_assets
        from agentr_dagster.defs.resources import LLMResource, SourcesResource, StoreResource

        with self.instance() as instance:
            if not instance.has_dynamic_partition("projects", self.slug):
                instance.add_dynamic_partitions("projects", [self.slug])
            result = materialize(
                project_assets, partition_key=self.slug, instance=instance, raise_on_error=False,
                resources={"store": StoreResource(database_url=os.environ["AGENTR_DATABASE_URL"]),
                           "llm": LLMResource(base_url=self.server.base_url, api_key="sk-report", model=MODEL,
                                              concurrency=4, max_attempts=max_attempts), "sources": SourcesResource()},
                tags={"agentr/source": "recovery-report"},
                run_config={"loggers": {"console": {"config": {"log_level": "CRITICAL"}}}},
            )
        self.result.runs += 1
        return result.success

    def resume(self, all_projects: bool = False):
        from agentr_dagster.defs.recovery import resume

        outcomes = resume(self.store, slugs=None if all_projects else [self.slug])
        self.result.runs += sum(len(o.run_ids) for o in outcomes)
        for o in outcomes:
            self.result.notes.append(f"resume: {o.action}" + (f" ({o.message})" if o.message else ""))
        return outcomes

    def finish(self, orphan: bool = False) -> ScenarioResult:
        from agentr_dagster.stages.staleness import project_gap

        store, server, r = self.store, self.server, self.result
        r.faults = sum(1 for f in server.faults_applied if f.kind not in ("ok", "latency")) + self.extra_faults
        if orphan:
            r.orphaned_papers = len(store.projects.list_papers(self.slug, include_deleted=True))
            r.completed = not store.projects.is_active(self.slug)  # terminal, as it should be
        else:
            gap = project_gap(store, self.slug)
            r.papers_lost = gap.papers_missing
            r.completed = gap.complete
            if r.completed:  # re-executing completed work must cost nothing
                before = len(store.ledger.usage())
                self.run()
                r.duplicate_charges += len(store.ledger.usage()) - before
        # Charged calls per (stage, paper) may not exceed the answers served for it.
        answered: Counter = Counter()
        titles = {p.title.strip(): p.id for p in store.projects.list_papers(self.slug, include_deleted=True)}
        for body, fault in zip(server.requests, server.faults_applied, strict=True):
            if fault.kind in BILLABLE:
                answered[(stage_name(body), titles.get(_title(body)))] += 1
        charged = Counter((u.stage, u.paper_id) for u in store.ledger.usage())
        r.duplicate_charges += sum(max(0, n - answered[key]) for key, n in charged.items())
        settles = Counter(e.reservation_id for e in store.ledger.ledger() if e.kind == "settle")
        r.duplicate_charges += sum(n - 1 for n in settles.values() if n > 1)
        r.calls, r.charged_calls = server.calls, len(store.ledger.usage())
        r.unsettled_in_crash = self.unsettled
        r.open_reservations = len(store.ledger.open_reservations())
        r.ledger_ok = (
            store.ledger.balance() == store.ledger.ledger_sum()
            and r.open_reservations == 0
            and store.ledger.balance() >= 0
        )
        r.seconds = round(time.monotonic() - self.started, 2)
        server.stop()
        return r


def stage_name(body: dict) -> str:
    """The pipeline stage a request belongs to (testing.responders knows every prompt), or 'other'."""
    from agentr_dagster.testing.responders import stage_of

    try:
        return stage_of(body)
    except ValueError:
        return "other"


def chain_responder(body: dict) -> str:
    """Schema-valid answers for every LLM stage of the chain, related-work rewrites included."""
    from agentr_dagster.testing.responders import valid_responder

    return valid_responder(body)


def _title(body: dict) -> str:
    user = next((m["content"] for m in body.get("messages", []) if m.get("role") == "user"), "")
    for line in user.splitlines():
        if line.startswith("Title: "):
            return line[len("Title: "):].strip()
    return ""


def random_plan(fault, rate: float, seed: int, max_per_paper: int = 2):
    """Fault a share of requests at random (seeded), never more than ``max_per_paper`` times per paper: the
    in-process retries (4 attempts) always get through."""
    rng, seen, lock = random.Random(seed), Counter(), threading.Lock()

    def plan(index: int, body: dict):
        key = (stage_name(body), _title(body))
        with lock:
            if seen[key] < max_per_paper and rng.random() < rate:
                seen[key] += 1
                return fault
        return None

    return plan


def transient(root: Path, n: int, name: str, fault, seed: int) -> ScenarioResult:
    s = Scenario(root, name, n, faults=random_plan(fault, 0.4, seed))
    if not s.run():
        s.resume()
    return s.finish()


def dagster_retry(root: Path, n: int) -> ScenarioResult:
    from agentr_dagster.testing.scripted_server import Fault

    stubborn: Counter = Counter()
    lock = threading.Lock()

    def plan(index: int, body: dict):
        title = _title(body)
        with lock:
            stubborn[title] += 1
            chosen = bool(title) and zlib.crc32(title.encode()) % 4 == 0  # about a quarter of the papers
            return Fault("status", status=503) if chosen and stubborn[title] <= 2 else None

    s = Scenario(root, "transient-beyond-budget", n, faults=plan)
    ok = s.run(max_attempts=2)  # in-process budget of 2: the Dagster RetryPolicy re-runs the step
    s.result.notes.append("completed by Dagster's step retry" if ok else "needed resume")
    if not ok:
        s.resume()
    return s.finish()


class FailScoringAfter:
    """A fault plan: the first `good` scoring requests are answered, later ones get HTTP `status` until healed."""

    def __init__(self, good: int, status: int):
        self.good, self.status, self.scored = good, status, 0
        self.lock = threading.Lock()

    def __call__(self, index: int, body: dict):
        from agentr_dagster.testing.scripted_server import Fault

        if "Title: " not in json.dumps(body):
            return None
        with self.lock:
            self.scored += 1
            return Fault("status", status=self.status) if self.scored > self.good else None

    def heal(self) -> None:
        self.good = 10**9


def permanent_401(root: Path, n: int) -> ScenarioResult:
    plan = FailScoringAfter(n // 2, 401)

    s = Scenario(root, "permanent-401", n, faults=plan)
    assert not s.run()
    refused = sum(1 for f in s.server.faults_applied if f.kind == "status")
    s.result.notes.append(f"401: {refused} request(s) refused, no retry")
    plan.heal()  # the key is fixed
    s.resume()
    return s.finish()


def no_credits(root: Path, n: int) -> ScenarioResult:
    s = Scenario(root, "no-credits", n)
    s.store.ledger.set_pricing(MODEL, Decimal("10"), Decimal("10"))
    s.store.ledger.adjust("default", Decimal("150") - s.store.ledger.balance(), note="report: a small balance")
    assert not s.run()
    s.extra_faults += 1
    refused = sum(1 for f in s.store.lifecycle.failures(s.slug) if f.failure_class == "no_credits")
    s.result.notes.append(f"no credits: {refused} paper(s) refused without a call")
    s.store.ledger.grant("default", Decimal("100000"), note="top-up")
    s.resume()
    return s.finish()


def orphan(root: Path, n: int) -> ScenarioResult:
    holder: dict = {}
    lock = threading.Lock()

    def responder(body: dict) -> str:
        if stage_name(body) == "score":
            with lock:
                holder["score"] = holder.get("score", 0) + 1
                if holder["score"] == n // 3:
                    holder["scenario"].store.projects.soft_delete_project(holder["scenario"].slug)
                    holder["calls_at_delete"] = holder["scenario"].server.calls
        return chain_responder(body)

    s = Scenario(root, "orphan-mid-run", n, latency=0.02, responder=responder)
    holder["scenario"] = s
    assert not s.run()
    s.extra_faults += 1
    after = s.server.calls - holder["calls_at_delete"]
    s.result.notes.append(f"deleted mid-run: {after} call(s) already in flight finished, none started after")
    s.resume()
    return s.finish(orphan=True)


def crash(root: Path, n: int) -> ScenarioResult:
    s = Scenario(root, "sigkill-mid-run", n, latency=0.15)
    os.environ["AGENTR_LLM_CONCURRENCY"] = "2"
    proc = subprocess.Popen([sys.executable, "-m", "agentr_dagster.cli", "run", s.slug, "--no-progress"],
                            env=dict(os.environ), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 180
    # Kill it half-way, while a call is in flight (a reservation is open).
    while (len(s.store.results.results_for_project(s.slug)) < n // 2 or not s.store.ledger.open_reservations()) \
            and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.02)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    s.extra_faults += 1
    s.result.runs += 1
    held = len(s.store.ledger.open_reservations())
    scored = len(s.store.results.results_for_project(s.slug))
    s.resume()
    usage_scores = sum(1 for u in s.store.ledger.usage() if u.stage == "score")
    served_scores = sum(1 for b, f in zip(s.server.requests, s.server.faults_applied, strict=True)
                        if f.kind in BILLABLE and "Title: " in json.dumps(b))
    s.unsettled = served_scores - usage_scores
    s.result.notes.append(f"killed at {scored}/{n} scored with {held} reservation(s) open; all released")
    return s.finish()


def storage_loss(root: Path, n: int) -> ScenarioResult:
    from agentr_dagster.settings import dagster_home

    plan = FailScoringAfter(n // 2, 503)
    s = Scenario(root, "dagster-storage-lost", n, faults=plan)
    s.run(max_attempts=1)  # 503s beyond half-way: the run fails part-done (after Dagster's own retries)
    partial = len(s.store.results.results_for_project(s.slug))
    shutil.rmtree(dagster_home())
    s.extra_faults += 1
    plan.heal()
    s.resume(all_projects=True)
    s.result.notes.append(f"storage wiped at {partial}/{n} scored; rebuilt from the domain store")
    return s.finish()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--papers", type=int, default=24, help="papers per scenario (demo data has 40)")
    parser.add_argument("--json", dest="json_out", type=Path, default=None)
    parser.add_argument("--keep", action="store_true", help="keep the scenario homes")
    args = parser.parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    logging.getLogger("agentr_dagster").setLevel(logging.ERROR)  # the retries are counted, not narrated

    root = Path(tempfile.mkdtemp(prefix="agentr-recovery-"))
    try:
        return _report(root, args)
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)


def _report(root: Path, args) -> int:
    from agentr_dagster.testing.scripted_server import Fault

    n = max(20, min(args.papers, 40))
    started = time.monotonic()
    kinds = {
        "transient-429-retry-after": Fault("status", status=429, retry_after=1),
        "transient-500": Fault("status", status=500),
        "transient-503": Fault("status", status=503),
        "transient-dropped-connection": Fault("drop"),
        "transient-truncated-body": Fault("truncate"),
        "transient-invalid-json": Fault("invalid_json"),
        "transient-schema-violation": Fault("schema_violation"),
    }
    results = [transient(root, n, name, fault, seed) for seed, (name, fault) in enumerate(kinds.items())]
    for scenario in (dagster_retry, permanent_401, no_credits, orphan, crash, storage_loss):
        results.append(scenario(root, n))
    wall = time.monotonic() - started

    header = f"{'scenario':30} {'faults':>6} {'runs':>4} {'done':>5} {'lost':>4} {'dup':>4} {'calls':>5} " \
             f"{'charged':>7} {'ledger':>6} {'secs':>6}"
    print(header)
    print("-" * len(header))
    for r in results:
        print(f"{r.name:30} {r.faults:>6} {r.runs:>4} {'yes' if r.completed else 'NO':>5} {r.papers_lost:>4} "
              f"{r.duplicate_charges:>4} {r.calls:>5} {r.charged_calls:>7} {'ok' if r.ledger_ok else 'BAD':>6} "
              f"{r.seconds:>6.1f}")
        for note in r.notes:
            print(f"{'':32}{note}")
    totals = {
        "faults_injected": sum(r.faults for r in results),
        "runs": sum(r.runs for r in results),
        "runs_completed": f"{sum(r.completed for r in results)}/{len(results)}",
        "papers_lost": sum(r.papers_lost for r in results),
        "duplicate_charges": sum(r.duplicate_charges for r in results),
        "orphaned_papers_by_deletion": sum(r.orphaned_papers for r in results),
        "answered_but_unsettled_in_crash": sum(r.unsettled_in_crash for r in results),
        "open_reservations": sum(r.open_reservations for r in results),
        "ledgers_reconciled": all(r.ledger_ok for r in results),
        "wall_time_s": round(wall, 1),
    }
    print()
    for key, value in totals.items():
        print(f"{key.replace('_', ' '):32} {value}")
    if args.json_out:
        args.json_out.write_text(json.dumps({"totals": totals, "scenarios": [asdict(r) for r in results]}, indent=2))
    ok = totals["papers_lost"] == 0 and totals["duplicate_charges"] == 0 and totals["ledgers_reconciled"] \
        and all(r.completed for r in results)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
