"""Helpers of the MCP tests: the real server over stdio (``python -m rootcause.adapters.cli.main mcp``)
driven by the official SDK's client, and the real web service in a subprocess."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from anyio.from_thread import BlockingPortal, start_blocking_portal
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp_types import CallToolResult, TextContent
from testkit import free_port, launch_server  # noqa: F401 (free_port is re-exported to the tests)

T = TypeVar("T")
REPO = Path(__file__).resolve().parents[2]
SEED_ID = "pytorch/nccl-timeout-allreduce"
SEED_ERROR = (
    "RuntimeError: [Rank 0] NCCL communicator was aborted on rank 2. "
    "Original reason for failure was: AllReduce timed out after 600000 ms"
)
OOM_ERROR = "RuntimeError: CUDA error: out of memory"


def server_env(**extra: str) -> dict[str, str]:
    """What the MCP subprocess gets on top of the SDK's safe defaults (PATH, HOME, …)."""
    env = {"PYTHONUNBUFFERED": "1"}
    if "ROOTCAUSE_CACHE_DIR" in os.environ:  # tests/conftest.py's per-session cache
        env["ROOTCAUSE_CACHE_DIR"] = os.environ["ROOTCAUSE_CACHE_DIR"]
    if "PYTHONPATH" in os.environ:  # the code under test, where it is not the installed copy
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    return env | extra


@asynccontextmanager
async def stdio_session(**env: str) -> AsyncIterator[Client]:
    """The product's command, spawned and spoken to over stdio by the SDK's client."""
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "rootcause.adapters.cli.main", "mcp"],
        env=server_env(**env),
        cwd=str(REPO),
    )
    with tempfile.TemporaryFile("w+", encoding="utf-8") as errlog:
        try:
            async with Client(stdio_client(params, errlog=errlog), read_timeout_seconds=60) as client:
                yield client
        except BaseException:
            errlog.seek(0)
            sys.stderr.write("MCP server stderr:\n" + errlog.read())
            raise


class SyncClient:
    """One MCP session shared by many sync tests: the client runs in a blocking portal's event loop."""

    def __init__(self, portal: BlockingPortal, client: Client) -> None:
        self.portal = portal
        self.client = client

    def call(self, name: str, arguments: dict[str, Any] | None = None) -> CallToolResult:
        return self.portal.call(self.client.call_tool, name, arguments or {})

    def text(self, name: str, arguments: dict[str, Any] | None = None) -> str:
        result = self.call(name, arguments)
        assert not result.is_error, text_of(result)
        return text_of(result)

    def run(self, fn: Callable[[Client], Awaitable[T]]) -> T:
        return self.portal.call(fn, self.client)


@contextmanager
def sync_stdio_session(**env: str) -> Iterator[SyncClient]:
    with start_blocking_portal() as portal, portal.wrap_async_context_manager(stdio_session(**env)) as client:
        yield SyncClient(portal, client)


def text_of(result: CallToolResult) -> str:
    assert len(result.content) == 1, result.content
    block = result.content[0]
    assert isinstance(block, TextContent)
    return block.text


# -- the web service -----------------------------------------------------------------------------
@dataclass
class Service:
    url: str
    token: str
    proc: subprocess.Popen[bytes]
    log: Path

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def service_env(tmp: Path, cache: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ROOTCAUSE_")}
    return env | {
        "ROOTCAUSE_DATABASE_URL": f"sqlite:///{tmp / 'rootcause.db'}",
        "ROOTCAUSE_DATA_DIR": str(tmp),
        "ROOTCAUSE_CACHE_DIR": str(cache),
        "ROOTCAUSE_RATE_LIMIT": "100000/minute",
        "PYTHONUNBUFFERED": "1",
    }


def create_token(database_url: str, name: str) -> str:
    """A write token through the store's API (what `rootcause token create NAME` does)."""
    from rootcause.adapters.store import open_store
    from rootcause.adapters.store.tokens import new_token

    store = open_store(database_url)
    try:
        plain, token_hash = new_token()
        store.create_token(name, token_hash)
    finally:
        store.close()
    return plain


def start_service(tmp: Path, cache: Path) -> Service:
    """uvicorn with the app factory on a free loopback port, and a write token for it."""
    tmp.mkdir(parents=True, exist_ok=True)
    env = service_env(tmp, cache)
    token = create_token(env["ROOTCAUSE_DATABASE_URL"], "mcp-test")
    proc, url = launch_server(env, tmp / "server.log")
    return Service(url, token, proc, tmp / "server.log")
