"""Ledger benchmark and concurrent-spender stress run, on PostgreSQL and SQLite.

    .venv/bin/python scripts/bench_ledger.py                 # both backends, figures on stdout
    .venv/bin/python scripts/bench_ledger.py --json out.json --processes 32 --ops 500 --backends postgresql

Two measurements per backend:
1. sequential: operations per second of ``reserve``, ``settle``, ``release`` and ``grant`` in one process;
2. spenders: P processes × N spend cycles against a small balance with random failures (calls that fail and are
   released, retried settlements and releases, late settlements after a release, processes that die with a
   reservation open, PostgreSQL connections killed mid-transaction, price and multiplier changes mid-run), then
   the stale sweep, ``verify_ledger``, and a reconciliation of every process's journal against the database.

The spender workload (:func:`run_spenders`) is what ``tests/test_ledger_concurrency.py`` runs at a smaller size.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import random
import sys
import tempfile
import time
import traceback
import uuid
from dataclasses import asdict, dataclass, field
from decimal import Decimal
from pathlib import Path

import sqlalchemy as sa

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from agentr_dagster.store import DomainStore, InsufficientCredits, UsageIn  # noqa: E402
from agentr_dagster.store.engine import normalise_url  # noqa: E402
from agentr_dagster.store.ledger import CallBound  # noqa: E402
from agentr_dagster.store.verify import verify_ledger  # noqa: E402

PG_SERVER_URL = os.environ.get("AGENTR_TEST_PG_ADMIN_URL", "postgresql+psycopg2://postgres@127.0.0.1:5432/postgres")
MODEL = "bench-model"
ACCOUNT = "default"
SLUG = "spenders"
CAPPED = "spenders-capped"
MAX_OUTPUT = 700
CRASH_EXIT = 17


@dataclass
class SpendConfig:
    url: str
    processes: int = 32
    ops: int = 500
    start_balance: Decimal = Decimal("50")
    budget: Decimal = Decimal("150")  # the capped project's budget, in credits
    seed: int = 0
    crash_rate: float = 0.002  # per cycle: the process dies (os._exit) holding an open reservation
    crash_processes: int = 0  # processes 0..k-1 also die so, at their first reservation from mid-run on
    kill_interval_s: float = 0.25  # PostgreSQL only: a random spender's connection is terminated this often
    price_interval_s: float = 0.4  # a price or the multiplier changes this often during the run
    watch_interval_s: float = 0.002


@dataclass
class SpendResult:
    backend: str
    processes: int
    ops_per_process: int
    seconds: float
    cycles: int
    cycles_lost_to_crashes: int  # cycles a process that died never started
    cycles_per_s: float
    reserved: int
    refused: int
    refused_budget: int
    settled: int
    released: int
    late_settled: int
    duplicate_calls: int
    crashed_processes: int
    connection_kills: int
    price_changes: int
    db_retries: int
    transactions_per_s: float
    lowest_balance_seen: str
    final_balance: str
    stale_released: int
    capped_usage: str
    capped_late_usage: str  # of which: calls settled after their reservation had been released (timeouts)
    verify_ok: bool
    violations: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # journal vs database: lost or phantom operations

    @property
    def ok(self) -> bool:
        return self.verify_ok and not self.problems and Decimal(self.lowest_balance_seen) >= 0


# ------------------------------------------------------------------------------------------------ processes
def _open(url: str, name: str) -> DomainStore:
    if url.startswith("postgresql"):
        return DomainStore(url, migrate=False, pool_size=1, connect_args={"application_name": name})
    return DomainStore(url, migrate=False)


def _retry(fn, counter: list[int], attempts: int = 30):
    """A client's retry of one store call after a lost connection; the call's idempotency key makes it safe."""
    for attempt in range(attempts):
        try:
            return fn()
        except (sa.exc.OperationalError, sa.exc.InterfaceError, sa.exc.DBAPIError) as exc:
            if isinstance(exc, sa.exc.IntegrityError) or attempt == attempts - 1:
                raise
            counter[0] += 1
            time.sleep(min(0.2, 0.005 * 2**attempt))
    raise AssertionError("unreachable")


def _spender(cfg: SpendConfig, n: int, journal: Path, tag: str) -> None:
    """One process: ``cfg.ops`` spend cycles, each journalled before and after every store call."""
    try:
        _spend(cfg, n, journal, tag)
    except BaseException:
        journal.with_suffix(".error").write_text(traceback.format_exc())
        raise


def _spend(cfg: SpendConfig, n: int, journal: Path, tag: str) -> None:
    rng = random.Random(cfg.seed * 1000 + n)
    store = _open(cfg.url, f"{tag}-s{n}")
    retries = [0]
    with journal.open("a", buffering=1) as log:
        for i in range(cfg.ops):
            key = f"p{n}-{i}"
            slug = CAPPED if rng.random() < 0.25 else SLUG
            inp = rng.randint(200, 4000)
            if slug == CAPPED:  # the store sizes the hold at the rates settle will use: a bound that holds
                estimate, bound = Decimal(0), CallBound(MODEL, inp, MAX_OUTPUT)
            else:  # the gateway's way: estimate, then reserve that (a price change in between can overrun it)
                estimate = _retry(lambda inp=inp: store.ledger.estimate_credits(MODEL, inp, MAX_OUTPUT), retries)
                bound = None
            log.write(f"R {key} {slug}\n")
            try:
                rid = _retry(
                    lambda k=key, e=estimate, s=slug, b=bound: store.ledger.reserve(
                        ACCOUNT, e, idempotency_key=k, slug=s, stage="score", bound=b
                    ),
                    retries,
                )
            except InsufficientCredits as exc:
                log.write(f"NO {key} {exc.reason}\n")
                _maybe_grant(store, rng, key, log, retries)
                continue
            log.write(f"OK {key} {rid} {estimate}\n")
            if rng.random() < 0.2:  # the reply was lost: the caller reserves again with the same key
                again = _retry(
                    lambda k=key, e=estimate, s=slug: store.ledger.reserve(ACCOUNT, e, idempotency_key=k, slug=s),
                    retries,
                )
                log.write(f"DUPR {key} {rid} {again}\n")
            if rng.random() < cfg.crash_rate or (n < cfg.crash_processes and i >= cfg.ops // 2):
                log.write(f"CRASH {key} {rid}\n")
                os._exit(CRASH_EXIT)  # dies mid-call: the reservation stays open until the stale sweep
            # the capped project's calls stay within their bound, so its budget holds exactly
            out_cap = MAX_OUTPUT if slug == CAPPED else MAX_OUTPUT + 200
            usage = UsageIn(model=MODEL, input_tokens=inp, output_tokens=rng.randint(0, out_cap),
                            cached_input_tokens=rng.choice([0, 0, inp // 2]), stage="score")
            roll = rng.random()
            if roll < 0.62:  # the call succeeded
                uid = _retry(lambda r=rid, u=usage: store.ledger.settle(r, usage=u), retries)
                log.write(f"S {rid} {uid}\n")
                if rng.random() < 0.3:  # retried settlement: same usage row, nothing charged twice
                    again = _retry(lambda r=rid, u=usage: store.ledger.settle(r, usage=u), retries)
                    log.write(f"DUPS {rid} {uid} {again}\n")
            elif roll < 0.97:  # the call failed
                _retry(lambda r=rid: store.ledger.release(r, note="call failed"), retries)
                log.write(f"X {rid}\n")
                if rng.random() < 0.3:  # retried release: nothing given back twice
                    _retry(lambda r=rid: store.ledger.release(r), retries)
                    log.write(f"DUPX {rid}\n")
            else:  # timed out and released, but the call had completed: a late settlement still charges it
                _retry(lambda r=rid: store.ledger.release(r, note="timeout"), retries)
                log.write(f"X {rid}\n")
                uid = _retry(lambda r=rid, u=usage: store.ledger.settle(r, usage=u), retries)
                log.write(f"L {rid} {uid}\n")
            _maybe_grant(store, rng, key, log, retries)
        log.write(f"DONE {retries[0]}\n")
    store.close()


def _maybe_grant(store: DomainStore, rng: random.Random, key: str, log, retries: list[int]) -> None:
    if rng.random() < 0.5:
        amount = Decimal(rng.randint(4, 12))
        _retry(lambda: store.ledger.grant(ACCOUNT, amount, note="top-up", idempotency_key=f"top-up-{key}"), retries)
        if rng.random() < 0.2:
            _retry(lambda: store.ledger.grant(ACCOUNT, amount, note="top-up", idempotency_key=f"top-up-{key}"), retries)
        log.write(f"G {key} {amount}\n")


def _watcher(cfg: SpendConfig, stop, out: Path, tag: str) -> None:
    """Polls the balance as fast as it can; writes the lowest value it saw."""
    store = _open(cfg.url, f"{tag}-watch")
    lowest: Decimal | None = None
    reads = 0
    while not stop.is_set():
        try:
            value = store.ledger.balance(ACCOUNT)
        except sa.exc.DBAPIError:
            continue
        reads += 1
        lowest = value if lowest is None else min(lowest, value)
        time.sleep(cfg.watch_interval_s)
    out.write_text(json.dumps({"lowest": str(lowest), "reads": reads}))
    store.close()


def _chaos(cfg: SpendConfig, stop, out: Path, tag: str) -> None:
    """Changes prices and the multiplier mid-run; on PostgreSQL also kills random spenders' connections."""
    rng = random.Random(cfg.seed + 99)
    store = _open(cfg.url, f"{tag}-chaos")
    kills = changes = 0
    next_price = time.monotonic() + cfg.price_interval_s
    while not stop.is_set():
        if time.monotonic() >= next_price:
            if changes % 2 == 0:
                store.ledger.set_pricing(
                    MODEL,
                    Decimal(rng.choice(["2", "2.5", "3"])),
                    Decimal(rng.choice(["8", "10", "12"])),
                    Decimal("1.25"),
                )
            else:
                store.ledger.set_multiplier(Decimal(rng.choice(["800", "1000", "1200"])))
            changes += 1
            next_price = time.monotonic() + cfg.price_interval_s
        if store.is_postgres and cfg.kill_interval_s > 0:
            with store.engine.connect() as conn:
                killed = conn.execute(sa.text(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                    "WHERE datname = current_database() AND application_name LIKE :p AND state <> 'idle' "
                    "ORDER BY random() LIMIT 1"
                ), {"p": f"{tag}-s%"}).scalar()
                conn.commit()
            kills += 1 if killed else 0
        stop.wait(cfg.kill_interval_s if store.is_postgres and cfg.kill_interval_s > 0 else cfg.price_interval_s / 4)
    out.write_text(json.dumps({"kills": kills, "changes": changes}))
    store.close()


# ------------------------------------------------------------------------------------------------ the run
def prepare(cfg: SpendConfig) -> None:
    with DomainStore(cfg.url) as store:
        store.ledger.set_pricing(MODEL, Decimal("2.5"), Decimal("10"), Decimal("1.25"))
        store.projects.create_project(SLUG, "concurrent spenders")
        store.projects.create_project(CAPPED, "concurrent spenders with a budget", budget_credits=cfg.budget)
        store.ledger.adjust(ACCOUNT, cfg.start_balance - store.ledger.balance(ACCOUNT), note="small balance")


def run_spenders(cfg: SpendConfig, workdir: Path) -> SpendResult:
    """Run the spenders on a prepared database (see :func:`prepare`) and check everything afterwards."""
    ctx = mp.get_context("fork")
    tag = f"agentr-spender-{uuid.uuid4().hex[:8]}"
    workdir.mkdir(parents=True, exist_ok=True)
    journals = [workdir / f"spender-{n}.log" for n in range(cfg.processes)]
    stop = ctx.Event()
    watch = ctx.Process(target=_watcher, args=(cfg, stop, workdir / "watch.json", tag))
    chaos = ctx.Process(target=_chaos, args=(cfg, stop, workdir / "chaos.json", tag))
    workers = [ctx.Process(target=_spender, args=(cfg, n, journals[n], tag)) for n in range(cfg.processes)]
    watch.start()
    chaos.start()
    started = time.perf_counter()
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    seconds = time.perf_counter() - started
    stop.set()
    watch.join()
    chaos.join()
    crashed = sum(1 for w in workers if w.exitcode == CRASH_EXIT)
    failed = [
        f"spender {n} exited with {w.exitcode}: {_last_error(journals[n])}"
        for n, w in enumerate(workers) if w.exitcode not in (0, CRASH_EXIT)
    ]

    with DomainStore(cfg.url, migrate=False) as store:
        # the crashed processes' reservations are the only open ones left: the sweep gives them back
        stale_released = store.ledger.release_stale_reservations(0)
        report = verify_ledger(store, stale_after_s=0)
        journal = _read_journals(journals)
        problems = failed + _reconcile(store, journal)
        final = store.ledger.balance(ACCOUNT)
        # The budget bounds what reserves admit. A call settled after its reservation was released (it timed out
        # but had completed) is charged anyway and may go past the budget: allowed, and flagged by verify.
        capped_rows = store.ledger.usage(CAPPED)
        capped = sum((u.credits for u in capped_rows), Decimal(0))
        capped_late = sum((u.credits for u in capped_rows if u.reservation_id in journal["late"]), Decimal(0))
        if capped - capped_late > cfg.budget:
            problems.append(f"capped project admitted {capped - capped_late} > budget {cfg.budget}")
        entries = report.counts["ledger_entries"]
    watched = json.loads((workdir / "watch.json").read_text())
    chaos_out = json.loads((workdir / "chaos.json").read_text())
    lowest = min(Decimal(watched["lowest"]) if watched["lowest"] != "None" else final, final)
    cycles = journal["attempts"]
    return SpendResult(
        backend="postgresql" if cfg.url.startswith("postgresql") else "sqlite",
        processes=cfg.processes,
        ops_per_process=cfg.ops,
        seconds=round(seconds, 2),
        cycles=cycles,
        cycles_lost_to_crashes=sum(cfg.ops - n for n in journal["unfinished"]),
        cycles_per_s=round(cycles / seconds, 1),
        reserved=len(journal["ok"]),
        refused=journal["refused"],
        refused_budget=journal["refused_budget"],
        settled=len(journal["settled"]),
        released=len(journal["released"]),
        late_settled=len(journal["late"]),
        duplicate_calls=journal["dups"],
        crashed_processes=crashed,
        connection_kills=chaos_out["kills"],
        price_changes=chaos_out["changes"],
        db_retries=journal["retries"],
        transactions_per_s=round(entries / seconds, 1),
        lowest_balance_seen=str(lowest),
        final_balance=str(final),
        stale_released=stale_released,
        capped_usage=str(capped),
        capped_late_usage=str(capped_late),
        verify_ok=report.ok,
        violations=[str(v) for v in report.violations],
        problems=problems,
    )


def _last_error(journal: Path) -> str:
    error = journal.with_suffix(".error")
    return error.read_text().strip().splitlines()[-1] if error.exists() else "(no traceback)"


def _read_journals(paths: list[Path]) -> dict:
    out = {"attempts": 0, "ok": {}, "refused": 0, "refused_budget": 0, "refused_keys": set(), "settled": {},
           "released": set(), "late": {}, "crashed": {}, "in_flight": set(), "dups": 0, "retries": 0,
           "duplicate_results": [], "unfinished": []}
    for path in paths:
        if not path.exists():
            continue
        pending: str | None = None
        attempts, done = 0, False
        for line in path.read_text().splitlines():
            kind, *rest = line.split()
            if kind == "R":
                out["attempts"] += 1
                attempts += 1
                pending = rest[0]
            elif kind == "OK":
                out["ok"][rest[0]] = int(rest[1])
                pending = None
            elif kind == "NO":
                out["refused"] += 1
                out["refused_budget"] += rest[1] == "budget"
                out["refused_keys"].add(rest[0])
                pending = None
            elif kind in ("DUPR", "DUPS", "DUPX"):
                out["dups"] += 1
                if kind != "DUPX" and rest[1] != rest[2]:  # a retried call must return the first call's id
                    out["duplicate_results"].append(line)
            elif kind == "S":
                out["settled"][int(rest[0])] = int(rest[1])
            elif kind == "X":
                out["released"].add(int(rest[0]))
            elif kind == "L":
                out["late"][int(rest[0])] = int(rest[1])
            elif kind == "CRASH":
                out["crashed"][rest[0]] = int(rest[1])
            elif kind == "DONE":
                out["retries"] += int(rest[0])
                done = True
        if not done:
            out["unfinished"].append(attempts)
        if pending is not None:
            out["in_flight"].add(pending)
    return out


def _reconcile(store: DomainStore, journal: dict) -> list[str]:
    """No operation lost, none invented: the database holds exactly what the journals say happened."""
    problems: list[str] = list(f"retried call returned another id: {line}" for line in journal["duplicate_results"])
    reservations = {r.idempotency_key: r for r in store.ledger.reservations() if r.account == ACCOUNT}
    spender_ids = {r.id for r in reservations.values()}
    usage = {u.id: u for u in store.ledger.usage() if u.reservation_id in spender_ids}
    for key, rid in journal["ok"].items():
        row = reservations.get(key)
        if row is None or row.id != rid:
            problems.append(f"reservation {key} (id {rid}) is missing from the database")
    for key in journal["refused_keys"]:
        if key in reservations:
            problems.append(f"refused reservation {key} was written anyway")
    known = set(journal["ok"]) | journal["in_flight"]
    for key in reservations:
        if key not in known:
            problems.append(f"reservation {key} in the database is in no journal")
    for key in journal["in_flight"]:  # died during reserve: either nothing was written, or it was swept
        row = reservations.get(key)
        if row is not None and row.state == "open":
            problems.append(f"reservation {key} of a dead process is still open")
    by_id = {r.id: r for r in reservations.values()}
    for rid, uid in {**journal["settled"], **journal["late"]}.items():
        u = usage.get(uid)
        if u is None or u.reservation_id != rid:
            problems.append(f"settlement of reservation {rid} (usage {uid}) is missing")
        if by_id.get(rid) is None or by_id[rid].state != "settled":
            problems.append(f"reservation {rid} was settled but is {by_id.get(rid) and by_id[rid].state}")
    for rid in journal["released"] - set(journal["late"]):
        if by_id.get(rid) is None or by_id[rid].state != "released":
            problems.append(f"reservation {rid} was released but is {by_id.get(rid) and by_id[rid].state}")
    for key, rid in journal["crashed"].items():
        if by_id.get(rid) is None or by_id[rid].state != "released":
            problems.append(f"reservation {key} of a crashed process was not released by the sweep")
    settled_rows = {u.reservation_id for u in usage.values()}
    journal_settled = set(journal["settled"]) | set(journal["late"])
    if settled_rows != journal_settled:
        extra = sorted(settled_rows - journal_settled)[:5]
        lost = sorted(journal_settled - settled_rows)[:5]
        problems.append(f"usage rows differ from journalled settlements: extra {extra}, lost {lost}")
    return problems


# ------------------------------------------------------------------------------------------------ sequential
def bench_sequential(url: str, n: int) -> dict[str, float]:
    """Operations per second of each ledger operation, one process, one account (not the spenders')."""
    account = "bench-sequential"
    with DomainStore(url) as store:
        store.ledger.set_pricing(MODEL, Decimal("2.5"), Decimal("10"))
        store.projects.create_project("seq", "sequential benchmark", account=account)
        store.ledger.grant(account, Decimal("1000000"))
        figures: dict[str, float] = {}

        def timed(name: str, fn) -> list:
            started = time.perf_counter()
            out = [fn(i) for i in range(n)]
            figures[name] = round(n / (time.perf_counter() - started), 1)
            return out

        run = uuid.uuid4().hex[:6]
        rids = timed("reserve", lambda i: store.ledger.reserve(account, 5, idempotency_key=f"{run}-a{i}", slug="seq"))
        call = UsageIn(model=MODEL, input_tokens=900, output_tokens=300)
        timed("settle", lambda i: store.ledger.settle(rids[i], usage=call))
        timed("settle_retry", lambda i: store.ledger.settle(rids[i], usage=call))
        rids = [store.ledger.reserve(account, 5, idempotency_key=f"{run}-b{i}") for i in range(n)]
        timed("release", lambda i: store.ledger.release(rids[i]))
        timed("grant", lambda i: store.ledger.grant(account, 1, idempotency_key=f"{run}-g{i}"))
        started = time.perf_counter()
        report = verify_ledger(store)
        figures["verify_rows_per_s"] = round(report.counts["ledger_entries"] / (time.perf_counter() - started), 1)
        figures["verify_ok"] = report.ok
    return figures


# ------------------------------------------------------------------------------------------------ databases
class TempPostgres:
    """A throwaway database on the local server, dropped afterwards."""

    def __init__(self, server_url: str = PG_SERVER_URL):
        self.server = sa.engine.make_url(normalise_url(server_url))
        self.name = f"agentr_bench_{uuid.uuid4().hex[:10]}"

    def __enter__(self) -> str:
        admin = sa.create_engine(self.server, isolation_level="AUTOCOMMIT")
        with admin.connect() as conn:
            conn.exec_driver_sql(f'CREATE DATABASE "{self.name}"')
        admin.dispose()
        url = self.server.set(database=self.name).update_query_dict({"options": "-csynchronous_commit=off"})
        return url.render_as_string(hide_password=False)

    def __exit__(self, *exc) -> None:
        admin = sa.create_engine(self.server, isolation_level="AUTOCOMMIT")
        with admin.connect() as conn:
            conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{self.name}" WITH (FORCE)')
        admin.dispose()


def _print_spend(result: SpendResult) -> None:
    print(f"  spenders: {result.processes} processes x {result.ops_per_process} cycles in {result.seconds}s "
          f"= {result.cycles_per_s} cycles/s ({result.transactions_per_s} ledger entries/s)")
    print(f"    reserved {result.reserved}, refused {result.refused} ({result.refused_budget} by the budget), "
          f"settled {result.settled}, released {result.released}, late settlements {result.late_settled}, "
          f"retried calls {result.duplicate_calls}")
    print(f"    failures injected: {result.crashed_processes} processes died, {result.connection_kills} connections "
          f"killed ({result.db_retries} client retries), {result.price_changes} price/multiplier changes")
    print(f"    lowest balance seen {result.lowest_balance_seen}, final {result.final_balance}; "
          f"stale reservations swept {result.stale_released}; capped project spent {result.capped_usage} "
          f"(of which {result.capped_late_usage} settled late)")
    print(f"    verify: {'ok' if result.verify_ok else 'FAILED'}; journal reconciliation: "
          f"{'ok' if not result.problems else f'{len(result.problems)} problems'}")
    for line in (result.violations + result.problems)[:20]:
        print(f"      {line}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--backends", nargs="+", default=["postgresql", "sqlite"], choices=["postgresql", "sqlite"])
    parser.add_argument("--processes", type=int, default=32)
    parser.add_argument("--ops", type=int, default=500, help="spend cycles per process")
    parser.add_argument("--sqlite-ops", type=int, default=100, help="spend cycles per process on SQLite")
    parser.add_argument("--sequential", type=int, default=500, help="operations per kind, sequential")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--kill-interval", type=float, default=SpendConfig.kill_interval_s,
                        help="seconds between killed PostgreSQL connections (0: none)")
    parser.add_argument("--json", type=Path, default=None, help="also write the figures here")
    args = parser.parse_args(argv)
    figures: dict = {}
    ok = True
    for backend in args.backends:
        print(f"{backend}:")
        with tempfile.TemporaryDirectory() as tmp:
            if backend == "postgresql":
                with TempPostgres() as url:
                    figures[backend] = _bench_backend(url, args, args.ops, Path(tmp))
            else:
                figures[backend] = _bench_backend(f"sqlite:///{tmp}/bench.db", args, args.sqlite_ops, Path(tmp))
        ok = ok and figures[backend]["spenders"]["ok"]
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2, default=str))
    return 0 if ok else 1


def _bench_backend(url: str, args, ops: int, tmp: Path) -> dict:
    sequential = bench_sequential(url, args.sequential)
    print("  sequential ops/s: " + ", ".join(f"{k} {v}" for k, v in sequential.items()))
    cfg = SpendConfig(url=url, processes=args.processes, ops=ops, seed=args.seed, kill_interval_s=args.kill_interval)
    prepare(cfg)
    result = run_spenders(cfg, tmp / "journals")
    _print_spend(result)
    return {"sequential": sequential, "spenders": {**asdict(result), "ok": result.ok}}


if __name__ == "__main__":
    sys.exit(main())
