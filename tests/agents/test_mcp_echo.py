"""Tool errors repeat their arguments clipped: a 1 MiB argument never comes back as 1 MiB."""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from mcp.server.mcpserver.exceptions import ToolError

from rootcause.adapters.mcp_server import ECHO_MAX, LocalCanon, build_server

HUGE = "x" * (1 << 20)


def _error_of(tool: str, arguments: dict[str, Any]) -> str:
    async def call() -> str:
        server = build_server(LocalCanon())
        try:
            await server.call_tool(tool, arguments)
        except ToolError as exc:
            return str(exc)
        raise AssertionError(f"{tool} accepted {list(arguments)}")

    return anyio.run(call)


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("get_entry", {"id": HUGE}),
        ("search", {"query": "nccl timeout", "domain": HUGE}),
        ("report_outcome", {"id": "pytorch/nccl-timeout-allreduce", "workaround": HUGE, "outcome": "worked"}),
        ("diagnose", {"text": "RuntimeError: boom", "env": HUGE}),
    ],
)
def test_tool_errors_clip_what_they_echo(tool: str, arguments: dict[str, Any]) -> None:
    message = _error_of(tool, arguments)
    assert len(message) < 2_500, len(message)
    assert "x" * (ECHO_MAX + 1) not in message
