"""Money across hosts and containers (issue 35): one `agentr run` in another UTS + PID namespace (another machine
or a container, simulated with ``unshare``; needs root), a second command of the same project out here, both
against the scripted OpenAI-compatible server; then calls against papers, charges, operator waste and
`agentr ledger verify`.

    .venv/bin/python scripts/namespace_report.py --scenario live   [--db pg|sqlite] [--papers 40] [--latency 4]
    .venv/bin/python scripts/namespace_report.py --scenario frozen [--ttl 180] [--freeze 200]
    .venv/bin/python scripts/namespace_report.py --scenario resume [--ttl 180] [--freeze 200]

Scenarios:
- live: A runs in another PID namespace with the same host name (containers with host networking); B starts
  `agentr run` out here while A scores. A's pid names no process out here; its heartbeat is fresh: B must wait.
- frozen: A runs in another UTS namespace (another host name) and is frozen (SIGSTOP) for --freeze seconds with
  calls in flight; B starts `agentr run` out here, takes over after --ttl, finishes; then A wakes.
- resume: as frozen, but out here `agentr resume` runs after the TTL instead of `agentr run`.
Printed: papers, score requests the endpoint served (and the most for one paper), score charges (usage rows),
operator waste per cause, and the verify output. 0 double charges means: score charges == papers.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter
from decimal import Decimal
from pathlib import Path

import pandas as pd
import sqlalchemy as sa

REPO = Path(__file__).resolve().parents[1]
DEMO = REPO / "agentr_dagster" / "data" / "demo"
MODEL = "scripted-model"
PG_ADMIN = "postgresql+psycopg2://postgres@127.0.0.1:5432/test"


def _database(kind: str, home: Path) -> str:
    if kind == "sqlite":
        return f"sqlite:///{home / 'domain.db'}"
    schema = f"ns_{uuid.uuid4().hex[:10]}"
    engine = sa.create_engine(PG_ADMIN, isolation_level="AUTOCOMMIT")
    with engine.connect() as conn:
        conn.exec_driver_sql(f'CREATE SCHEMA "{schema}"')
    engine.dispose()
    return f"{PG_ADMIN}?options=-csearch_path%3D{schema}"


def _free_pid() -> int:
    for pid in range(31000, 32000):
        if not Path(f"/proc/{pid}").exists() and not Path(f"/proc/{pid + 1}").exists():
            return pid + 1
    raise SystemExit("no free pid in 31000-32000")


def _agentr(args: list[str], env: dict, log: Path, *, elsewhere: str | None = None) -> subprocess.Popen:
    """`agentr <args>` out here, or (``elsewhere``: a host name, "" to keep this one) in new UTS + PID namespaces."""
    command = [sys.executable, "-m", "agentr_dagster.cli", *args]
    if elsewhere is not None:
        rename = f"hostname {elsewhere}; " if elsewhere else ""
        inner = f"{rename}echo {_free_pid() - 1} > /proc/sys/kernel/ns_last_pid; " + " ".join(command)
        command = ["unshare", "--uts", "--pid", "--fork", "--mount-proc", "sh", "-c", inner]
    with log.open("w") as out:
        return subprocess.Popen(command, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)


def _until(condition, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise SystemExit(f"timed out waiting for {what}")
        time.sleep(0.1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scenario", choices=("live", "frozen", "resume"), required=True)
    parser.add_argument("--db", choices=("pg", "sqlite"), default="pg")
    parser.add_argument("--papers", type=int, default=40)
    parser.add_argument("--latency", type=float, default=4.0, help="seconds the endpoint takes per answer")
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--ttl", type=float, default=180.0, help="AGENTR_LEASE_TTL_S (default: the default)")
    parser.add_argument("--freeze", type=float, default=200.0, help="seconds A stays frozen (frozen, resume)")
    args = parser.parse_args()

    sys.path.insert(0, str(REPO))
    from agentr_dagster.stages.intake import add_papers_file, add_project
    from agentr_dagster.store import DomainStore
    from agentr_dagster.store.verify import waste_figures, waste_summary
    from agentr_dagster.testing.responders import stage_of, valid_responder
    from agentr_dagster.testing.scripted_server import ScriptedOpenAIServer

    home = Path(tempfile.mkdtemp(prefix="agentr-ns-"))
    url = _database(args.db, home)
    store = DomainStore(url)
    store.ledger.set_pricing(MODEL, Decimal("2.50"), Decimal("10.00"))
    store.ledger.ensure_account("default")
    slug = "containers"
    add_project(store, slug, (DEMO / "abstract.md").read_text())
    papers = home / "papers.csv"
    pd.read_csv(DEMO / "papers.csv").iloc[: args.papers].to_csv(papers, index=False)
    add_papers_file(store, slug, papers)
    server = ScriptedOpenAIServer(valid_responder, latency=args.latency).start()
    env = {**os.environ, "AGENTR_HOME": str(home), "AGENTR_DATABASE_URL": url, "AGENTR_LLM_BASE_URL": server.base_url,
           "AGENTR_LLM_MODEL": MODEL, "AGENTR_LLM_API_KEY": "sk-namespace-report",
           "AGENTR_LLM_CONCURRENCY": str(args.concurrency), "AGENTR_LEASE_TTL_S": str(args.ttl),
           "PYTHONPATH": str(REPO)}

    def scored() -> int:
        return len(store.results.results_for_project(slug))

    started = time.monotonic()
    a = _agentr(["run", slug, "--no-progress"], env, home / "a.log",
                elsewhere="" if args.scenario == "live" else "another-machine")
    _until(lambda: scored() >= 2 and server.in_flight >= 1, 300, "A's first scores")
    lease = store.leases.project_lease(slug)
    print(f"A holds the lease: pid {lease.pid} on {lease.host}, realm {lease.realm}")
    if args.scenario == "live":
        b = _agentr(["run", slug, "--no-progress"], env, home / "b.log")
        a.wait()
        b.wait()
    else:
        os.killpg(a.pid, signal.SIGSTOP)
        frozen_at = time.monotonic()
        print(f"A frozen with {server.in_flight} call(s) at the endpoint")
        if args.scenario == "frozen":
            b = _agentr(["run", slug, "--no-progress"], env, home / "b.log")
        else:
            time.sleep(args.ttl + 2)
            b = _agentr(["resume", slug], env, home / "b.log")
        b.wait()
        time.sleep(max(0.0, args.freeze - (time.monotonic() - frozen_at)))
        os.killpg(a.pid, signal.SIGCONT)
        print(f"A woken after {time.monotonic() - frozen_at:.0f} s")
        a.wait()
    bodies = [body for body in server.requests]
    stages = Counter(_stage(stage_of, body) for body in bodies)
    per_paper = Counter(_user(body) for body in bodies if _stage(stage_of, body) == "score")
    usage = store.ledger.usage(slug)
    charged = Counter(u.stage for u in usage)
    score_charges = Counter(u.paper_id for u in usage if u.stage == "score")
    print(f"scenario {args.scenario} on {args.db}: {args.papers} papers, latency {args.latency} s, TTL {args.ttl} s, "
          f"{time.monotonic() - started:.0f} s")
    print(f"A exit {a.returncode}, B exit {b.returncode}")
    print(f"requests served by the endpoint: {sum(stages.values())} {dict(stages)}")
    print(f"score requests: {sum(per_paper.values())} for {args.papers} papers (most for one paper: "
          f"{max(per_paper.values(), default=0)})")
    print(f"charges (usage rows): {len(usage)} {dict(charged)}; score charges {sum(score_charges.values())} for "
          f"{len(score_charges)} papers (most for one paper: {max(score_charges.values(), default=0)})")
    print(waste_summary(waste_figures(store.ledger.waste(slug))))
    verify = subprocess.run([sys.executable, "-m", "agentr_dagster.cli", "ledger", "verify"], env=env,
                            capture_output=True, text=True)
    print(verify.stdout.strip())
    print(f"logs: {home}/a.log, {home}/b.log")
    server.stop()
    store.close()


def _stage(stage_of, body: dict) -> str:
    try:
        return stage_of(body)
    except ValueError:
        return "other"


def _user(body: dict) -> str:
    return next((m["content"] for m in body.get("messages", []) if m.get("role") == "user"), "")


if __name__ == "__main__":
    main()
