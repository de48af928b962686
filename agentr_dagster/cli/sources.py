"""`agentr snowball <slug>`: citation chasing from the project's included or top-ranked papers (OpenAlex)."""

from __future__ import annotations

import click

from agentr_dagster.cli.common import echo_json, ensure_project_partition, fail, open_store
from agentr_dagster.stages.snowball import DEFAULT_TOP


@click.command("snowball")
@click.argument("slug")
@click.option("--top", default=DEFAULT_TOP, show_default=True, type=click.IntRange(1, 500),
              help="Seeds: the included papers plus the best-ranked ones, this many in all.")
@click.option("--refresh", is_flag=True, help="Chase seeds chased before again, bypassing the response cache.")
@click.option("--json", "as_json", is_flag=True)
def snowball_command(slug: str, top: int, refresh: bool, as_json: bool) -> None:
    """Add the references and citing works of the project's best papers as candidates (materialises the
    `snowball` asset; `agentr run <slug>` then scores what it added)."""
    from dagster import materialize

    from agentr_dagster.defs.assets.snowball import snowball
    from agentr_dagster.defs.instance import open_instance
    from agentr_dagster.defs.resources import resources_from_env
    from agentr_dagster.settings import get_settings

    if "openalex" not in get_settings().sources.names:
        fail("citation chasing asks OpenAlex: add openalex to AGENTR_SOURCES (and AGENTR_OPENALEX_URL for a mirror)")
    store = open_store()
    try:
        store.projects.get_project(slug)
    except Exception as exc:  # noqa: BLE001
        fail(str(exc))
    before = store.projects.count_papers(slug)
    ensure_project_partition(slug)
    with open_instance() as instance:
        result = materialize([snowball], partition_key=slug, instance=instance, resources=resources_from_env(),
                             raise_on_error=False, tags={"agentr/source": "cli"},
                             run_config={"ops": {"snowball": {"config": {"top": top, "refresh": refresh}}},
                                         # the summary below says what happened; step logs stay in the UI
                                         "loggers": {"console": {"config": {"log_level": "WARNING"}}}})
    if not result.success:
        fail(f"snowball for {slug} failed; see `agentr failures {slug}`")
    metadata = {k: v.value for k, v in result.asset_materializations_for_node("snowball")[0].metadata.items()}
    if as_json:
        echo_json(metadata)
        return
    click.echo(f"{slug}: {metadata['seeds']} seeds, {metadata['chases_sent']} chases sent "
               f"({metadata['chases_skipped']} done before), {metadata['failures']} failed; "
               f"{metadata['new_papers']} new candidates ({before} -> {store.projects.count_papers(slug)})")
    click.echo(metadata["chases"])
    if metadata["new_papers"]:
        click.echo(f"score them: agentr run {slug}")
