"""`agentr run <slug>` (the whole chain, one run per project, with a progress bar) and `agentr demo`."""

from __future__ import annotations

import logging
import shutil
import signal
import sys
import threading
import time
from collections.abc import Callable
from contextlib import contextmanager
from importlib import resources
from typing import TYPE_CHECKING, Any, TypeVar

import click

from agentr_dagster.cli.common import ensure_project_partition, fail, open_store
from agentr_dagster.settings import agentr_home, dagster_home, get_settings, results_dir

if TYPE_CHECKING:
    from agentr_dagster.store import DomainStore

_R = TypeVar("_R")

DEMO_SLUG = "demo-slr-automation"


STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)


@contextmanager
def stop_on_signals(on_stop: Callable[[str], None] | None = None):
    """SIGTERM/SIGINT ask paid work to stop (``domain.stopping``): no new call is made, calls in flight finish and
    are settled, the stage ends as stopped and the run as failed, resumable. A second signal stops at once."""
    from agentr_dagster.domain.stopping import clear_stop, request_stop, stop_requested

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {sig: signal.getsignal(sig) for sig in STOP_SIGNALS}

    def handler(signum, frame) -> None:
        name = signal.Signals(signum).name
        if stop_requested():
            signal.signal(signum, signal.SIG_DFL)
            raise KeyboardInterrupt(f"{name} again: stopping at once")
        request_stop(f"stopped by {name}")
        if on_stop is not None:
            on_stop(name)

    clear_stop()
    for sig in STOP_SIGNALS:
        signal.signal(sig, handler)
    try:
        yield
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)


def _in_thread(fn: Callable[[], _R]) -> _R:
    """Run ``fn`` in a worker thread while the main thread waits, so that this process's signal handlers (not
    Dagster's, which only the main thread installs and which would interrupt the step mid-call) see the signal."""
    box: dict[str, Any] = {}  # "value" (an _R) or "error" (a BaseException)

    def target() -> None:
        try:
            box["value"] = fn()
        except BaseException as exc:  # noqa: BLE001 - re-raised in the caller's thread
            box["error"] = exc

    worker = threading.Thread(target=target, name="agentr-run", daemon=True)
    worker.start()
    while worker.is_alive():
        worker.join(0.2)  # a short join: the main thread runs signal handlers between waits
    if "error" in box:
        raise box["error"]
    return box["value"]  # set: target() stores either "value" or "error"


def run_project(slug: str, *, show_progress: bool = True, verbose: bool = False,
                stop_at_recall: float | None = None, budget_credits: float | None = None,
                refresh_sources: bool = False, retry_invalid: bool = False) -> bool:
    """Materialise the whole chain for one project on the local Dagster instance; True on success.

    ``stop_at_recall`` / ``budget_credits`` override AGENTR_STOP_AT_RECALL / AGENTR_SCORING_BUDGET_CREDITS for
    this run (the LLMResource's ``stop_at_recall`` and ``scoring_budget_credits``). ``refresh_sources``: the
    search sources re-send every request instead of answering from the response cache. ``retry_invalid``: requests
    whose answers never validated are asked again (the attempt cap counts afresh from a mark recorded now)."""
    from dagster import materialize

    from agentr_dagster.defs.assets import pipeline_assets
    from agentr_dagster.defs.instance import open_instance
    from agentr_dagster.defs.partitions import REFRESH_SOURCES_TAG
    from agentr_dagster.defs.resources import resources_from_env
    from agentr_dagster.llm.paid_call import hold_project_for_calls
    from agentr_dagster.store.leases import LEASE_TAG, new_holder

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
    with hold_project_for_calls(store, slug, holder, on_wait=waiting) as took:
        if not took:
            raise RuntimeError(f"{slug}: this process already runs the project")
        if waited:
            from agentr_dagster.stages.staleness import project_gap

            if project_gap(store, slug).complete:  # attach: the run waited for did everything this one would
                click.echo(f"{slug}: the run in flight completed the project; nothing left to run", err=True)
                return True
            click.echo(f"{slug}: the run in flight ended with work left; running what is missing", err=True)
        ensure_project_partition(slug)
        if retry_invalid:
            store.attempts.mark_retry_invalid(slug)
        total = store.projects.count_papers(slug)
        stop = threading.Event()
        watcher = None
        if show_progress:
            watcher = threading.Thread(target=_progress_bar, args=(store, slug, total, holder, stop), daemon=True)
            watcher.start()
        try:
            with open_instance() as instance:
                overrides = {k: v for k, v in (("stop_at_recall", stop_at_recall),
                                               ("scoring_budget_credits", budget_credits)) if v is not None}
                base = get_settings()
                settings = base.model_copy(update={"llm": base.llm.model_copy(update=overrides)})
                result = _in_thread(lambda: materialize(
                    pipeline_assets, partition_key=slug, instance=instance,
                    resources=resources_from_env(settings=settings),
                    raise_on_error=False,
                    tags={"agentr/source": "cli", LEASE_TAG: holder,
                          **({REFRESH_SOURCES_TAG: "1"} if refresh_sources else {})},
                    # The progress bar, the warnings and the summary say what happened (printed below, one line
                    # each); step-by-step logs and stack traces stay in the UI and under --verbose.
                    run_config={"loggers": {"console": {"config": {"log_level": "DEBUG" if verbose else "CRITICAL"}}}},
                ))
                if not verbose:
                    _print_warnings(instance, result.run_id)
        finally:
            stop.set()
            if watcher:
                watcher.join()
    if not result.success:
        _print_step_failures(result)
    return result.success


def _print_step_failures(result) -> None:
    """One line per failed step: its stage error's description, else the error's message."""
    for event in result.all_events:
        if event.is_step_failure:
            data = event.step_failure_data
            message = data.user_failure_data.description if data.user_failure_data else None
            if not message and data.error is not None:
                message = data.error.message.strip()
            click.echo(f"step {event.step_key} failed: {message or 'no details recorded'}", err=True)


def _print_warnings(instance, run_id: str) -> None:
    """The run's own warnings (a failed search, a draft that does not validate, ...), one line each: what the
    console logger would print at WARNING, without Dagster's error events, which the failure summary covers."""
    for entry in instance.all_logs(run_id):
        # (Dagster's own "Dependencies ... failed. Not executing" lines are ERROR-level plain logs: left out)
        if entry.dagster_event is None and entry.level == logging.WARNING:
            click.echo(f"warning: {entry.step_key or 'run'}: {entry.user_message}", err=True)


def _papers_completed(store: DomainStore, slug: str) -> int:
    for row in store.lifecycle.status(slug):
        if row.stage == "score":
            return row.paper_counts.get("completed", 0)
    return 0


STEP_EVENTS = ("STEP_START", "STEP_SUCCESS", "STEP_SKIPPED", "STEP_FAILURE")


def chain_progress(instance, holder: str) -> tuple[set[str], str | None]:
    """(steps finished, the step running) of the run this command started (found by its lease-holder tag)."""
    from dagster import DagsterEventType, RunsFilter

    from agentr_dagster.store.leases import LEASE_TAG

    runs = instance.get_runs(RunsFilter(tags={LEASE_TAG: holder}), limit=1)
    if not runs:
        return set(), None
    started: list[str] = []
    finished: set[str] = set()
    for record in instance.get_records_for_run(
            runs[0].run_id, of_type={DagsterEventType(name) for name in STEP_EVENTS}).records:
        event = record.event_log_entry.dagster_event
        if event is None or event.step_key is None:
            continue
        if event.event_type_value == "STEP_START":
            started.append(event.step_key)
        else:
            finished.add(event.step_key)
    running = next((step for step in reversed(started) if step not in finished), None)
    return finished, running


def _progress_bar(store: DomainStore, slug: str, papers: int, holder: str, stop: threading.Event) -> None:
    """The chain's steps as they finish (read from the run's event log), and the papers while scoring runs: the
    bar moves as work happens, not only once scoring starts."""
    from tqdm import tqdm

    from agentr_dagster.defs.assets import pipeline_assets
    from agentr_dagster.defs.instance import open_instance

    steps = [a.key.to_user_string() for a in pipeline_assets]
    with open_instance() as instance, tqdm(total=len(steps), desc=f"{slug}: starting the run", file=sys.stderr,
                                           bar_format="{percentage:3.0f}%|{bar}| {desc} [{elapsed}]") as bar:
        while True:
            finished, running = chain_progress(instance, holder)
            done = len(finished & set(steps))
            progress, now = float(done), ""
            if running in steps:
                now = running
                if running == "paper_scores" and papers:
                    scored = min(_papers_completed(store, slug), papers)
                    progress += scored / papers
                    now += f" {scored}/{papers} papers"
            bar.n = min(progress, len(steps))
            state = (f"step {min(done + 1, len(steps))}/{len(steps)} {now}".rstrip() if running else
                     "starting the run" if not finished else f"{done}/{len(steps)} steps done")
            bar.set_description_str(f"{slug}: {state}")
            if stop.is_set():
                break
            time.sleep(0.5)


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
@click.option("--retry-invalid", is_flag=True,
              help="Ask again for papers whose answers never validated (invalid_output): each gets the answer and "
                   "one repair once more. Without it they are not re-asked until the model or prompt changes.")
def run(slug: str, no_progress: bool, verbose: bool, stop_at_recall: float | None,
        budget_credits: float | None, refresh_sources: bool, retry_invalid: bool) -> None:
    """Materialise the project's chain (intent, queries, candidates, relevance, scores, exports) and wait.

    Exit code: 0 complete; 3 partial (what is valid was exported, synthesised and drafted; the papers without a
    score are named with their failure class and the command that retries them, and a draft cut short says how
    to finish it); 1 failed; 128 + the signal when stopped.

    SIGTERM or Ctrl-C stops it cleanly: no new LLM call, the calls in flight are settled, the run is marked
    failed (stopped), and `agentr resume <slug>` continues where it stopped."""
    from agentr_dagster.domain.stopping import stop_reason, stop_requested

    def told(name: str) -> None:
        click.echo(f"{slug}: {name}: finishing the calls in flight, then stopping (again to stop at once)", err=True)

    try:
        with stop_on_signals(told):
            ok = run_project(slug, show_progress=not no_progress, verbose=verbose, stop_at_recall=stop_at_recall,
                             budget_credits=budget_credits, refresh_sources=refresh_sources,
                             retry_invalid=retry_invalid)
    except Exception as exc:  # noqa: BLE001
        if stop_requested():
            click.echo(f"error: {exc}", err=True)
            sys.exit(_stopped(slug, stop_reason()))
        fail(str(exc))
    if stop_requested():
        sys.exit(_stopped(slug, stop_reason()))
    if not ok:
        _print_outcome(slug, only_missing=True)
        fail(f"run for {slug} did not complete; see `agentr status {slug}` and `agentr failures {slug}`")
    _print_summary(slug)
    outcome = _print_outcome(slug)
    if outcome is not None and outcome.status != "complete":
        sys.exit(outcome.exit_code)


def _print_outcome(slug: str, only_missing: bool = False):
    """How the project stands (stages/outcome.py): complete, or partial with each missing paper, its class and
    the command that retries it. Returns the outcome (None for a project without candidate papers)."""
    from agentr_dagster.stages.outcome import FAILED, project_outcome

    store = open_store()
    if not store.projects.count_papers(slug):
        return None
    outcome = project_outcome(store, slug)
    if only_missing:  # the run failed: the store's papers are listed, but nothing after the failed step ran
        if not outcome.missing:
            return outcome
        outcome.status = FAILED
    if outcome.status != "complete":
        click.echo("", err=True)
    for line in outcome.lines():
        click.echo(line, err=outcome.status != "complete")
    return outcome


def _stopped(slug: str, reason: str) -> int:
    click.echo(f"{slug}: {reason}; calls in flight were settled and the run is marked failed. "
               f"`agentr resume {slug}` continues where it stopped.", err=True)
    return 128 + (signal.SIGINT if "SIGINT" in reason else signal.SIGTERM)


def _print_summary(slug: str, top: int = 10) -> None:
    from agentr_dagster.stages.exports import scores_dataframe
    from agentr_dagster.stages.staleness import WAITING_FOR_CANDIDATES, add_papers_hint

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
    # where an LLM scored papers the export's order is its judgement, not the relevance column: say which
    by_llm = bool(len(frame)) and "order_source" in frame and (frame["order_source"] == "llm").any()
    order = ("in the export's order (the LLM's judgement, llm_judgement; relevance is the screening engine's "
             "calibrated probability of inclusion)" if by_llm else
             "by relevance (the calibrated probability of inclusion)")
    # papers that are not from the user's files (searches, the paper lake, citations) would make the count a surprise
    found = frame["found_by"].astype(str).tolist() if len(frame) and "found_by" in frame else []
    origin = _origin_note(found)
    click.echo(f"\n{with_score} of {len(frame)} papers{origin} have a current score for {slug} ({this_run}); "
               f"top {min(top, len(frame))} {order}:")
    if len(frame):
        click.echo(_top_table(frame, top))
        if offline:
            click.echo("c1_score/c2_score come from the offline backend: heuristics (facet overlap), not judgements")
    _print_unpriced(store, slug)
    _print_pending_searches(store, slug)
    _print_feedback(store, slug)
    click.echo(f"\nresults: {results_dir(slug)}")


WHY_CHARS_MIN = 40  # the why column's width when the terminal leaves less room beside the table


def _top_table(frame, top: int) -> str:
    """The top rows as text: rank, the LLM's judgement (where it ordered them), P(include) to 4 decimals, C1/C2,
    title and the `why` (as in scores.csv), the why shortened to what the terminal leaves beside the rest."""
    import textwrap

    import pandas as pd

    from agentr_dagster.defs.metadata import top_papers_frame

    view = top_papers_frame(frame, top, ["rank", "llm_judgement", "relevance", "c1_score", "c2_score",
                                         "c2_contribution_type", "title", "why"])
    four = {c: (lambda v: "" if pd.isna(v) else f"{v:.4f}") for c in ("relevance", "llm_judgement") if c in view}
    if "why" not in view:
        return view.to_string(index=False, formatters=four)
    rest = max(len(line) for line in view.drop(columns="why").to_string(index=False, formatters=four).splitlines())
    room = max(WHY_CHARS_MIN, shutil.get_terminal_size().columns - rest - 2)
    why = view["why"].map(lambda w: textwrap.shorten(str(w), room, placeholder=" ...") if w else "")
    view["why"] = why.str.ljust(max(why.str.len().max(), 3))  # read from the left, as the title is not
    return view.to_string(index=False, formatters=four)


# how a paper first arrived, by the prefix of its first found_by label (stages.search.paper_found_by's order)
_ORIGINS = (("import:", "from your files"), ("backward:", "by citation chasing"), ("forward:", "by citation chasing"),
            ("lake:", "retrieved from the paper lake: `agentr lake info`"))
_SEARCHED = "found by the source searches"


def _origin_note(found_by: list[str]) -> str:
    """`` (3 from your files, 294 found by the source searches)``: where the papers came from, by the first way each
    arrived; empty when every paper is from the user's files."""
    counts: dict[str, int] = {}
    for labels in found_by:
        first = labels.split("; ", 1)[0]
        where = next((text for prefix, text in _ORIGINS if first.startswith(prefix)), _SEARCHED if first else "")
        if where:
            counts[where] = counts.get(where, 0) + 1
    if set(counts) <= {"from your files"}:
        return ""
    order = ["from your files", _SEARCHED, *(text for _, text in _ORIGINS[1:])]
    return " (" + ", ".join(f"{counts[where]} {where}" for where in dict.fromkeys(order) if where in counts) + ")"


def _print_unpriced(store: DomainStore, slug: str) -> None:
    """Calls of a model that still has no price were recorded at zero cost: say so where the run ends (it was
    said only by `agentr estimate` and `agentr ledger verify`)."""
    unpriced: dict[str, int] = {}
    for row in store.ledger.usage(slug):
        if row.pricing_id is None:
            unpriced[row.model] = unpriced.get(row.model, 0) + 1
    for model, calls in unpriced.items():
        if store.ledger.pricing_in_force(model) is None:
            click.echo(f"\nnote: {calls} LLM call(s) of {model!r} for {slug} were recorded at zero cost (no price in "
                       f"force); set one: agentr pricing set {model} --input USD_PER_M --output USD_PER_M")


def _print_pending_searches(store: DomainStore, slug: str) -> None:
    """The searches that failed (source, query, the server's reason): the next run sends them again."""
    from agentr_dagster.stages.search import pending_searches

    pending = pending_searches(store, slug, [s for s in get_settings().sources.names if s != "crossref"])
    if pending:
        click.echo(f"\n{len(pending)} search(es) failed; the next run retries them:")
        for search in pending:
            click.echo(f"  {search.line()}")


def _print_feedback(store: DomainStore, slug: str) -> None:
    """What pseudo-relevance feedback added to the query, and what its search found (when it added anything)."""
    from agentr_dagster.stages.pseudo_feedback import feedback_summary

    line = feedback_summary(store, slug)
    if line:
        click.echo(f"\n{line}")


@click.command("demo")
@click.option("--slug", default=DEMO_SLUG, show_default=True)
def demo(slug: str) -> None:
    """Run the bundled example end to end, offline: one abstract and 40 real candidate papers."""
    from agentr_dagster.stages.intake import add_papers_file, add_project

    if get_settings().llm.configured:
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
