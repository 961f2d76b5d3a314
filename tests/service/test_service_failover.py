"""Two service processes on one PostgreSQL, writers on both, and a kill -9 of one in the middle
of the writes. Writers whose report was not acknowledged retry it, with the same
Idempotency-Key, on the process that lives. Afterwards every report is stored exactly once:
none lost (acknowledged or retried), none counted twice (a report the dead process had
committed before it died is answered from the store, not stored again)."""

from __future__ import annotations

import threading
import time
from collections import Counter
from pathlib import Path

import httpx
from service_support import SEED_ID, PgSchemas, start_server
from sqlalchemy import func, select

from rootcause.adapters.store import open_store
from rootcause.adapters.store import schema as t
from rootcause.adapters.store.tokens import new_token

PATH = f"/api/v1/entries/{SEED_ID}/outcomes"
WRITERS_PER_SERVER = 4
REPORTS_PER_WRITER = 25
KILL_AFTER_ACKS = 50


def test_kill9_of_one_of_two_processes_loses_and_doubles_nothing(
    tmp_path: Path, pg_schemas: PgSchemas, cache_dir: Path
) -> None:
    url = pg_schemas.new("failover")
    a = start_server(url, tmp_path / "a", cache_dir, rate_limit="1000000/day")
    b = start_server(url, tmp_path / "b", cache_dir, rate_limit="1000000/day")
    store = open_store(url)
    token, token_hash = new_token()
    store.create_token("failover", token_hash)
    auth = {"authorization": f"Bearer {token}"}
    acked: dict[str, str] = {}  # idempotency key -> acknowledged report id
    retried_keys: set[str] = set()
    replayed: list[str] = []
    lock = threading.Lock()

    def writer(name: str, first: str) -> None:
        clients = {base: httpx.Client(base_url=base, timeout=10, headers=auth) for base in {first, b.url}}
        target = first
        for i in range(REPORTS_PER_WRITER):
            key = f"{name}-{i}"
            body = {"index": i % 3, "result": "worked", "note": f"{name} report {i}"}
            for _ in range(50):
                try:
                    r = clients[target].post(PATH, json=body, headers={"idempotency-key": key})
                except httpx.TransportError:
                    with lock:
                        retried_keys.add(key)
                    target = b.url  # the first process is gone: retry on the other
                    continue
                assert r.status_code == 201, r.text
                with lock:
                    acked[key] = r.json()["id"]
                    if r.headers.get("idempotent-replayed") == "true":
                        replayed.append(key)
                break
            else:
                raise AssertionError(f"{key} was never acknowledged")
        for c in clients.values():
            c.close()

    threads = [
        threading.Thread(target=writer, args=(f"{srv}{n}", base))
        for srv, base in (("a", a.url), ("b", b.url))
        for n in range(WRITERS_PER_SERVER)
    ]
    try:
        for th in threads:
            th.start()
        deadline = time.monotonic() + 60
        while len(acked) < KILL_AFTER_ACKS and time.monotonic() < deadline:
            time.sleep(0.005)
        a.kill9()  # mid-write: requests to it are in flight
        for th in threads:
            th.join(timeout=120)
        assert not any(th.is_alive() for th in threads)
    finally:
        a.stop()
        b.stop()

    try:
        expected = 2 * WRITERS_PER_SERVER * REPORTS_PER_WRITER
        assert len(acked) == expected  # every report was acknowledged in the end
        assert retried_keys, "the kill interrupted no write: the test proved nothing"
        o = t.outcomes
        deadline = time.monotonic() + 10
        while store.outcome_count() != expected and time.monotonic() < deadline:
            time.sleep(0.2)  # a backend of the dead process may still finish its COMMIT
        with store._reader.connect() as conn:  # type: ignore[attr-defined]
            stored = dict(conn.execute(select(o.c.idempotency_key, o.c.uid)).all())
            per_key = Counter(conn.execute(select(o.c.idempotency_key)).scalars())
            hits = conn.execute(
                select(func.coalesce(func.sum(t.rate_counters.c.hits), 0)).where(
                    t.rate_counters.c.bucket.like("token:%")
                )
            ).scalar_one()
        assert max(per_key.values()) == 1  # nothing stored twice
        assert stored == acked  # nothing lost, and each answer names the row that holds it
        assert store.outcome_count() == expected
        assert int(hits) == expected  # a replay is not counted against the limits
        print(f"failover: {expected} reports, {len(retried_keys)} retried after the kill, {len(replayed)} replayed")
    finally:
        store.close()
