"""Idempotent outcome reports: a retry with the same Idempotency-Key is stored once and gets
the same answer; the key reused for another report is refused; a database made before the
key existed gets its column and unique index when the service opens it."""

from __future__ import annotations

import threading
import uuid
from pathlib import Path

import httpx
import pytest
from service_support import SEED_ID, STORES, PgSchemas, Server, assert_error, database_url_for
from sqlalchemy import inspect, text

from rootcause.adapters.store import NewOutcome, open_store
from rootcause.adapters.store.tokens import new_token

PATH = f"/api/v1/entries/{SEED_ID}/outcomes"
BODY = {"index": 1, "result": "partial", "versions": {"torch": "2.3.1"}, "note": "after a restart"}


def reports(c: httpx.Client) -> int:
    return int(c.get(f"/api/v1/entries/{SEED_ID}/stats").json()["reports"])


def test_a_retry_is_stored_once_with_the_same_answer(server: Server, make_token: object) -> None:
    token = make_token(server)  # type: ignore[operator]
    key = str(uuid.uuid4())
    with server.client(headers={"authorization": f"Bearer {token}", "idempotency-key": key}) as c:
        before = reports(c)
        first = c.post(PATH, json=BODY)
        assert first.status_code == 201, first.text
        assert "idempotent-replayed" not in first.headers
        again = c.post(PATH, json=BODY)
        assert again.status_code == 201
        assert again.headers["idempotent-replayed"] == "true"
        assert again.json() == first.json()
        # the same report written differently (key order, a non-canonical package name) is the same report
        same = c.post(
            PATH, json={"note": "after a restart", "versions": {"Torch": "2.3.1"}, "result": "partial", "index": 1}
        )
        assert same.json()["id"] == first.json()["id"]
        assert reports(c) == before + 1

        error = assert_error(c.post(PATH, json={**BODY, "result": "worked"}), 422, "idempotency_key_reused")
        assert key in str(error["message"])
        assert reports(c) == before + 1

        assert_error(c.post(PATH, json=BODY, headers={"idempotency-key": "k" * 256}), 400, "bad_request")
        assert_error(c.post(PATH, json=BODY, headers={"idempotency-key": "two words"}), 400, "bad_request")


def test_keys_belong_to_their_token(server: Server, make_token: object) -> None:
    key = str(uuid.uuid4())
    ids = set()
    for _ in range(2):
        token = make_token(server)  # type: ignore[operator]
        with server.client(headers={"authorization": f"Bearer {token}", "idempotency-key": key}) as c:
            r = c.post(PATH, json=BODY)
            assert r.status_code == 201 and "idempotent-replayed" not in r.headers
            ids.add(r.json()["id"])
    assert len(ids) == 2


def test_racing_retries_store_one_report(server: Server, make_token: object) -> None:
    token = make_token(server)  # type: ignore[operator]
    key = str(uuid.uuid4())
    answers: list[tuple[int, str]] = []
    lock = threading.Lock()
    go = threading.Barrier(8)

    def send() -> None:
        with server.client(headers={"authorization": f"Bearer {token}", "idempotency-key": key}) as c:
            go.wait()
            r = c.post(PATH, json=BODY)
            with lock:
                answers.append((r.status_code, r.json().get("id", r.text)))

    threads = [threading.Thread(target=send) for _ in range(8)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(timeout=60)
    assert len(answers) == 8
    assert {status for status, _ in answers} == {201}
    assert len({uid for _, uid in answers}) == 1
    with server.client() as c:
        listed = c.get(PATH, params={"limit": 200}).json()["outcomes"]
    assert sum(1 for o in listed if o["id"] == answers[0][1]) == 1


@pytest.mark.parametrize("store_kind", STORES)
def test_an_older_database_gets_the_column(store_kind: str, tmp_path: Path, pg_schemas: PgSchemas) -> None:
    url = database_url_for(store_kind, "migrate", tmp_path, pg_schemas)
    store = open_store(url)
    _, token_hash = new_token()
    token = store.create_token("old", token_hash)
    old = store.add_outcome(NewOutcome(SEED_ID, "workaround", 0, "restart", "worked", token.id), [])
    with store._writer.begin() as conn:  # type: ignore[attr-defined]
        # what version 1 of the schema had: no key, no hash, no index
        conn.execute(text("DROP INDEX rc_outcomes_idempotency"))
        conn.execute(text("ALTER TABLE rc_outcomes DROP COLUMN idempotency_key"))
        conn.execute(text("ALTER TABLE rc_outcomes DROP COLUMN request_hash"))
    store.close()

    store = open_store(url)
    try:
        with store._reader.connect() as conn:  # type: ignore[attr-defined]
            columns = {c["name"] for c in inspect(conn).get_columns("rc_outcomes")}
            indexes = {i["name"]: i for i in inspect(conn).get_indexes("rc_outcomes")}
        assert {"idempotency_key", "request_hash"} <= columns
        assert indexes["rc_outcomes_idempotency"]["unique"]
        assert store.has_outcomes([old.uid]) == {old.uid}
        keyed = NewOutcome(
            SEED_ID, "workaround", 0, "restart", "worked", token.id, idempotency_key="k1", request_hash="h"
        )
        first = store.add_outcome(keyed, [])
        again = store.add_outcome(keyed, [])
        assert again.uid == first.uid and again.replayed and not first.replayed
        assert store.outcome_count() == 2
    finally:
        store.close()
