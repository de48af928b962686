"""The drop-folder sensor: abstracts create project partitions, paper files add candidates; both launch the
project's run. Labels files (stages/labels.py) label the project's papers; the labels sensor re-ranks it.
Bad files are quarantined with their reason (`rejected/<project>/`); the sensor itself never
fails on input. A file is taken only once it is complete: its size and modification time unchanged since the
previous tick (the cursor keeps each file's stamps); hidden names and download suffixes are being written.
A tick that rejects or defers files names each one with its reason: WARNING lines in the tick log, and the
tick's skip message when it launches nothing. When the domain database fails (down, unreachable, locked),
the files stay in the inbox untouched and a later tick takes them: an outage is never blamed on a file."""


from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from dagster import (
    AssetKey,
    AssetObservation,
    AssetSpec,
    DagsterInstance,
    DefaultSensorStatus,
    MetadataValue,
    RunRequest,
    SensorEvaluationContext,
    SensorResult,
    SkipReason,
    sensor,
)

from agentr_dagster.defs.partitions import PIPELINE_JOB, PROJECTS_PARTITIONS, projects
from agentr_dagster.defs.resources import StoreResource
from agentr_dagster.domain.hashing import file_sha256
from agentr_dagster.imports import SUPPORTED_SUFFIXES
from agentr_dagster.settings import agentr_home, get_settings, inbox_dir, processed_dir, rejected_dir
from agentr_dagster.stages.estimate import rerun_after_adding
from agentr_dagster.stages.inbox import NEW_FILE, Deferred, decode_stamps, encode_stamps, inbox_name, settle, stamp
from agentr_dagster.stages.intake import (
    ABSTRACT_SUFFIXES,
    ERROR_SUFFIX,
    InboxItem,
    IntakeError,
    add_papers_file,
    add_project,
    archive,
    came_from,
    import_summary,
    printable,
    quarantine,
    read_abstract,
    rejection_folder,
    scan_inbox,
    store_outage,
)
from agentr_dagster.stages.labels import import_labels_file, is_labels_file, write_labels_report
from agentr_dagster.store import DomainStore

# At the top of the inbox a .txt file is an abstract; inside inbox/<slug>/ it may be a PubMed export.
PAPER_SUFFIXES = "/".join(s for s in SUPPORTED_SUFFIXES if s not in ABSTRACT_SUFFIXES)


def inbox_job_name() -> str:
    """The job the inbox launches: the in-process chain, or $AGENTR_INBOX_JOB (e.g. project_pipeline_celery)."""
    return get_settings().sensors.inbox_job or PIPELINE_JOB


INBOX_ASSET = AssetKey("inbox")
#: The drop folder as an asset in the catalog: not computed by any job, observed by the inbox sensor, which
#: records each rejected file there (file, reason, where it was moved), whatever else the tick did.
inbox_asset = AssetSpec(
    INBOX_ASSET, group_name="drop_folder",
    # Markdown in the UI: a bare <project> would be read as an HTML tag and vanish, so paths are code spans
    description="The drop folder (`$AGENTR_HOME/inbox`). The inbox sensor records an observation here for every "
                "file it rejects: the file, the project, the reason and where the file was moved "
                "(`inbox/rejected/<project>/`, with `<name>.error.txt` beside it). `agentr inbox` lists the same. "
                "Drop `<slug>.md` (an abstract) to start a project and its papers in `inbox/<slug>/`.",
)


@dataclass(frozen=True)
class Rejection:
    """One rejected drop: the file as dropped, its project folder, the reason, where it was moved."""

    file: str
    project: str
    reason: str
    moved_to: str | None  # None: it could not be moved (the reason says why)

    def observation(self) -> AssetObservation:
        metadata = {"file": self.file, "project": self.project, "reason": self.reason,
                    "moved_to": self.moved_to or "(not moved: see the reason)"}
        if self.moved_to:
            metadata["error_file"] = f"{self.moved_to}{ERROR_SUFFIX}"
        return AssetObservation(asset_key=INBOX_ASSET, description=f"rejected {self.file}: {self.reason[:500]}",
                                metadata=metadata)


@dataclass(frozen=True)
class Imported:
    """One paper file the drop folder imported: its counts and each dropped row with its reason (as `agentr papers
    add` prints them), and what the project's next run re-does when it had finished."""

    file: str
    project: str
    added: int
    duplicates: int
    dropped: int
    notes: tuple[str, ...]
    rerun: str | None = None

    def observation(self) -> AssetObservation:
        metadata: dict[str, str | int | MetadataValue] = {
            "file": self.file, "project": self.project, "added": self.added, "duplicates": self.duplicates,
            "rows_dropped": self.dropped,
        }
        if self.notes:
            metadata["dropped_rows"] = MetadataValue.md("\n".join(f"- {printable(n)}" for n in self.notes[:50])
                                                        + (f"\n- … and {len(self.notes) - 50} more"
                                                           if len(self.notes) > 50 else ""))
        if self.rerun:
            metadata["next_run"] = self.rerun
        summary = import_summary(self.added, self.duplicates, self.dropped, list(self.notes), shown=3)
        return AssetObservation(asset_key=INBOX_ASSET, description=f"imported {self.file}: {summary}"[:1000],
                                metadata=metadata)


@dataclass
class InboxPass:
    """What one pass over the drop folder did."""

    new_partitions: list[str] = field(default_factory=list)
    run_requests: list[RunRequest] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)
    outage: str | None = None  # the database failed: this file and the rest were left for the next tick
    rejected: list[tuple[str, str]] = field(default_factory=list)  # (file as dropped, reason)
    quarantined: list[Rejection] = field(default_factory=list)  # each rejected file: where it went, and why
    imported: list[Imported] = field(default_factory=list)  # each paper file imported: counts, dropped rows
    deferred: list[Deferred] = field(default_factory=list)  # left in the inbox: not complete yet
    unchanged: list[str] = field(default_factory=list)  # files that added no paper (and so launched no run)
    stamps: dict[str, tuple[int, int]] = field(default_factory=dict)  # for the next tick (the sensor's cursor)


def inbox_pass(store: DomainStore, home, existing_partitions: set[str], files_per_tick: int | None = None,
               job_name: str = PIPELINE_JOB, previous_stamps: dict | None = None) -> InboxPass:
    """One pass over the drop folder. Stops at the first database failure, leaving that file and the rest
    where they are (each store write is one transaction, so nothing is half-stored).

    ``previous_stamps`` (the sensor's cursor): only files whose size and modification time are unchanged since
    then are taken; the rest wait for the next tick. None takes every file (a caller that knows they are
    complete)."""
    inbox, rejected, processed = inbox_dir(home), rejected_dir(home), processed_dir(home)
    done = InboxPass()
    runs: dict[str, RunRequest] = {}
    limit = files_per_tick or get_settings().sensors.files_per_tick
    scanned = scan_inbox(inbox, None if previous_stamps is not None else limit)
    if previous_stamps is not None:
        settled = settle(scanned, inbox, previous_stamps)
        done.deferred, done.stamps = settled.deferred, settled.stamps
        for waiting in settled.deferred:
            done.lines.append(f"deferred {waiting.name}: {waiting.reason}")
        scanned = settled.ready
    items = scanned[:limit]
    for item in items:
        done.stamps.pop(inbox_name(item, inbox), None)  # handled now: a new file of that name starts afresh
    for index, item in enumerate(items):
        try:
            _take_item(store, item, inbox, processed, existing_partitions, job_name, done, runs)
        except Exception as exc:  # noqa: BLE001 - any bad file is quarantined; the sensor keeps ticking
            outage = store_outage(exc)  # the database failing is not the file's fault: keep it, stop the pass
            if outage is not None:
                _leave_for_next_tick(outage, items[index:], inbox, done)
                done.run_requests = list(runs.values())
                return done
            _reject_item(item, exc, inbox, rejected, done)
    done.run_requests = list(runs.values())
    return done


def _take_item(store: DomainStore, item: InboxItem, inbox: Path, processed: Path, existing_partitions: set[str],
               job_name: str, done: InboxPass, runs: dict[str, RunRequest]) -> None:
    """Store one complete file (an abstract, a labels file or a paper file) and archive it under
    processed/<slug>/; an abstract, or a paper file that added papers, requests the project's run (in ``runs``).
    Raises what a bad file or a database failure raises."""
    if item.kind == "unknown":
        raise IntakeError(f"{item.path.name}: not an abstract (.md/.txt) or a paper file ({PAPER_SUFFIXES})")
    if item.kind == "abstract":
        abstract = read_abstract(item.path)  # checks type and size first: a FIFO or 2 GB file is never read
        sha = file_sha256(item.path)
        add_project(store, item.slug, abstract)
        if item.slug not in existing_partitions and item.slug not in done.new_partitions:
            done.new_partitions.append(item.slug)
        runs[item.slug] = RunRequest(partition_key=item.slug, run_key=f"{item.slug}:abstract:{sha}",
                                     job_name=job_name, tags={"agentr/source": "inbox"})
        done.lines.append(f"project {item.slug}: abstract accepted")
    elif is_labels_file(item.path):  # decisions, not papers: the labels sensor re-ranks the project
        imported = import_labels_file(store, item.slug, item.path)
        done.lines.append(f"project {item.slug}: labels {imported.summary()}")
        done.lines.extend(printable(f"  unmatched {line}") for line in imported.unmatched[:20])
        write_labels_report(archive(item.path, processed / item.slug), imported)  # archived here: its report beside it
        return
    else:
        added = add_papers_file(store, item.slug, item.path)
        sha = file_sha256(item.path)
        done.lines.append(
            f"project {item.slug}: {item.path.name}: {added.added} added, {added.duplicates} duplicates, "
            f"{added.dropped} rows dropped" + (" (already imported)" if added.already_imported else "")
        )
        if not added.already_imported:  # each dropped row named, as `agentr papers add` names it
            done.lines.extend(printable(f"  dropped {note}") for note in added.notes[:20])
            if len(added.notes) > 20:
                done.lines.append(f"  ... and {len(added.notes) - 20} more dropped rows (agentr inbox lists them)")
            rerun = rerun_after_adding(store, item.slug, added.added)
            if rerun:
                done.lines.append(f"project {item.slug}: {rerun}")
            done.imported.append(Imported(inbox_name(item, inbox), item.slug, added.added, added.duplicates,
                                          added.dropped, tuple(added.notes), rerun))
        if not added.added:
            done.unchanged.append(f"{inbox_name(item, inbox)} (" + (
                "already imported" if added.already_imported else f"{added.duplicates} duplicate(s)") + ")")
        if added.added and item.slug not in runs:
            runs[item.slug] = RunRequest(partition_key=item.slug, run_key=f"{item.slug}:papers:{sha}",
                                         job_name=job_name, tags={"agentr/source": "inbox"})
    archive(item.path, processed / item.slug)


def _leave_for_next_tick(outage: str, left: list[InboxItem], inbox: Path, done: InboxPass) -> None:
    """The database failed: keep ``left`` (the failing file and the rest) in the inbox, stamped as complete so
    the next tick takes them at once, and say why."""
    line = _outage_line(outage, left)
    done.lines.append(line)
    for item in left:
        if (now := stamp(item.path)) is not None:
            done.stamps[inbox_name(item, inbox)] = now
    done.outage = line


def _reject_item(item: InboxItem, exc: Exception, inbox: Path, rejected: Path, done: InboxPass) -> None:
    """Quarantine a bad file under rejected/<project>/ with its reason, and record the rejection."""
    reason = str(exc) if isinstance(exc, IntakeError) else f"{type(exc).__name__}: {exc}"
    if type(exc).__name__ == "ProjectNotFound":
        reason = (f"no project {item.slug!r}: drop {item.slug}.md (an abstract) first, or run "
                  f"`agentr project add {item.slug} --abstract FILE`")
    line = printable(f"rejected {inbox_name(item, inbox)}: {reason.removeprefix(f'{item.path.name}: ')}")
    folder = rejection_folder(item)
    moved_to = None
    try:
        if item.path.exists() or item.path.is_symlink():
            moved_to = printable(str(quarantine(item.path, reason, rejected, project=folder,
                                                came_from=came_from(item))))
    except OSError as move_exc:  # e.g. a read-only inbox: say so, keep ticking, try again next tick
        line += printable(f" (could not move it to {rejected.name}/{folder}/: {move_exc})")
    done.lines.append(line)
    why = printable(reason).removeprefix(f"{item.path.name}: ")
    done.rejected.append((inbox_name(item, inbox), why))
    done.quarantined.append(Rejection(inbox_name(item, inbox), folder, why, moved_to))


def tick_problems(result: InboxPass) -> list[str]:
    """The lines of a pass that an operator must see (logged at WARNING): each file rejected, and each one
    deferred as incomplete (a file seen for the first time waits one tick as a matter of course: INFO)."""
    return [line for line in result.lines
            if line.startswith("rejected ") or (line.startswith("deferred ") and NEW_FILE not in line)]


MAX_LISTED = 20  # files named in one tick message; the tick log has every one


def _listed(entries: list[str]) -> str:
    more = len(entries) - MAX_LISTED
    return "; ".join(entries[:MAX_LISTED]) + (f"; and {more} more (see the tick log)" if more > 0 else "")


def skip_message(result: InboxPass) -> str:
    """Why a tick launched nothing, naming each file and its reason."""
    parts = []
    if result.outage:
        parts.append(result.outage)
    if result.rejected:
        parts.append(f"rejected {len(result.rejected)} file(s) (moved to inbox/rejected/<project>/ with "
                     f"<name>.error.txt): " + _listed([f"{name}: {why[:300]}" for name, why in result.rejected]))
    if result.deferred:
        parts.append(f"waiting for {len(result.deferred)} file(s) to be complete: "
                     + _listed([f"{d.name}: {d.reason}" for d in result.deferred]))
    if result.unchanged:
        parts.append("no new papers: " + _listed(result.unchanged))
    return " | ".join(parts) or "inbox empty"


def _outage_line(outage: str, waiting: list[InboxItem]) -> str:
    names = ", ".join(printable(item.path.name) for item in waiting[:5]) + (", ..." if len(waiting) > 5 else "")
    return (f"domain database unavailable ({outage}); {len(waiting)} file(s) left in the inbox for the next "
            f"tick: {names}")


def make_inbox_sensor(job_name: str = PIPELINE_JOB):
    """The drop-folder sensor, launching ``job_name`` (``$AGENTR_INBOX_JOB``: the in-process chain by default,
    ``project_pipeline_celery`` to spread each run's steps over Celery workers)."""

    @sensor(
        name="inbox_sensor",
        minimum_interval_seconds=15,
        default_status=DefaultSensorStatus.RUNNING,
        job_name=job_name,
        description="Watches $AGENTR_HOME/inbox for abstracts and candidate-paper files.",
    )
    def inbox_sensor(context: SensorEvaluationContext, store: StoreResource):
        existing = set(context.instance.get_dynamic_partitions(PROJECTS_PARTITIONS))
        home = agentr_home()
        try:
            domain_store = store.get()  # opening it connects (and migrates): the first place an outage shows
        except Exception as exc:
            outage = store_outage(exc)
            if outage is None:
                raise
            waiting = scan_inbox(inbox_dir(home), get_settings().sensors.files_per_tick)
            if not waiting:
                return SkipReason(f"inbox empty (domain database unavailable: {outage})")
            line = _outage_line(outage, waiting)
            context.log.warning(line)
            return SkipReason(line)
        result = inbox_pass(domain_store, home, existing, job_name=job_name,
                            previous_stamps=decode_stamps(context.cursor))
        context.update_cursor(encode_stamps(result.stamps))
        warned = {result.outage, *tick_problems(result)}
        for line in result.lines:
            (context.log.warning if line in warned else context.log.info)(line)
        # Every rejection and every import is an observation on the `inbox` asset, whether or not the tick launched
        # a run: the import's counts and each dropped row with its reason.
        rejections = [r.observation() for r in result.quarantined] + [i.observation() for i in result.imported]
        if not result.new_partitions and not result.run_requests:
            # Nothing launched: the tick's own message (the sensor's tick list) says what happened to each file.
            if not rejections:
                return SkipReason(skip_message(result))
            return SensorResult(skip_reason=skip_message(result), asset_events=rejections)
        return SensorResult(
            asset_events=rejections,
            run_requests=result.run_requests,
            dynamic_partitions_requests=(
                [projects.build_add_request(result.new_partitions)] if result.new_partitions else []
            ),
        )

    return inbox_sensor


inbox_sensor = make_inbox_sensor()  # the default; the code location builds the configured one


@dataclass
class SensorView:
    """What the instance stored for the inbox sensor: its cursor (each waiting file's stamps) and its last tick."""

    status: str  # "RUNNING" | "STOPPED" | ...
    stamps: dict[str, tuple[int, int]]
    last_tick_at: datetime | None = None
    last_tick_status: str | None = None
    last_tick_message: str | None = None


def stored_sensor_view(instance: DagsterInstance, name: str = "inbox_sensor") -> SensorView | None:
    """The inbox sensor's stored state on ``instance`` (None when no daemon has run it there)."""
    if instance.schedule_storage is None:
        return None
    # InstigatorType is not exported by dagster: its value is compared instead of importing dagster._core
    states = [s for s in instance.all_instigator_state() if s.name == name and s.instigator_type.value == "SENSOR"]
    if not states:
        return None
    state = max(states, key=lambda s: getattr(s.instigator_data, "last_tick_timestamp", None) or 0)
    data = state.instigator_data
    view = SensorView(state.status.value, decode_stamps(getattr(data, "cursor", None)))
    ticks = instance.get_ticks(state.instigator_origin_id, state.selector_id, limit=1)
    if ticks:
        tick = ticks[0]
        view.last_tick_at = datetime.fromtimestamp(tick.timestamp, timezone.utc)
        view.last_tick_status = tick.status.value
        view.last_tick_message = tick.skip_reason or (tick.error.message.strip() if tick.error else None)
    return view
