"""Benchmarks (screening quality against labelled reviews). Not imported by the pipeline."""

from agentr_dagster.bench.screening import format_table, run_screening_bench

__all__ = ["format_table", "run_screening_bench"]
