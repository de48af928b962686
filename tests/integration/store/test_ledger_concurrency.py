"""32 spender processes against a small balance on the machine's PostgreSQL, with random failures; afterwards
`agentr ledger verify` passes, no balance ever went below zero and no operation was lost or invented.

The workload is ``scripts/bench_ledger.py``'s (which runs the full 32 × 500 and prints figures); here each
process does ``AGENTR_LEDGER_TEST_OPS`` spend cycles (default 25: the full size takes minutes on 2 cores). A
cycle is estimate → reserve → (settle | release | release then late settle), with retried calls, grants, a
process that dies holding a reservation, connections killed mid-transaction and prices changed mid-run.
"""

from __future__ import annotations

import os
from decimal import Decimal
from pathlib import Path

from click.testing import CliRunner

from agentr_dagster.cli import main
from agentr_dagster.store import DomainStore
from tests.support import REPO
from tests.support.scripts import load_script

SCRIPT = REPO / "scripts" / "bench_ledger.py"
OPS = int(os.environ.get("AGENTR_LEDGER_TEST_OPS", "25"))


def _bench():
    return load_script(SCRIPT)


def _run(url: str, tmp_path: Path, *, processes: int, ops: int, **overrides):
    bench = _bench()
    cfg = bench.SpendConfig(url=url, processes=processes, ops=ops, seed=7, **overrides)
    bench.prepare(cfg)
    return bench, cfg, bench.run_spenders(cfg, tmp_path / "journals")


def _assert_sound(result, cfg, *, busy: bool = True) -> None:
    assert result.verify_ok, result.violations
    assert result.problems == [], result.problems[:20]
    assert Decimal(result.lowest_balance_seen) >= 0
    # reserves never admit past the budget; only calls settled after their release (timeouts) may go beyond it
    assert Decimal(result.capped_usage) - Decimal(result.capped_late_usage) <= cfg.budget
    assert result.cycles == cfg.processes * cfg.ops - result.cycles_lost_to_crashes
    assert result.settled > 0 and result.released > 0 and result.refused > 0  # the small balance was contended
    if busy:  # enough cycles for every path to have happened
        assert result.refused_budget > 0 and result.late_settled > 0
        assert result.duplicate_calls > 0  # retried reserve/settle/release returned the first call's result
        assert result.price_changes > 0


def test_32_spender_processes_on_postgres(pg_url, tmp_path, monkeypatch):
    _, cfg, result = _run(pg_url, tmp_path, processes=32, ops=OPS, crash_processes=2, crash_rate=0)
    _assert_sound(result, cfg)
    assert result.crashed_processes == 2 and result.stale_released >= 2  # the sweep gave their holds back
    assert result.connection_kills > 0 and result.db_retries > 0  # lost connections were retried safely

    # and the command an operator runs agrees
    monkeypatch.setenv("AGENTR_DATABASE_URL", pg_url)
    verify = CliRunner().invoke(main, ["ledger", "verify", "--stale-after", "0"])
    assert verify.exit_code == 0, verify.output
    assert "ledger verify: OK" in verify.output
    with DomainStore(pg_url, migrate=False) as store:
        assert store.ledger.balance() == store.ledger.ledger_sum() >= 0
        assert store.ledger.open_reservations() == []


def test_spender_processes_on_sqlite(sqlite_url, tmp_path):
    _, cfg, result = _run(sqlite_url, tmp_path, processes=8, ops=40, crash_processes=1, crash_rate=0)
    _assert_sound(result, cfg, busy=False)
    assert result.crashed_processes == 1
