"""`agentr`: the command line. Every command honours AGENTR_HOME (default ./.agentr)."""

from __future__ import annotations

import click


@click.group()
@click.version_option(package_name="agentr-dagster")
def main() -> None:
    """agentr-dagster: durable, recoverable, cost-audited literature reviews on Dagster."""


@main.group()
def bench() -> None:
    """Benchmarks that print figures (and write JSON with --json)."""


# ---------------------------------------------------------------- commands, one module per group
from agentr_dagster.cli.inspect import export, failures, status  # noqa: E402
from agentr_dagster.cli.money import credits, pricing, usage  # noqa: E402
from agentr_dagster.cli.projects import papers, project  # noqa: E402
from agentr_dagster.cli.run import demo, run  # noqa: E402

for command in (project, papers, run, demo, status, failures, export, credits, pricing, usage):
    main.add_command(command)

from agentr_dagster.cli.bench import (  # noqa: E402
    bench_e2e_command,
    bench_growth_command,
    bench_overhead_command,
    bench_pipeline_command,
    bench_scoring_command,
)

bench.add_command(bench_scoring_command, "scoring")
bench.add_command(bench_overhead_command, "overhead")
bench.add_command(bench_growth_command, "growth")
bench.add_command(bench_pipeline_command, "pipeline")
bench.add_command(bench_e2e_command, "e2e")
from agentr_dagster.cli.screen import bench_screening_command, screen_command  # noqa: E402

main.add_command(screen_command, "screen")
bench.add_command(bench_screening_command, "screening")
from agentr_dagster.cli.recovery import resume_command  # noqa: E402
from agentr_dagster.cli.sources import snowball_command  # noqa: E402

main.add_command(resume_command, "resume")
main.add_command(snowball_command, "snowball")
from agentr_dagster.cli.lake import label_command, labels_command, lake_group, rerank_command  # noqa: E402

main.add_command(lake_group, "lake")
main.add_command(label_command, "label")
main.add_command(labels_command, "labels")
main.add_command(rerank_command, "rerank")
from agentr_dagster.cli.synthesis import (  # noqa: E402
    bench_synthesis_command,
    related_work_group,
    report_command,
    trace_command,
)

main.add_command(report_command, "report")
main.add_command(trace_command, "trace")
main.add_command(related_work_group, "related-work")
bench.add_command(bench_synthesis_command, "synthesis")
from agentr_dagster.cli.ledger import (  # noqa: E402
    budget_group,
    default_credits_command,
    estimate_command,
    ledger_group,
    multiplier_group,
    pricing_history_command,
)

main.add_command(ledger_group, "ledger")
main.add_command(estimate_command, "estimate")
main.add_command(budget_group, "budget")
main.add_command(multiplier_group, "multiplier")
pricing.add_command(pricing_history_command, "history")
credits.add_command(default_credits_command, "set-default")
from agentr_dagster.cli.inbox import inbox_command  # noqa: E402

main.add_command(inbox_command, "inbox")
from agentr_dagster.cli.queries import bench_queries_command, queries_command  # noqa: E402

main.add_command(queries_command, "queries")
bench.add_command(bench_queries_command, "queries")

from agentr_dagster.cli.common import guard_unknown_projects  # noqa: E402

guard_unknown_projects(main)  # after every command is registered


if __name__ == "__main__":
    main()
