"""report_outcome against the real web service, and the MCP endpoint the service mounts at /mcp
(streamable HTTP, spoken to by the SDK's client)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import anyio
import httpx
import httpx2
import pytest
from mcp.client import Client
from mcp.client.streamable_http import streamable_http_client
from mcp_support import SEED_ERROR, SEED_ID, Service, free_port, start_service, stdio_session, text_of

pytest.importorskip("rootcause.adapters.web.app", reason="the web service is not there yet")


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    from rootcause.adapters.web import app

    if not hasattr(app, "create_app"):
        pytest.skip("rootcause.adapters.web.app.create_app does not exist yet")
    # the same index cache as every other test of the session (tests/conftest.py)
    running = start_service(tmp_path_factory.mktemp("service"), tmp_path_factory.getbasetemp() / "cache")
    yield running
    running.stop()


def _outcomes(service: Service, entry_id: str = SEED_ID) -> list[dict[str, object]]:
    r = httpx.get(f"{service.url}/api/v1/entries/{entry_id}/outcomes", timeout=30)
    assert r.status_code == 200, r.text
    rows: list[dict[str, object]] = r.json()["outcomes"]
    return rows


def test_report_outcome_over_stdio_reaches_the_service(service: Service) -> None:
    before = len(_outcomes(service))

    async def body() -> None:
        async with stdio_session(ROOTCAUSE_SERVICE_URL=service.url, ROOTCAUSE_TOKEN=service.token) as client:
            result = await client.call_tool(
                "report_outcome",
                {
                    "id": SEED_ID,
                    "index": 1,
                    "result": "worked",
                    "env": {"torch": "2.3.1", "NCCL": "2.20.5"},
                    "note": "  accumulation of 4 steps was enough  ",
                },
            )
            assert not result.is_error, text_of(result)
            assert text_of(result).startswith(f"recorded: worked for {SEED_ID} workaround [1] ")
            result = await client.call_tool(
                "report_outcome",
                # the former names (workaround, outcome) are still accepted
                {"id": SEED_ID, "workaround": "export NCCL_TIMEOUT=1200", "kind": "dead_end", "outcome": "failed"},
            )
            assert not result.is_error, text_of(result)
            assert "dead end [0]" in text_of(result)

    anyio.run(body)
    rows = _outcomes(service)
    assert len(rows) == before + 2
    worked = next(row for row in rows if row["kind"] == "workaround" and row["index"] == 1)
    assert worked["entry_id"] == SEED_ID and worked["index"] == 1 and worked["result"] == "worked"
    assert worked["versions"] == {"torch": "2.3.1", "nccl": "2.20.5"}
    assert worked["note"] == "accumulation of 4 steps was enough"
    assert worked["reporter"] == "mcp-test"
    dead = next(row for row in rows if row["kind"] == "dead_end")
    assert dead["index"] == 0 and dead["result"] == "failed" and dead["action"] == "export NCCL_TIMEOUT=1200"


def test_refusals_and_unreachable_services_become_tool_errors(service: Service) -> None:
    """The reporter the stdio server uses, in this process: each failure is one clear message."""
    from mcp.server.mcpserver.exceptions import ToolError

    from rootcause.adapters.mcp_server import OutcomeReport, post_outcome

    report = OutcomeReport(SEED_ID, "workaround", 0, "…", "worked")
    with pytest.raises(ToolError, match=r"refused the report \(HTTP 401\): unknown or revoked token"):
        post_outcome(service.url, "rc_not-a-token", report)
    with pytest.raises(ToolError, match=r"refused the report \(HTTP 404\): no entry with id 'x/y'"):
        post_outcome(service.url, service.token, OutcomeReport("x/y", "workaround", 0, "…", "worked"))
    with pytest.raises(ToolError, match=r"refused the report \(HTTP 422\)"):
        post_outcome(service.url, service.token, OutcomeReport(SEED_ID, "workaround", 99, "…", "worked"))
    unreachable = f"http://127.0.0.1:{free_port()}"
    with pytest.raises(ToolError, match=f"cannot reach the rootcause service at {unreachable}"):
        post_outcome(unreachable, service.token, report)


def test_the_mounted_endpoint_answers_tool_calls(service: Service) -> None:
    url = f"{service.url}/mcp"

    async def body() -> None:
        for mode in ("auto", "legacy"):
            async with Client(url, mode=mode, read_timeout_seconds=60) as client:
                names = {t.name for t in (await client.list_tools()).tools}
                assert names == {"diagnose", "get_entry", "search", "report_outcome"}
                doc = json.loads(text_of(await client.call_tool("diagnose", {"text": SEED_ERROR, "format": "json"})))
                assert [f["id"] for f in doc["findings"]] == [SEED_ID]
                entry = text_of(await client.call_tool("get_entry", {"id": SEED_ID}))
                assert entry.startswith(f"{SEED_ID}: ")
                bad = await client.call_tool("get_entry", {"id": "nope/nope"})
                assert bad.is_error and "no entry with id 'nope/nope'" in text_of(bad)
                # without a token, the endpoint says how to send one
                anonymous = await client.call_tool("report_outcome", {"id": SEED_ID, "index": 0, "result": "worked"})
                assert anonymous.is_error and "Authorization: Bearer" in text_of(anonymous)
                # a large log goes through (the service's upload limit, not the SDK's 4 MiB), then is cut
                huge = SEED_ERROR + "\n" + "step 1: loss=0.5\n" * 300_000
                text = text_of(await client.call_tool("diagnose", {"text": huge}))
                assert f"#1 {SEED_ID}" in text and "note: input truncated: " in text

    anyio.run(body)


def test_report_outcome_over_http_with_the_callers_token(service: Service) -> None:
    before = len(_outcomes(service))

    async def body() -> None:
        headers = {"Authorization": f"Bearer {service.token}"}
        async with (
            httpx2.AsyncClient(headers=headers, timeout=60) as http,
            Client(streamable_http_client(f"{service.url}/mcp", http_client=http)) as client,
        ):
            result = await client.call_tool(
                "report_outcome", {"id": SEED_ID, "index": 2, "result": "partial", "env": "torch==2.4.0"}
            )
            assert not result.is_error, text_of(result)
            bad = await client.call_tool(
                "report_outcome", {"id": SEED_ID, "index": 0, "result": "worked", "env": {"not a name!": "1"}}
            )
            assert bad.is_error and "the service refused the report" in text_of(bad)
        async with (
            httpx2.AsyncClient(headers={"Authorization": "Bearer rc_wrong"}, timeout=60) as http,
            Client(streamable_http_client(f"{service.url}/mcp", http_client=http)) as client,
        ):
            wrong = await client.call_tool("report_outcome", {"id": SEED_ID, "index": 0, "result": "worked"})
            assert wrong.is_error and "unknown or revoked token" in text_of(wrong)

    anyio.run(body)
    rows = _outcomes(service)
    assert len(rows) == before + 1
    newest = max(rows, key=lambda row: str(row["created_at"]))
    assert newest["index"] == 2 and newest["result"] == "partial" and newest["versions"] == {"torch": "2.4.0"}


def test_each_app_lifespan_runs_a_fresh_session_manager(tmp_path: Path) -> None:
    """The mount follows the app's lifespan: started with it, stopped with it, and startable again."""
    from fastapi.testclient import TestClient

    from rootcause.adapters.web.app import create_app
    from rootcause.adapters.web.settings import Settings

    app = create_app(Settings(database_url=f"sqlite:///{tmp_path / 'lifespan.db'}"))
    initialize = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
    }
    headers = {"Accept": "application/json, text/event-stream"}
    for _ in range(2):
        with TestClient(app) as client:
            r = client.post("/mcp", json=initialize, headers=headers)
            assert r.status_code == 200, r.text
            assert r.json()["result"]["serverInfo"]["name"] == "rootcause"
            assert client.get("/-/health").status_code == 200  # the app's own lifespan ran too
    r = TestClient(app).post("/mcp", json=initialize, headers=headers)  # no lifespan: a clear 503
    assert r.status_code == 503 and r.json()["error"]["code"] == "mcp_not_started"
