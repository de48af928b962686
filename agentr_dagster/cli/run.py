"""`agentr run <slug>` (the whole chain, one run per project, with a progress bar) and `agentr demo`."""

from __future__ import annotations

import shutil
import sys
import threading
import time
from importlib import resources

import click

from agentr_dagster.cli.common import ensure_project_partition, fail, open_store
from agentr_dagster.settings import agentr_home, dagster_home, get_settings, results_dir

DEMO_SLUG = "demo-slr-automation"


def run_project(slug: str, *, show_progress: bool = True, verbose: bool = False,
                stop_at_recall: float | None = None, budget_credits: float | None = None,
                refresh_sources: bool = False) -> bool:
    """Materialise the whole chain for one project on the local Dagster instance; True on success.

    ``stop_at_recall`` / ``budget_credits`` override AGENTR_STOP_AT_RECALL / AGENTR_SCORING_BUDGET_CREDITS for
    this run (the LLMResource's ``stop_at_recall`` and ``scoring_budget_credits``). ``refresh_sources``: the
    search sources re-send every request instead of answering from the response cache."""
    from dagster import materialize

    from agentr_dagster.defs.assets import pipeline_assets
    from agentr_dagster.defs.instance import open_instance
    from agentr_dagster.defs.partitions import REFRESH_SOURCES_TAG
    from agentr_dagster.defs.resources import resources_from_env
    from agentr_dagster.store.leases import LEASE_TAG, hold_project, new_holder

    store = open_store()
    store.projects.get_project(slug)
    holder = new_holder("cli")
    waited: list = []

    def waiting(current) -> None:
        waited.append(current)
        click.echo(f"{slug}: waiting for the run in flight ({current.describe()}); "
                   "what it has done will be reused, not redone", err=True)

    # One run per project: the lease is held for the whole run (its steps re-enter it through the run tag); a
    # second command waits here, then finds the finished work in the store and makes no call for it.
    with hold_project(store, slug, holder, on_wait=waiting) as took:
        if not took:
            raise RuntimeError(f"{slug}: this process already runs the project")
        if waited:
            from agentr_dagster.stages.gaps import project_gap

            if project_gap(store, slug).complete:  # attach: the run waited for did everything this one would
                click.echo(f"{slug}: the run in flight completed the project; nothing left to run", err=True)
                return True
            click.echo(f"{slug}: the run in flight ended with work left; running what is missing", err=True)
        ensure_project_partition(slug)
        total = store.projects.count_papers(slug)
        stop = threading.Event()
        watcher = None
        if show_progress and total:
            watcher = threading.Thread(target=_progress_bar, args=(store, slug, total, stop), daemon=True)
            watcher.start()
        try:
            with open_instance() as instance:
                overrides = {k: v for k, v in (("stop_at_recall", stop_at_recall),
                                               ("scoring_budget_credits", budget_credits)) if v is not None}
                settings = get_settings().model_copy(update=overrides)
                result = materialize(
                    pipeline_assets, partition_key=slug, instance=instance,
                    resources=resources_from_env(settings=settings),
                    raise_on_error=False,
                    tags={"agentr/source": "cli", LEASE_TAG: holder,
                          **({REFRESH_SOURCES_TAG: "1"} if refresh_sources else {})},
                    # The progress bar and summary say what happened; step-by-step logs stay in the UI.
                    run_config={"loggers": {"console": {"config": {"log_level": "DEBUG" if verbose else "WARNING"}}}},
                )
        finally:
            stop.set()
            if watcher:
                watcher.join()
    if not result.success:
        for event in result.all_events:
            if event.is_step_failure:
                data = event.step_failure_data
                message = data.user_failure_data.description if data.user_failure_data else None
                click.echo(f"step {event.step_key} failed: {message or data.error.message.strip()}", err=True)
    return result.success


def _papers_completed(store, slug: str) -> int:
    for row in store.lifecycle.status(slug):
        if row.stage == "score":
            return row.paper_counts.get("completed", 0)
    return 0


def _progress_bar(store, slug: str, total: int, stop: threading.Event) -> None:
    from tqdm import tqdm

    with tqdm(total=total, desc=f"scoring {slug}", unit="paper", file=sys.stderr) as bar:
        while True:
            done = _papers_completed(store, slug)
            bar.update(max(0, done - bar.n))
            if stop.is_set():
                break
            time.sleep(0.3)


@click.command("run")
@click.argument("slug")
@click.option("--no-progress", is_flag=True)
@click.option("--verbose", is_flag=True, help="Print Dagster's step logs.")
@click.option("--stop-at-recall", type=click.FloatRange(0, 1, min_open=True), default=None,
              help="With an LLM: stop scoring once the stopping rule says this share of the relevant papers is "
                   "scored (e.g. 0.95); the rest are exported as 'below cut-off'. Default: score every paper.")
@click.option("--budget-credits", type=click.FloatRange(min=0), default=None,
              help="With an LLM: credits the project's scoring may spend in all (every run counted).")
@click.option("--refresh-sources", is_flag=True,
              help="Search every enabled source again, bypassing the response cache (AGENTR_SOURCES).")
def run(slug: str, no_progress: bool, verbose: bool, stop_at_recall: float | None,
        budget_credits: float | None, refresh_sources: bool) -> None:
    """Materialise the project's chain (intent, queries, candidates, relevance, scores, exports) and wait."""
    try:
        ok = run_project(slug, show_progress=not no_progress, verbose=verbose, stop_at_recall=stop_at_recall,
                         budget_credits=budget_credits, refresh_sources=refresh_sources)
    except Exception as exc:  # noqa: BLE001
        fail(str(exc))
    if not ok:
        fail(f"run for {slug} did not complete; see `agentr status {slug}` and `agentr failures {slug}`")
    _print_summary(slug)


def _print_summary(slug: str, top: int = 10) -> None:
    from agentr_dagster.stages.exports import scores_dataframe
    from agentr_dagster.stages.gaps import WAITING_FOR_CANDIDATES, add_papers_hint

    store = open_store()
    if not store.projects.count_papers(slug):  # a valid state: the chain waits for papers
        click.echo(f"\n{slug}: research intent and search queries are ready; {WAITING_FOR_CANDIDATES} "
                   f"(no candidate papers yet).\nnext: {add_papers_hint(slug)}, then `agentr run {slug}` "
                   "(the drop folder launches the run itself)")
        return
    frame = scores_dataframe(store, slug)
    with_score = int((frame["not_scored"] == "").sum()) if len(frame) else 0
    # this run's scoring stage says how many it scored now and how many it reused (never one count for both)
    stage = next((row for row in store.lifecycle.status(slug) if row.stage == "score"), None)
    this_run = f"this run: {stage.detail}" if stage is not None and stage.detail else "this run: no scoring"
    offline = bool(len(frame)) and (frame["backend"] == "offline").any()
    click.echo(f"\n{with_score} of {len(frame)} papers have a current score for {slug} ({this_run}); "
               f"top {min(top, len(frame))} by relevance (the calibrated probability of inclusion):")
    if len(frame):
        view = frame.head(top)[["rank", "relevance", "c1_score", "c2_score", "c2_contribution_type", "title"]]
        view = view.assign(title=view["title"].str.slice(0, 60))
        click.echo(view.to_string(index=False))
        if offline:
            click.echo("c1_score/c2_score come from the offline backend: heuristics (facet overlap), not judgements")
    click.echo(f"\nresults: {results_dir(slug)}")


@click.command("demo")
@click.option("--slug", default=DEMO_SLUG, show_default=True)
def demo(slug: str) -> None:
    """Run the bundled example end to end, offline: one abstract and 40 real candidate papers."""
    from agentr_dagster.stages.intake import add_papers_file, add_project

    if get_settings().llm_configured:
        click.echo("note: AGENTR_LLM_BASE_URL is set, so the demo uses that endpoint rather than the offline backend")
    data = resources.files("agentr_dagster.data").joinpath("demo")
    store = open_store()
    started = time.monotonic()
    add_project(store, slug, data.joinpath("abstract.md").read_text(encoding="utf-8"),
                title="Auditable automation of systematic reviews in software engineering")
    with resources.as_file(data.joinpath("papers.csv")) as papers_csv:
        tmp = agentr_home() / "demo-papers.csv"
        shutil.copyfile(papers_csv, tmp)
        added = add_papers_file(store, slug, tmp)
        tmp.unlink()
    click.echo(f"demo project {slug}: {store.projects.count_papers(slug)} candidate papers"
               + ("" if added.already_imported else f" ({added.added} imported now)"))
    if not run_project(slug):
        fail("the demo run failed; see `agentr failures`")
    _print_summary(slug)
    click.echo(f"wall time: {time.monotonic() - started:.1f}s; Dagster home: {dagster_home()}")
    click.echo("see it in the UI: make ui   (then open http://127.0.0.1:3000)")
