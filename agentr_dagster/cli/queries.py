"""`agentr queries <slug>`: the stored intent and queries, the Boolean query in each source's dialect, and its
recall on the project's seed studies; `agentr bench queries DIR`: the queries judged on labelled reviews."""

from __future__ import annotations

import json
from pathlib import Path

import click

from agentr_dagster.cli.common import echo_json, fail, open_store


def dialects(boolean_query: str) -> dict[str, str]:
    """The Boolean query as each search source reads it (the sources' own translator)."""
    from agentr_dagster.domain.boolean_query import parse_boolean_query
    from agentr_dagster.sources.translate import to_arxiv, to_europepmc, to_openalex, to_pubmed

    tree = parse_boolean_query(boolean_query)
    return {
        "pubmed": to_pubmed(tree),
        "europepmc": to_europepmc(tree),
        "arxiv": to_arxiv(tree),
        "openalex": to_openalex(tree, boolean=True).describe(),
    }


@click.command("queries")
@click.argument("slug")
@click.option("--seeds", "seeds_file", type=click.Path(exists=True, dir_okay=False, path_type=Path), default=None,
              help="store these seed studies for the project first: one DOI or title a line, or a CSV with a "
                   "title (abstract, doi) column")
@click.option("--json", "as_json", is_flag=True)
def queries_command(slug: str, seeds_file: Path | None, as_json: bool) -> None:
    """Print the project's stored intent and queries, ready to paste into a database's search box."""
    from agentr_dagster.domain.failures import StageError
    from agentr_dagster.stages.intent import current_intent
    from agentr_dagster.stages.queries import current_queries
    from agentr_dagster.stages.seeds import save_seeds, seed_report
    from agentr_dagster.store.rows import StoreError

    store = open_store()
    try:
        if seeds_file is not None:
            n = save_seeds(store, slug, seeds_file)
            if not as_json:
                click.echo(f"stored {n} seed studies for {slug}")
        intent, _ = current_intent(store, slug)
    except (StageError, StoreError, LookupError, ValueError) as exc:
        fail(str(exc))
    queries = current_queries(store, slug)
    report, unresolved = seed_report(store, slug, queries, intent) if queries else (None, [])
    if as_json:
        echo_json({
            "slug": slug,
            "intent": intent.model_dump(mode="json"),
            "queries": queries.model_dump(mode="json") if queries else None,
            "dialects": dialects(queries.boolean_query) if queries else {},
            "seed_check": report.model_dump(mode="json") if report else None,
            "unresolved_seed_dois": unresolved,
        })
        return
    click.echo(f"# {slug}")
    click.echo(f"problem: {intent.problem_statement}")
    click.echo("concept blocks:" if intent.concepts else "concept blocks: (none stored)")
    for c in intent.concepts:
        click.echo(f"  [{'required' if c.required else 'optional'}] {c.facet}: {c.label}")
        click.echo(f"      {' OR '.join(c.terms)}")
    if intent.study_design:
        click.echo(f"  [optional] study design: {' OR '.join(intent.study_design)}")
    if intent.background:  # what judged which terms are generic (the lake, a source's hit counts, or none)
        click.echo(f"terms judged by: {intent.background}")
    click.echo(f"methodologies: {'; '.join(intent.methodologies)}")
    click.echo(f"domains: {'; '.join(intent.application_domains)}")
    click.echo(f"seed keywords: {'; '.join(intent.seed_keywords)}")
    if queries is None:
        click.echo("queries: none stored yet (materialise search_queries)")
        return
    click.echo(f"\nboolean query:\n  {queries.boolean_query}")
    for name, text in dialects(queries.boolean_query).items():
        click.echo(f"  {name}: {text}")
    click.echo("search strings:")
    for i, s in enumerate(queries.search_strings, 1):
        click.echo(f"  {i:2}. {s}")
    click.echo(f"expanded keywords: {'; '.join(queries.expanded_keywords)}")
    if report is not None and report.recall is not None:
        click.echo(f"\nseed check: {report.summary()}")
        for m in report.missed:
            click.echo(f"  missed: {m.title[:100]} (lost by {', '.join(m.facets) or '?'})")
        if report.widened_query:
            click.echo(f"  widened query: {report.widened_query}")
    if unresolved:
        click.echo(f"  {len(unresolved)} seed DOI(s) not among the project's papers: {', '.join(unresolved[:5])}")


#: ``--written-abstracts [FILE]`` of `bench queries` and `bench e2e`: read with :func:`written_abstracts_path`.
written_abstracts_option = click.option(
    "--written-abstracts", "written", is_flag=False, flag_value="bundled", default=None, metavar="[FILE]",
    help="also judge each review from an abstract written for the bench from its question (a review whose "
         "review.json has a published abstract keeps that one); FILE: a JSON of name, title, abstract; without "
         "FILE, the bundled agentr_dagster/data/bench/written_abstracts.json")


def written_abstracts_path(written: str | None) -> Path | None:
    """``--written-abstracts [FILE]``'s file: None when not given, the bundled file when given without FILE."""
    from agentr_dagster.bench.queries import WRITTEN_ABSTRACTS

    path = None if written is None else WRITTEN_ABSTRACTS if written == "bundled" else Path(written)
    if path is not None and not path.is_file():
        raise click.BadParameter(f"no such file: {path}", param_hint="--written-abstracts")
    return path


@click.command("queries")
@click.argument("root", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--seeds", type=int, default=5, show_default=True,
              help="includes given as seed studies per review (0: no seeded run)")
@click.option("--seed", type=int, default=0, show_default=True, help="draw of the seed studies")
@click.option("--json", "as_json", is_flag=True)
@click.option("--out", default=None, help="also write the JSON result to this file")
@click.option("--abstracts", type=click.Path(exists=True, dir_okay=False, path_type=Path), default=None,
              help="a JSON list of published review abstracts (name, title, abstract) without labels: their queries "
                   "and what they match in the pool")
@written_abstracts_option
@click.option("--background", type=click.Choice(["pool", "none"]), default="pool", show_default=True,
              help="pool: the other reviews' records judge the terms and bound the seeds, as a lake of many topics "
                   "would; none: a fresh project's case (no lake, no candidates, no source counts)")
@click.option("--pseudo-seeds", type=click.IntRange(min=0), default=0, show_default=True,
              help="refine each query by its own top-ranked matches in the pool, up to K of them (pseudo-relevance "
                   "feedback; k and the growth bound over a grid, chosen leave-one-review-out); 0: off. With it the "
                   "concept-path leave-one-out grids are not run")
@click.option("--whole-words", is_flag=True,
              help="match a term written whole only as whole words, as the sources do (default: the project's "
                   "matcher, a substring: \"software process\" also finds \"software processes\")")
def bench_queries_command(root: Path, seeds: int, seed: int, as_json: bool, out: str | None,
                          abstracts: Path | None, written: str | None, background: str, pseudo_seeds: int,
                          whole_words: bool) -> None:
    """The offline queries judged on labelled review folders, their records pooled: from each question (and
    published abstract, where review.json has one), recall of the includes, share of the other reviews' records
    matched and records matched relative to the review's own."""
    from agentr_dagster.bench.queries import format_table, run_queries_bench

    written_path = written_abstracts_path(written)
    result = run_queries_bench(root, seeds=seeds, seed=seed, abstracts=abstracts, progress=not as_json,
                               written_abstracts=written_path, background=background, pseudo_seeds=pseudo_seeds,
                               whole_words=whole_words)
    if out:
        Path(out).write_text(json.dumps(result, indent=2), encoding="utf-8")
    click.echo(json.dumps(result, indent=2) if as_json else format_table(result))
