"""Wall time of one project's run under each executor: `agentr run` (in-process `materialize`) beside the job as
the UI launches it (`dagster job execute`, the same executor a UI run's worker uses), in-process, multiprocess
(spawn) and multiprocess with a forkserver that preloads the package.

    python scripts/bench_executor.py /work/shared/data/screening/Cohen_2006_Antihistamines [--variant ...]

Each variant runs in a fresh AGENTR_HOME (its own SQLite store and Dagster instance) on the review's question and
``papers_unlabeled.csv``; all share one warmed transformer-vector cache, so no variant pays for encoding.
Prints one line per variant: ``<variant> <seconds>``."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BIN = Path(sys.executable).parent
SLUG = "executor-bench"
RUN_CONFIG = {
    "in_process": {"execution": {"config": {"in_process": {}}}},
    "multiprocess": {"execution": {"config": {"multiprocess": {}}}},
    "forkserver": {"execution": {"config": {"multiprocess": {"start_method": {
        "forkserver": {"preload_modules": ["agentr_dagster.definitions"]}}}}}},
}
VARIANTS = ("cli", "job_default", *RUN_CONFIG)


def _env(home: Path, cache: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AGENTR_", "DAGSTER_"))}
    env.update(AGENTR_HOME=str(home), AGENTR_EMBEDDING_CACHE=str(cache), PYTHONWARNINGS="ignore")
    return env


def _prepare(review: Path, home: Path, env: dict[str, str]) -> None:
    question = home / "question.md"
    home.mkdir(parents=True, exist_ok=True)
    question.write_text(json.loads((review / "review.json").read_text())["question"] + "\n")
    for args in (("project", "add", SLUG, "--abstract", str(question)),
                 ("papers", "add", SLUG, str(review / "papers_unlabeled.csv"))):
        done = subprocess.run([str(BIN / "agentr"), *args], env=env, capture_output=True, text=True)
        if done.returncode:
            raise SystemExit(f"agentr {' '.join(args)}: {done.stderr}")
    code = ("from agentr_dagster.cli.common import ensure_project_partition as e; "
            f"e({SLUG!r})")
    subprocess.run([sys.executable, "-c", code], env=env, check=True)


def run_variant(variant: str, review: Path, cache: Path) -> float:
    with tempfile.TemporaryDirectory(prefix=f"bench-{variant}-") as tmp:
        home = Path(tmp) / "home"
        env = _env(home, cache)
        _prepare(review, home, env)
        if variant == "cli":
            cmd = [str(BIN / "agentr"), "run", SLUG, "--no-progress"]
        else:
            cmd = [str(BIN / "dagster"), "job", "execute", "-m", "agentr_dagster.definitions", "-a", "defs",
                   "-j", "project_pipeline", "--tags", json.dumps({"dagster/partition": SLUG})]
            if variant in RUN_CONFIG:
                config = Path(tmp) / "run.json"
                config.write_text(json.dumps(RUN_CONFIG[variant]))
                cmd += ["-c", str(config)]
            env = {**env, "DAGSTER_HOME": str(home / "dagster")}  # written by `agentr` in _prepare
        started = time.perf_counter()
        done = subprocess.run(cmd, env=env, capture_output=True, text=True, cwd=Path(__file__).parents[1])
        seconds = time.perf_counter() - started
        if done.returncode != 0:
            raise SystemExit(f"{variant} failed:\n{done.stderr[-3000:]}")
        return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("review", type=Path)
    parser.add_argument("--variant", action="append", choices=VARIANTS)
    parser.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "bench-executor-vectors")
    args = parser.parse_args()
    args.cache.mkdir(parents=True, exist_ok=True)
    run_variant("cli", args.review, args.cache)  # warm the vector cache: no variant pays for encoding
    for variant in args.variant or VARIANTS:
        print(f"{variant} {run_variant(variant, args.review, args.cache):.1f}", flush=True)


if __name__ == "__main__":
    main()
