"""A project without candidate papers is a valid state, not a failure. Every asset that needs candidates (the
scores and everything made from them) is declared ``output_required=False`` and wrapped in
:func:`waits_for_candidates`: with no papers it materialises nothing, records an ``AssetObservation`` "waiting
for candidates" (with what to do next) on itself and on every other such asset, and reports its checks as not
evaluated (failed, WARN severity, so they never fail the run: Dagster fails the step when an asset with check
specs yields no result for them, even one whose output is optional). Dagster then skips the steps after it in
the run; the run succeeds. Once papers arrive, the next run materialises the whole chain.

Usage (the decorator goes between ``@asset`` and the function; the asset needs a ``store: StoreResource``)::

    @asset(partitions_def=projects, deps=[candidate_papers], output_required=False, ...)
    @waits_for_candidates
    def paper_scores(context, store: StoreResource, llm: LLMResource) -> MaterializeResult: ...
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator

from dagster import (
    AssetCheckResult,
    AssetCheckSeverity,
    AssetExecutionContext,
    AssetKey,
    AssetObservation,
    MaterializeResult,
)

from agentr_dagster.defs.resources import StoreResource
from agentr_dagster.stages.staleness import WAITING_FOR_CANDIDATES, add_papers_hint, waiting_for_candidates

# The assets wrapped by waits_for_candidates, in the order they were declared (their asset keys).
CANDIDATE_DEPENDENT: list[str] = []


def waiting_events(context: AssetExecutionContext, message: str) -> Iterator[AssetCheckResult]:
    """Log the observations and yield this asset's check results for a project that waits for candidates: not
    evaluated, so not passed (there is nothing to check yet), at WARN severity, which never fails the run."""
    slug = context.partition_key
    metadata = {"status": WAITING_FOR_CANDIDATES, "papers": 0, "next": add_papers_hint(slug)}
    for name in dict.fromkeys([context.asset_key.to_user_string(), *CANDIDATE_DEPENDENT]):
        context.log_event(AssetObservation(asset_key=AssetKey(name), partition=slug, description=message,
                                           metadata=metadata))
    for spec in context.assets_def.check_specs:
        yield AssetCheckResult(
            check_name=spec.name, asset_key=spec.asset_key, passed=False, severity=AssetCheckSeverity.WARN,
            description=f"not evaluated: {WAITING_FOR_CANDIDATES} (nothing to check yet); {metadata['next']}",
            metadata=metadata,
        )


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
            yield from waiting_events(context, message)
            return
        yield fn(context, *args, **kwargs)

    return asset_fn
