"""A project without candidate papers is a valid state, not a failure. Every asset that needs candidates (the
scores and everything made from them) is wrapped in :func:`waits_for_candidates`: with no papers it
materialises as **waiting for candidates** (an empty result: 0 papers), with metadata saying what it waits for
and what to do next, so the asset's partition page in the UI says so (that page shows a materialisation's
metadata, never an observation made without one); its checks are reported as not evaluated (failed, WARN
severity, which never fails the run). Each later asset in the run does the same, and the run succeeds. Once
papers arrive, `candidate_papers` gets a new data version, every waiting asset shows as stale ("upstream data
changed"), and the next run (the drop folder launches it) materialises the whole chain.

Usage (the decorator goes between ``@asset`` and the function; the asset needs a ``store: StoreResource``)::

    @asset(partitions_def=projects, deps=[candidate_papers], output_required=False, ...)
    @waits_for_candidates
    def paper_scores(context, store: StoreResource, llm: LLMResource) -> MaterializeResult: ...
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator

from dagster import AssetCheckResult, AssetCheckSeverity, AssetExecutionContext, MaterializeResult

from agentr_dagster.defs.resources import StoreResource
from agentr_dagster.stages.staleness import WAITING_FOR_CANDIDATES, add_papers_hint, waiting_for_candidates

# The assets wrapped by waits_for_candidates, in the order they were declared (their asset keys).
CANDIDATE_DEPENDENT: list[str] = []
WAITS_FOR = "candidate papers: none imported, retrieved from the lake or found by a search source yet"


def waiting_result(context: AssetExecutionContext) -> MaterializeResult:
    """The asset's materialisation for a project that waits for candidates: what it waits for and what to do
    (first in the UI), and its checks not evaluated (nothing to check yet) at WARN severity."""
    slug = context.partition_key
    metadata: dict[str, str | int] = {"status": WAITING_FOR_CANDIDATES, "waits_for": WAITS_FOR,
                                      "next": add_papers_hint(slug), "papers": 0}
    checks = [
        AssetCheckResult(
            check_name=spec.name, asset_key=spec.asset_key, passed=False, severity=AssetCheckSeverity.WARN,
            description=f"not evaluated: {WAITING_FOR_CANDIDATES} (nothing to check yet); {metadata['next']}",
            metadata=metadata,
        )
        for spec in context.assets_def.check_specs
    ]
    return MaterializeResult(metadata=metadata, check_results=checks)


def waits_for_candidates(fn: Callable[..., MaterializeResult]) -> Callable[..., Iterator]:
    """Wrap a candidate-dependent asset's function (see the module docstring)."""
    CANDIDATE_DEPENDENT.append(fn.__name__)

    @functools.wraps(fn)  # keeps the signature: Dagster still sees the resources the asset asks for
    def asset_fn(context: AssetExecutionContext, *args, **kwargs):
        store = kwargs.get("store")
        if not isinstance(store, StoreResource):
            raise TypeError(f"{fn.__name__}: waits_for_candidates needs a `store: StoreResource` parameter")
        message = waiting_for_candidates(store.get(), context.partition_key)
        if message is not None:
            context.log.info(message)
            yield waiting_result(context)
            return
        yield fn(context, *args, **kwargs)

    return asset_fn
