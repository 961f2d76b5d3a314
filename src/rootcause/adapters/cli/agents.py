"""`rootcause mcp`: the Model Context Protocol server for coding agents, over stdio."""

from __future__ import annotations

from contextlib import suppress

import click


@click.command()
@click.option("--canon", multiple=True, metavar="PATH", help="Extra canon folder (repeatable); also $ROOTCAUSE_CANON.")
def mcp(canon: tuple[str, ...]) -> None:
    """Serve the MCP tools over stdio: diagnose, get_entry, search, report_outcome.

    Register it with an agent, e.g. `claude mcp add rootcause -- rootcause mcp` (docs/mcp.md).
    report_outcome needs $ROOTCAUSE_SERVICE_URL and $ROOTCAUSE_TOKEN.
    """
    from rootcause.adapters.mcp_server import run_stdio

    with suppress(KeyboardInterrupt):  # the client, or a terminal's Ctrl-C, ends the session
        run_stdio(canon)
