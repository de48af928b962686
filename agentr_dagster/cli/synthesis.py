"""`agentr report`, `agentr trace`, `agentr related-work build|check` and `agentr bench synthesis`."""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

import click

from agentr_dagster.cli.common import fail, open_store
from agentr_dagster.settings import results_dir


@click.command("report")
@click.argument("slug")
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Where to write the HTML (default: results/<slug>/report.html).")
def report_command(slug: str, out: Path | None) -> None:
    """One self-contained HTML report (no network): summary, plots, tables, draft, cost and lifecycle."""
    from agentr_dagster.domain.failures import StageError
    from agentr_dagster.stages.report import write_report
    from agentr_dagster.store import ProjectNotFound

    try:
        path = write_report(open_store(), slug, out)
    except (StageError, ProjectNotFound) as exc:
        fail(getattr(exc, "message", str(exc)))
    click.echo(f"report: {path} ({path.stat().st_size / 1024:.0f} KiB); open it in a browser: "
               f"{path.resolve().as_uri()}")


@click.command("trace")
@click.argument("slug")
@click.argument("claim_id", required=False)
@click.option("--json", "as_json", is_flag=True)
def trace_command(slug: str, claim_id: str | None, as_json: bool) -> None:
    """The papers and score fields a claim rests on (landscape claims: c1-01, c2-methodology, gap-01, tax-t1;
    draft sentences: e.g. t1.p2.s1). Without CLAIM_ID, list the claims."""
    from agentr_dagster.stages.synthesis import LANDSCAPE_STAGE, claim_index, current_draft, trace
    from agentr_dagster.store import ProjectNotFound
    from agentr_dagster.synthesis.models import Landscape

    store = open_store()
    if claim_id is None:
        try:
            artifact = store.results.latest_artifact(slug, LANDSCAPE_STAGE)
        except ProjectNotFound as exc:
            fail(str(exc))
        landscape = Landscape.model_validate(artifact.payload) if artifact else None
        index = claim_index(landscape, current_draft(store, slug))
        if not index:
            fail(f"project {slug!r} has no synthesis yet: run `agentr related-work build {slug}`")
        for cid, (where, claim) in index.items():
            if as_json:
                continue
            if claim.kind != "draft-sentence":
                click.echo(f"{cid:24} {where[:30]:30} {claim.text[:90]}")
        if as_json:
            click.echo(json.dumps({cid: {"where": w, "kind": c.kind, "text": c.text} for cid, (w, c) in index.items()},
                                  indent=1))
        return
    try:
        result = trace(store, slug, claim_id)
    except (KeyError, ProjectNotFound) as exc:
        fail(str(exc.args[0]) if exc.args else str(exc))
    if as_json:
        click.echo(json.dumps({"claim_id": result.claim_id, "where": result.where, "kind": result.kind,
                               "text": result.text, "evidence": [vars(ev) for ev in result.evidence]},
                              indent=1, default=str))
        return
    click.echo(f"{result.claim_id} ({result.kind}; {result.where})")
    click.echo(f"  {result.text}")
    click.echo(f"rests on {len({ev.paper_id for ev in result.evidence})} paper(s):")
    for ev in result.evidence:
        title = (ev.title or "?")[:90]
        click.echo(f"- [{ev.key}] paper {ev.paper_id} · result {ev.result_id} · {ev.status}: {title}"
                   + (f" ({ev.year})" if ev.year else "") + (f" doi:{ev.doi}" if ev.doi else ""))
        for field, value in ev.fields.items():
            now = ev.current.get(field)
            same = "" if now is None or now == value else f"   [now: {str(now)[:80]}]"
            if isinstance(now, str) and now.endswith("abstract"):
                same = f"   [{now}]"
            click.echo(f"    {field} = {str(value)[:160]}{same}")


@click.group("related-work")
def related_work_group() -> None:
    """The research landscape and the related-work draft outside a Dagster run."""


@related_work_group.command("build")
@click.argument("slug")
@click.option("--offline", is_flag=True, help="Write the extractive draft even if an LLM endpoint is configured.")
def related_work_build(slug: str, offline: bool) -> None:
    """Build the landscape and the draft (an LLM rewrites paragraphs when AGENTR_LLM_BASE_URL is set)."""
    from agentr_dagster.defs.resources import resources_from_env
    from agentr_dagster.domain.failures import StageError
    from agentr_dagster.stages.synthesis import run_landscape, run_related_work
    from agentr_dagster.synthesis.redraft import GatewayParagraphWriter

    store = open_store()
    writer = None
    if not offline:
        backend = resources_from_env()["llm"].backend(store)
        writer = GatewayParagraphWriter(backend.gateway) if backend.kind == "llm" else None
    started = time.monotonic()
    try:
        land = run_landscape(store, slug)
        outcome = run_related_work(store, slug, writer=writer, out_dir=results_dir(slug),
                                   on_error=lambda exc: click.echo(f"warning: paragraph rewrites stopped: "
                                                                   f"{exc.message}", err=True))
    except StageError as exc:
        fail(exc.message)
    land_l = land.landscape
    click.echo(f"landscape: {sum(p.included for p in land_l.papers)}/{land_l.n_papers} papers discussed, "
               f"{len(land_l.competitors)} direct competitors, {len(land_l.gap_clusters)} recurring gaps, "
               f"{len(land_l.taxonomy.nodes)} taxonomy nodes" + (" (reused)" if land.reused else ""))
    origins: dict[str, int] = {}
    for paragraph in outcome.draft.paragraphs():
        origins[paragraph.origin] = origins.get(paragraph.origin, 0) + 1
    click.echo(f"draft: {outcome.report.sections} sections, {outcome.report.paragraphs} paragraphs "
               f"({', '.join(f'{n} {k}' for k, n in sorted(origins.items()))}), {outcome.report.citations} "
               f"citations to {len(outcome.report.keys_cited)} papers; validator: "
               + ("passes" if outcome.report.ok and outcome.latex_report.ok else "FAILS")
               + (" (reused)" if outcome.reused else ""))
    for kind, path in outcome.files.items():
        click.echo(f"  {kind:9} {path}")
    click.echo(f"{time.monotonic() - started:.1f}s")


@related_work_group.command("check")
@click.argument("slug", required=False)
@click.option("--md", "md_file", type=click.Path(exists=True, dir_okay=False, path_type=Path), default=None)
@click.option("--tex", "tex_file", type=click.Path(exists=True, dir_okay=False, path_type=Path), default=None)
@click.option("--bib", "bib_file", type=click.Path(exists=True, dir_okay=False, path_type=Path), default=None)
@click.option("--json", "as_json", is_flag=True)
def related_work_check(slug: str | None, md_file: Path | None, tex_file: Path | None, bib_file: Path | None,
                       as_json: bool) -> None:
    """Validate the draft files (default: the project's results/<slug>/related_work.{md,tex,bib}), e.g. after
    editing them: citation keys resolve, no placeholders, no empty sections, every literature claim cited.
    Exits 1 when a check fails."""
    from agentr_dagster.stages.synthesis import FILES
    from agentr_dagster.synthesis.validate import validate_latex, validate_markdown

    if slug is None and not (md_file or tex_file):
        fail("give a project SLUG or --md/--tex files")
    base = results_dir(slug) if slug else None
    md_file = md_file or (base / FILES["md"] if base and (base / FILES["md"]).exists() and not tex_file else None)
    tex_file = tex_file or (base / FILES["tex"] if base and (base / FILES["tex"]).exists() and slug else None)
    if bib_file is None and base is not None:
        bib_file = base / FILES["bib"]
    elif bib_file is None:
        draft_file = md_file or tex_file
        assert draft_file is not None  # without a slug, --md or --tex was given (checked above)
        bib_file = draft_file.with_suffix(".bib")
    if not bib_file.exists():
        fail(f"no bibliography at {bib_file}: give --bib")
    bibtex = bib_file.read_text(encoding="utf-8")
    reports = {}
    if md_file:
        reports[str(md_file)] = validate_markdown(md_file.read_text(encoding="utf-8"), bibtex)
    if tex_file:
        reports[str(tex_file)] = validate_latex(tex_file.read_text(encoding="utf-8"), bibtex)
    if not reports:
        fail(f"no draft files found under {base}: run `agentr related-work build {slug}`")
    if as_json:
        click.echo(json.dumps({name: r.as_dict() for name, r in reports.items()}, indent=1))
    else:
        for name, r in reports.items():
            verdict = "ok" if r.ok else f"{len(r.issues)} problem(s)"
            click.echo(f"{name}: {verdict} — {r.sections} sections, {r.sentences} sentences, {r.claims} claims, "
                       f"{r.citations} citations; {r.bib_entries - len(r.unused_keys)} of {r.bib_entries} "
                       f"bibliography entries cited")
            for issue in r.issues:
                click.echo(f"  {issue}")
    if not all(r.ok for r in reports.values()):
        sys.exit(1)


@click.command("synthesis")
@click.option("--papers-file", "papers_files", multiple=True, type=click.Path(exists=True, path_type=Path),
              help="Candidate CSV/BibTeX/RIS/JSONL file(s); default: the bundled demo (40 papers).")
@click.option("--abstract-file", type=click.Path(exists=True, dir_okay=False, path_type=Path), default=None)
@click.option("--limit", type=int, default=0, help="Use at most this many papers in all (0 = all).")
@click.option("--json", "json_out", type=click.Path(dir_okay=False, path_type=Path), default=None)
def bench_synthesis_command(papers_files: tuple[Path, ...], abstract_file: Path | None, limit: int,
                            json_out: Path | None) -> None:
    """Time the synthesis (landscape, draft, validation, report) on a fresh store scored offline."""
    from importlib import resources

    import pandas as pd

    from agentr_dagster.llm.backends import OfflineStageBackend
    from agentr_dagster.stages.intake import add_papers_file, add_project
    from agentr_dagster.stages.intent import run_intent
    from agentr_dagster.stages.queries import run_queries
    from agentr_dagster.stages.report import build_report
    from agentr_dagster.stages.scoring import score_project
    from agentr_dagster.stages.synthesis import run_landscape, run_related_work
    from agentr_dagster.store import DomainStore, default_database_url

    demo = resources.files("agentr_dagster.data").joinpath("demo")
    abstract = (abstract_file.read_text(encoding="utf-8") if abstract_file
                else demo.joinpath("abstract.md").read_text(encoding="utf-8"))
    figures: dict[str, float | int | bool] = {}
    with tempfile.TemporaryDirectory(prefix="agentr-bench-synthesis-") as tmp:
        home = Path(tmp)
        store = DomainStore(default_database_url(home))
        add_project(store, "bench", abstract)
        sources = list(papers_files)
        if not sources:
            path = home / "demo.csv"
            path.write_text(demo.joinpath("papers.csv").read_text(encoding="utf-8"), encoding="utf-8")
            sources = [path]
        if limit:
            frames = [pd.read_csv(p) for p in sources]
            merged = pd.concat(frames, ignore_index=True).head(limit)
            path = home / "limited.csv"
            merged.to_csv(path, index=False)
            sources = [path]
        for source in sources:
            add_papers_file(store, "bench", source)
        backend = OfflineStageBackend()
        t = time.perf_counter()
        run_intent(store, backend, "bench")
        run_queries(store, backend, "bench")
        score_project(store, backend, "bench")
        figures["papers"] = store.projects.count_papers("bench")
        figures["offline_scoring_s"] = round(time.perf_counter() - t, 2)
        from agentr_dagster.domain.embeddings import get_embedder

        get_embedder()  # loaded once, outside the timings
        t = time.perf_counter()
        land = run_landscape(store, "bench")
        figures["landscape_s"] = round(time.perf_counter() - t, 2)
        t = time.perf_counter()
        draft = run_related_work(store, "bench", out_dir=home / "out")
        figures["draft_and_validation_s"] = round(time.perf_counter() - t, 2)
        t = time.perf_counter()
        page = build_report(store, "bench")
        figures["report_s"] = round(time.perf_counter() - t, 2)
        t = time.perf_counter()
        again = run_landscape(store, "bench")
        figures["landscape_reuse_s"] = round(time.perf_counter() - t, 3)
        figures.update({
            "discussed": sum(p.included for p in land.landscape.papers),
            "competitors": len(land.landscape.competitors),
            "gap_clusters": len(land.landscape.gap_clusters),
            "taxonomy_nodes": len(land.landscape.taxonomy.nodes),
            "taxonomy_sound": not land.landscape.structure_problems,
            "draft_sections": draft.report.sections,
            "draft_sentences": draft.report.sentences,
            "draft_citations": draft.report.citations,
            "draft_papers_cited": len(draft.report.keys_cited),
            "draft_valid": draft.report.ok and draft.latex_report.ok,
            "report_kib": round(len(page.encode()) / 1024),
            "landscape_artifact_kib": round(len(json.dumps(land.landscape.model_dump(mode="json"))) / 1024),
            "reused": again.reused,
        })
    for key, value in figures.items():
        click.echo(f"{key:24} {value}")
    if json_out:
        json_out.write_text(json.dumps(figures, indent=1))
