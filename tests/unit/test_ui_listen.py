"""Where the Dagster UI may listen (agentr_dagster/cli/listen.py): loopback silently; any other address only with
the explicit opt-in, and with a warning either way (the UI has no authentication)."""

from __future__ import annotations

import pytest

from agentr_dagster.cli.listen import decide, loopback, main


@pytest.mark.parametrize("host", ["127.0.0.1", "127.0.0.2", "localhost", "LOCALHOST", "::1", "[::1]", "ui.localhost"])
def test_loopback_listens_without_a_word(host):
    assert loopback(host)
    assert decide(host, allowed=False) == (True, None)


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.168.1.20", "10.0.0.5", "my-laptop", "example.org"])
def test_anything_else_is_refused_without_the_opt_in_and_warned_with_it(host):
    assert not loopback(host)
    ok, message = decide(host, allowed=False)
    assert not ok and "NO authentication" in message and "ALLOW_REMOTE=1" in message and "refused" in message
    ok, message = decide(host, allowed=True)
    assert ok and "NO authentication" in message and "refused" not in message
    assert "docs/operations-security.md" in message


def test_the_command_takes_the_opt_in_as_its_flag(capsys):
    assert main(["0.0.0.0"]) == 1 and "refused" in capsys.readouterr().err
    assert main(["0.0.0.0", "--i-know-no-auth"]) == 0 and "WARNING" in capsys.readouterr().err
    assert main(["127.0.0.1"]) == 0 and capsys.readouterr().err == ""
