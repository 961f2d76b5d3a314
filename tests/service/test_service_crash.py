"""kill -9 of the server in the middle of writes: afterwards the database is consistent
and every report that was acknowledged (201) is there, on both stores."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import httpx
import pytest
from service_support import SEED_ID, STORES, PgSchemas, database_url_for, start_server
from sqlalchemy import func, select, text

from rootcause.adapters.store import open_store
from rootcause.adapters.store import schema as t
from rootcause.adapters.store.tokens import new_token

WRITERS = 8
KILL_AFTER_ACKS = 80


def settled_counts(store: object) -> tuple[int, int]:
    """Reports and limit-counter hits, read in one statement (one snapshot) once they stop
    changing: a PostgreSQL backend may still finish a COMMIT its dead client had sent."""
    o, rc = t.outcomes, t.rate_counters
    stmt = select(
        select(func.count()).select_from(o).scalar_subquery(),
        select(func.coalesce(func.sum(rc.c.hits), 0)).where(rc.c.bucket.like("token:%")).scalar_subquery(),
    )
    last: tuple[int, int] | None = None
    for _ in range(50):
        with store._reader.connect() as conn:  # type: ignore[attr-defined]
            now = tuple(int(v) for v in conn.execute(stmt).one())
        if now == last:
            return now  # type: ignore[return-value]
        last = now  # type: ignore[assignment]
        time.sleep(0.2)
    raise AssertionError(f"the counts never settled: {last}")


@pytest.mark.parametrize("store_kind", STORES)
def test_kill9_during_writes_loses_no_acknowledged_report(
    store_kind: str, tmp_path: Path, pg_schemas: PgSchemas, cache_dir: Path
) -> None:
    url = database_url_for(store_kind, "crash", tmp_path, pg_schemas)
    server = start_server(url, tmp_path, cache_dir, rate_limit="1000000/day")
    store = open_store(url)
    token, token_hash = new_token()
    store.create_token("crash-writer", token_hash)
    acked: list[str] = []
    lock = threading.Lock()
    stop = threading.Event()

    def writer(n: int) -> None:
        with httpx.Client(base_url=server.url, timeout=10, headers={"authorization": f"Bearer {token}"}) as c:
            i = 0
            while not stop.is_set():
                try:
                    r = c.post(
                        f"/api/v1/entries/{SEED_ID}/outcomes",
                        json={"index": i % 3, "result": "worked", "note": f"writer {n} report {i}"},
                    )
                except httpx.TransportError:
                    return  # the server is gone: this report was never acknowledged
                if r.status_code == 201:
                    with lock:
                        acked.append(r.json()["id"])
                i += 1

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(WRITERS)]
    try:
        for th in threads:
            th.start()
        deadline = time.monotonic() + 60
        while len(acked) < KILL_AFTER_ACKS and time.monotonic() < deadline:
            time.sleep(0.01)
        server.kill9()  # mid-write: other requests are in flight
        stop.set()
        for th in threads:
            th.join(timeout=30)
    finally:
        stop.set()
        server.stop()
    assert len(acked) >= KILL_AFTER_ACKS

    # consistent: every acknowledged report is there, and each write was all-or-nothing
    if store_kind == "sqlite":
        with store._reader.connect() as conn:  # type: ignore[attr-defined]
            assert conn.execute(text("PRAGMA integrity_check")).scalar_one() == "ok"
            assert conn.execute(text("PRAGMA journal_mode")).scalar_one() == "wal"
    rows, hits = settled_counts(store)
    assert store.has_outcomes(acked) == set(acked)
    assert rows >= len(acked)
    assert hits == rows  # the limit counter and the report commit together, or not at all

    # and the service comes back on the same database
    again = start_server(url, tmp_path, cache_dir, rate_limit="1000000/day")
    try:
        with httpx.Client(base_url=again.url, timeout=10, headers={"authorization": f"Bearer {token}"}) as c:
            r = c.post(f"/api/v1/entries/{SEED_ID}/outcomes", json={"index": 0, "result": "failed"})
            assert r.status_code == 201
            assert c.get(f"/api/v1/entries/{SEED_ID}/stats").json()["reports"] == rows + 1
    finally:
        again.stop()
        store.close()
