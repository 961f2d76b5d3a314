"""Auth before parsing: a write without a valid token, or past its limit, is refused from its
headers alone. The server answers before the body arrives, so a stranger learns nothing of
the schema (no 422) and a flood costs no parse."""

from __future__ import annotations

import json
import socket
import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from service_support import SEED_ID, STORES, PgSchemas, Server, assert_error, database_url_for, start_server

from rootcause.adapters.store import open_store
from rootcause.adapters.store.tokens import new_token

PATH = f"/api/v1/entries/{SEED_ID}/outcomes"
PROMISED = 50_000_000  # the Content-Length a request promises; it sends a handful of bytes


def answer_before_body(server: Server, headers: dict[str, str], wait_s: float = 10.0) -> tuple[int, dict, float]:
    """Send the headers of a POST that promises PROMISED bytes, send 9 of them and stop.

    A server that reads the body first would wait for the rest (it never comes); one that
    checks the headers first answers at once. Returns (status, JSON body, seconds taken).
    """
    url = urlsplit(server.url)
    lines = [f"POST {PATH} HTTP/1.1", f"Host: {url.netloc}", "Content-Type: application/json"]
    lines += [f"Content-Length: {PROMISED}", *(f"{k}: {v}" for k, v in headers.items())]
    started = time.monotonic()
    with socket.create_connection((url.hostname, url.port), timeout=wait_s) as sock:
        sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode() + b'{"index":')
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = sock.recv(65536)  # socket.timeout here means the server waited for the body
            if not chunk:
                break
            data += chunk
        head, _, rest = data.partition(b"\r\n\r\n")
        length = next(
            int(line.split(b":", 1)[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length:")
        )
        while len(rest) < length:
            chunk = sock.recv(65536)
            if not chunk:
                break
            rest += chunk
    status = int(head.split(b" ", 2)[1])
    return status, json.loads(rest[:length]), time.monotonic() - started


def test_no_token_is_401_before_the_body(server: Server) -> None:
    status, body, took = answer_before_body(server, {})
    assert status == 401, body
    assert body["error"]["code"] == "unauthorized"
    assert took < 5  # it did not wait for the 50 MB it was promised


def test_wrong_token_is_401_before_the_body(server: Server) -> None:
    status, body, _ = answer_before_body(server, {"Authorization": "Bearer rc_not-a-real-token"})
    assert status == 401, body
    assert body["error"]["message"] == "unknown or revoked token"


def test_invalid_or_huge_body_without_token_is_401_not_422(server: Server) -> None:
    with server.client() as c:
        for content in (b"{not json", b'{"unexpected": true}', b"x" * (2 << 20)):
            r = c.post(PATH, content=content, headers={"content-type": "application/json"})
            assert_error(r, 401, "unauthorized")
        # and an unknown entry does not tell a stranger which ids exist
        assert_error(c.post("/api/v1/entries/pytorch/nope/outcomes", json={}), 401, "unauthorized")


def test_with_a_token_the_body_is_read_and_validated(server: Server, make_token: object) -> None:
    token = make_token(server)  # type: ignore[operator]
    with server.client(headers={"authorization": f"Bearer {token}"}) as c:
        assert_error(
            c.post(PATH, content=b"{not json", headers={"content-type": "application/json"}), 422, "invalid_request"
        )
        too_big = c.post(PATH, content=b" " * (1 << 20), headers={"content-type": "application/json"})
        assert_error(too_big, 413, "too_large")


@pytest.mark.parametrize("store_kind", STORES)
def test_a_flood_is_refused_before_the_body(
    store_kind: str, tmp_path: Path, pg_schemas: PgSchemas, cache_dir: Path
) -> None:
    url = database_url_for(store_kind, "flood", tmp_path, pg_schemas)
    server = start_server(url, tmp_path, cache_dir, rate_limit="3/day")
    store = open_store(url)
    token, token_hash = new_token()
    store.create_token("flooder", token_hash)
    auth = {"authorization": f"Bearer {token}"}
    try:
        with server.client(headers=auth) as c:
            for i in range(3):
                assert c.post(PATH, json={"index": 0, "result": "worked", "note": f"{i}"}).status_code == 201
            status, body, took = answer_before_body(server, {"Authorization": f"Bearer {token}"})
            assert status == 429, body
            assert body["error"]["code"] == "rate_limited"
            assert took < 5
            # refused before validation too: a malformed body still gets 429, not 422
            r = c.post(PATH, content=b"{not json", headers={"content-type": "application/json"})
            assert_error(r, 429, "rate_limited")
            assert int(r.headers["retry-after"]) >= 1
        assert store.outcome_count() == 3
    finally:
        server.stop()
        store.close()
