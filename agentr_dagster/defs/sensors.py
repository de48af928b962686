"""The drop-folder sensor: abstracts create project partitions, paper files add candidates; both launch the
project's run. Labels files (stages/labels.py) label the project's papers; the labels sensor re-ranks it.
Bad files are quarantined with their reason; the sensor itself never fails on input. When the
domain database fails (down, unreachable, locked), the files stay in the inbox untouched and a later tick
takes them: an outage is never blamed on a file."""


from dataclasses import dataclass, field

from dagster import DefaultSensorStatus, RunRequest, SensorEvaluationContext, SensorResult, SkipReason, sensor

from agentr_dagster.defs.partitions import PIPELINE_JOB, projects
from agentr_dagster.defs.resources import StoreResource
from agentr_dagster.domain.hashing import file_sha256
from agentr_dagster.imports import SUPPORTED_SUFFIXES
from agentr_dagster.settings import agentr_home, get_settings, inbox_dir, processed_dir, rejected_dir
from agentr_dagster.stages.intake import (
    ABSTRACT_SUFFIXES,
    InboxItem,
    IntakeError,
    add_papers_file,
    add_project,
    archive,
    printable,
    quarantine,
    read_abstract,
    scan_inbox,
    store_outage,
)
from agentr_dagster.stages.labels import import_labels_file, is_labels_file, write_labels_report
from agentr_dagster.store import DomainStore

# At the top of the inbox a .txt file is an abstract; inside inbox/<slug>/ it may be a PubMed export.
PAPER_SUFFIXES = "/".join(s for s in SUPPORTED_SUFFIXES if s not in ABSTRACT_SUFFIXES)


def inbox_job_name() -> str:
    """The job the inbox launches: the in-process chain, or $AGENTR_INBOX_JOB (e.g. project_pipeline_celery)."""
    return get_settings().inbox_job or PIPELINE_JOB


@dataclass
class InboxPass:
    """What one pass over the drop folder did."""

    new_partitions: list[str] = field(default_factory=list)
    run_requests: list[RunRequest] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)
    outage: str | None = None  # the database failed: this file and the rest were left for the next tick


def inbox_pass(store: DomainStore, home, existing_partitions: set[str], files_per_tick: int | None = None,
               job_name: str = PIPELINE_JOB) -> InboxPass:
    """One pass over the drop folder. Stops at the first database failure, leaving that file and the rest
    where they are (each store write is one transaction, so nothing is half-stored)."""
    inbox, rejected, processed = inbox_dir(home), rejected_dir(home), processed_dir(home)
    new_partitions: list[str] = []
    runs: dict[str, RunRequest] = {}
    lines: list[str] = []
    items = scan_inbox(inbox, files_per_tick or get_settings().sensor_files_per_tick)
    for index, item in enumerate(items):
        try:
            if item.kind == "unknown":
                raise IntakeError(
                    f"{item.path.name}: not an abstract (.md/.txt) or a paper file ({PAPER_SUFFIXES})"
                )
            if item.kind == "abstract":
                abstract = read_abstract(item.path)  # checks type and size first: a FIFO or 2 GB file is never read
                sha = file_sha256(item.path)
                add_project(store, item.slug, abstract)
                if item.slug not in existing_partitions and item.slug not in new_partitions:
                    new_partitions.append(item.slug)
                runs[item.slug] = RunRequest(partition_key=item.slug, run_key=f"{item.slug}:abstract:{sha}",
                                             job_name=job_name, tags={"agentr/source": "inbox"})
                lines.append(f"project {item.slug}: abstract accepted")
            elif is_labels_file(item.path):  # decisions, not papers: the labels sensor re-ranks the project
                imported = import_labels_file(store, item.slug, item.path)
                lines.append(f"project {item.slug}: labels {imported.summary()}")
                lines.extend(printable(f"  unmatched {line}") for line in imported.unmatched[:20])
                write_labels_report(archive(item.path, processed / item.slug), imported)
                continue
            else:
                added = add_papers_file(store, item.slug, item.path)
                sha = file_sha256(item.path)
                lines.append(
                    f"project {item.slug}: {item.path.name}: {added.added} added, {added.duplicates} duplicates, "
                    f"{added.dropped} rows dropped" + (" (already imported)" if added.already_imported else "")
                )
                if added.added and item.slug not in runs:
                    runs[item.slug] = RunRequest(partition_key=item.slug, run_key=f"{item.slug}:papers:{sha}",
                                                 job_name=job_name, tags={"agentr/source": "inbox"})
            archive(item.path, processed / item.slug)
        except Exception as exc:  # noqa: BLE001 - any bad file is quarantined; the sensor keeps ticking
            outage = store_outage(exc)  # the database failing is not the file's fault: keep it, stop the pass
            if outage is not None:
                line = _outage_line(outage, items[index:])
                lines.append(line)
                return InboxPass(new_partitions, list(runs.values()), lines, line)
            reason = str(exc) if isinstance(exc, IntakeError) else f"{type(exc).__name__}: {exc}"
            if type(exc).__name__ == "ProjectNotFound":
                reason = (f"no project {item.slug!r}: drop {item.slug}.md (an abstract) first, or run "
                          f"`agentr project add {item.slug} --abstract FILE`")
            line = printable(f"rejected {item.path.name}: {reason}")
            try:
                if item.path.exists() or item.path.is_symlink():
                    quarantine(item.path, reason, rejected)
            except OSError as move_exc:  # e.g. a read-only inbox: say so, keep ticking, try again next tick
                line += printable(f" (could not move it to {rejected.name}/: {move_exc})")
            lines.append(line)
    return InboxPass(new_partitions, list(runs.values()), lines)


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
        existing = set(context.instance.get_dynamic_partitions(projects.name))
        home = agentr_home()
        try:
            domain_store = store.get()  # opening it connects (and migrates): the first place an outage shows
        except Exception as exc:
            outage = store_outage(exc)
            if outage is None:
                raise
            waiting = scan_inbox(inbox_dir(home), get_settings().sensor_files_per_tick)
            if not waiting:
                return SkipReason(f"inbox empty (domain database unavailable: {outage})")
            line = _outage_line(outage, waiting)
            context.log.warning(line)
            return SkipReason(line)
        result = inbox_pass(domain_store, home, existing, job_name=job_name)
        for line in result.lines:
            (context.log.warning if line == result.outage else context.log.info)(line)
        if not result.new_partitions and not result.run_requests:
            if result.outage:
                return SkipReason(result.outage)
            if not result.lines:
                return SkipReason("inbox empty")
        return SensorResult(
            run_requests=result.run_requests,
            dynamic_partitions_requests=(
                [projects.build_add_request(result.new_partitions)] if result.new_partitions else []
            ),
        )

    return inbox_sensor


inbox_sensor = make_inbox_sensor()  # the default; the code location builds the configured one
