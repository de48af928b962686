"""`agentr run` prints a run's own warnings one line each (Dagster's console logger is silenced without --verbose)."""

from __future__ import annotations

from dagster import DagsterInstance, asset, materialize

from agentr_dagster.cli.run import _print_warnings


@asset
def noisy(context) -> int:
    context.log.info("an info line stays in the UI")
    context.log.warning("openalex boolean failed (retried next run): 400 query too long")
    return 1


def test_a_run_s_warnings_are_printed_and_nothing_else(capsys):
    instance = DagsterInstance.ephemeral()
    result = materialize([noisy], instance=instance,
                         run_config={"loggers": {"console": {"config": {"log_level": "CRITICAL"}}}})
    assert result.success
    capsys.readouterr()
    _print_warnings(instance, result.run_id)
    err = capsys.readouterr().err.splitlines()
    assert err == ["warning: noisy: openalex boolean failed (retried next run): 400 query too long"]
