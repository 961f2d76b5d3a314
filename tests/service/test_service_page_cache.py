"""Entry pages on SQLite: one read query per request, no writes and no schema work; the rendered page
is held per entry, format and language, and is rendered again when an outcome report or a fleet ingest
changes what it shows."""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from service_support import SEED_ID
from sqlalchemy import event

from rootcause.adapters.fleet.store import FleetStore
from rootcause.adapters.store.base import NewOutcome
from rootcause.adapters.web import state as web_state
from rootcause.adapters.web.app import create_app
from rootcause.adapters.web.settings import Settings

PAGE = f"/errors/{SEED_ID}/"


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> FastAPI:
    db = tmp_path_factory.mktemp("pages") / "pages.db"
    return create_app(Settings(database_url=f"sqlite:///{db}"))


@pytest.fixture(scope="module")
def client(app: FastAPI) -> Iterator[TestClient]:
    with TestClient(app) as c:
        yield c


class Statements:
    """Every SQL statement SQLite runs for the store's engines after they connect, by engine, as the driver's
    trace callback reports them (whatever way the store sent them); on the reader, transaction control aside."""

    def __init__(self, store: Any) -> None:
        self.sent: dict[str, list[str]] = {"read": [], "write": []}
        for name, engine in (("read", store._reader), ("write", store._writer)):
            engine.dispose()  # new connections, each traced from its start
            event.listen(engine, "connect", self._hook(name))

    def _hook(self, name: str) -> Any:
        def on_connect(dbapi_conn: Any, _record: Any) -> None:
            dbapi_conn.set_trace_callback(lambda sql: self._record(name, sql))

        return on_connect

    def _record(self, name: str, sql: str) -> None:
        if name == "write" or sql.split()[0].upper() not in {"BEGIN", "COMMIT", "ROLLBACK"}:
            self.sent[name].append(sql)

    def clear(self) -> None:
        for sent in self.sent.values():
            sent.clear()


def test_a_held_page_costs_one_read_and_no_write(
    app: FastAPI, client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the page is also rendered again each minute (its hit counts are rolling windows): on a loaded box the four
    # requests could straddle a minute's end, so the minute is held still here
    monkeypatch.setattr(web_state, "PAGE_REFRESH_SECONDS", 10**9)
    statements = Statements(app.state.rootcause.store)
    first = client.get(PAGE)
    assert first.status_code == 200
    assert statements.sent["write"] == []  # not even the first render writes or creates a table
    statements.clear()
    for _ in range(3):
        again = client.get(PAGE)
        assert again.text == first.text
    assert statements.sent["write"] == []
    assert len(statements.sent["read"]) == 3  # one query per request: the page token
    assert not any("CREATE" in s.upper() for s in statements.sent["read"])


def test_an_outcome_report_and_a_fleet_ingest_show_at_once(app: FastAPI, client: TestClient) -> None:
    store = app.state.rootcause.store
    before = client.get(PAGE).text
    assert client.get(f"/errors/{SEED_ID}/zh.html").status_code == 200  # held apart, per language
    token = store.create_token("page-cache", "0" * 64)
    action = app.state.rootcause.entry(SEED_ID).workarounds[0].action
    for result in ("worked", "worked", "failed"):
        store.add_outcome(NewOutcome(SEED_ID, "workaround", 0, action, result, token.id), [])
    reported = client.get(PAGE).text
    assert reported != before
    assert "3 report" in reported
    assert "Seen in fleet runs" not in reported
    now_ms = int(time.time() * 1000)
    row = {
        "path": "/logs/job1/rank0.log",
        "entry_id": SEED_ID,
        "line": 7,
        "seen_at": now_ms - 3_600_000,
        "kind": "known",
        "job": "job1",
        "host": "node1",
        "rank": 0,
    }
    assert FleetStore(store).add_hits([row]) == 1
    ingested = client.get(PAGE).text
    assert "Seen in fleet runs" in ingested and "1 in the last 24 hours" in ingested
    assert "3 report" in ingested
    zh = client.get(f"/errors/{SEED_ID}/zh.html").text
    assert "Seen in fleet runs" in zh
    assert FleetStore(store).rolling(SEED_ID, now=dt.datetime.now(dt.UTC).replace(tzinfo=None)) == {
        "24h": 1,
        "7d": 1,
        "30d": 1,
    }
