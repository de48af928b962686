"""Click commands for screening: ``agentr screen`` and ``agentr bench screening``.

Mounted on the main ``agentr`` group elsewhere::

    cli.add_command(screen_command)                 # agentr screen ...
    bench_group.add_command(bench_screening_command)  # agentr bench screening DIR ...
"""

from __future__ import annotations

import json
import math
import sys
import time
from pathlib import Path

import click

from agentr_dagster.settings import get_settings


def _read_bytes(path: str) -> bytes:
    try:
        return sys.stdin.buffer.read() if path == "-" else Path(path).read_bytes()
    except OSError as exc:  # a missing file, a directory, no permission: one line, not a traceback
        raise click.ClickException(f"{path}: {exc.strerror or exc}") from exc


def _read_text(path: str) -> str:
    from agentr_dagster.screening.tables import ImportFileError, decode_text

    try:
        return decode_text(_read_bytes(path))
    except ImportFileError as exc:
        raise click.ClickException(f"{path}: {exc}") from exc


def read_papers_csv(path: str):
    """Read a papers CSV leniently (see :func:`agentr_dagster.screening.tables.read_table`); a binary file is a
    clear error."""
    from agentr_dagster.screening.tables import ImportFileError, read_table

    try:
        return read_table(_read_bytes(path))
    except ImportFileError as exc:
        raise click.ClickException(f"{path}: {exc}") from exc


def read_labels_csv(path: str) -> dict[str, int]:
    """``record_id,label`` with include/exclude (or 1/0, yes/no) -> {record_id: 1|0}; unknown values skipped."""
    from agentr_dagster.screening.screen import labels_from_table

    labels = labels_from_table(read_papers_csv(path))
    if labels is None:
        raise click.UsageError(f"{path}: expected columns record_id,label")
    return labels


def seed_labels(papers, seeds_file: str, labels: dict[str, int] | None
                ) -> tuple[dict[str, int] | None, list[tuple[str, str]], int]:
    """Seed studies (a ``--seeds`` file, as ``agentr queries --seeds`` reads it) as evidence, as a project's
    relevance stage uses them: (labels with each seed-matched record an include unless ``labels`` has it, the
    (title, abstract) of the seeds with a title that are no record, the records matched)."""
    from agentr_dagster.screening.screen import TITLE_COLUMNS, cell_column, record_ids
    from agentr_dagster.stages.seeds import match_seeds, parse_seed_text

    candidates = list(zip(record_ids(papers), cell_column(papers, *TITLE_COLUMNS), cell_column(papers, "doi"),
                          strict=True))
    matched, outside = match_seeds(parse_seed_text(_read_text(seeds_file)), candidates)
    merged = {**dict.fromkeys(matched, 1), **(labels or {})}  # a label given for a seed-matched record wins
    return merged or None, outside, len(matched)


def llm_configured() -> bool:
    return get_settings().llm.configured


@click.command("screen")
@click.option(
    "--question", "question_file", required=True, help="File with the research question/abstract (- = stdin)."
)
@click.option("--papers", "papers_csv", required=True, help="CSV with record_id,title,abstract[,year,doi].")
@click.option("--out", "out_csv", required=True,
              help="Output CSV (record_id,rank,score,label,method,duplicate_of); - = stdout.")
@click.option("--labels", "labels_csv", default=None, help="CSV record_id,label (include/exclude or 1/0).")
@click.option("--seeds", "seeds_file", default=None,
              help="Seed studies (CSV title,abstract,doi, or one DOI or title a line): a seed among the records is "
                   "labelled include (unless --labels says otherwise), one outside them trains the ranking only.")
@click.option("--llm-top", "llm_top", type=int, default=0, show_default=True, help="Re-score the top K with the LLM.")
def screen_command(question_file: str, papers_csv: str, out_csv: str, labels_csv: str | None, seeds_file: str | None,
                   llm_top: int) -> None:
    """Rank candidate papers against a question, best first (offline, deterministic).

    Duplicates are merged as `agentr papers add` merges them: a duplicate is listed right after the record it
    duplicates, with its score, and names it in the duplicate_of column."""
    from agentr_dagster.screening.screen import screen

    t0 = time.perf_counter()
    question = _read_text(question_file)
    papers = read_papers_csv(papers_csv)
    if not len(papers):  # an empty or unreadable table would otherwise give an empty ranking without a word
        click.echo(f"warning: {papers_csv}: no paper records read (expected a header row "
                   "record_id,title,abstract[,year,doi] and one row per paper)", err=True)
    labels = read_labels_csv(labels_csv) if labels_csv else None
    extra: list[tuple[str, str]] = []
    if seeds_file:
        labels, extra, n_matched = seed_labels(papers, seeds_file, labels)
        click.echo(f"seed studies: {n_matched} among the records (labelled include unless labelled otherwise), "
                   f"{len(extra)} outside them (learnt from, not listed)", err=True)
    try:
        result = screen(question, papers, labels, extra_includes=extra)
    except RuntimeError as exc:  # e.g. the static model has not been built
        raise click.ClickException(str(exc)) from exc
    versus = result.attrs.get("versus_zero_shot")  # with labels: how far they moved the question's order
    llm_reordered = 0  # the top K the LLM re-ordered: versus describes the engine's order before that
    if llm_top and llm_top > 0:
        if not llm_configured():
            click.echo(f"note: --llm-top {llm_top} ignored: no LLM configured (set AGENTR_LLM_BASE_URL)", err=True)
        else:
            from agentr_dagster.defs.resources import resources_from_env
            from agentr_dagster.stages.llm_rerank import rerank_top_with_llm

            configured = resources_from_env(resolve=True)
            store, llm = configured["store"].get(), configured["llm"]
            result = rerank_top_with_llm(question, papers, result, llm_top, store, llm.backend(store),
                                         concurrency=llm.llm_settings().concurrency)
            info = result.attrs.get("llm_summary", {})
            llm_reordered = llm_top if info else 0  # no summary: nothing unlabelled at the top, nothing asked
            click.echo(f"LLM re-scored the top {llm_top}: {info.get('scored', 0)} scored now, "
                       f"{info.get('reused', 0)} reused, failed {info.get('failed') or 'none'} "
                       f"(project {info.get('project')}; see `agentr usage`)", err=True)
    if out_csv == "-":
        result.to_csv(sys.stdout, index=False)
    else:
        Path(out_csv).parent.mkdir(parents=True, exist_ok=True)
        result.to_csv(out_csv, index=False)
    duplicate = result["duplicate_of"] != ""
    n_dup = int(duplicate.sum())
    n_lab = 0 if not labels else int(((result["label"] != "") & ~duplicate).sum())
    click.echo(
        f"screened {len(result)} records ({result['method'].iloc[0] if len(result) else 'zero-shot'}"
        f"{f', {n_lab} labelled' if n_lab else ''}"
        f"{f', {n_dup} duplicates ranked with the record they duplicate' if n_dup else ''})"
        f" in {time.perf_counter() - t0:.1f}s" + (f" -> {out_csv}" if out_csv != "-" else ""),
        err=True,
    )
    if versus is not None:
        click.echo(versus.describe(llm_top=llm_reordered), err=True)


def _jsonable(obj):
    """NaN/inf -> null (strict JSON), numpy scalars -> Python."""
    if isinstance(obj, dict):
        return {str(k): _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_jsonable(v) for v in obj]
    if hasattr(obj, "item") and not isinstance(obj, (str, bytes)):
        obj = obj.item()
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    return obj


@click.command("screening")
@click.argument("directory", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print the full result (with screening orders) as JSON.")
@click.option("--no-feedback", is_flag=True, help="Zero-shot and baselines only (no simulated labelling).")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed for the prior records and random.")
@click.option(
    "--out",
    "out_path",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Also write the JSON result to this file.",
)
@click.option(
    "--st-dense/--no-st-dense",
    default=None,
    help="Also the torch sentence-transformers all-MiniLM-L6-v2 baseline (the ONNX one runs without it).",
)
@click.option(
    "--throughput-texts",
    type=int,
    default=1000,
    show_default=True,
    help="Texts encoded (uncached) to measure each encoder's texts/s (0 = skip).",
)
@click.option(
    "--asreview-python",
    default=None,
    help="Python interpreter with `asreview` installed (default: $AGENTR_ASREVIEW_PYTHON, in-process "
    "if importable, else a re-implementation of ASReview's default model).",
)
def bench_screening_command(
    directory: Path,
    as_json: bool,
    no_feedback: bool,
    seed: int,
    out_path: Path | None,
    st_dense: bool | None,
    throughput_texts: int,
    asreview_python: str | None,
) -> None:
    """WSS@95 and recall@10/20% per review, ours beside baselines (random, BM25, dense, ASReview)."""
    from agentr_dagster.bench.screening import format_table, run_screening_bench

    def progress(msg: str) -> None:
        click.echo(msg, err=True)

    try:
        result = run_screening_bench(
            directory,
            with_feedback=not no_feedback,
            seed=seed,
            st_dense=st_dense,
            asreview_python=asreview_python,
            throughput_texts=throughput_texts,
            progress=progress,
        )
    except (RuntimeError, FileNotFoundError, ValueError) as exc:
        raise click.ClickException(str(exc)) from exc
    payload = ""
    if as_json or out_path:
        payload = json.dumps(_jsonable(result), ensure_ascii=False, allow_nan=False, default=str)
    if out_path:
        out_path.parent.mkdir(parents=True, exist_ok=True)
        out_path.write_text(payload, encoding="utf-8")
    if as_json:
        click.echo(payload)
        click.echo(format_table(result), err=True)
    else:
        click.echo(format_table(result))


__all__ = ["bench_screening_command", "read_labels_csv", "read_papers_csv", "screen_command"]
