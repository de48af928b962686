"""Benchmarks (not imported by the pipeline). Screening quality: :mod:`agentr_dagster.bench.screening`.

``run_screening_bench`` and ``format_table`` are re-exported lazily, so importing a sibling bench module does
not pull in the screening code.
"""

from __future__ import annotations

from typing import Any

__all__ = ["format_table", "run_screening_bench"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from agentr_dagster.bench import screening

        return getattr(screening, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
