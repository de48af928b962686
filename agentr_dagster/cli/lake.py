"""`agentr lake ...` (the shared paper lake), `agentr label`, `agentr labels` and `agentr rerank` (relevance
feedback on a project's candidates)."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import click

from agentr_dagster.cli.common import echo_json, fail, open_store


@click.group("lake")
def lake_group() -> None:
    """The paper lake shared by every project: add files, search it."""


@lake_group.command("add")
@click.argument("files", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--workers", type=click.IntRange(1, 32), default=None,
              help="Processes that parse files in parallel (profiling and indexing stay in one); "
                   "default: 2 on a multi-core machine.")
@click.option("--json", "as_json", is_flag=True)
def lake_add(files: tuple[Path, ...], workers: int | None, as_json: bool) -> None:
    """Import CSV / TSV, Excel, BibTeX, RIS, PubMed (MEDLINE), Web of Science, EndNote XML and JSONL / JSON
    (OpenAlex, arXiv) files into the lake.

    Each paper is profiled once (text, static embedding, lexical terms); duplicates (DOI, normalised title +
    year) and files already ingested add nothing. A bad file is reported and skipped (exit code 2)."""
    from agentr_dagster.lake import add_files

    if workers is None:
        workers = min(2, os.cpu_count() or 1)
    started = time.perf_counter()
    try:
        report = add_files(list(files), workers=workers)
    except RuntimeError as exc:  # e.g. the embedding model has not been built
        fail(str(exc))
    elapsed = time.perf_counter() - started
    if as_json:
        echo_json({
            "generation": report.generation, "papers": report.papers, "added": report.added,
            "profiled": report.profiled, "reused_profiles": report.reused_profiles,
            "seconds": round(elapsed, 3), "timings": report.timings,
            "files": [f.__dict__ for f in report.files],
        })
    else:
        for f in report.files:
            if f.error:
                click.echo(f"rejected {f.name}: {f.error}", err=True)
            elif f.already_ingested:
                click.echo(f"{f.name}: already in the lake; nothing added")
            else:
                click.echo(f"{f.name} ({f.format}): {f.added} added, {f.duplicates} duplicates, "
                           f"{f.dropped} rows dropped")
                for note in f.notes[:10]:
                    click.echo(f"  dropped {note}")
        click.echo(f"lake: {report.papers} papers (generation {report.generation}); {report.profiled} profiled now, "
                   f"{report.reused_profiles} reused; {elapsed:.1f}s")
    if report.rejected:
        sys.exit(2)


@lake_group.command("search")
@click.argument("query")
@click.option("--k", "k", type=click.IntRange(1, 10_000), default=10, show_default=True)
@click.option("--boolean", is_flag=True, help="QUERY is a Boolean query: only papers it matches, ranked.")
@click.option("--min-cosine", type=float, default=None, help="Drop papers less similar than this (dense cosine).")
@click.option("--json", "as_json", is_flag=True)
def lake_search(query: str, k: int, boolean: bool, min_cosine: float | None, as_json: bool) -> None:
    """Hybrid search: BM25 and static-embedding cosine, fused by weighted reciprocal rank fusion."""
    from agentr_dagster.domain.boolean_query import BooleanQueryError
    from agentr_dagster.lake import Lake, boolean_positive_text

    lake = Lake.open()
    if lake is None:
        if as_json:
            echo_json({"query": query, "lake_papers": 0, "hits": []})
        else:
            click.echo("the lake is empty: add papers with `agentr lake add FILE...`")
        return
    try:
        lake.check_model()  # loads the embedding model once, outside the timed query
    except RuntimeError as exc:
        fail(str(exc))
    started = time.perf_counter()
    try:
        mask, text = None, query
        if boolean:
            mask, text = lake.boolean_mask(query), boolean_positive_text(query) or query
        hits = lake.search(text, k, mask=mask, min_cosine=min_cosine)
    except BooleanQueryError as exc:
        fail(f"the Boolean query does not parse: {exc}", 2)
    except RuntimeError as exc:
        fail(str(exc))
    elapsed_ms = (time.perf_counter() - started) * 1000
    if as_json:
        echo_json({"query": query, "lake_papers": lake.n, "generation": lake.generation,
                    "ms": round(elapsed_ms, 2), "hits": [h.as_dict() for h in hits]})
        return
    if not hits:
        click.echo("no matching papers")
    for h in hits:
        year = h.year if h.year is not None else "----"
        click.echo(f"{h.rank:>3}. [{h.lake_id}] {year}  {h.title[:100]}")
        click.echo(f"       score={h.score:.4f} cosine={h.cosine:.3f} bm25={h.bm25:.2f} "
                   f"lexical_rank={h.lexical_rank or '-'} dense_rank={h.dense_rank or '-'}"
                   + (f" doi={h.doi}" if h.doi else ""))
    click.echo(f"({len(hits)} of {lake.n} papers, {elapsed_ms:.1f} ms)")


@lake_group.command("info")
@click.option("--json", "as_json", is_flag=True)
def lake_info(as_json: bool) -> None:
    """Size, generation, model and files of the lake."""
    from agentr_dagster.lake import Lake, lake_dir

    lake = Lake.open()
    stats = lake.stats() if lake is not None else {"path": str(lake_dir()), "papers": 0}
    if as_json:
        echo_json(stats)
    else:
        click.echo("  ".join(f"{k}={v}" for k, v in stats.items()))


@lake_group.command("rebuild")
def lake_rebuild() -> None:
    """Re-profile every paper (after the embedding model or the analyzer changed)."""
    from agentr_dagster.lake import rebuild

    report = rebuild()
    click.echo(f"lake: {report.papers} papers re-profiled (generation {report.generation})")


# ---------------------------------------------------------------- relevance feedback
@click.command("label")
@click.argument("slug")
@click.argument("paper")
@click.argument("decision", type=click.Choice(["include", "exclude", "clear"], case_sensitive=False))
@click.option("--note", default=None, help="Why (kept with the label).")
def label_command(slug: str, paper: str, decision: str, note: str | None) -> None:
    """Record a screening decision on a candidate (PAPER: the export's paper_id or source_id, a DOI, a paper key
    or the exact title; `id:N` / `source:X` when a bare number names two papers)."""
    from agentr_dagster.stages.labels import set_label
    from agentr_dagster.store.rows import StoreError

    try:
        row = set_label(open_store(), slug, paper, decision, note=note)
    except (StoreError, ValueError) as exc:
        fail(str(exc))
    if row is None:
        click.echo(f"{slug}: label cleared for paper {paper}")
    else:
        click.echo(f"{slug}: paper {row.paper_id} labelled {row.label}: {row.title[:80]}")


@click.command("labels")
@click.argument("slug")
@click.option("--import", "import_files", multiple=True, type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="Add decisions from a labels table (CSV/TSV/XLSX with included/label and record_id, doi or "
                   "title) or an ASReview project export (.asreview); repeatable.")
@click.option("--json", "as_json", is_flag=True)
def labels_command(slug: str, import_files: tuple[Path, ...], as_json: bool) -> None:
    """The project's screening decisions (after importing any --import files)."""
    from agentr_dagster.stages.feedback import list_labels
    from agentr_dagster.stages.intake import IntakeError
    from agentr_dagster.stages.labels import import_labels_file
    from agentr_dagster.store.rows import StoreError

    store = open_store()
    for path in import_files:
        try:
            imported = import_labels_file(store, slug, path)
        except (IntakeError, StoreError) as exc:
            fail(str(exc))
        click.echo(imported.summary(), err=as_json)
        for line in imported.unmatched[:20]:
            click.echo(f"  unmatched {line}", err=as_json)
        if len(imported.unmatched) > 20:
            click.echo(f"  ... and {len(imported.unmatched) - 20} more unmatched", err=as_json)
    if import_files and not as_json:
        click.echo(f"next: agentr run {slug} (or let the labels sensor re-rank it)")
        return
    try:
        rows = list_labels(store, slug)
    except StoreError as exc:
        fail(str(exc))
    if as_json:
        echo_json([r.__dict__ for r in rows])
        return
    if not rows:
        click.echo(f"no labels for {slug}; add one with `agentr label {slug} PAPER include|exclude`")
    for r in rows:
        click.echo(f"{r.paper_id:>6}  {r.label:<7}  {r.title[:90]}")


@click.command("rerank")
@click.argument("slug")
@click.option("--top", type=click.IntRange(1, 1_000_000), default=20, show_default=True)
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Write the whole ranking as CSV.")
@click.option("--json", "as_json", is_flag=True)
def rerank_command(slug: str, top: int, out: Path | None, as_json: bool) -> None:
    """The project's candidates in the order to screen next, learned from its labels."""
    from agentr_dagster.stages.feedback import rerank
    from agentr_dagster.store.rows import StoreError

    try:
        frame = rerank(open_store(), slug)
    except (StoreError, RuntimeError) as exc:
        fail(str(exc))
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        frame.to_csv(out, index=False)
    versus = frame.attrs.get("versus_zero_shot")  # with labels: how far they moved the question's order
    if as_json:
        if versus is not None:
            click.echo(versus.sentence, err=True)
        echo_json(json.loads(frame.head(top).to_json(orient="records")))
        return
    if frame.empty:
        click.echo(f"{slug} has no candidate papers")
        return
    labelled = int((frame["label"] != "").sum())
    click.echo(f"{slug}: {len(frame)} candidates, {labelled} labelled, method {frame['method'].iloc[0]}")
    if versus is not None:
        click.echo(versus.sentence)
    for row in frame.head(top).itertuples(index=False):
        mark = {"include": "+", "exclude": "-"}.get(row.label, " ")
        click.echo(f"{row.rank:>5} {mark} [{row.paper_id}] P(include) {row.probability:.3f}  {str(row.title)[:90]}")
    if out is not None:
        click.echo(f"full ranking: {out}")
