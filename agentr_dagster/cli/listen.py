"""Where the Dagster UI may listen. It has no authentication: whoever reaches its port can launch paid runs, change
schedules and read every abstract, score and draft. So `make ui` listens on loopback only; another address needs
an explicit opt-in (``ALLOW_REMOTE=1``, or ``--i-know-no-auth``) and always prints a warning. The way to share it
is an authenticating reverse proxy in front of a loopback UI (docs/operations-security.md, deploy/ui-proxy/).

Run by the Makefile before `dagster dev`: ``python -m agentr_dagster.cli.listen HOST [--i-know-no-auth]`` exits 1
(refused) or 0; the Makefile turns ``ALLOW_REMOTE=1`` into the flag (only settings.py reads the environment).
"""

from __future__ import annotations

import ipaddress
import sys

OPT_IN_ENV = "ALLOW_REMOTE"
OPT_IN_FLAG = "--i-know-no-auth"
DOCS = "docs/operations-security.md"


def loopback(host: str) -> bool:
    """Whether ``host`` is reachable from this machine only: a loopback address or ``localhost``. A host name
    is not (it may resolve to any interface), nor is a wildcard (0.0.0.0, ::)."""
    name = host.strip().strip("[]").lower()
    if name == "localhost" or name.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def warning(host: str) -> str:
    return (f"WARNING: the Dagster UI will listen on {host}, beyond this machine, and has NO authentication: anyone "
            "who reaches the port can launch paid LLM runs and read every abstract, score and draft. Put it behind "
            f"an authenticating reverse proxy instead ({DOCS}; examples in deploy/ui-proxy/).")


def decide(host: str, *, allowed: bool) -> tuple[bool, str | None]:
    """(may listen, what to print): loopback silently; elsewhere a warning, and a refusal without the opt-in."""
    if loopback(host):
        return True, None
    if allowed:
        return True, warning(host)
    return False, (f"{warning(host)}\nrefused: listening beyond loopback needs an explicit opt-in: "
                   f"make ui HOST={host} {OPT_IN_ENV}=1 (or keep HOST=127.0.0.1 and let the proxy listen)")


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    allowed = OPT_IN_FLAG in args
    hosts = [a for a in args if a != OPT_IN_FLAG]
    if len(hosts) != 1:
        print(f"usage: python -m agentr_dagster.cli.listen HOST [{OPT_IN_FLAG}]", file=sys.stderr)
        return 2
    ok, message = decide(hosts[0], allowed=allowed)
    if message:
        print(message, file=sys.stderr)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
