"""The drop-folder sensor: abstracts create project partitions, paper files add candidates; both launch the
project's run. Bad files are quarantined with their reason; the sensor itself never fails on input."""


import os

from dagster import DefaultSensorStatus, RunRequest, SensorEvaluationContext, SensorResult, SkipReason, sensor

from agentr_dagster.assets.project import projects
from agentr_dagster.config import agentr_home, inbox_dir, processed_dir, rejected_dir
from agentr_dagster.intake import (
    IntakeError,
    add_papers_file,
    add_project,
    archive,
    file_sha256,
    printable,
    quarantine,
    read_abstract,
    scan_inbox,
)
from agentr_dagster.resources import StoreResource

FILES_PER_TICK = int(os.environ.get("AGENTR_SENSOR_FILES_PER_TICK", "25"))
PIPELINE_JOB = "project_pipeline"


def process_inbox(store, home, existing_partitions: set[str], files_per_tick: int = FILES_PER_TICK):
    """One pass over the drop folder. Returns (new partition keys, run requests, log lines)."""
    inbox, rejected, processed = inbox_dir(home), rejected_dir(home), processed_dir(home)
    new_partitions: list[str] = []
    runs: dict[str, RunRequest] = {}
    lines: list[str] = []
    for item in scan_inbox(inbox, files_per_tick):
        try:
            if item.kind == "unknown":
                raise IntakeError(
                    f"{item.path.name}: not an abstract (.md/.txt) or a paper file (.csv/.tsv/.bib/.ris/.jsonl/.json)"
                )
            if item.kind == "abstract":
                abstract = read_abstract(item.path)  # checks type and size first: a FIFO or 2 GB file is never read
                sha = file_sha256(item.path)
                add_project(store, item.slug, abstract)
                if item.slug not in existing_partitions and item.slug not in new_partitions:
                    new_partitions.append(item.slug)
                runs[item.slug] = RunRequest(partition_key=item.slug, run_key=f"{item.slug}:abstract:{sha}",
                                             job_name=PIPELINE_JOB, tags={"agentr/source": "inbox"})
                lines.append(f"project {item.slug}: abstract accepted")
            else:
                added = add_papers_file(store, item.slug, item.path)
                sha = file_sha256(item.path)
                lines.append(
                    f"project {item.slug}: {item.path.name}: {added.added} added, {added.duplicates} duplicates, "
                    f"{added.dropped} rows dropped" + (" (already imported)" if added.already_imported else "")
                )
                if added.added and item.slug not in runs:
                    runs[item.slug] = RunRequest(partition_key=item.slug, run_key=f"{item.slug}:papers:{sha}",
                                                 job_name=PIPELINE_JOB, tags={"agentr/source": "inbox"})
            archive(item.path, processed / item.slug)
        except Exception as exc:  # noqa: BLE001 - any bad file is quarantined; the sensor keeps ticking
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
    return new_partitions, list(runs.values()), lines


@sensor(
    name="inbox_sensor",
    minimum_interval_seconds=15,
    default_status=DefaultSensorStatus.RUNNING,
    job_name=PIPELINE_JOB,
    description="Watches $AGENTR_HOME/inbox for abstracts and candidate-paper files.",
)
def inbox_sensor(context: SensorEvaluationContext, store: StoreResource):
    existing = set(context.instance.get_dynamic_partitions(projects.name))
    new_partitions, run_requests, lines = process_inbox(store.get(), agentr_home(), existing)
    for line in lines:
        context.log.info(line)
    if not new_partitions and not run_requests and not lines:
        return SkipReason("inbox empty")
    return SensorResult(
        run_requests=run_requests,
        dynamic_partitions_requests=[projects.build_add_request(new_partitions)] if new_partitions else [],
    )
